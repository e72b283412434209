"""analysis/validate on a small subset of its corpus: the figures it prints are the arithmetic of the rows it
joined, whatever they show (no particular error or coverage is expected), and a corpus that leaves a
measured set out in silence, or names a prediction ddlsim does not give, is refused before any output.

Usage: validate_test.py DDLSIM SOURCE_DIR [unittest arguments]
"""
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import unittest

DDLSIM, SOURCE = sys.argv[1], sys.argv[2]
VALIDATE = os.path.join(SOURCE, "analysis", "validate")
CORPUS = os.path.join(SOURCE, "analysis", "validation_corpus.json")
SUBSET = ["--set", "2026-12-03-pytorch-resnet18-tcp-3-jobs", "--set", "published", "--samples", "2"]


def validate(*arguments):
    return subprocess.run([sys.executable, VALIDATE, "--ddlsim", DDLSIM, *arguments], capture_output=True, text=True,
                          timeout=600)


def covered(row):
    low, high = row["interval"] if "measured" in row else row["efficiency_interval"]
    return low <= (row["measured"] if "measured" in row else row["measured_efficiency"]) <= high


class ValidateTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.json_run = validate(*SUBSET, "--json")
        cls.text_run = validate(*SUBSET)

    def test_every_figure_is_the_arithmetic_of_its_rows(self):
        self.assertEqual(self.json_run.returncode, 0, self.json_run.stderr)
        result = json.loads(self.json_run.stdout)
        rows = result["rows"]
        self.assertEqual({row["set"] for row in rows}, {"2026-12-03-pytorch-resnet18-tcp-3-jobs", "published"})
        for row in rows:
            if "measured" in row:
                self.assertAlmostEqual(row["error"], (row["predicted"] - row["measured"]) / row["measured"])
                low, high = row["interval"]
                self.assertLessEqual(low, high)
            if "efficiency_error" in row:
                self.assertAlmostEqual(row["efficiency_error"], row["predicted_efficiency"] - row["measured_efficiency"])
        for name, figures in {**result["sets"], "overall": result["overall"]}.items():
            mine = rows if name == "overall" else [row for row in rows if row["set"] == name]
            self.assertEqual(figures["points"], len(mine))
            self.assertEqual(figures["covered"], sum(covered(row) for row in mine))
            times = [abs(row["error"]) for row in mine if "error" in row]
            if times:
                self.assertAlmostEqual(figures["median_abs_error"], statistics.median(times))
                self.assertAlmostEqual(figures["max_abs_error"], max(times))
            efficiencies = [abs(row["efficiency_error"]) for row in mine if "efficiency_error" in row]
            self.assertAlmostEqual(figures["median_abs_efficiency_error"], statistics.median(efficiencies))
        # Each published figure is scored by efficiency only, against the interval of its 2 samples.
        published = [row for row in rows if row["set"] == "published"]
        self.assertEqual(len(published), 3)
        self.assertTrue(all("measured" not in row and "efficiency_interval" in row for row in published))

    def test_the_last_line_sums_up_every_point_in_its_primary_quantity(self):
        self.assertEqual(self.text_run.returncode, 0, self.text_run.stderr)
        rows = json.loads(self.json_run.stdout)["rows"]
        errors = [abs(row["error"]) if "error" in row else abs(row["efficiency_error"]) / row["measured_efficiency"]
                  for row in rows]
        inside = sum(covered(row) for row in rows)
        expected = (f"{len(rows)} points: median |error| {100 * statistics.median(errors):.1f}%, max |error| "
                    f"{100 * max(errors):.1f}%, coverage {100 * inside / len(rows):.0f}% ({inside} of {len(rows)})")
        self.assertEqual(self.text_run.stdout.rstrip("\n").splitlines()[-1], expected)
        self.assertRegex(self.text_run.stdout, re.compile(r"^not scored: ", re.M))

    def test_a_measured_set_left_out_in_silence_is_refused(self):
        with open(CORPUS, encoding="utf-8") as stream:
            corpus = json.load(stream)
        left_out = corpus["measured_sets"].pop(0)["measured"]
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as stream:
            json.dump(corpus, stream)
        try:
            run = validate("--corpus", stream.name, *SUBSET)
        finally:
            os.unlink(stream.name)
        self.assertEqual(run.returncode, 2)
        self.assertEqual(run.stdout, "")
        self.assertIn(f"{left_out} is neither in $.measured_sets nor in $.not_scored", run.stderr)

    def test_a_published_figure_scored_against_a_prediction_ddlsim_does_not_give_is_refused(self):
        with open(CORPUS, encoding="utf-8") as stream:
            corpus = json.load(stream)
        corpus["published"][0]["algorithm"] = "ddl 2x2x64"
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as stream:
            json.dump(corpus, stream)
        try:
            run = validate("--corpus", stream.name, "--set", "published", "--samples", "2")
        finally:
            os.unlink(stream.name)
        self.assertEqual(run.returncode, 2)
        self.assertEqual(run.stdout, "")
        self.assertIn("$.published[0].algorithm: ddlsim gave no 'ddl 2x2x64'", run.stderr)

    def test_bad_flags_are_refused_naming_them(self):
        for arguments, said in ((["--samples", "0"], "--samples"), (["--samples", "many"], "--samples"),
                                (["--set", "no-such-set"], "--set: no set 'no-such-set'")):
            with self.subTest(arguments=arguments):
                run = validate(*arguments)
                self.assertEqual(run.returncode, 2)
                self.assertEqual(run.stdout, "")
                self.assertIn(said, run.stderr)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1] + sys.argv[3:])
