"""ddlscale's collectives as a torch.distributed backend, for a job that mpirun started.

Importing this package registers two things with torch.distributed:

- the backend "ddlscale": a process group whose allreduce, broadcast, all-gather and barrier run ddlscale's
  schedules (ring, ddl, halving-doubling, ...) over MPI on host memory; and
- the rendezvous "ddlscale://": torch's rank and world size are the MPI job's, and rank 0's store is found
  through MPI, so no MASTER_ADDR or MASTER_PORT is needed.

An existing DistributedDataParallel script changes in two lines:

    import ddlscale_torch                                                   # added
    dist.init_process_group("ddlscale", init_method="ddlscale://")         # was ("gloo", ...)

and runs as `mpirun -np 4 python3 train.py`. The allreduce's algorithm comes from the environment, read when a
group is made: DDLSCALE_ALGORITHM="ddl dims=2x2" (a name, then its options as ddlrun's flags without dashes), or
DDLSCALE_TUNING=table.json (a table from `ddlsim tune --json`, which chooses per call by size); ring when neither
is set. A group's `set_algorithm`, `set_tuning` and `describe` change and tell it later (collectively).
"""
import atexit
import os
import urllib.parse

import torch.distributed as dist

from . import _C

ProcessGroupDdlscale = _C.ProcessGroupDdlscale

ALGORITHM_VARIABLE = "DDLSCALE_ALGORITHM"
TUNING_VARIABLE = "DDLSCALE_TUNING"


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
    group = ProcessGroupDdlscale(options.group_rank, options.group_size, list(options.global_ranks_in_group),
                                 options.timeout.total_seconds())
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
