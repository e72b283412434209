"""The one way analysis/'s tools find a Python with the modules they need (matplotlib to draw, jsonschema to
read results): a python3 earlier on PATH, such as pyenv's, often lacks Debian's modules. A tool that lacks a
module runs its work again under an interpreter that has it (run_under_python_with), marked in the
environment so that it never starts a third.
"""
import importlib.util
import os
import shutil
import subprocess
import sys

# Set in the environment of a tool run again under another Python.
RERUN_MARK = "DDLSCALE_ANALYSIS_RERUN"


def has_modules(*names):
    """Whether this interpreter imports every one of `names`."""
    for name in names:
        try:
            if importlib.util.find_spec(name) is None:
                return False
            __import__(name)
        except ImportError:
            return False
    return True


def candidate_pythons():
    """Interpreters that may have the modules, best first: Debian's, then the python3 on PATH, then this one,
    each once."""
    found, seen = [], set()
    for candidate in ("/usr/bin/python3", shutil.which("python3"), "/usr/local/bin/python3", sys.executable):
        if not candidate or not os.access(candidate, os.X_OK):
            continue
        real = os.path.realpath(candidate)
        if real in seen:
            continue
        seen.add(real)
        found.append(candidate)
    return found


def python_with(*names, candidates=None):
    """The first of `candidates` (by default candidate_pythons()) that imports every one of `names`, or None."""
    code = "; ".join(f"import {name}" for name in names)
    for candidate in candidate_pythons() if candidates is None else candidates:
        try:
            probe = subprocess.run([candidate, "-c", code], capture_output=True, timeout=120)
        except (OSError, subprocess.SubprocessError):
            continue
        if probe.returncode == 0:
            return candidate
    return None


def run_under_python_with(names, script, argv, **options):
    """Runs `script` with `argv` under a Python that imports every one of `names`: the completed process
    (subprocess.run's, with `options`), or None if no interpreter has them or this is already such a rerun."""
    python = None if os.environ.get(RERUN_MARK) else python_with(*names)
    if python is None:
        return None
    sys.stdout.flush()
    return subprocess.run([python, os.path.abspath(script), *argv], env={**os.environ, RERUN_MARK: "1"}, **options)


if __name__ == "__main__":
    # `interpreter.py MODULE...`: the path of a Python that imports them all, or exit 1 (ddlsim --plot asks so).
    found = python_with(*sys.argv[1:])
    if found is None:
        sys.exit(1)
    print(found)
