"""The project's pictures: plot_scaling's scaling curves, ddlcompare's panels, and the colours they share."""
import importlib.machinery
import importlib.util
import json
import os
import subprocess
import sys
import unittest
from unittest import mock

from ddlcompare_testing import DdlcompareTestCase, ddlcompare

HERE = os.path.dirname(os.path.abspath(__file__))
ANALYSIS = os.path.dirname(HERE)
REPO = os.path.dirname(ANALYSIS)
PLOT_SCALING = os.path.join(ANALYSIS, "plot_scaling")
DDLCOMPARE = os.path.join(ANALYSIS, "ddlcompare")
DDLSIM = os.path.join(REPO, "build", "release", "sim", "ddlsim")
DEBIAN_PYTHON = "/usr/bin/python3"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

_loader = importlib.machinery.SourceFileLoader("plot_scaling", PLOT_SCALING)
plot_scaling = importlib.util.module_from_spec(importlib.util.spec_from_loader("plot_scaling", _loader))
_loader.exec_module(plot_scaling)
import compare  # noqa: E402  (plot_scaling put analysis/ on the path, as ddlcompare does)
import compare_plot  # noqa: E402
import interpreter  # noqa: E402
import plot_style  # noqa: E402

HAS_MATPLOTLIB = interpreter.has_modules("matplotlib")
DEBIAN_HAS_MATPLOTLIB = interpreter.python_with("matplotlib", candidates=[DEBIAN_PYTHON]) is not None


