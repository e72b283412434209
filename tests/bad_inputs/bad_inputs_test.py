"""Every bad input ends the same way: exit status 2, a message that names the file and the JSON path (or the
flag) at fault, nothing on standard output, and nothing written where the output would have gone.

The cases are the table in cases.py, one line each. This runner gives each case a fresh directory, writes its
input files there, runs its command (ddlsim, ddlrun, ddlcompare or a script) with a deadline, and checks the
four things above. A case that hangs fails at the deadline; a crash shows as a status other than 2.

    bad_inputs_test.py BUILD_DIR SOURCE_DIR [unittest options]
"""
import concurrent.futures
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases  # noqa: E402

BUILD, SOURCE = (os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])) if len(sys.argv) >= 3 else ("build/release", ".")
DEADLINE_S = 60
# The first words of the cases that run a program of the build (ddlsim, ddlrun, or ddlrun under mpirun).
BUILT_PROGRAMS = (cases.SIM, cases.RUN, "{mpirun}")


def tools(directory):
    return {"dir": directory, "out": os.path.join(directory, "out.json"), "source": SOURCE,
            "ddlsim": os.path.join(BUILD, "sim", "ddlsim"), "ddlrun": os.path.join(BUILD, "runtime", "ddlrun"),
            "ddlcompare": os.path.join(SOURCE, "analysis", "ddlcompare"), "python": sys.executable,
            "mpirun": shutil.which("mpirun") or "mpirun"}


def sanitized(build):
    """Whether the tools of `build` run under AddressSanitizer (scripts/build sanitize)."""
    try:
        with open(os.path.join(build, "CMakeCache.txt")) as cache:
            return "DDLSCALE_SANITIZE:BOOL=ON" in cache.read()
    except OSError:
        return False


def files_under(directory):
    return {os.path.relpath(os.path.join(root, name), directory)
            for root, _, names in os.walk(directory) for name in names}


class BadInputs(unittest.TestCase):
    maxDiff = None

    def test_the_table_is_large_enough_to_mean_something(self):
        self.assertGreaterEqual(len(cases.CASES), 150)
        names = [case.name for case in cases.CASES]
        self.assertEqual(len(names), len(set(names)), "every case has its own name")

    def test_every_bad_input_exits_2_naming_the_fault_with_no_output(self):
        def run(case):
            with tempfile.TemporaryDirectory(prefix="bad-input-") as directory:
                problem = self.run_case(case, directory)
            return f"{case.name}: {problem}" if problem else None

        chosen = cases.CASES
        if sanitized(BUILD):
            # Under the sanitizers only what runs the build's programs: a case of a Python or shell script
            # checks its arguments before any program of the build starts, the same in either build.
            chosen = [case for case in chosen if case.command[0] in BUILT_PROGRAMS and not case.limits_address_space]
            print(f"{len(cases.CASES) - len(chosen)} cases left out under the sanitizers: scripts' own checks (the "
                  "optimised build's pass runs them) and those under ulimit -v, where AddressSanitizer cannot start",
                  file=sys.stderr)
        # Two at a time: each case is a short process, and the machine has two cores.
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            failures = [failure for failure in pool.map(run, chosen) if failure]
        self.assertEqual(failures, [], f"{len(failures)} of {len(chosen)} cases break the contract")

    def run_case(self, case, directory):
        names = tools(directory)
        for name, content in case.files(SOURCE).items():
            path = os.path.join(directory, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            if content is cases.DIRECTORY:
                os.makedirs(path, exist_ok=True)
            elif content is cases.FIFO:
                os.mkfifo(path)
            else:
                with open(path, "wb") as handle:
                    handle.write(content if isinstance(content, bytes) else content.encode())
        before = files_under(directory)
        command = [part.format(**names) for part in case.command]
        environment = dict(os.environ, DDLSCALE_DATA_DIR=SOURCE, **case.environment)
        try:
            result = subprocess.run(command, capture_output=True, timeout=DEADLINE_S, env=environment, cwd=directory)
        except subprocess.TimeoutExpired:
            return f"still running after {DEADLINE_S} s: {' '.join(command)}"
        err = result.stderr.decode(errors="replace")
        out = result.stdout.decode(errors="replace")
        where = f"\n  $ {' '.join(command)}\n  stderr: {err.strip()[:600]}"
        if result.returncode != 2:
            return f"exit status {result.returncode}, not 2{where}"
        for expected in case.expect:
            expected = expected.format(**names)
            if expected not in err:
                return f"the message does not say {expected!r}{where}"
        for forbidden in ("Traceback", "terminate called", "AddressSanitizer", "runtime error:"):
            if forbidden in err:
                return f"{forbidden!r} in the message{where}"
        if out.strip():
            return f"printed on standard output: {out.strip()[:200]!r}{where}"
        written = files_under(directory) - before
        if written:
            return f"wrote {sorted(written)}{where}"
        return None


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1] + sys.argv[3:])
