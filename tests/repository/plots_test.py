#!/usr/bin/python3
"""Every committed picture is what analysis/regenerate_plots draws from committed data, and no older than what
draws it: its tool's code, its arguments and its inputs are those the record (analysis/results/plots.sha256) says
it was drawn from, and the picture is the one drawn then. A plot style, a result set or a scenario's published
points that changes without the pictures drawn again fails this test, naming each stale picture.

Usage: plots_test.py SOURCE_DIR
"""
import importlib.machinery
import importlib.util
import os
import pathlib
import subprocess
import sys
import unittest

SOURCE = pathlib.Path(sys.argv.pop(1) if len(sys.argv) > 1 else ".").resolve()
SCRIPT = SOURCE / "analysis" / "regenerate_plots"
_loader = importlib.machinery.SourceFileLoader("regenerate_plots", str(SCRIPT))
regenerate = importlib.util.module_from_spec(importlib.util.spec_from_loader("regenerate_plots", _loader))
_loader.exec_module(regenerate)


class CommittedPlots(unittest.TestCase):
    def test_every_committed_picture_is_drawn_from_what_it_says(self):
        checked = subprocess.run([sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True, timeout=120)
        self.assertEqual(checked.returncode, 0, checked.stderr + "\nrun analysis/regenerate_plots and commit the pictures")
        self.assertIn(f"{len(regenerate.PLOTS)} of {len(regenerate.PLOTS)} pictures", checked.stdout)

    def test_every_input_and_tool_of_every_plot_is_committed(self):
        committed = set(subprocess.run(["git", "-C", str(SOURCE), "ls-files"], capture_output=True, text=True,
                                       check=True).stdout.split("\n"))
        for picture, tool, arguments in regenerate.PLOTS:
            for path in regenerate.CODE[tool] + [argument for argument in arguments if argument.endswith(".json")]:
                self.assertTrue(path in committed, f"{picture} is drawn from {path}, which the repository does not hold")


class TheCheckCanFail(unittest.TestCase):
    """The check is not vacuous: each way a picture goes stale is found."""

    def setUp(self):
        self.record = regenerate.read_record()
        self.picture, self.tool, self.arguments = regenerate.PLOTS[0]

    def test_a_changed_input_or_tool_makes_its_picture_stale(self):
        real = regenerate.file_digest
        for changed in (self.arguments[0], regenerate.CODE[self.tool][-1]):
            regenerate.file_digest = lambda path, changed=changed: "0" * 64 if path == changed else real(path)
            try:
                stale = regenerate.stale(regenerate.PLOTS, self.record)
            finally:
                regenerate.file_digest = real
            self.assertIn((self.picture, "older than what draws it (its tool's code, arguments or inputs changed)"), stale,
                          changed)

    def test_a_picture_drawn_otherwise_or_not_recorded_is_found(self):
        edited = dict(self.record, **{self.picture: ("0" * 64, self.record[self.picture][1])})
        self.assertEqual(regenerate.stale(regenerate.PLOTS[:1], edited)[0][0], self.picture)
        unrecorded = {picture: entry for picture, entry in self.record.items() if picture != self.picture}
        self.assertEqual(regenerate.stale(regenerate.PLOTS[:1], unrecorded),
                         [(self.picture, "not in the record: draw it with analysis/regenerate_plots")])


if __name__ == "__main__":
    unittest.main()