def point(algorithm, gpus, efficiency, parameters=None, label=None, configuration="c"):
    """A scaling point as ddlsim SCENARIO --json writes it (the fields plot_scaling reads, and a few it does not)."""
    label = label or " ".join([algorithm] + (["x".join(map(str, parameters["dims"]))] if parameters and "dims" in parameters else []))
    return {"configuration": configuration, "gpus": gpus, "hosts": max(1, gpus // 4), "ranks_per_host": min(gpus, 4),
            "algorithm": algorithm, "parameters": parameters or {}, "label": label, "batch_per_gpu": 32,
            "iteration_s": 0.164 / efficiency, "compute_s": 0.164, "images_per_s": 195 * gpus * efficiency,
            "efficiency": efficiency, "exposed_comm_s": 0.164 / efficiency - 0.164, "collectives": []}


def results(points):
    return {"source": "ddlsim", "scenario": "small", "topology": "minsky-p100-ib-edr", "model": "resnet50", "gpu": "P100",
            "points": points}


# Two ddl entries: the second differs from the first only at 64 GPUs, where ddlsim writes its one point of its own.
TWO_DDL_ENTRIES = [point("ddl", 1, 1.0, {"dims": [1]}), point("ddl", 4, 0.995, {"dims": [4]}),
                   point("ddl", 16, 0.989, {"dims": [4, 4]}), point("ddl", 64, 0.987, {"dims": [4, 16]}),
                   point("ddl", 64, 0.9873, {"dims": [4, 4, 4]}),
                   point("ring", 1, 1.0), point("ring", 4, 0.995), point("ring", 16, 0.982), point("ring", 64, 0.976)]
PUBLISHED = [{"gpus": 64, "efficiency": 0.95, "label": "PowerAI DDL, published", "source": "arXiv 1708.02188"}]


def captured_figure(figure):
    """What a test reads of a drawn figure, in place of writing it: per axes, its lines and x tick labels."""
    import matplotlib.colors
    figure.canvas.draw()
    axes = []
    for axis in figure.axes:
        lines = [{"label": line.get_label(), "colour": matplotlib.colors.to_hex(line.get_color()),
                  "marker": line.get_marker(), "linestyle": line.get_linestyle(), "xs": list(line.get_xdata()),
                  "ys": list(line.get_ydata()), "face": matplotlib.colors.to_hex(line.get_markerfacecolor())}
                 for line in axis.get_lines()]
        axes.append({"lines": lines, "xticks": [tick.get_text() for tick in axis.get_xticklabels() if tick.get_text()],
                     "title": axis.get_title(), "legend": [text.get_text() for text in axis.get_legend().get_texts()]
                     if axis.get_legend() else []})
    legends = [text.get_text() for legend in figure.legends for text in legend.get_texts()]
    return {"axes": axes, "figure_legend": legends}


class PlotTestCase(DdlcompareTestCase):
    def run_plot_scaling(self, *argv):
        """plot_scaling's exit status, standard output and standard error, run in this process."""
        import io
        from contextlib import redirect_stderr, redirect_stdout
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            try:
                status = plot_scaling.main(list(argv))
            except SystemExit as exit:  # argparse refusing an option
                status = exit.code
        return status, out.getvalue(), err.getvalue()

    def drawn(self, function, *arguments):
        """The figure `function` draws, captured instead of written."""
        figures = []
        with mock.patch.object(plot_style, "save_whole", lambda figure, path, dpi=120: figures.append(captured_figure(figure))):
            function(*arguments)
        self.assertEqual(len(figures), 1)
        return figures[0]

    def files(self):
        return sorted(os.listdir(self.directory.name))


class PlotScalingTest(PlotTestCase):

    def test_writes_a_png_of_a_results_document(self):
        path = self.write("results.json", results(TWO_DDL_ENTRIES))
        picture = os.path.join(self.directory.name, "scaling.png")
        # As a user runs it: the file itself (under a Python without matplotlib, it runs itself again in one with).
        run = subprocess.run([PLOT_SCALING, path, "--out", picture], capture_output=True, text=True, timeout=120)
        self.assertEqual(run.returncode, 0, run.stderr)
        with open(picture, "rb") as file:
            content = file.read()
        self.assertEqual(content[:8], PNG_SIGNATURE)
        self.assertGreater(len(content), 20000)
        self.assertEqual(self.files(), ["results.json", "scaling.png"])  # no temporary file left behind

    def test_writes_svg_and_pdf_too(self):
        path = self.write("results.json", results(TWO_DDL_ENTRIES[:4]))
        for name, start in (("scaling.svg", b"<?xml"), ("scaling.pdf", b"%PDF")):
            picture = os.path.join(self.directory.name, name)
            status, _, err = self.run_plot_scaling(path, "--out", picture)
            self.assertEqual(status, 0, err)
            with open(picture, "rb") as file:
                self.assertEqual(file.read(len(start)), start)

    def test_bad_input_exits_2_naming_the_file_and_field_and_writes_nothing(self):
        good = results(TWO_DDL_ENTRIES)
        without_efficiency = json.loads(json.dumps(good))
        del without_efficiency["points"][2]["efficiency"]
        string_gpus = json.loads(json.dumps(good))
        string_gpus["points"][1]["gpus"] = "four"
        written = []

        def scenario(published):
            written.append(None)
            return self.write(f"scenario{len(written)}.json", {"name": "s", "published": published})

        cases = [
            ([self.write("a.json", without_efficiency)], "a.json: $.points[2].efficiency: missing"),
            ([self.write("b.json", string_gpus)], "b.json: $.points[1].gpus: expected an integer"),
            ([self.write("c.json", '{"points": [{"gpus": 1, "efficiency": NaN}]}')], "c.json: not valid JSON: NaN"),
            ([self.write("d.json", "{nope")], "d.json: not valid JSON"),
            ([os.path.join(self.directory.name, "absent.json")], "absent.json: no such file"),
            ([self.write("e.json", {"points": []})], "e.json: $.points: empty"),
            ([self.write("f.json", {"collective": "allreduce", "rows": []})], "f.json: $: a collective sweep"),
            ([self.write("g.json", '{"points": [], "points": []}')], "g.json: $.points: the field is given twice"),
            (["--scenario", scenario([{"gpus": 256, "efficiency": 95, "label": "x", "source": "y"}])],
             "scenario1.json: $.published[0].efficiency: 95 is outside 0 .. 1.5"),
            (["--scenario", scenario([PUBLISHED[0], {"gpus": 256, "efficency": 0.9, "label": "x", "source": "y"}])],
             "scenario2.json: $.published[1].efficency: unknown field (did you mean 'efficiency'?)"),
            (["--scenario", scenario([{"gpus": 256, "efficiency": 0.9, "source": "y"}])],
             "scenario3.json: $.published[0].label: missing"),
            (["--scenario", scenario({"gpus": 256})], "scenario4.json: $.published: expected an array"),
            (["--scenario", scenario(["256"])], "scenario5.json: $.published[0]: expected an object"),
        ]
        results_path = self.write("results.json", good)
        picture = os.path.join(self.directory.name, "scaling.png")
        for arguments, message in cases:
            argv = arguments + [results_path] if arguments[0] == "--scenario" else arguments
            status, out, err = self.run_plot_scaling(*argv, "--out", picture)
            self.assertEqual(status, 2, message)
            self.assertIn(message, err)
            self.assertTrue(err.startswith("plot_scaling: "), err)
            self.assertEqual(out, "")
            self.assertFalse(os.path.exists(picture), message)
        self.assertFalse([name for name in self.files() if name.startswith(".")], "a temporary file was left behind")

    def test_an_output_that_is_no_image_or_cannot_be_written_is_refused_by_the_option(self):
        path = self.write("results.json", results(TWO_DDL_ENTRIES))
        for out, message in (("plot.txt", "must end in .png, .svg or .pdf"), ("no/plot.png", "no directory"),
                             (".", "must end in")):
            status, out_text, err = self.run_plot_scaling(path, "--out", os.path.join(self.directory.name, out))
            self.assertEqual(status, 2)
            self.assertIn("--out", err)
            self.assertIn(message, err)
            self.assertEqual(out_text, "")

    def test_draws_the_published_points_of_the_scenario(self):
        scenario = self.write("scenario.json", {"name": "small", "topology": "minsky-p100-ib-edr", "gpus": [1, 4], "published": PUBLISHED + [
            {"gpus": 16, "efficiency": 0.9, "images_per_s": 2800, "label": "Gloo, as IBM quotes it", "source": "s"}]})
        published = plot_scaling.published_points(plot_scaling.read_json(scenario), scenario)
        self.assertEqual([p["label"] for p in published], ["PowerAI DDL, published", "Gloo, as IBM quotes it"])
        if not HAS_MATPLOTLIB:
            self.skipTest("matplotlib is not in this Python")
        curves = plot_scaling.series_of(plot_scaling.scaling_points(results(TWO_DDL_ENTRIES), "r.json"))
        figure = self.drawn(plot_scaling.draw, curves, published, "t", os.path.join(self.directory.name, "p.png"))
        efficiency, rate = figure["axes"]
        stars = [line for line in efficiency["lines"] if line["label"] == "PowerAI DDL, published"]
        self.assertEqual(len(stars), 1)
        self.assertEqual((stars[0]["marker"], stars[0]["colour"], stars[0]["xs"]), ("*", "#000000", [64]))
        self.assertAlmostEqual(stars[0]["ys"][0], 95.0)
        self.assertIn("PowerAI DDL, published", figure["figure_legend"])
        self.assertIn("Gloo, as IBM quotes it", figure["figure_legend"])
        # Only the one with images/s is on the throughput panel, per GPU; the GPU counts are the tick labels, on a
        # log2 axis.
        self.assertEqual([line["ys"] for line in rate["lines"] if line["colour"] == "#000000"], [[2800 / 16]])
        self.assertEqual(efficiency["xticks"], ["1", "4", "16", "64"])
        # And written: the whole command with --scenario.
        picture = os.path.join(self.directory.name, "with-published.png")
        status, _, err = self.run_plot_scaling(self.write("r.json", results(TWO_DDL_ENTRIES)), "--scenario", scenario,
                                               "--out", picture, "--title", "small")
        self.assertEqual(status, 0, err)
        with open(picture, "rb") as file:
            self.assertEqual(file.read(8), PNG_SIGNATURE)
        # Another experiment's published points are refused, not drawn beside these predictions.
        other = self.write("other.json", {"name": "other", "model": "bert-large", "gpus": [1, 4], "published": PUBLISHED})
        status, _, err = self.run_plot_scaling(self.write("r.json", results(TWO_DDL_ENTRIES)), "--scenario", other,
                                               "--out", os.path.join(self.directory.name, "other.png"))
        self.assertEqual(status, 2, err)
        self.assertIn("is of model 'bert-large'", err)
        self.assertIn("another experiment's", err)

    @unittest.skipUnless(HAS_MATPLOTLIB, "matplotlib is not in this Python")
    def test_every_point_has_a_marker_and_ideal_scaling_is_a_grey_line(self):
        single = [point("halving-doubling", 8, 0.97)]
        curves = plot_scaling.series_of(plot_scaling.scaling_points(results(TWO_DDL_ENTRIES + single), "r.json"))
        figure = self.drawn(plot_scaling.draw, curves, [], "t", os.path.join(self.directory.name, "p.png"))
        efficiency, rate = figure["axes"]
        curves_drawn = [line for line in efficiency["lines"] if line["colour"] != plot_style.IDEAL_COLOUR]
        self.assertTrue(all(line["marker"] not in ("None", "", None) for line in curves_drawn))
        lone = [line for line in curves_drawn if line["label"] == "halving-doubling"]
        self.assertEqual(lone[0]["xs"], [8])
        self.assertAlmostEqual(lone[0]["ys"][0], 97.0)
        # Per GPU, ideal linear scaling is one GPU's rate: a flat line.
        ideal = [line for line in rate["lines"] if line["colour"] == plot_style.IDEAL_COLOUR]
        self.assertEqual(len(ideal), 1)
        self.assertAlmostEqual(ideal[0]["ys"][0], 195)
        self.assertAlmostEqual(ideal[0]["ys"][1], 195)


class SeriesTest(unittest.TestCase):
    """plot_scaling's grouping: one curve per algorithm entry of the scenario."""

    def curves(self, points):
        return [(curve["label"], [p["gpus"] for p in curve["points"]], curve["variant"])
                for curve in plot_scaling.series_of(plot_scaling.scaling_points(results(points), "r.json"))]

    def test_two_ddl_entries_are_two_curves_and_a_one_point_curve_is_kept(self):
        self.assertEqual(self.curves(TWO_DDL_ENTRIES), [("ddl (4x16 at 64)", [1, 4, 16, 64], 0),
                                                        ("ddl (4x4x4 at 64)", [64], 1),
                                                        ("ring", [1, 4, 16, 64], 0)])

    def test_entries_are_told_apart_by_file_order_however_the_points_interleave(self):
        by_gpus = sorted(TWO_DDL_ENTRIES, key=lambda p: p["gpus"])  # stable: the first entry first at each count
        self.assertEqual(sorted(self.curves(by_gpus)), sorted(self.curves(TWO_DDL_ENTRIES)))

    def test_labels_name_the_algorithm_and_what_does_not_change_with_the_gpu_count(self):
        hierarchical = [point("hierarchical", 1, 1.0, {"inner": "ring", "ranks_per_node": 1}, "hierarchical 1 per node, inner ring"),
                        point("hierarchical", 4, 0.99, {"inner": "ring", "ranks_per_node": 4}, "hierarchical 4 per node, inner ring"),
                        point("hierarchical", 8, 0.98, {"inner": "ring", "ranks_per_node": 4}, "hierarchical 4 per node, inner ring")]
        self.assertEqual(self.curves(hierarchical), [("hierarchical (4 per node, inner ring)", [1, 4, 8], 0)])

    def test_files_from_before_the_label_field_group_by_the_name_their_label_begins_with(self):
        old = [{"gpus": 1, "algorithm": "ddl 1", "efficiency": 1.0, "images_per_s": 195},
               {"gpus": 8, "algorithm": "ddl 4x2", "efficiency": 0.99, "images_per_s": 1544},
               {"gpus": 8, "algorithm": "ring", "efficiency": 0.98, "images_per_s": 1530}]
        self.assertEqual(self.curves(old), [("ddl (4x2 at 8)", [1, 8], 0), ("ring", [8], 0)])

    def test_identical_entries_still_get_a_legend_entry_each(self):
        twice = [point("ring", 4, 0.99), point("ring", 4, 0.99)]
        self.assertEqual(self.curves(twice), [("ring", [4], 0), ("ring #2", [4], 1)])


class PlotStyleTest(PlotTestCase):

    def test_each_algorithm_has_its_own_colour_and_its_labels_share_it(self):
        colours = [plot_style.colour(name) for name in plot_style.ALGORITHM_COLOURS]
        self.assertEqual(len(set(colours)), len(colours))
        self.assertEqual(plot_style.colour("ddl 4x16x4"), plot_style.colour("ddl"))
        self.assertEqual(plot_style.colour("hierarchical 2 per node, inner ring"), plot_style.colour("hierarchical"))
        self.assertEqual(plot_style.algorithm_name("halving-doubling"), "halving-doubling")
        self.assertEqual(plot_style.algorithm_name("torus-2d 8x8, inner ring"), "torus-2d")

    def test_an_unknown_name_gets_the_same_colour_every_time_and_none_of_the_known_ones(self):
        code = f"import sys; sys.path.insert(0, {ANALYSIS!r}); import plot_style; print(plot_style.colour('my-allreduce 2x2'))"
        seen = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                               env={**os.environ, "PYTHONHASHSEED": seed}).stdout.strip() for seed in ("1", "2", "3")}
        self.assertEqual(seen, {plot_style.colour("my-allreduce")})
        self.assertNotIn(plot_style.colour("my-allreduce"), plot_style.ALGORITHM_COLOURS.values())

    @unittest.skipUnless(os.access(DDLSIM, os.X_OK), "ddlsim is not built")
    def test_every_algorithm_ddlsim_knows_has_a_colour_and_a_marker_of_its_own(self):
        names = subprocess.run([DDLSIM, "algorithms", "--names"], capture_output=True, text=True, timeout=60)
        self.assertEqual(names.returncode, 0, names.stderr)
        algorithms = {line.split()[0] for line in names.stdout.splitlines() if line.strip()}
        self.assertTrue(algorithms)
        self.assertEqual(algorithms - set(plot_style.ALGORITHM_COLOURS), set())
        self.assertEqual(algorithms - set(plot_style.ALGORITHM_MARKERS), set())

    def test_byte_sizes_read_as_kib_mib_gib(self):
        self.assertEqual([plot_style.bytes_label(s) for s in (512, 1 << 10, 64 << 20, 1 << 30, 3 << 19)],
                         ["512 B", "1 KiB", "64 MiB", "1 GiB", "1.5 MiB"])
        ticks = plot_style.byte_ticks([1 << e for e in range(10, 31)])
        self.assertLessEqual(len(ticks), 8)
        self.assertIn(1 << 20, ticks)
        self.assertIn(1 << 30, ticks)

    @unittest.skipUnless(HAS_MATPLOTLIB, "matplotlib is not in this Python")
    def test_plot_scaling_and_ddlcompare_draw_an_algorithm_in_the_same_colour_in_every_panel(self):
        curves = plot_scaling.series_of(plot_scaling.scaling_points(results(TWO_DDL_ENTRIES), "r.json"))
        scaling = self.drawn(plot_scaling.draw, curves, [], "t", "unused.png")
        joined = [{"configuration": c, "algorithm": a, "size": "s", "x": x, "kind": "allreduce", "predicted": 1.1 * t,
                   "measured": t, "error": 0.1, "notes": []}
                  for c in ("4 nodes allreduce on 4 ranks", "8 nodes allreduce on 8 ranks")
                  for a in ("ring", "ddl 2x2", "halving-doubling") for x, t in ((1 << 20, 0.1), (4 << 20, 0.3))]
        compared = self.drawn(compare_plot.draw, joined, "unused.png")
        by_marker = {}
        for axis in scaling["axes"] + compared["axes"]:
            for line in axis["lines"]:
                if line["colour"] not in (plot_style.IDEAL_COLOUR, plot_style.ZERO_COLOUR, "#000000"):
                    by_marker.setdefault(line["colour"], set()).add(line["marker"])
        self.assertEqual(by_marker[plot_style.colour("ring")], {"o"})
        self.assertEqual(by_marker[plot_style.colour("ddl")], {"s", plot_style.marker("ddl", 1)})  # two ddl entries
        self.assertEqual(by_marker[plot_style.colour("halving-doubling")], {"^"})
        self.assertEqual(len(by_marker), 3)


