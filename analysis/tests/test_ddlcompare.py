"""ddlcompare joins predictions with measurements point by point and judges them."""
import json
import os
import unittest

from ddlcompare_testing import DdlcompareTestCase


def sweep(source, times, algorithm="ring", configuration="4 nodes"):
    return {"source": source, "configuration": configuration, "collective": "allreduce", "algorithm": algorithm, "ranks": 4,
            "type": "float32", "rows": [{"bytes": size, "count": size // 4, "time_s": time} for size, time in times]}


class DdlcompareTest(DdlcompareTestCase):

    def test_joins_sweep_rows_and_reports_signed_errors(self):
        predicted = self.write("p.json", {"results": [sweep("ddlsim collective", [(1 << 20, 0.090), (4 << 20, 0.300)]),
                                                      sweep("ddlsim collective", [(1 << 20, 0.050)], algorithm="halving-doubling")]})
        measured = self.write("m.json", {"results": [sweep("ddlrun bench", [(1 << 20, 0.100), (4 << 20, 0.300), (8 << 20, 1.0)]),
                                                     sweep("ddlrun bench", [(1 << 20, 0.040)], algorithm="halving-doubling")]})
        status, out, _ = self.run_main(predicted, measured, "--json")
        self.assertEqual(status, 0)
        result = json.loads(out)
        errors = {(p["algorithm"], p["x"]): p["error"] for p in result["points"]}
        self.assertAlmostEqual(errors[("ring", 1 << 20)], -0.10)
        self.assertAlmostEqual(errors[("ring", 4 << 20)], 0.0)
        self.assertAlmostEqual(errors[("halving-doubling", 1 << 20)], 0.25)
        self.assertEqual(result["summary"]["points"], 3)
        self.assertAlmostEqual(result["summary"]["median_abs_error"], 0.10)
        self.assertAlmostEqual(result["summary"]["max_abs_error"], 0.25)

    def test_summarises_each_configuration_so_that_placements_sit_side_by_side(self):
        slot, node = "2 nodes x 2, by slot", "2 nodes x 2, by node"
        predicted = self.write("p.json", {"results": [sweep("ddlsim", [(1 << 20, 0.100), (4 << 20, 0.400)], configuration=slot),
                                                      sweep("ddlsim", [(1 << 20, 0.200)], configuration=node)]})
        measured = self.write("m.json", {"results": [sweep("ddlrun", [(1 << 20, 0.100), (4 << 20, 0.500)], configuration=slot),
                                                     sweep("ddlrun", [(1 << 20, 0.250)], configuration=node)]})
        status, out, _ = self.run_main(predicted, measured, "--json")
        self.assertEqual(status, 0)
        per_configuration = json.loads(out)["summary"]["per_configuration"]
        by_slot = per_configuration[slot + " allreduce on 4 ranks"]
        by_node = per_configuration[node + " allreduce on 4 ranks"]
        self.assertEqual(by_slot["points"], 2)
        self.assertAlmostEqual(by_slot["median_abs_error"], 0.10)
        self.assertAlmostEqual(by_slot["max_abs_error"], 0.20)
        self.assertAlmostEqual(by_node["max_abs_error"], 0.20)
        status, table, _ = self.run_main(predicted, measured)
        self.assertIn(f"{node} allreduce on 4 ranks  median |error|  20.0%, max  20.0% over 1 points", table)

    def test_joins_scaling_points_by_configuration_gpus_and_algorithm(self):
        points = lambda source, t: {"source": source, "points": [
            {"configuration": "c", "gpus": 4, "algorithm": "ddl 4", "iteration_s": t, "compute_s": 0.1}]}
        status, out, _ = self.run_main(self.write("p.json", points("ddlsim", 0.21)), self.write("m.json", points("ddlrun", 0.20)))
        self.assertEqual(status, 0)
        self.assertIn("+5.0%", out)
        self.assertIn("median |error|   5.0%  ddl 4", out)

    def test_scores_efficiency_in_points_beside_the_iteration_time(self):
        # Iteration times close while the efficiencies are far apart, as a one-GPU baseline off by 30% makes them:
        # the efficiency's error is reported, not hidden behind the time's.
        def points(source, rows, baseline_gpus=1):
            return {"source": source, "points": [
                {"configuration": "c", "gpus": gpus, "algorithm": "ring", "iteration_s": time, "compute_s": 1.0,
                 "baseline_gpus": baseline_gpus, "efficiency": efficiency} for gpus, time, efficiency in rows]}
        predicted = self.write("p.json", points("ddlsim", [(2, 4.3, 0.302), (4, 6.9, 0.188), (8, 12.2, 0.107)]))
        measured = self.write("m.json", points("ddlrun", [(2, 4.4, 0.219), (4, 7.2, 0.125), (8, 11.0, 0.101)]))
        status, out, _ = self.run_main(predicted, measured, "--json")
        self.assertEqual(status, 0)
        result = json.loads(out)
        by_gpus = {p["x"]: p for p in result["points"]}
        self.assertAlmostEqual(by_gpus[2]["efficiency_error"], 0.083)
        self.assertAlmostEqual(by_gpus[4]["predicted_efficiency"], 0.188)
        self.assertAlmostEqual(by_gpus[4]["measured_efficiency"], 0.125)
        self.assertEqual(result["summary"]["efficiency_points"], 3)
        self.assertAlmostEqual(result["summary"]["median_abs_efficiency_error"], 0.063)
        self.assertAlmostEqual(result["summary"]["max_abs_efficiency_error"], 0.083)
        self.assertEqual(result["summary"]["worst_efficiency"]["size"], by_gpus[2]["size"])
        status, table, _ = self.run_main(predicted, measured)
        self.assertIn("   30.2%    21.9%    +8.3", table)
        self.assertIn(f"3 efficiencies: median |error| 6.3 points, max |error| 8.3 points (ring, {by_gpus[2]['size']}, c)",
                      table)

        # Against another baseline the efficiencies measure different things: noted, not scored.
        other = self.write("o.json", points("ddlrun", [(2, 4.4, 0.9), (4, 7.2, 0.8), (8, 11.0, 0.7)], baseline_gpus=2))
        status, out, _ = self.run_main(predicted, other, "--json")
        self.assertEqual(status, 0)
        result = json.loads(out)
        self.assertNotIn("efficiency_points", result["summary"])
        self.assertTrue(all("efficiency_error" not in p for p in result["points"]))
        self.assertIn("efficiency against different baselines, so not compared", result["points"][0]["notes"])
        # Collective sweeps have no efficiency: nothing about it is printed.
        sweeps = (self.write("ps.json", sweep("ddlsim", [(1, 0.2)])), self.write("ms.json", sweep("ddlrun", [(1, 0.2)])))
        self.assertNotIn("efficienc", self.run_main(*sweeps)[1])

    def test_the_baselines_own_gpu_count_has_no_efficiency_to_score(self):
        # There the efficiency is 1 by definition on both sides: scoring it would add free zeros to the median.
        def points(source, rows):
            return {"source": source, "points": [
                {"configuration": "c", "gpus": gpus, "algorithm": "ring", "iteration_s": time, "compute_s": 1.0,
                 "baseline_gpus": 1, "efficiency": efficiency} for gpus, time, efficiency in rows]}
        status, out, _ = self.run_main(self.write("p.json", points("ddlsim", [(1, 1.0, 1.0), (2, 1.2, 0.8)])),
                                       self.write("m.json", points("ddlrun", [(1, 1.1, 1.0), (2, 1.3, 0.7)])), "--json")
        self.assertEqual(status, 0)
        result = json.loads(out)
        self.assertEqual(result["summary"]["points"], 2)
        self.assertEqual(result["summary"]["efficiency_points"], 1)
        self.assertAlmostEqual(result["summary"]["median_abs_efficiency_error"], 0.1)

    def test_a_sampled_prediction_is_compared_by_its_median_and_its_interval_counted(self):
        def sampled(gpus, p05, p50, p95, e05, e50, e95):
            return {"configuration": "c", "gpus": gpus, "algorithm": "ring", "iteration_s": 99.0, "compute_s": 1.0,
                    "baseline_gpus": 1, "efficiency": 0.5, "samples": 16, "iteration_s_p05": p05,
                    "iteration_s_p50": p50, "iteration_s_p95": p95, "images_per_s_p05": 1.0, "images_per_s_p50": 1.0,
                    "images_per_s_p95": 1.0, "efficiency_p05": e05, "efficiency_p50": e50, "efficiency_p95": e95}
        predicted = {"source": "ddlsim", "points": [sampled(2, 0.9, 1.0, 1.1, 0.7, 0.8, 0.9),
                                                    sampled(4, 1.8, 2.0, 2.2, 0.6, 0.7, 0.8)]}
        measured = {"source": "ddlrun", "points": [
            {"configuration": "c", "gpus": 2, "algorithm": "ring", "iteration_s": 1.05, "compute_s": 1.0,
             "baseline_gpus": 1, "efficiency": 0.95},
            {"configuration": "c", "gpus": 4, "algorithm": "ring", "iteration_s": 2.5, "compute_s": 1.0,
             "baseline_gpus": 1, "efficiency": 0.75}]}
        paths = (self.write("p.json", predicted), self.write("m.json", measured))
        status, out, _ = self.run_main(*paths, "--json")
        self.assertEqual(status, 0)
        result = json.loads(out)
        by_gpus = {p["x"]: p for p in result["points"]}
        # The median, not the central run's 99 s.
        self.assertAlmostEqual(by_gpus[2]["predicted"], 1.0)
        self.assertAlmostEqual(by_gpus[4]["error"], -0.2)
        self.assertAlmostEqual(by_gpus[2]["predicted_efficiency"], 0.8)
        # 1.05 s is inside [0.9, 1.1], 2.5 s outside [1.8, 2.2]; 95% outside [0.7, 0.9], 75% inside [0.6, 0.8].
        self.assertEqual((result["summary"]["covered"], result["summary"]["interval_points"]), (1, 2))
        self.assertEqual((result["summary"]["efficiency_covered"], result["summary"]["efficiency_interval_points"]), (1, 2))
        self.assertIn("90% intervals: 1 of 2 measured times inside (50%), 1 of 2 efficiencies", self.run_main(*paths)[1])

    def test_fails_an_algorithm_whose_median_error_exceeds_the_bound(self):
        predicted = self.write("p.json", sweep("ddlsim collective", [(1, 0.2), (2, 0.2), (3, 0.2)]))
        measured = self.write("m.json", sweep("ddlrun bench", [(1, 0.1), (2, 0.19), (3, 0.1)]))
        status, _, err = self.run_main(predicted, measured, "--max-error", "10")
        self.assertEqual(status, 1)
        self.assertIn("ring: median |error| 100.0% exceeds 10%", err)
        self.assertEqual(self.run_main(predicted, measured, "--max-error", "150")[0], 0)

    def test_bad_input_names_the_file_and_field(self):
        good = self.write("good.json", sweep("ddlsim collective", [(1, 0.2)]))
        broken = sweep("ddlrun bench", [(1, 0.2)])
        del broken["rows"][0]["time_s"]
        cases = [(self.write("a.json", broken), "a.json: $.rows[0].time_s: missing"),
                 (self.write("b.json", "{nope"), "b.json: not valid JSON"),
                 (os.path.join(self.directory.name, "absent.json"), "absent.json: no such file"),
                 (self.write("c.json", {"points": [{"gpus": "four", "algorithm": "ring", "iteration_s": 1}]}),
                  "c.json: $.points[0].gpus: expected an integer"),
                 (self.write("d.json", sweep("ddlrun bench", [(2, 0.2)])), "no point matches")]
        for path, message in cases:
            status, out, err = self.run_main(good, path)
            self.assertEqual(status, 2, message)
            self.assertIn(message, err)
            self.assertEqual(out, "")

    def test_plots_predicted_against_measured(self):
        predicted = self.write("p.json", sweep("ddlsim collective", [(1 << 20, 0.09), (4 << 20, 0.3)]))
        measured = self.write("m.json", sweep("ddlrun bench", [(1 << 20, 0.1), (4 << 20, 0.31)]))
        picture = os.path.join(self.directory.name, "plot.png")
        status, _, _ = self.run_main(predicted, measured, "--plot", picture)
        self.assertEqual(status, 0)
        with open(picture, "rb") as file:
            self.assertEqual(file.read(8), b"\x89PNG\r\n\x1a\n")


if __name__ == "__main__":
    unittest.main()
