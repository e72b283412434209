"""What the plotters of analysis/ (plot_scaling, plot_tuning) share in reading their input: a strict JSON reader,
typed fields with the file and JSON path in every error, the --out image path, and running again under a Python
that has matplotlib. Bad input raises BadInput, which each plotter reports with exit status 2.
"""
import argparse
import json
import math
import os
import subprocess
import sys

import plot_style

MAX_FILE_BYTES = 1 << 30
# Set in the environment of a plotter run again under another Python, so that it never starts a third.
RERUN_MARK = "DDLSCALE_PLOT_RERUN"


class BadInput(Exception):
    pass


def read_json(path):
    """The JSON document in the file at `path`: UTF-8, strict (no NaN or Infinity), no field twice in one object."""
    if not os.path.exists(path):
        raise BadInput(f"{path}: no such file")
    if os.path.isdir(path):
        raise BadInput(f"{path}: is a directory, not a JSON file")
    if not os.path.isfile(path):
        raise BadInput(f"{path}: not a regular file")
    try:
        if os.path.getsize(path) > MAX_FILE_BYTES:
            raise BadInput(f"{path}: larger than {MAX_FILE_BYTES >> 20} MiB")
        with open(path, "rb") as file:
            raw = file.read()
    except OSError as error:
        raise BadInput(f"{path}: cannot read the file ({error.strerror})")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise BadInput(f"{path}: not UTF-8 text (byte {error.start} is {raw[error.start]:#04x})")

    def not_a_number(constant):
        raise BadInput(f"{path}: not valid JSON: {constant} is not a JSON number")

    def no_field_twice(pairs):
        seen = {}
        for key, value in pairs:
            if key in seen:
                raise BadInput(f"{path}: the field \"{key}\" is given twice in one object")
            seen[key] = value
        return seen

    try:
        return json.loads(text, parse_constant=not_a_number, object_pairs_hook=no_field_twice)
    except json.JSONDecodeError as error:
        raise BadInput(f"{path}: not valid JSON: {error}")
    except ValueError as error:  # an integer of more digits than Python converts
        raise BadInput(f"{path}: not valid JSON: {error}")
    except RecursionError:
        raise BadInput(f"{path}: nested too deep to read")


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


def rerun_elsewhere(script, argv):
    """Runs `script` (the plotter's own path) again with `argv` under a Python that has matplotlib; its exit
    status. The run under the other Python is marked in its environment, so that it never starts a third."""
    python = None if os.environ.get(RERUN_MARK) else plot_style.python_with_matplotlib()
    if python is None:
        raise BadInput("needs matplotlib, and no Python here has it (Debian: apt-get install python3-matplotlib)")
    sys.stdout.flush()
    return subprocess.run([python, os.path.abspath(script), *argv], env={**os.environ, RERUN_MARK: "1"}).returncode
