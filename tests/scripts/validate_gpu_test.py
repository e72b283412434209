#!/usr/bin/python3
"""scripts/validate-gpu, rehearsed here end to end without a GPU (--cpu-rehearsal), as a device machine would
run it: results only in the folder --out names, at most the eight files such a machine hands back, and a
prediction check that judges instead of passing whatever it joins.

Usage: validate_gpu_test.py BUILD   (BUILD: the build folder with sim/ddlsim and runtime/ddlrun; under
`unittest discover` (every_program_is_installed), where none is given, everything here skips)
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(REPO, "scripts", "validate-gpu")
BUILD = None  # given on the command line only (__main__)


def has_gpu():
    try:
        return bool(subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                                   capture_output=True, text=True, timeout=30).stdout.strip())
    except (OSError, subprocess.TimeoutExpired):
        return False


@unittest.skipIf(BUILD is None and __name__ != "__main__", "no build folder given")
class ValidateGpu(unittest.TestCase):
    def run_script(self, *arguments):
        environment = dict(os.environ, DDLSCALE_BUILD=BUILD)
        return subprocess.run([SCRIPT, *arguments], capture_output=True, text=True, env=environment, timeout=300)

    def test_the_rehearsal_writes_eight_files_at_most_and_judges_its_prediction_only_as_information(self):
        with tempfile.TemporaryDirectory() as out:
            done = self.run_script("--cpu-rehearsal", "--no-build", "--out", out)
            self.assertEqual(done.returncode, 0, done.stdout[-3000:] + done.stderr[-3000:])
            written = sorted(os.listdir(out))
            self.assertLessEqual(len(written), 8, written)
            for name in ("validation.json", "summary.txt", "predicted.json", "measured.json", "comparison.txt"):
                self.assertIn(name, written)
            record = json.load(open(os.path.join(out, "validation.json")))
            self.assertTrue(record["cpu_rehearsal"])
            checks = {row["check"]: row for row in record["checks"]}
            self.assertEqual(checks["probe: GPU, driver, nvcc, NCCL"]["status"], "skipped")
            ranks = next(row for name, row in checks.items() if name.startswith("threads: 2/4/8 ranks"))
            self.assertEqual(ranks["status"], "pass", ranks)
            self.assertIn("#wrong 0", ranks["detail"])
            # Host threads against an H200's topology are far off (90% and more): the rehearsal records that as
            # information, and says that the bound stated in advance would fail it on a GPU.
            prediction = checks["prediction against measurement"]
            self.assertEqual(prediction["status"], "info", prediction)
            self.assertRegex(prediction["detail"], r"median \|error\| \d+\.\d%")
            self.assertIn("beyond 25%: on a GPU, fail", prediction["detail"])
            measured = json.load(open(os.path.join(out, "measured.json")))
            configurations = {result.get("configuration") for result in measured["results"]}
            self.assertTrue(all("CPU rehearsal" in (c or "") for c in configurations), configurations)

    def test_without_out_it_refuses_and_writes_nothing(self):
        with tempfile.TemporaryDirectory() as folder:
            done = subprocess.run([SCRIPT, "--cpu-rehearsal", "--no-build"], capture_output=True, text=True, cwd=folder,
                                  env=dict(os.environ, DDLSCALE_BUILD=BUILD), timeout=60)
            self.assertEqual(done.returncode, 2, done.stderr)
            self.assertIn("--out", done.stderr)
            done = subprocess.run([SCRIPT, "--cpu-rehearsal", "--no-build", "--out"], capture_output=True, text=True, cwd=folder,
                                  env=dict(os.environ, DDLSCALE_BUILD=BUILD), timeout=60)
            self.assertEqual(done.returncode, 2, done.stderr)
            self.assertIn("--out needs a folder", done.stderr)
            self.assertEqual(os.listdir(folder), [])

    @unittest.skipIf(has_gpu(), "a GPU is here")
    def test_without_a_gpu_it_ends_at_once_with_77(self):
        with tempfile.TemporaryDirectory() as out:
            done = self.run_script("--no-build", "--out", out)
            self.assertEqual(done.returncode, 77, done.stderr)
            self.assertIn("--cpu-rehearsal", done.stderr)


if __name__ == "__main__":
    BUILD = os.path.abspath(sys.argv.pop(1))
    unittest.main()
