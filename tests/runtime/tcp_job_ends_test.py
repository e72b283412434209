"""A job of libddlscale over TCP (ddl_comm_init_tcp, no MPI) hears of it when one rank dies or freezes:
every other rank's call returns DDL_ABORTED with a message that names the lost rank, within the timeout (2 s
here) and the time it takes the word to pass from rank to rank, and the process goes on (NCCL's
ncclCommAbort, not MPI_Abort): every later call on the communicator returns DDL_ABORTED at once, and
ddl_comm_destroy frees it. Each rank's script then exits with status 4 of its own accord; none hangs.

Each rank is a process of its own that calls the C API through ctypes, as a framework's binding would, and
allreduces in a loop; one rank dies (os._exit) or stops (SIGSTOP) after a few steps, or before the
communicator's first collective.

    tcp_job_ends_test.py LIBDDLSCALE
"""
import ctypes
import os
import signal
import socket
import subprocess
import sys
import time
import unittest

LIBRARY = sys.argv.pop(1) if len(sys.argv) > 1 else "libddlscale.so"
RANKS = 3
TIMEOUT_S = 2
ALLOWANCE_S = 5  # beyond the timeout, as for MPI jobs (frozen_rank_test.py)

RANK = r"""
import ctypes, os, signal, sys
library, rank, size, address, failure = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
failing_step = int(sys.argv[6])
ddl = ctypes.CDLL(library)
ddl.ddl_last_error.restype = ctypes.c_char_p
comm = ctypes.c_void_p()
DDL_ABORTED = 4
def check(result):
    if result == DDL_ABORTED:
        message = ddl.ddl_last_error().decode()
        again = ddl.ddl_allreduce(comm, buffer, buffer, ctypes.c_size_t(1), 0, 0)
        destroyed = ddl.ddl_comm_destroy(comm)
        print("rank %d: %s; then %d, destroyed %d" % (rank, message, again, destroyed), file=sys.stderr, flush=True)
        sys.exit(4)
    if result != 0:
        sys.exit("rank %d: %s" % (rank, ddl.ddl_last_error().decode()))
count = 1 << 16
buffer = (ctypes.c_float * count)()
check(ddl.ddl_comm_init_tcp(rank, size, address.encode(), ctypes.byref(comm)))
check(ddl.ddl_comm_set_timeout(comm, ctypes.c_double(TIMEOUT_S)))
for step in range(1000000):
    if rank == size - 1 and step == failing_step:
        print("failing", flush=True)
        if failure == "dies":
            os._exit(9)
        os.kill(os.getpid(), signal.SIGSTOP)
    check(ddl.ddl_allreduce(comm, buffer, buffer, ctypes.c_size_t(count), 0, 0))
""".replace("TIMEOUT_S", str(TIMEOUT_S))


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class TcpJobEnds(unittest.TestCase):
    def run_job(self, failure, step=20):
        address = "127.0.0.1:%d" % free_port()
        ranks = [subprocess.Popen([sys.executable, "-c", RANK, LIBRARY, str(r), str(RANKS), address, failure, str(step)],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for r in range(RANKS)]
        failing = ranks[-1]
        try:
            self.assertEqual(failing.stdout.readline().strip(), "failing")
            started = time.monotonic()
            outcomes = []
            for rank in ranks[:-1]:
                _, errors = rank.communicate(timeout=TIMEOUT_S + ALLOWANCE_S + 30)
                outcomes.append((rank.returncode, errors, time.monotonic() - started))
        finally:
            for rank in ranks:
                if rank.poll() is None:
                    rank.kill()
                rank.communicate()
        return outcomes

    def check(self, outcomes, limit_s, lost):
        for rank, (status, errors, ended_s) in enumerate(outcomes):
            self.assertEqual(status, 4, "rank %d: %s" % (rank, errors))
            self.assertIn("rank %d: running a schedule" % rank, errors)
            self.assertIn("; then 4, destroyed 0", errors, "a later call is refused at once and destroy works")
            self.assertRegex(errors, lost)
            self.assertLess(ended_s, limit_s, "rank %d ended %.1f s after the failure" % (rank, ended_s))

    def test_a_dead_rank_ends_the_job_at_once(self):
        # Its connections close with it: the ranks waiting on it hear so at once, the others from them.
        self.check(self.run_job("dies"), ALLOWANCE_S, r"rank \d.* (closed|reset) its connection")

    def test_a_frozen_rank_ends_the_job_within_the_timeout(self):
        # Its connections stay open: a neighbour's wait passes its deadline, and its end ends the others.
        self.check(self.run_job("stops"), TIMEOUT_S + ALLOWANCE_S,
                   r"still waits? for its peer|rank \d.* (closed|reset) its connection")

    def test_a_rank_lost_before_the_first_collective_ends_the_job_within_the_timeout(self):
        # The communicator is made, and the first allreduce is where the others first wait for it.
        self.check(self.run_job("dies", step=0), ALLOWANCE_S, r"rank \d.* (closed|reset) its connection")
        self.check(self.run_job("stops", step=0), TIMEOUT_S + ALLOWANCE_S,
                   r"still waits? for its peer|rank \d.* (closed|reset) its connection")


if __name__ == "__main__":
    unittest.main()
