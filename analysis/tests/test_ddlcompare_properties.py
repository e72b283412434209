"""Properties of ddlcompare over generated inputs (Hypothesis): it joins any pair of well-formed results
exactly, and on anything else it either succeeds or says what is wrong with exit status 2 -- it never raises,
never prints a traceback, and never prints a figure computed from input it refused."""
import json
import math
import os
import unittest

from hypothesis import HealthCheck, given, settings, strategies as st

from ddlcompare_testing import DdlcompareTestCase

# No example database: CTest runs this in the source tree, which must stay as it was checked out.
SETTINGS = settings(max_examples=150, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])

seconds = st.floats(min_value=1e-6, max_value=1e3, allow_nan=False, allow_infinity=False)
algorithms = st.sampled_from(["ring", "ddl 4x2", "halving-doubling", "hierarchical 2 ranks per node"])
configurations = st.sampled_from(["", "4 nodes x 1, by slot", "2 nodes x 2, by node"])


@st.composite
def sweeps(draw):
    """A predicted and a measured collective sweep over the same sizes."""
    sizes = draw(st.lists(st.integers(min_value=0, max_value=1 << 40), min_size=1, max_size=8, unique=True))
    header = {"configuration": draw(configurations), "collective": "allreduce", "algorithm": draw(algorithms),
              "ranks": draw(st.integers(min_value=1, max_value=4096)), "type": "float32"}
    predicted = dict(header, source="ddlsim collective", rows=[{"bytes": b, "time_s": draw(seconds)} for b in sizes])
    measured = dict(header, source="ddlrun bench", rows=[{"bytes": b, "time_s": draw(seconds), "wrong": 0} for b in sizes])
    return predicted, measured


@st.composite
def scaling_points(draw):
    gpus = draw(st.lists(st.integers(min_value=1, max_value=1 << 16), min_size=1, max_size=6, unique=True))
    algorithm = draw(algorithms)
    make = lambda source: {"source": source, "scenario": "s", "points": [
        {"configuration": "s", "gpus": g, "algorithm": algorithm, "iteration_s": draw(seconds), "compute_s": 0.1} for g in gpus]}
    return make("ddlsim"), make("ddlrun")


# Integers of up to thousands of digits (all that json.dumps writes): float() fails on most of them.
huge_integers = st.integers(min_value=1, max_value=4000).map(lambda digits: 10 ** digits - 1)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | huge_integers | st.floats(allow_nan=False, allow_infinity=False) |
    st.text(max_size=8),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20)


def mutate(document, draw):
    """`document` with one thing wrong in it: a field removed, retyped, renamed, or a figure out of range."""
    paths = []

    def walk(value, path):
        if isinstance(value, dict):
            for key in value:
                paths.append(path + [key])
                walk(value[key], path + [key])
        elif isinstance(value, list):
            for index in range(len(value)):
                paths.append(path + [index])
                walk(value[index], path + [index])

    walk(document, [])
    path = draw(st.sampled_from(paths))
    parent = document
    for step in path[:-1]:
        parent = parent[step]
    last = path[-1]
    action = draw(st.sampled_from(["delete", "retype", "rename", "negative", "huge", "zero", "enormous"]))
    if action == "delete":
        del parent[last]
    elif action == "retype":
        parent[last] = draw(json_values)
    elif action == "rename" and isinstance(last, str):
        parent[last + draw(st.sampled_from(["s", "_", "x"]))] = parent.pop(last)
    elif action == "negative":
        parent[last] = -1
    elif action == "huge":
        parent[last] = 1e308
    elif action == "enormous":
        parent[last] = 10 ** 400
    else:
        parent[last] = 0
    return document


