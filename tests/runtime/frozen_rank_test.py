"""A rank that stops answering ends the whole job within --timeout-s + 5 s, at every point of ddlrun bench and
ddlrun train, with a non-zero status and a message that names it.

Each case runs a 4-rank job under mpirun and freezes one rank at one point with DDLRUN_FREEZE (runtime/
fault_injection.hpp): stopped by SIGSTOP (a hung or suspended process) or computing forever. The clock starts
when the frozen rank says it freezes and stops when mpirun returns. No process of the job may outlive it.

    frozen_rank_test.py MPIRUN DDLRUN SOURCE_DIR
"""
import os
import re
import signal
import subprocess
import sys
import threading
import time
import unittest

MPIRUN, DDLRUN, SOURCE = sys.argv[1:4] if len(sys.argv) >= 4 else ("mpirun", "ddlrun", ".")


def sanitized(ddlrun):
    """Whether `ddlrun` was built with AddressSanitizer (scripts/build sanitize): its build's CMake cache says."""
    cache = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(ddlrun))), "CMakeCache.txt")
    try:
        with open(cache) as file:
            return "DDLSCALE_SANITIZE:BOOL=ON" in file.read()
    except OSError:
        return False


# Under AddressSanitizer on 2 cores, four ranks' own host work (filling and checking 100 MB of gradients)
# skews them by several seconds, which a 2 s --timeout-s would rightly end as a silent rank.
TIMEOUT_S = 6 if sanitized(DDLRUN) else 2
ALLOWANCE_S = 5  # what the job may take beyond --timeout-s to end, by the issue that asked for this
MPIRUN_FLAGS = ["--allow-run-as-root", "--oversubscribe", "--mca", "mpi_yield_when_idle", "1", "-np", "4"]


def bench(label):
    return ["bench", "--algorithm", "ring", "-b", "1K", "-e", "8K", "-n", "2", "-w", "1", "--baseline", "mpi",
            "--timeout-s", str(TIMEOUT_S), "--configuration", label]


def train(label):
    return ["train", os.path.join(SOURCE, "scenarios", "powerai-ddl-resnet50.json"), "--compute-scale", "0.01", "-n", "2",
            "-w", "0", "--timeout-s", str(TIMEOUT_S), "--configuration", label]


def ended_with(job, status):
    """Whether `job` ended with `status`. Open MPI 4.1's mpirun sometimes crashes in its own teardown
    (PMIx_server_finalize, measured here about one run in four of bench frozen at finalize) after a rank called
    MPI_Abort with ddlrun's status while another rank is stopped: the status is then mpirun's SIGSEGV, and the
    abort with ddlrun's status is in the job's output, which is what is held to. Sometimes mpirun crashes
    before it prints the abort (its show_help fails first: "Data unpack had inadequate space"); then ddlrun's
    own verdict, which the reporting rank prints just before it calls MPI_Abort, is what is held to. A rank
    frozen while the job starts leaves the others no MPI_Abort to call (MPI_Init has not returned), so they exit
    with ddlrun's status; mpirun names that status ("Exit code:    3") before the same crash, and that is held
    to (seen once in CI, bench frozen at init)."""
    if job.status == status:
        return True
    if job.status != -signal.SIGSEGV or "PMIx_server_finalize" not in job.text:
        return False
    return (f"with errorcode {status}." in job.text
            or re.search(rf"^\s*Exit code:\s+{status}\s*$", job.text, re.MULTILINE) is not None
            or ("ddlrun: the job stops:" in job.text and "with errorcode" not in job.text))


class Job:
    """One mpirun job with a frozen rank: when it froze (by its own word), when it ended, and what it said."""

    def __init__(self, command, freeze):
        environment = dict(os.environ, DDLRUN_FREEZE=freeze, DDLSCALE_DATA_DIR=SOURCE)  # freeze "": none
        self.started = time.monotonic()
        self.frozen_at = None
        self.lines = []
        process = subprocess.Popen([MPIRUN, *MPIRUN_FLAGS, "-x", "DDLRUN_FREEZE", "-x", "DDLSCALE_DATA_DIR", DDLRUN, *command],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=environment)
        reader = threading.Thread(target=self.read, args=(process.stderr,))
        reader.start()
        try:
            self.status = process.wait(timeout=120)
        except subprocess.TimeoutExpired:
            process.kill()
            self.status = "hung for 120 s"
        self.ended = time.monotonic()
        reader.join()
        process.stderr.close()

    def read(self, stream):
        for line in stream:
            if self.frozen_at is None and "(DDLRUN_FREEZE)" in line:
                self.frozen_at = time.monotonic()
            self.lines.append(line)

    @property
    def text(self):
        return "".join(self.lines)

    def seconds_after_freezing(self):
        return self.ended - (self.frozen_at if self.frozen_at is not None else self.started)


