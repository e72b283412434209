"""`mpirun -np K ddlsim SCENARIO` splits the sweep over the job's ranks and writes what one ddlsim writes.

Each rank simulates every K-th simulation of the sweep (sim/sweep/mpi_sweep_main.cpp); rank 0 gathers the values
over MPI and formats them. The output must be the same bytes as one process's, in every format and for
every K, also where some ranks have nothing to simulate; bad input must exit 2 with one message and no
output, as one ddlsim does.

    mpi_sweep_test.py MPIRUN DDLSIM SOURCE_DIR
"""
import json
import os
import subprocess
import sys
import tempfile
import time
import unittest

MPIRUN, DDLSIM, SOURCE = sys.argv[1:4] if len(sys.argv) >= 4 else ("mpirun", "ddlsim", ".")
MPIRUN_FLAGS = ["--allow-run-as-root", "--oversubscribe", "--mca", "mpi_yield_when_idle", "1"]


def run(command):
    return subprocess.run(command, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)


def mpirun(ranks, *arguments):
    return run([MPIRUN, *MPIRUN_FLAGS, "-np", str(ranks), DDLSIM, *arguments])


def cut_down(folder, name, gpus, algorithms):
    """The DDL scenario with only `gpus` and its first `algorithms` algorithms, written to `folder`/`name`."""
    with open(os.path.join(SOURCE, "scenarios", "powerai-ddl-resnet50.json"), encoding="utf-8") as handle:
        scenario = json.load(handle)
    scenario["gpus"] = gpus
    scenario["algorithms"] = scenario["algorithms"][:algorithms]
    path = os.path.join(folder, name)
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(scenario, handle, indent=1)
    return path


