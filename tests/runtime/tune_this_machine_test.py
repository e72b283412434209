"""analysis/tune_this_machine end to end on 2 ranks of this machine, at three sizes and one job: the topology
it writes carries what it measured, ddlsim tunes on it, and every size of the timed job ran the table's best
there, correct, beside MPI_Allreduce. Times are not asserted (they are the result set's business)."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

SOURCE = sys.argv.pop(1)
BUILD = sys.argv.pop(1)


class TuneThisMachine(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.directory = tempfile.TemporaryDirectory()
        cls.out = os.path.join(cls.directory.name, "tuned")
        cls.tuning = subprocess.run([os.path.join(SOURCE, "analysis", "tune_this_machine"), "--ranks", "2", "-b", "4K", "-e", "64K",
                                  "-f", "4", "--jobs", "1", "--out", cls.out],
                                 env=dict(os.environ, DDLSCALE_BUILD=BUILD), capture_output=True, text=True, timeout=600)

    @classmethod
    def tearDownClass(cls):
        cls.directory.cleanup()

    def read(self, name):
        with open(os.path.join(self.out, name)) as file:
            return json.load(file)

    def test_it_succeeds(self):
        self.assertEqual(self.tuning.returncode, 0, self.tuning.stderr)

    def test_the_topology_is_calibrated_and_cites_its_measurements(self):
        topology = self.read("topology.json")
        sources = topology["sources"]
        self.assertIn("reduce_benchmark", sources["reduce"])
        self.assertIn("all-gather.json", sources["calibrated node links"])
        self.assertNotIn(self.directory.name, json.dumps(topology))  # no path of the machine it ran on
        link = topology["node"]["links"][0]
        self.assertNotEqual((link["latency_s"], link["bandwidth_Bps"]), (1e-6, 1e10))  # the starting values, replaced

    def test_each_size_ran_the_tables_best_correctly_beside_mpi(self):
        table = self.read("tuning.json")
        job = self.read("auto-01.json")
        self.assertEqual(table["topology"], "this-machine-2")
        self.assertEqual([row["bytes"] for row in job["rows"]], [4096, 16384, 65536])
        for tuned, measured in zip(table["rows"], job["rows"]):
            self.assertEqual(measured["chosen"], tuned["best"], measured["bytes"])
            self.assertEqual(measured["wrong"], 0)
            self.assertEqual(measured["baseline"]["library"], "MPI")
            self.assertEqual(measured["baseline"]["wrong"], 0)

    def test_the_summary_has_a_row_per_size(self):
        with open(os.path.join(self.out, "summary.txt")) as file:
            rows = [line.split() for line in file if len(line.split()) > 1 and line.split()[0].isdigit() and "." in line.split()[1]]
        self.assertEqual([int(row[0]) for row in rows], [4096, 16384, 65536])
        for row in rows:
            self.assertGreater(float(row[1]), 0)  # a ratio of two measured times


if __name__ == "__main__":
    unittest.main()
