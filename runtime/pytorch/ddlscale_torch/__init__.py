"""ddlscale's collectives as a torch.distributed backend, for a job that mpirun or torchrun started.

Importing this package registers two things with torch.distributed:

- the backend "ddlscale": a process group whose allreduce, broadcast, all-gather and barrier run ddlscale's
  schedules (ring, ddl, halving-doubling, ...) on host memory, over MPI in a job that mpirun started, else
  over TCP (each group's rank 0 listens on a free port and tells the others through torch's store); and
- the rendezvous "ddlscale://": torch's rank and world size are the MPI job's, and rank 0's store is found
  through MPI, so no MASTER_ADDR or MASTER_PORT is needed.

An existing DistributedDataParallel script changes in two lines:

    import ddlscale_torch                                                   # added
    dist.init_process_group("ddlscale", init_method="ddlscale://")         # was ("gloo", ...)

and runs as `mpirun -np 4 python3 train.py`. Under torchrun (`torchrun --nproc_per_node 4 train.py`) the one line
is `dist.init_process_group("ddlscale")`, with torch's own env:// rendezvous. DDLSCALE_BOOTSTRAP=mpi or
tcp overrides how the ranks meet. The allreduce's algorithm comes from the environment, read when a
group is made: DDLSCALE_ALGORITHM="ddl dims=2x2" (a name, then its options as ddlrun's flags without dashes), or
DDLSCALE_TUNING=table.json (a table from `ddlsim tune --json`, which chooses per call by size); ring when neither
is set. A group's `set_algorithm`, `set_tuning` and `describe` change and tell it later (collectively).
"""
import atexit
import json
import os
import socket
import urllib.parse

import torch.distributed as dist

from . import _C

ProcessGroupDdlscale = _C.ProcessGroupDdlscale

ALGORITHM_VARIABLE = "DDLSCALE_ALGORITHM"
TUNING_VARIABLE = "DDLSCALE_TUNING"
BOOTSTRAP_VARIABLE = "DDLSCALE_BOOTSTRAP"
# What an MPI launcher (Open MPI's, MPICH's Hydra, Slurm's PMI/PMIx) puts in each rank's environment.
MPI_LAUNCHER_VARIABLES = ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK")
# The store key under which a group's rank 0 says where it listens; the store is the group's own (prefixed).
ROOT_KEY = "ddlscale_root"


def launched_by_mpi(environment=os.environ):
    """Whether the ranks meet over MPI (mpirun started the job, or DDLSCALE_BOOTSTRAP=mpi) rather than TCP."""
    bootstrap = environment.get(BOOTSTRAP_VARIABLE, "").strip()
    if bootstrap not in ("", "mpi", "tcp"):
        raise ValueError(f"ddlscale: {BOOTSTRAP_VARIABLE}={bootstrap!r}: give mpi or tcp")
    if bootstrap:
        return bootstrap == "mpi"
    return any(name in environment for name in MPI_LAUNCHER_VARIABLES)


def _tcp_root_address(store, rank):
    """Where the group's rank 0 listens, as this rank reaches it: rank 0 takes a port that is free now, on
    every interface, and puts it in the group's store with its interfaces' addresses; every other rank
    reaches it by the one on its own subnet (the loopback on one host), as the ddlscale:// rendezvous does."""
    if rank == 0:
        with socket.socket() as probe:
            probe.bind(("", 0))
            port = probe.getsockname()[1]
        store.set(ROOT_KEY, json.dumps({"port": port, "addresses": _C.interface_addresses()}))
        return f"0.0.0.0:{port}"
    root = json.loads(store.get(ROOT_KEY))
    return f"{_C.address_to_reach(root['addresses'], _C.interface_addresses())}:{root['port']}"


def choose_from_environment(group, environment=os.environ):
    """Sets `group`'s allreduce from DDLSCALE_ALGORITHM or DDLSCALE_TUNING, if one is set (collective)."""
    algorithm = environment.get(ALGORITHM_VARIABLE, "").strip()
    tuning = environment.get(TUNING_VARIABLE, "").strip()
    if algorithm and tuning:
        raise ValueError(f"ddlscale: {ALGORITHM_VARIABLE} and {TUNING_VARIABLE} are both set: choose one")
    if algorithm:
        name, _, options = algorithm.partition(" ")
        group.set_algorithm("allreduce", name, options.strip())
    elif tuning:
        group.set_tuning("allreduce", tuning)


def _create_group(options, group_options):
    """torch.distributed's creator of a "ddlscale" group (the extended form: it names the group's global ranks)."""
    del group_options  # the backend has no options of its own beyond the environment's
    timeout_s = options.timeout.total_seconds()
    if launched_by_mpi():
        group = ProcessGroupDdlscale(options.group_rank, options.group_size, list(options.global_ranks_in_group),
                                     timeout_s)
    else:
        group = ProcessGroupDdlscale(options.group_rank, options.group_size,
                                     _tcp_root_address(options.store, options.group_rank), timeout_s)
    choose_from_environment(group)
    return group


def _rendezvous(url, timeout=dist.default_pg_timeout, **_):
    """The "ddlscale://" rendezvous: MPI's rank and size, and a TCP store on rank 0 that every rank finds through
    MPI. A rank or world size given to init_process_group must be MPI's."""
    rank, size, _threads = _C.initialise_mpi()
    query = urllib.parse.parse_qs(urllib.parse.urlparse(url).query)
    for name, ours in (("rank", rank), ("world_size", size)):
        if name in query and int(query[name][0]) != ours:
            raise ValueError(f"ddlscale://: {name} {query[name][0]} given, but the MPI job says {ours}")
    store = None
    port = 0
    if rank == 0:
        store = dist.TCPStore("127.0.0.1", 0, size, True, timeout, wait_for_workers=False)
        port = store.port
    host, port = _C.share_store_address(port)
    if rank != 0:
        store = dist.TCPStore(host, port, size, False, timeout)
    yield store, rank, size
    raise RuntimeError("ddlscale://: the rendezvous gives one store per init_process_group")


dist.Backend.register_backend("ddlscale", _create_group, extended_api=True)
dist.register_rendezvous_handler("ddlscale", _rendezvous)
atexit.register(_C.finalise)