class MpiSweep(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.mkdtemp(prefix="ddlscale-mpi-sweep-")
        cls.scenario = cut_down(cls.folder, "cut-down.json", [1, 4, 8], 2)  # 10 simulations, seconds in all
        cls.one_point = cut_down(cls.folder, "one-point.json", [4], 1)
        cls.alone = {}

    @classmethod
    def tearDownClass(cls):
        subprocess.run(["rm", "-rf", cls.folder], check=False)

    def one_process(self, scenario, *options):
        key = (scenario, options)
        if key not in self.alone:
            result = run([DDLSIM, scenario, *options])
            self.assertEqual(result.returncode, 0, result.stderr)
            self.alone[key] = result.stdout
        return self.alone[key]

    def test_every_split_writes_the_bytes_one_process_writes(self):
        for ranks, options in ((2, ("--json", "-j", "1")), (3, ("--json", "-j", "1")), (4, ("-j", "1")), (3, ("--csv", "-j", "1"))):
            with self.subTest(ranks=ranks, options=options):
                split = mpirun(ranks, self.scenario, *options)
                self.assertEqual(split.returncode, 0, split.stderr)
                self.assertEqual(split.stdout, self.one_process(self.scenario, *options))

    def test_ranks_with_nothing_to_simulate_take_part(self):
        # One point: two simulations (the iteration, and without latency) over five ranks.
        split = mpirun(5, self.one_point, "--json", "-j", "1")
        self.assertEqual(split.returncode, 0, split.stderr)
        self.assertEqual(split.stdout, self.one_process(self.one_point, "--json", "-j", "1"))

    def test_out_writes_the_same_file(self):
        out = os.path.join(self.folder, "split.json")
        split = mpirun(2, self.scenario, "--json", "-j", "1", "--out", out)
        self.assertEqual(split.returncode, 0, split.stderr)
        self.assertEqual(split.stdout, "")
        with open(out, encoding="utf-8") as handle:
            self.assertEqual(handle.read(), self.one_process(self.scenario, "--json", "-j", "1"))

    def test_bad_input_exits_2_with_one_message_and_no_output(self):
        bad = os.path.join(self.folder, "bad.json")
        with open(self.scenario, encoding="utf-8") as handle:
            scenario = json.load(handle)
        scenario["gpus"] = [4, "eight"]
        with open(bad, "w", encoding="utf-8") as handle:
            json.dump(scenario, handle)
        out = os.path.join(self.folder, "never.json")
        split = mpirun(3, bad, "--json", "--out", out)
        self.assertEqual(split.returncode, 2, split.stdout + split.stderr)
        self.assertEqual(split.stderr.count("$.gpus[1]"), 1, split.stderr)
        self.assertFalse(os.path.exists(out))

    def test_ranks_started_with_different_command_lines_exit_2_naming_both_and_simulate_nothing(self):
        # mpirun's colon form gives each rank its own line: two sweeps would be split and merged as one.
        out = os.path.join(self.folder, "never-merged.json")
        split = run([MPIRUN, *MPIRUN_FLAGS, "-np", "1", DDLSIM, self.scenario, "--json", "--out", out, ":",
                     "-np", "1", DDLSIM, self.one_point, "--json", "--out", out])
        self.assertEqual(split.returncode, 2, split.stdout + split.stderr)
        self.assertIn(f"rank 0 runs '{self.scenario} --json --out {out}', rank 1 '{self.one_point} --json --out {out}'",
                      split.stderr)
        self.assertEqual(split.stdout, "")
        self.assertFalse(os.path.exists(out))

    def test_a_subcommand_is_refused_rather_than_run_on_every_rank(self):
        split = mpirun(2, "algorithms", "--names")
        self.assertEqual(split.returncode, 2, split.stdout + split.stderr)
        self.assertIn("only a scenario's sweep splits over the ranks of an MPI job", split.stderr)
        self.assertEqual(split.stdout, "")


class MpiSweepWhenARankStops(unittest.TestCase):
    """Run on its own (label timed, the optimised pass): it holds jobs to deadlines."""

    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.mkdtemp(prefix="ddlscale-mpi-sweep-stops-")
        cls.one_point = cut_down(cls.folder, "one-point.json", [4], 1)

    @classmethod
    def tearDownClass(cls):
        subprocess.run(["rm", "-rf", cls.folder], check=False)

    def test_a_rank_that_stops_ends_the_job_instead_of_holding_it(self):
        # Rank 1 stops itself (SIGSTOP) after the shares are gathered, and again at the last barrier: rank 0
        # has the results, but may not wait for rank 1 forever. With a margin of 3 s the job ends, non-zero,
        # naming what did not end, well within the outer limit.
        for point in ("results", "finalize"):
            with self.subTest(point=point):
                environment = dict(os.environ, DDLRUN_FREEZE=f"{point}:1:stop", DDLSIM_MPI_PATIENCE_S="3")
                result = subprocess.run([MPIRUN, *MPIRUN_FLAGS, "-x", "DDLRUN_FREEZE", "-x", "DDLSIM_MPI_PATIENCE_S",
                                         "-np", "2", DDLSIM, self.one_point, "-j", "1"], capture_output=True, text=True,
                                        timeout=120, stdin=subprocess.DEVNULL, env=environment)
                self.assertNotEqual(result.returncode, 0, result.stderr)
                self.assertIn(f"rank 1 stops at '{point}'", result.stderr)
                self.assertIn("did not end in time: a rank stopped or was lost", result.stderr)

    def test_a_rank_lost_before_the_first_collective_ends_the_job_within_the_margin(self):
        # Before the ranks first meet (their comparison of command lines), rank 1 stops, or dies of an
        # exception of its own: the job ends, non-zero, within the margin of 3 s and 5 s more, counted from
        # mpirun's start.
        for mode, said in (("stop", "did not end in time: a rank stopped or was lost"), ("fail", "a failure injected at 'start'")):
            with self.subTest(mode=mode):
                environment = dict(os.environ, DDLRUN_FREEZE=f"start:1:{mode}", DDLSIM_MPI_PATIENCE_S="3")
                started = time.monotonic()
                result = subprocess.run([MPIRUN, *MPIRUN_FLAGS, "-x", "DDLRUN_FREEZE", "-x", "DDLSIM_MPI_PATIENCE_S",
                                         "-np", "2", DDLSIM, self.one_point, "-j", "1"], capture_output=True, text=True,
                                        timeout=120, stdin=subprocess.DEVNULL, env=environment)
                self.assertLess(time.monotonic() - started, 3 + 5, result.stderr)
                self.assertNotEqual(result.returncode, 0, result.stderr)
                self.assertIn(said, result.stderr)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1] + sys.argv[4:])
