"""Starts a job as torchrun does, without MPI: NPROC copies of `python3 SCRIPT ARGS...`, each told its rank
by RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, and where rank 0's store listens by MASTER_ADDR and
MASTER_PORT, which torch's env:// rendezvous reads. Exits with the first failing rank's status (killing the
others), else 0.

Not torchrun itself: Debian's torch 1.13.1 torchrun fails on Python 3.11 before it starts any rank
(torch/distributed/elastic/multiprocessing/api.py, to_map: 'NoneType' object has no attribute 'get').

    launch_like_torchrun.py NPROC SCRIPT [ARGS...]
"""
import os
import socket
import subprocess
import sys
import time


def main():
    processes, script = int(sys.argv[1]), sys.argv[2:]
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    ranks = []
    for rank in range(processes):
        environment = dict(os.environ, RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE=str(processes),
                           LOCAL_WORLD_SIZE=str(processes), MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
        ranks.append(subprocess.Popen([sys.executable] + script, env=environment))
    status = 0
    while ranks and status == 0:
        for rank in list(ranks):
            if rank.poll() is not None:
                ranks.remove(rank)
                status = status or rank.returncode
        time.sleep(0.05)
    for rank in ranks:
        rank.kill()
        rank.wait()
    return status


if __name__ == "__main__":
    sys.exit(main())
