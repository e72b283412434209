#!/usr/bin/python3
"""One schedule file through both backends: what `ddlsim schedule --json` writes, `ddlsim collective --schedule`
simulates to the time of the algorithm it came from, and `ddlrun bench --schedule` runs to the exact result,
over threads and over MPI. A doctored file is refused by both before anything runs.

Usage: schedule_file_test.py DDLSIM DDLRUN MPIRUN
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

DDLSIM, DDLRUN, MPIRUN = sys.argv.pop(1), sys.argv.pop(1), sys.argv.pop(1)
MPI_ENVIRONMENT = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")


def run(*command):
    return subprocess.run(command, capture_output=True, text=True, timeout=300, env=MPI_ENVIRONMENT)


def rows(table):
    return [line.split() for line in table.splitlines() if line.strip() and not line.startswith("#")]


class OneScheduleFileThroughBothBackends(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.directory = tempfile.TemporaryDirectory()
        cls.file = os.path.join(cls.directory.name, "ddl-2x2.json")
        written = run(DDLSIM, "schedule", "--algorithm", "ddl", "--dims", "2x2", "--ranks", "4", "--bytes", "1048576", "--json")
        assert written.returncode == 0, written.stderr
        with open(cls.file, "w") as out:
            out.write(written.stdout)

    @classmethod
    def tearDownClass(cls):
        cls.directory.cleanup()

    def test_the_simulator_times_the_file_as_the_algorithm_it_came_from(self):
        from_file = run(DDLSIM, "collective", "--schedule", self.file, "--topology", "minsky-p100-ib-edr", "--json")
        from_algorithm = run(DDLSIM, "collective", "--algorithm", "ddl", "--dims", "2x2", "--topology", "minsky-p100-ib-edr",
                             "--gpus", "4", "--bytes", "1048576", "--json")
        self.assertEqual(from_file.returncode, 0, from_file.stderr)
        self.assertEqual(from_algorithm.returncode, 0, from_algorithm.stderr)
        simulated_file, simulated_algorithm = json.loads(from_file.stdout), json.loads(from_algorithm.stdout)
        self.assertEqual(simulated_file["rows"], simulated_algorithm["rows"])
        self.assertEqual(simulated_file["algorithm"], "schedule file")
        self.assertEqual(simulated_file["label"], "ddl 2x2")

    def test_the_runtime_runs_the_file_to_the_exact_result_over_threads(self):
        result = run(DDLRUN, "bench", "--schedule", self.file, "--transport", "threads", "--ranks", "4", "-n", "2", "-w", "1")
        self.assertEqual(result.returncode, 0, result.stderr)
        table = rows(result.stdout)
        self.assertEqual(len(table), 1)
        self.assertEqual(table[0][0], "1048576")
        self.assertEqual((table[0][8], table[0][12]), ("0", "0"))  # #wrong out of place and in place

    def test_the_runtime_runs_the_file_over_mpi(self):
        result = run(MPIRUN, "--oversubscribe", "-np", "4", DDLRUN, "bench", "--schedule", self.file, "-n", "2", "-w", "1",
                     "--json")
        self.assertEqual(result.returncode, 0, result.stderr)
        measured = json.loads(result.stdout)
        self.assertEqual(measured["label"], "ddl 2x2")
        self.assertEqual([row["wrong"] for row in measured["rows"]], [0])

    def test_a_doctored_file_is_refused_by_both_before_anything_runs(self):
        with open(self.file) as file:
            schedule = json.load(file)
        # Rank 0 copies what it should add: the allreduce would leave a wrong sum.
        steps = schedule["programs"][0]["steps"]
        next(step for step in steps if step["op"] == "receive-reduce")["op"] = "receive-copy"
        doctored = os.path.join(self.directory.name, "doctored.json")
        with open(doctored, "w") as out:
            json.dump(schedule, out)
        for command in ([DDLSIM, "collective", "--schedule", doctored, "--topology", "minsky-p100-ib-edr"],
                        [DDLRUN, "bench", "--schedule", doctored, "--transport", "threads", "--ranks", "4"]):
            result = run(*command)
            self.assertEqual(result.returncode, 2, command)
            self.assertIn("--schedule", result.stderr)
            self.assertIn("not a correct allreduce", result.stderr)
            self.assertEqual(result.stdout, "")


if __name__ == "__main__":
    unittest.main()
