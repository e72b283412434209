"""analysis/validate_collectives on a corpus of its own: each row's error is the arithmetic of what ddlsim
predicts and what was published, whatever it shows (no particular error is expected), and a corpus it cannot
run is refused, naming the field, before any output.

Usage: validate_collectives_test.py DDLSIM SOURCE_DIR [unittest arguments]
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import unittest

DDLSIM, SOURCE = sys.argv[1], sys.argv[2]
del sys.argv[1:3]
TOOL = os.path.join(SOURCE, "analysis", "validate_collectives")
ROW = {"label": "4 nodes of 8", "source": "a test", "published_busbw_GBps": 300.0,
       "flags": ["--topology", "dgx-h100-ndr", "--gpus", "32", "--algorithm", "nccl-ring", "--channels", "8",
                 "--ranks-per-node", "8", "-b", "1G", "-e", "1G"]}


class ValidateCollectivesTest(unittest.TestCase):
    def run_tool(self, corpus, *arguments):
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as stream:
            json.dump(corpus, stream)
        try:
            return subprocess.run([sys.executable, TOOL, "--ddlsim", DDLSIM, "--corpus", stream.name, *arguments],
                                  capture_output=True, text=True, timeout=300)
        finally:
            os.unlink(stream.name)

    def test_each_error_is_the_prediction_against_the_publication(self):
        plain = dict(ROW, label="the flat ring", flags=["--topology", "dgx-h100-ndr", "--gpus", "32", "--algorithm", "ring",
                                                        "-b", "1G", "-e", "1G"])
        run = self.run_tool({"rows": [ROW, plain], "not_simulated": [{"row": "x", "why": "y"}]}, "--json")
        self.assertEqual(run.returncode, 0, run.stderr)
        result = json.loads(run.stdout)
        for row in result["rows"]:
            ddlsim = subprocess.run([DDLSIM, "collective", *row["flags"], "--json"], capture_output=True, text=True)
            busbw = json.loads(ddlsim.stdout)["rows"][0]["busbw_Bps"] / 1e9
            self.assertAlmostEqual(row["predicted_busbw_GBps"], busbw, places=6)
            self.assertAlmostEqual(row["error"], (busbw - 300.0) / 300.0, places=9)
        errors = [abs(row["error"]) for row in result["rows"]]
        self.assertAlmostEqual(result["overall"]["median_abs_error"], statistics.median(errors))
        self.assertAlmostEqual(result["overall"]["max_abs_error"], max(errors))
        self.assertEqual(result["not_simulated"], [{"row": "x", "why": "y"}])
        text = self.run_tool({"rows": [ROW, plain], "not_simulated": []})
        self.assertEqual(text.returncode, 0, text.stderr)
        self.assertTrue(text.stdout.rstrip().endswith(
            f"2 rows: median |error| {100 * statistics.median(errors):.1f}%, max |error| {100 * max(errors):.1f}%"), text.stdout)

    def test_a_latency_row_is_scored_on_time_and_summed_up_apart(self):
        small = {"label": "1 KB under LL", "source": "a test", "published_time_us": 20.0,
                 "flags": ["--topology", "dgx-a100-hdr", "--gpus", "8", "--algorithm", "ring", "--protocol", "ll",
                           "-b", "1K", "-e", "1K"]}
        run = self.run_tool({"rows": [ROW, small], "not_simulated": []}, "--json")
        self.assertEqual(run.returncode, 0, run.stderr)
        result = json.loads(run.stdout)
        row = result["rows"][1]
        ddlsim = subprocess.run([DDLSIM, "collective", *small["flags"], "--json"], capture_output=True, text=True)
        microseconds = json.loads(ddlsim.stdout)["rows"][0]["time_s"] * 1e6
        self.assertAlmostEqual(row["predicted_time_us"], microseconds, places=6)
        self.assertAlmostEqual(row["error"], (microseconds - 20.0) / 20.0, places=9)
        self.assertNotIn("predicted_busbw_GBps", row)
        self.assertEqual(result["overall"]["rows"], 1)
        self.assertEqual(result["latency"]["rows"], 1)
        self.assertAlmostEqual(result["latency"]["max_abs_error"], abs(row["error"]))
        text = self.run_tool({"rows": [ROW, small], "not_simulated": []})
        self.assertTrue(text.stdout.rstrip().endswith(
            f"1 latency rows: median |error| {100 * abs(row['error']):.1f}%, max |error| {100 * abs(row['error']):.1f}%"),
            text.stdout)

    def test_a_corpus_it_cannot_run_is_refused_naming_the_field(self):
        cases = [
            ({"rows": [], "not_simulated": []}, "$.rows"),
            ({"rows": [dict(ROW, flags=[])], "not_simulated": []}, "$.rows[0].flags"),
            ({"rows": [dict(ROW, published_busbw_GBps=0)], "not_simulated": []}, "$.rows[0].published_busbw_GBps"),
            ({"rows": [dict(ROW, flags=ROW["flags"] + ["--channels", "0"])], "not_simulated": []}, "$.rows[0].flags"),
            ({"rows": [dict(ROW, flags=ROW["flags"][:-4] + ["-b", "1M", "-e", "4M"])], "not_simulated": []},
             "$.rows[0].flags: give one size"),
            ({"rows": [ROW], "not_simulated": [{"row": "x"}]}, "$.not_simulated[0]"),
            ({"rows": [dict(ROW, published_time_us=30.0)], "not_simulated": []}, "$.rows[0]: one of published_busbw_GBps"),
            ({"rows": [{k: v for k, v in ROW.items() if k != "published_busbw_GBps"}], "not_simulated": []},
             "$.rows[0]: one of published_busbw_GBps"),
            ({"rows": [dict(ROW, flags=ROW["flags"] + ["--protocol", "ll256"])], "not_simulated": []}, "--protocol"),
        ]
        for corpus, field in cases:
            run = self.run_tool(corpus)
            self.assertEqual(run.returncode, 2, f"{field}: {run.stderr}")
            self.assertIn(field, run.stderr)
            self.assertEqual(run.stdout, "", field)


if __name__ == "__main__":
    unittest.main()
