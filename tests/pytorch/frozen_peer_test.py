"""A peer that stops answering, dies or raises, in the middle of DDP training over the "ddlscale" backend or
before the group's first collective, ends the whole job within the group's timeout (3 s) and an allowance of
5 s, as ddlrun's jobs end, with a non-zero status; the stopped case names the ranks left waiting. No process
of the job outlives it. (Over MPI a lost peer ends the job: MPI cannot withdraw a request in flight. Over
TCP it is an error the script handles: lost_peer_raises.py.)

    frozen_peer_test.py MPIRUN PYTHONPATH
"""
import os
import subprocess
import sys
import threading
import time
import unittest

MPIRUN, PACKAGE = sys.argv[1:3] if len(sys.argv) >= 3 else ("mpirun", ".")
RANK_PROGRAM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "frozen_peer.py")
TIMEOUT_S = 3      # frozen_peer.py's
ALLOWANCE_S = 5    # what the job may take beyond the timeout to end, as for ddlrun (tests/runtime/frozen_rank_test.py)


class Job:
    """The 3-rank job, with when rank 1 said it stops and when mpirun returned."""

    def __init__(self, fault, step):
        command = [MPIRUN, "--allow-run-as-root", "--oversubscribe", "--mca", "mpi_yield_when_idle", "1", "-np", "3",
                   "-x", f"PYTHONPATH={PACKAGE}", sys.executable, RANK_PROGRAM, fault, step]
        self.stopped_at = None
        lines = []
        with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) as process:

            def read():
                for line in process.stdout:
                    if "rank 1 stops" in line and self.stopped_at is None:
                        self.stopped_at = time.monotonic()
                    lines.append(line)

            reader = threading.Thread(target=read)
            reader.start()
            try:
                self.status = process.wait(timeout=120)
            except subprocess.TimeoutExpired:
                process.kill()
                self.status = process.wait()
            self.ended_at = time.monotonic()
            reader.join()
        self.text = "".join(lines)


class FrozenPeer(unittest.TestCase):
    def check_ends(self, fault, step="2"):
        job = Job(fault, step)
        self.assertIsNotNone(job.stopped_at, job.text)
        self.assertNotEqual(job.status, 0, job.text)
        self.assertNotIn("trained 1000 steps", job.text)
        self.assertLess(job.ended_at - job.stopped_at, TIMEOUT_S + ALLOWANCE_S, job.text)
        left = subprocess.run(["pgrep", "-f", RANK_PROGRAM], capture_output=True, text=True).stdout
        self.assertEqual(left, "", "processes of the job outlived it")
        return job

    def test_a_stopped_peer_ends_the_job_naming_the_ranks_left_waiting(self):
        job = self.check_ends("stop")
        self.assertIn("still wait", job.text)

    def test_a_dead_peer_ends_the_job(self):
        self.check_ends("exit")

    def test_a_peer_lost_before_the_first_collective_ends_the_job(self):
        for fault in ("stop", "exit", "raise"):
            with self.subTest(fault=fault):
                job = self.check_ends(fault, "first")
                if fault == "stop":
                    self.assertIn("still wait", job.text)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