class DdlcomparePlotTest(PlotTestCase):

    def sweep_files(self):
        sweep = lambda source, times, algorithm: {
            "source": source, "configuration": "4 nodes", "collective": "allreduce", "algorithm": algorithm, "ranks": 4,
            "rows": [{"bytes": size, "count": size // 4, "time_s": time} for size, time in times]}
        predicted = self.write("p.json", {"results": [sweep("ddlsim", [(1 << 10, 0.001), (64 << 20, 0.9), (1 << 30, 14.0)], "ring"),
                                                      sweep("ddlsim", [(1 << 10, 0.002), (64 << 20, 0.8)], "ddl 2x2")]})
        measured = self.write("m.json", {"results": [sweep("ddlrun", [(1 << 10, 0.0011), (64 << 20, 1.0), (1 << 30, 15.0)], "ring"),
                                                     sweep("ddlrun", [(1 << 10, 0.002), (64 << 20, 0.7)], "ddl 2x2")]})
        return predicted, measured

    @unittest.skipUnless(HAS_MATPLOTLIB, "matplotlib is not in this Python")
    def test_each_panel_has_an_error_panel_under_it_and_byte_sizes_as_kib_mib_gib(self):
        predicted, measured = self.sweep_files()
        joined, _, _ = compare.compare(compare.load(predicted)[1], compare.load(measured)[1])
        figure = self.drawn(compare_plot.draw, joined, "unused.png")
        times, errors = figure["axes"]
        self.assertEqual(times["title"], "4 nodes allreduce on 4 ranks")
        self.assertEqual(errors["xticks"], ["1 KiB", "64 MiB", "1 GiB"])
        ring = plot_style.colour("ring")
        ring_lines = [line for line in times["lines"] if line["colour"] == ring]
        styles = {(line["linestyle"], line["face"]) for line in ring_lines}
        self.assertEqual(styles, {("--", "#ffffff"), ("-", ring)})  # predicted dashed and hollow, measured solid and filled
        self.assertTrue(all(line["marker"] == "o" for line in ring_lines))
        ring_errors = [line for line in errors["lines"] if line["colour"] == ring]
        self.assertEqual(len(ring_errors), 1)
        self.assertAlmostEqual(ring_errors[0]["ys"][1], -10.0)
        zero = [line for line in errors["lines"] if line["colour"] == plot_style.ZERO_COLOUR]
        self.assertEqual(zero[0]["ys"], [0, 0])
        self.assertIn("predicted", times["legend"])
        self.assertIn("measured", times["legend"])

    def run_blocked(self, *argv, setup=""):
        """ddlcompare's main under Debian's Python with `import matplotlib` made to fail, as in a Python without it."""
        code = (
            "import importlib.abc, importlib.machinery, importlib.util, sys\n"
            "class NoMatplotlib(importlib.abc.MetaPathFinder):\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name == 'matplotlib' or name.startswith('matplotlib.'):\n"
            "            raise ImportError('matplotlib is blocked for this test')\n"
            "sys.meta_path.insert(0, NoMatplotlib())\n"
            "loader = importlib.machinery.SourceFileLoader('ddlcompare', sys.argv[1])\n"
            "ddlcompare = importlib.util.module_from_spec(importlib.util.spec_from_loader('ddlcompare', loader))\n"
            "loader.exec_module(ddlcompare)\n"
            f"{setup}\n"
            "sys.exit(ddlcompare.main(sys.argv[2:]))\n")
        return subprocess.run([DEBIAN_PYTHON, "-c", code, DDLCOMPARE, *argv], capture_output=True, text=True, timeout=120,
                              cwd=self.directory.name)

    @unittest.skipUnless(DEBIAN_HAS_MATPLOTLIB, "Debian's python3 has no matplotlib here")
    def test_without_matplotlib_the_table_is_printed_and_the_plot_drawn_in_debians_python(self):
        predicted, measured = self.sweep_files()
        picture = os.path.join(self.directory.name, "comparison.png")
        run = self.run_blocked(predicted, measured, "--plot", picture)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertIn("5 points: median |error|", run.stdout)
        self.assertIn(f"drew {picture} in {DEBIAN_PYTHON}", run.stderr)
        with open(picture, "rb") as file:
            content = file.read()
        self.assertEqual(content[:8], PNG_SIGNATURE)
        self.assertGreater(len(content), 20000)

    def test_without_any_python_with_matplotlib_the_table_is_printed_and_it_exits_2(self):
        if not os.access(DEBIAN_PYTHON, os.X_OK):
            self.skipTest("no /usr/bin/python3")
        predicted, measured = self.sweep_files()
        picture = os.path.join(self.directory.name, "comparison.png")
        for extra, printed in (([], "5 points: median |error|"), (["--json"], '"summary"')):
            run = self.run_blocked(predicted, measured, "--plot", picture, *extra,
                                   setup="import interpreter; interpreter.candidate_pythons = lambda: []")
            self.assertEqual(run.returncode, 2, run.stderr)
            self.assertIn(printed, run.stdout)
            self.assertIn("--plot needs matplotlib", run.stderr)
            self.assertIn("apt-get install python3-matplotlib", run.stderr)
            self.assertFalse(os.path.exists(picture))
        json.loads(run.stdout)  # the --json output is whole

    @unittest.skipUnless(HAS_MATPLOTLIB or DEBIAN_HAS_MATPLOTLIB, "no Python here has matplotlib")
    def test_the_max_error_status_still_holds_beside_a_plot(self):
        predicted, measured = self.sweep_files()
        picture = os.path.join(self.directory.name, "comparison.png")
        status, out, err = self.run_main(predicted, measured, "--plot", picture, "--max-error", "1")
        self.assertEqual(status, 1, err)
        self.assertIn("exceeds 1%", err)
        self.assertIn("median |error|", out)
        self.assertTrue(os.path.exists(picture))


if __name__ == "__main__":
    unittest.main()


PLOT_TUNING = os.path.join(ANALYSIS, "plot_tuning")
_tuning_loader = importlib.machinery.SourceFileLoader("plot_tuning", PLOT_TUNING)
plot_tuning = importlib.util.module_from_spec(importlib.util.spec_from_loader("plot_tuning", _tuning_loader))
_tuning_loader.exec_module(plot_tuning)


def tuning_table():
    """Two sizes; ddl's two grids and ring. ddl 2x2 wins the small size, ddl 4 (a ring by another name) ties
    ring at the large one."""
    def candidate(algorithm, label, times, parameters=None):
        return {"algorithm": algorithm, "parameters": parameters or {}, "label": label, "time_s": times}
    return {"source": "ddlsim tune", "topology": "t", "gpus": 4, "collective": "allreduce", "type": "float32",
            "candidates": [candidate("ring", "ring", [4e-4, 2e-3]), candidate("ddl", "ddl 2x2", [1e-4, 3e-3], {"dims": [2, 2]}),
                           candidate("ddl", "ddl 4", [5e-4, 2e-3], {"dims": [4]})],
            "rows": [{"bytes": 1024, "best": "ddl 2x2", "time_s": 1e-4, "runner_up": "ring", "runner_up_time_s": 4e-4,
                      "margin": 3.0},
                     {"bytes": 1 << 20, "best": "ring", "time_s": 2e-3, "runner_up": "ddl 4", "runner_up_time_s": 2e-3,
                      "margin": 0.0}]}


class PlotTuningTest(PlotTestCase):

    def test_each_algorithm_is_drawn_at_its_fastest_configuration_beside_the_best(self):
        sizes, best, fastest, overall = plot_tuning.read_table(tuning_table(), "t.json")
        self.assertEqual(sizes, [1024, 1 << 20])
        self.assertEqual(best, ["ddl 2x2", "ring"])
        self.assertEqual(fastest, {"ring": [4e-4, 2e-3], "ddl": [1e-4, 2e-3]})
        self.assertEqual(overall, [1e-4, 2e-3])

    @unittest.skipUnless(HAS_MATPLOTLIB or DEBIAN_HAS_MATPLOTLIB, "no Python here has matplotlib")
    def test_writes_a_png_and_refuses_a_table_it_cannot_draw(self):
        path = self.write("table.json", tuning_table())
        picture = os.path.join(self.directory.name, "tuning.png")
        run = subprocess.run([PLOT_TUNING, path, "--out", picture], capture_output=True, text=True, timeout=120)
        self.assertEqual(run.returncode, 0, run.stderr)
        with open(picture, "rb") as file:
            self.assertEqual(file.read(8), PNG_SIGNATURE)
        short = tuning_table()
        short["candidates"][1]["time_s"] = [1e-4]
        bad = self.write("short.json", short)
        refused = os.path.join(self.directory.name, "refused.png")
        run = subprocess.run([PLOT_TUNING, bad, "--out", refused], capture_output=True, text=True, timeout=120)
        self.assertEqual(run.returncode, 2)
        self.assertIn("short.json: $.candidates[1].time_s", run.stderr)
        self.assertFalse(os.path.exists(refused))


PLOT_SENSITIVITY = os.path.join(ANALYSIS, "plot_sensitivity")
_sensitivity_loader = importlib.machinery.SourceFileLoader("plot_sensitivity", PLOT_SENSITIVITY)
plot_sensitivity = importlib.util.module_from_spec(importlib.util.spec_from_loader("plot_sensitivity", _sensitivity_loader))
_sensitivity_loader.exec_module(plot_sensitivity)


def sensitivity():
    """Two algorithms at 256 GPUs, two inputs each and all together, as ddlsim --sensitivity hands them over."""
    def swing(name, low, middle, high):
        return {"input": name, "efficiency_p05": low, "efficiency_p50": middle, "efficiency_p95": high}
    return {"scenario": "s", "samples": 32, "points": [
        {"label": "ddl 4x16x4", "gpus": 256, "efficiency": 0.972,
         "inputs": [swing("overlap_slowdown", 0.95, 0.97, 0.98), swing("compute_jitter", 0.968, 0.971, 0.973),
                    swing("all together", 0.94, 0.965, 0.978)]},
        {"label": "ring", "gpus": 256, "efficiency": 0.926,
         "inputs": [swing("overlap_slowdown", 0.9, 0.92, 0.94), swing("compute_jitter", 0.92, 0.925, 0.928),
                    swing("all together", 0.89, 0.917, 0.935)]}]}


class PlotSensitivityTest(PlotTestCase):

    def test_reads_each_inputs_percentiles_and_refuses_them_out_of_order(self):
        points = plot_sensitivity.sensitivity_points(sensitivity(), "s.json")
        self.assertEqual([point["label"] for point in points], ["ddl 4x16x4", "ring"])
        self.assertEqual([swing["input"] for swing in points[0]["swings"]], ["overlap_slowdown", "compute_jitter", "all together"])
        self.assertEqual((points[1]["swings"][0]["low"], points[1]["swings"][0]["high"]), (0.9, 0.94))
        disordered = sensitivity()
        disordered["points"][1]["inputs"][0]["efficiency_p05"] = 0.95
        with self.assertRaisesRegex(plot_sensitivity.BadInput, r"s\.json: \$\.points\[1\]\.inputs\[0\]: the percentiles"):
            plot_sensitivity.sensitivity_points(disordered, "s.json")

    @unittest.skipUnless(HAS_MATPLOTLIB or DEBIAN_HAS_MATPLOTLIB, "no Python here has matplotlib")
    def test_writes_a_png_and_nothing_for_bad_input(self):
        picture = os.path.join(self.directory.name, "tornado.png")
        run = subprocess.run([PLOT_SENSITIVITY, self.write("s.json", sensitivity()), "--out", picture], capture_output=True,
                             text=True, timeout=120)
        self.assertEqual(run.returncode, 0, run.stderr)
        with open(picture, "rb") as file:
            self.assertEqual(file.read(8), PNG_SIGNATURE)
        empty = dict(sensitivity(), points=[])
        refused = os.path.join(self.directory.name, "refused.png")
        run = subprocess.run([PLOT_SENSITIVITY, self.write("e.json", empty), "--out", refused], capture_output=True,
                             text=True, timeout=120)
        self.assertEqual(run.returncode, 2)
        self.assertIn("e.json: $.points", run.stderr)
        self.assertFalse(os.path.exists(refused))


PLOT_COLLECTIVE_VALIDATION = os.path.join(ANALYSIS, "plot_collective_validation")
_collective_loader = importlib.machinery.SourceFileLoader("plot_collective_validation", PLOT_COLLECTIVE_VALIDATION)
plot_collective_validation = importlib.util.module_from_spec(
    importlib.util.spec_from_loader("plot_collective_validation", _collective_loader))
_collective_loader.exec_module(plot_collective_validation)


def collective_validation():
    """A bandwidth row and a latency row, as validate_collectives --json prints them."""
    return {"rows": [{"label": "4 nodes", "source": "s", "flags": ["--gpus", "32"], "predicted_busbw_GBps": 385.6,
                      "published_busbw_GBps": 365.8, "error": 0.054},
                     {"label": "1 KB", "source": "s", "flags": ["--gpus", "8"], "predicted_time_us": 15.0,
                      "published_time_us": 16.96, "error": -0.115}],
            "not_simulated": [{"row": "x", "why": "y"}],
            "overall": {"rows": 1, "median_abs_error": 0.054, "max_abs_error": 0.054},
            "latency": {"rows": 1, "median_abs_error": 0.115, "max_abs_error": 0.115}}


class PlotCollectiveValidationTest(PlotTestCase):

    def test_each_row_goes_to_the_panel_of_its_quantity(self):
        rows = plot_collective_validation.scored_rows(collective_validation(), "v.json")
        self.assertEqual(rows, [("4 nodes", "published_busbw_GBps", 0.054), ("1 KB", "published_time_us", -0.115)])
        both = collective_validation()
        both["rows"][0]["published_time_us"] = 3.0
        with self.assertRaisesRegex(plot_collective_validation.BadInput, r"v\.json: \$\.rows\[0\]: expected one of"):
            plot_collective_validation.scored_rows(both, "v.json")

    @unittest.skipUnless(HAS_MATPLOTLIB or DEBIAN_HAS_MATPLOTLIB, "no Python here has matplotlib")
    def test_writes_a_png_and_nothing_for_bad_input(self):
        picture = os.path.join(self.directory.name, "collectives.png")
        run = subprocess.run([PLOT_COLLECTIVE_VALIDATION, self.write("v.json", collective_validation()), "--out", picture],
                             capture_output=True, text=True, timeout=120)
        self.assertEqual(run.returncode, 0, run.stderr)
        with open(picture, "rb") as file:
            self.assertEqual(file.read(8), PNG_SIGNATURE)
        no_error = collective_validation()
        del no_error["rows"][1]["error"]
        refused = os.path.join(self.directory.name, "refused.png")
        run = subprocess.run([PLOT_COLLECTIVE_VALIDATION, self.write("n.json", no_error), "--out", refused],
                             capture_output=True, text=True, timeout=120)
        self.assertEqual(run.returncode, 2)
        self.assertIn("n.json: $.rows[1].error", run.stderr)
        self.assertFalse(os.path.exists(refused))