class FrozenRankEndsTheJob(unittest.TestCase):
    def check(self, command, point, rank, mode, expected, status=3):
        label = f"frozen-rank-test-{os.getpid()}-{point}-{rank}-{mode}"
        job = Job(command(label), f"{point}:{rank}:{mode}")
        context = f"{' '.join(command(label)[:1])} frozen at {point} (rank {rank}, {mode}):\n{job.text}"
        self.assertIsNotNone(job.frozen_at, "the rank never reached the point: " + context)
        self.assertTrue(ended_with(job, status), f"status {job.status}, not {status}: " + context)
        self.assertLessEqual(job.seconds_after_freezing(), TIMEOUT_S + ALLOWANCE_S, context)
        self.assertIn(expected, job.text, context)
        print(f"{command.__name__} frozen at {point} (rank {rank}, {mode}): status {job.status}, "
              f"{job.seconds_after_freezing():.1f} s after the freeze", file=sys.stderr)
        # mpirun kills what is left of the job; nothing may linger.
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            left = subprocess.run(["pgrep", "-f", label], capture_output=True, text=True).stdout.split()
            if not left:
                break
            time.sleep(0.2)
        self.assertEqual(left, [], "processes of the job outlived it: " + context)

    def test_bench_at_every_point(self):
        for point in ("setup", "barrier", "allreduce", "baseline", "results", "finalize"):
            with self.subTest(point=point):
                self.check(bench, point, 1, "stop", "rank 1 does not answer")

    def test_bench_when_the_reporting_rank_itself_stops(self):
        self.check(bench, "barrier", 0, "stop", "rank 0 does not answer")

    def test_bench_while_the_job_starts(self):
        # Inside MPI_Init no rank can ask the others: the deadline names the call and this rank instead.
        self.check(bench, "init", 2, "stop", "MPI_Init did not return within")

    def test_train_at_every_point(self):
        for point in ("setup", "barrier", "allreduce", "compute", "results", "finalize"):
            with self.subTest(point=point):
                self.check(train, point, 1, "stop", "rank 1 does not answer")

    def test_train_with_an_endless_compute(self):
        self.check(train, "compute", 3, "spin", "rank 3 answered but never reached the wait of the others")

    def test_bench_when_a_rank_dies_while_the_job_starts(self):
        # Before MPI_Init, as before any wait on another rank: mpirun sees it die and ends the job, saying so
        # (naming the rank, or, when the death comes first, that a process returned a non-zero code).
        label = f"frozen-rank-test-{os.getpid()}-dies-at-init"
        job = Job(bench(label), "init:1:fail")
        self.assertIsNotNone(job.frozen_at, job.text)
        self.assertNotIn(job.status, (0, "hung for 120 s"), job.text)
        self.assertLessEqual(job.seconds_after_freezing(), TIMEOUT_S + ALLOWANCE_S, job.text)
        self.assertTrue("process rank 1" in job.text or "1 process returned\na non-zero exit code" in job.text, job.text)

    def test_a_rank_that_fails_on_its_own_is_named_with_its_reason(self):
        # A bug on one rank, while the others wait for it in the schedule.
        self.check(bench, "allreduce", 2, "fail", "rank 2 failed")

    def test_a_slow_library_collective_is_waited_for_while_every_rank_answers(self):
        # Rank 1 sleeps 3.5 s inside MPI_Allreduce's watched wait, as a library collective whose progress
        # cannot be seen and that outlasts --timeout-s 1 three times over: every rank answers each roll call
        # from within it, so the job goes on, says why, and ends well. (A real 512 MiB allreduce was slow
        # enough, but four ranks on two cores filling 512 MiB were skewed past the timeout before it half
        # the time, and the watchdog rightly ended those jobs.)
        label = f"frozen-rank-test-{os.getpid()}-slow"
        command = ["bench", "--algorithm", "ring", "-b", "1M", "-e", "1M", "-n", "1", "-w", "0", "-c", "0",
                   "--baseline", "mpi", "--timeout-s", "1", "--configuration", label]
        job = Job(command, "in-baseline:1:sleep=3.5")
        self.assertEqual(job.status, 0, job.text)
        self.assertIn("rank 1 sleeps 3.5 s at 'in-baseline'", job.text)
        self.assertGreaterEqual(job.text.count("is slow, not stuck"), 2, job.text)

if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1] + sys.argv[4:])
