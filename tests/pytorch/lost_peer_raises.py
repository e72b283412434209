"""Over TCP (a job started as torchrun starts one), a lost peer is an exception the training script can
handle, not the end of its process: run by every rank of launch_like_torchrun.py 3,

    launch_like_torchrun.py 3 lost_peer_raises.py

the last rank leaves abruptly (os._exit, its connections closing, its group never destroyed) after a few
allreduces; every other rank's next allreduce raises a RuntimeError naming the lost rank within the group's
timeout (3 s) and an allowance, every later call on the group raises at once, and the rank then exits 0 of
its own accord. A rank that hangs instead fails the test by its ctest timeout; one that dies fails it by its
status.
"""
import datetime
import os
import sys
import time

import torch
import torch.distributed as dist

import ddlscale_torch  # noqa: F401  (registers the backend)

TIMEOUT_S = 3
ALLOWANCE_S = 10


def main():
    dist.init_process_group("ddlscale", timeout=datetime.timedelta(seconds=TIMEOUT_S))
    rank, ranks = dist.get_rank(), dist.get_world_size()
    tensor = torch.ones(1 << 16)
    for step in range(1000):
        if rank == ranks - 1 and step == 5:
            os._exit(0)  # abruptly, exit status 0 so that the launcher does not stop the others first
        started = time.monotonic()
        try:
            dist.all_reduce(tensor)
        except RuntimeError as error:
            waited = time.monotonic() - started
            message = str(error)
            break
    else:
        sys.exit(f"rank {rank}: every allreduce succeeded though rank {ranks - 1} left")
    if f"rank {ranks - 1}" not in message:
        sys.exit(f"rank {rank}: the error names no lost rank {ranks - 1}: {message}")
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
    print(f"rank {rank}: the lost rank raised after {waited:.1f} s ({message.splitlines()[0][:120]}); the process goes on",
          flush=True)


if __name__ == "__main__":
    main()
