"""What the plotters of analysis/ (plot_scaling, plot_tuning) share in reading their input: the strict JSON reader
of results_input.py, typed fields with the file and JSON path in every error, the --out image path, and running
again under a Python that has matplotlib. Bad input raises BadInput, which each plotter reports with exit status 2.
"""
import argparse
import math
import os

import interpreter
from results_input import BadInput, read_json, require_outputs_apart  # noqa: F401  (the plotters take them from here)


def number(document, key, where, source, low, high, integer=False):
    """document[key]: a number (an integer where `integer`) from `low` to `high`."""
    if key not in document:
        raise BadInput(f"{source}: {where}.{key}: missing")
    value = document[key]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (integer and not isinstance(value, int)):
        raise BadInput(f"{source}: {where}.{key}: expected {'an integer' if integer else 'a number'}")
    if isinstance(value, int) and abs(value) > 2 ** 62:
        raise BadInput(f"{source}: {where}.{key}: {str(value)[:20]}... is out of range")
    if not math.isfinite(value) or not low <= value <= high:
        raise BadInput(f"{source}: {where}.{key}: {value:g} is outside {low:g} .. {high:g}")
    return value


def text(document, key, where, source, required=True, default=""):
    if key not in document:
        if required:
            raise BadInput(f"{source}: {where}.{key}: missing")
        return default
    if not isinstance(document[key], str):
        raise BadInput(f"{source}: {where}.{key}: expected a string")
    return document[key]


def image_path(value):
    """--out's value: a .png, .svg or .pdf file in a writable directory."""
    extension = os.path.splitext(value)[1].lower()
    if extension not in (".png", ".svg", ".pdf"):
        raise argparse.ArgumentTypeError(f"'{value}' must end in .png, .svg or .pdf")
    if os.path.isdir(value):
        raise argparse.ArgumentTypeError(f"'{value}' is a directory")
    directory = os.path.dirname(value) or "."
    if not os.path.isdir(directory):
        raise argparse.ArgumentTypeError(f"no directory '{directory}'")
    if not os.access(directory, os.W_OK):
        raise argparse.ArgumentTypeError(f"the directory '{directory}' is not writable")
    return value


def title_text(value):
    """--title's value: UTF-8 text. Arguments that are not come in as surrogates, which no figure's file can
    encode (an SVG failed with UnicodeEncodeError once drawn)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise argparse.ArgumentTypeError("not UTF-8 text")
    return value


def rerun_elsewhere(script, argv):
    """Runs `script` (the plotter's own path) again with `argv` under a Python that has matplotlib
    (interpreter.py); its exit status."""
    rerun = interpreter.run_under_python_with(["matplotlib"], script, argv)
    if rerun is None:
        raise BadInput("needs matplotlib, and no Python here has it (Debian: apt-get install python3-matplotlib)")
    return rerun.returncode
