"""Over TCP (a job started as torchrun starts one), a lost peer is an exception the training script can
handle, not the end of its process: run by every rank of launch_like_torchrun.py 3,

    launch_like_torchrun.py 3 lost_peer_raises.py [FAULT [STEP]]

the last rank is lost before allreduce number STEP (default 5; 0: before the group's first collective), as
FAULT says: "exit" leaves abruptly (os._exit: its connections close, its group is never destroyed), "raise"
lets an exception of its own unwind the script as an uncaught one would (the interpreter's teardown destroys
what is left), "destroy" destroys its group and ends well, "stop" stops the process (SIGSTOP: a hung or
suspended rank, its connections open). Every other rank's next allreduce raises a RuntimeError naming a
rank, the lost one where its peers heard of it first, within the group's timeout (3 s) and an allowance;
every later call on the group raises at once, and the rank then exits 0 of its own accord. A rank that hangs
instead fails the test by its ctest timeout; one that dies fails it by its status. (The stopped rank is
resumed by rank 0 at the end, and then leaves.)
"""
import datetime
import os
import signal
import sys
import tempfile
import time
import traceback

import torch
import torch.distributed as dist

import ddlscale_torch  # noqa: F401  (registers the backend)

TIMEOUT_S = 3
ALLOWANCE_S = 10
FAULT = sys.argv[1] if len(sys.argv) > 1 else "exit"
STEP = int(sys.argv[2]) if len(sys.argv) > 2 else 5
# Where the stopped rank leaves its process id, for rank 0 to resume it at the end: one file per job.
PID_FILE = os.path.join(tempfile.gettempdir(), f"lost-peer-{os.environ.get('MASTER_PORT', 'job')}.pid")


class InjectedFault(Exception):
    pass


def lose_this_rank():
    """The fault, on the last rank. Each way out ends with status 0, so that the launcher does not stop the
    other ranks before they have heard of it."""
    if FAULT == "exit":
        os._exit(0)
    if FAULT == "raise":
        raise InjectedFault(f"rank {dist.get_rank()} raises before allreduce {STEP}")
    if FAULT == "destroy":
        dist.destroy_process_group()
        sys.exit(0)
    if FAULT == "stop":
        with open(PID_FILE, "w") as file:
            file.write(str(os.getpid()))
        os.kill(os.getpid(), signal.SIGSTOP)
        os._exit(0)  # resumed by rank 0 once the others have checked what they heard
    sys.exit(f"unknown fault {FAULT}")


def main():
    dist.init_process_group("ddlscale", timeout=datetime.timedelta(seconds=TIMEOUT_S))
    rank, ranks = dist.get_rank(), dist.get_world_size()
    tensor = torch.ones(1 << 16)
    for step in range(1000):
        if rank == ranks - 1 and step == STEP:
            lose_this_rank()
        started = time.monotonic()
        try:
            dist.all_reduce(tensor)
        except RuntimeError as error:
            waited = time.monotonic() - started
            message = str(error)
            break
    else:
        sys.exit(f"rank {rank}: every allreduce succeeded though rank {ranks - 1} left")
    # A rank that ends at once (os._exit) closes its connections, which names it to every peer; a stopped
    # rank's silence, or a group torn down by the interpreter or destroyed in order, may reach a peer as the
    # end of a neighbour who gave up on it first (seen: rank 1 told "rank 0 closed its connection").
    named = f"rank {ranks - 1}" if FAULT == "exit" else "rank "
    if named not in message:
        sys.exit(f"rank {rank}: the error names no {named!r}: {message}")
    if waited > TIMEOUT_S + ALLOWANCE_S:
        sys.exit(f"rank {rank}: the error came {waited:.1f} s after the call, past the timeout of {TIMEOUT_S} s")
    started = time.monotonic()
    try:
        dist.all_reduce(tensor)
        sys.exit(f"rank {rank}: an allreduce on the given-up group succeeded")
    except RuntimeError as again:
        if time.monotonic() - started > 1:
            sys.exit(f"rank {rank}: a call on the given-up group waited instead of raising at once")
        if "given up" not in str(again):
            sys.exit(f"rank {rank}: a later call says: {again}")
    print(f"rank {rank}: the lost rank raised after {waited:.1f} s ({message.splitlines()[0][:160]}); the process goes on",
          flush=True)
    return message


if __name__ == "__main__":
    try:
        main()
    except InjectedFault:
        traceback.print_exc()  # as an uncaught exception would, and on to the interpreter's teardown
        sys.exit(0)
    if FAULT == "stop" and dist.get_rank() == 0:
        time.sleep(1)  # the other survivors check their later call meanwhile
        with open(PID_FILE) as file:
            os.kill(int(file.read()), signal.SIGCONT)
        os.remove(PID_FILE)