class DdlcompareProperties(DdlcompareTestCase):

    def assert_refused_or_fine(self, status, out, err, *paths):
        self.assertIn(status, (0, 2), err)
        if status == 2:
            self.assertTrue(err.startswith("ddlcompare: "), err)
            self.assertTrue(any(os.path.basename(p) in err for p in paths), err)
            self.assertEqual(out, "")
        self.assertNotIn("Traceback", err)
        self.assertNotIn("nan", out.lower())
        self.assertNotIn("inf", out.lower())

    @SETTINGS
    @given(sweeps())
    def test_every_row_of_two_matching_sweeps_is_joined_with_its_exact_error(self, pair):
        predicted, measured = pair
        status, out, err = self.run_main(self.write("p.json", predicted), self.write("m.json", measured), "--json")
        self.assertEqual(status, 0, err)
        result = json.loads(out)
        self.assertEqual(len(result["points"]), len(measured["rows"]))
        expected = {p["bytes"]: p["time_s"] for p in predicted["rows"]}
        for point, row in zip(sorted(result["points"], key=lambda p: p["x"]), sorted(measured["rows"], key=lambda r: r["bytes"])):
            self.assertEqual(point["x"], row["bytes"])
            self.assertTrue(math.isclose(point["error"], (expected[row["bytes"]] - row["time_s"]) / row["time_s"], rel_tol=1e-12))
        errors = [abs(p["error"]) for p in result["points"]]
        self.assertLessEqual(min(errors), result["summary"]["median_abs_error"])
        self.assertLessEqual(result["summary"]["median_abs_error"], result["summary"]["max_abs_error"])
        self.assertEqual(result["summary"]["max_abs_error"], max(errors))

    @SETTINGS
    @given(scaling_points(), st.floats(min_value=0, max_value=1e4, allow_nan=False))
    def test_max_error_fails_exactly_when_a_median_exceeds_it(self, pair, bound):
        predicted, measured = pair
        status, out, err = self.run_main(self.write("p.json", predicted), self.write("m.json", measured), "--json")
        self.assertEqual(status, 0, err)
        median = json.loads(out)["summary"]["median_abs_error"]
        status, _, _ = self.run_main(self.write("p.json", predicted), self.write("m.json", measured),
                                     "--max-error", repr(bound))
        self.assertEqual(status, 1 if 100 * median > bound else 0)

    @SETTINGS
    @given(st.one_of(sweeps(), scaling_points()), st.data())
    def test_a_document_with_one_thing_wrong_is_refused_or_still_joined(self, pair, data):
        predicted, measured = pair
        measured = mutate(measured, data.draw)
        p, m = self.write("p.json", predicted), self.write("m.json", measured)
        self.assert_refused_or_fine(*self.run_main(p, m), p, m)

    @SETTINGS
    @given(json_values)
    def test_any_json_value_as_results_is_refused_or_joined(self, value):
        good = self.write("good.json", {"source": "x", "points": [{"gpus": 1, "algorithm": "ring", "iteration_s": 1}]})
        path = self.write("any.json", value)
        self.assert_refused_or_fine(*self.run_main(good, path), good, path)

    @SETTINGS
    @given(st.integers(min_value=4301, max_value=20000), st.sampled_from(["time_s", "bytes", "ranks"]))
    def test_an_integer_longer_than_python_reads_is_refused(self, digits, key):
        # Python's json refuses integers of over 4300 digits with a ValueError that is not a JSONDecodeError.
        figures = {"time_s": "1", "bytes": "1", "ranks": "4"}
        figures[key] = "9" * digits
        text = ('{"source": "x", "collective": "allreduce", "algorithm": "ring", "ranks": %(ranks)s, '
                '"rows": [{"bytes": %(bytes)s, "time_s": %(time_s)s}]}' % figures)
        good = self.write("good.json", {"source": "x", "points": [{"gpus": 1, "algorithm": "ring", "iteration_s": 1}]})
        path = self.write("long.json", text)
        status, out, err = self.run_main(good, path)
        self.assertEqual(status, 2, err)
        self.assert_refused_or_fine(status, out, err, good, path)

    @SETTINGS
    @given(st.binary(max_size=200))
    def test_any_bytes_as_results_are_refused(self, content):
        good = self.write("good.json", {"source": "x", "points": [{"gpus": 1, "algorithm": "ring", "iteration_s": 1}]})
        path = self.write("bytes.json", content)
        self.assert_refused_or_fine(*self.run_main(good, path), good, path)

    @SETTINGS
    @given(st.text(max_size=12))
    def test_any_max_error_text_is_a_percentage_or_refused_by_name(self, text):
        good = self.write("good.json", {"source": "x", "points": [{"gpus": 1, "algorithm": "ring", "iteration_s": 1}]})
        try:
            status, out, err = self.run_main(good, good, "--max-error", text)
        except SystemExit as exit:  # argparse refuses a bad value by exiting 2, naming the option
            self.assertEqual(exit.code, 2)
            return
        self.assertIn(status, (0, 1))


if __name__ == "__main__":
    unittest.main()
