"""Every bad input ends the same way: exit status 2, a message that names the file and the JSON path (or the
flag) at fault, nothing on standard output, and nothing written where the output would have gone.

The cases are the table in cases.py, one line each. This runner gives each case a fresh directory, writes its
input files there, runs its command (ddlsim, ddlrun, ddlcompare or a script) with a deadline, and checks the
four things above. A case that hangs fails at the deadline; a crash shows as a status other than 2.

Deliverable 3's rules are listed in rules.py, command by command, with the case (or test) that holds each;
RulesListing checks that listing against this table, the tests and the commands themselves, and CApiHandles
holds every call of the C API to its handle rule.

    bad_inputs_test.py BUILD_DIR SOURCE_DIR [unittest options]
"""
import ast
import concurrent.futures
import ctypes
import glob
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases  # noqa: E402
import rules  # noqa: E402

BUILD, SOURCE = (os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])) if len(sys.argv) >= 3 else ("build/release", ".")
DEADLINE_S = 60
# The first words of the cases that run a program of the build (ddlsim, ddlrun, or ddlrun under mpirun).
BUILT_PROGRAMS = (cases.SIM, cases.RUN, "{mpirun}")


def tools(directory):
    return {"dir": directory, "out": os.path.join(directory, "out.json"), "source": SOURCE,
            "ddlsim": os.path.join(BUILD, "sim", "ddlsim"), "ddlrun": os.path.join(BUILD, "runtime", "ddlrun"),
            "ddlcompare": os.path.join(SOURCE, "analysis", "ddlcompare"), "python": sys.executable,
            "pytorch": os.path.join(BUILD, "runtime", "pytorch"),
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
        contents = self.contents_under(directory)
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
        changed = sorted(name for name, content in self.contents_under(directory).items() if contents.get(name) != content)
        if changed:
            return f"changed its input {changed}{where}"
        return None

    @staticmethod
    def contents_under(directory):
        """Every regular file's bytes: an input written over is as wrong as a new file (named pipes are skipped,
        reading one would block)."""
        found = {}
        for name in files_under(directory):
            path = os.path.join(directory, name)
            if os.path.isfile(path):
                with open(path, "rb") as handle:
                    found[name] = handle.read()
        return found


GAP, NOT_APPLICABLE, GTEST, UNITTEST = "gap: ", "not applicable: ", "gtest: ", "unittest: "


def gtests():
    """Every gtest of the tests, as "Suite.Name"."""
    names = set()
    for path in glob.glob(os.path.join(SOURCE, "tests", "**", "*.cpp"), recursive=True):
        with open(path, errors="replace") as handle:
            names |= {f"{suite}.{name}" for suite, name in re.findall(r"^TEST(?:_F|_P)?\(\s*(\w+)\s*,\s*(\w+)\s*\)", handle.read(), re.M)}
    return names


def python_tests(path):
    """Every "Class.test_name" of the Python test file at `path` (under the source tree)."""
    with open(os.path.join(SOURCE, path)) as handle:
        tree = ast.parse(handle.read())
    return {f"{node.name}.{item.name}" for node in tree.body if isinstance(node, ast.ClassDef)
            for item in node.body if isinstance(item, ast.FunctionDef) and item.name.startswith("test")}


def subcommands(program, *words):
    """The commands `program` lists under "Subcommands:" in its --help, each with the words before it, nested ones
    (calibrate network) in full."""
    text = subprocess.run([program, *words, "--help"], capture_output=True, text=True, timeout=60).stdout
    found, listing = [], False
    for line in text.splitlines():
        if line.startswith("Subcommands:"):
            listing = True
        elif listing and not line.strip():
            break
        elif listing and line.startswith("  ") and not line.startswith("   "):
            name = line.split()[0]
            below = subcommands(program, *words, name)
            found += below or [" ".join([*words, name])]
    return found


def handle_calls():
    """The C API's calls whose first argument is a handle (ddl_comm or ddl_request), from its header."""
    with open(os.path.join(SOURCE, "runtime", "library", "include", "ddlscale", "ddlscale.h")) as handle:
        return re.findall(r"^DDL_API ddl_result (\w+)\((?:ddl_comm|ddl_request) ", handle.read(), re.M)


class RulesListing(unittest.TestCase):
    """rules.py says, for each of deliverable 3's rules and each command, what holds the command to the rule. A
    listing that names a case or a test that is not there, or leaves a command out, would say a rule holds where
    nothing checks it: these tests keep the listing true as the table, the tests and the commands change."""

    def entries(self):
        for rule, entries in rules.RULES.items():
            for command, holder in entries:
                yield rule, command, holder

    def test_every_rule_has_its_statement_and_scope(self):
        self.assertEqual(set(rules.RULES), set(rules.SCOPE))
        for rule in rules.RULES:
            self.assertTrue(rule.key and rule.statement.endswith("."), rule)

    def test_every_case_named_is_a_case_of_the_table(self):
        names = {case.name for case in cases.CASES}
        missing = [(rule.key, command, holder) for rule, command, holder in self.entries()
                   if not holder.startswith((GAP, NOT_APPLICABLE, GTEST, UNITTEST)) and holder not in names]
        self.assertEqual(missing, [])

    def test_every_gtest_named_is_a_test(self):
        known = gtests()
        missing = [(rule.key, command, holder) for rule, command, holder in self.entries()
                   if holder.startswith(GTEST) and holder[len(GTEST):] not in known]
        self.assertEqual(missing, [])

    def test_every_python_test_named_is_a_test(self):
        missing = []
        for rule, command, holder in self.entries():
            if holder.startswith(UNITTEST):
                path, _, name = holder[len(UNITTEST):].partition(": ")
                if not os.path.isfile(os.path.join(SOURCE, path)) or name not in python_tests(path):
                    missing.append((rule.key, command, holder))
        self.assertEqual(missing, [])

    def test_every_gap_and_every_rule_not_applicable_says_why(self):
        for rule, command, holder in self.entries():
            for prefix in (GAP, NOT_APPLICABLE):
                if holder.startswith(prefix):
                    self.assertGreaterEqual(len(holder[len(prefix):].split()), 3, (rule.key, command, holder))

    def test_every_command_of_a_rules_scope_has_an_entry_and_none_is_outside_it(self):
        for rule, entries in rules.RULES.items():
            listed = {command for command, _ in entries}
            self.assertEqual(sorted(set(rules.SCOPE[rule]) - listed), [], f"{rule.key}: commands without an entry")
            self.assertEqual(sorted(listed - set(rules.SCOPE[rule])), [], f"{rule.key}: entries for no command of its scope")

    def test_a_command_a_rule_does_not_reach_has_no_other_entry(self):
        for rule, entries in rules.RULES.items():
            reached = {command for command, holder in entries if not holder.startswith(NOT_APPLICABLE)}
            both = sorted(command for command, holder in entries if holder.startswith(NOT_APPLICABLE) and command in reached)
            self.assertEqual(both, [], f"{rule.key}: both held and not applicable")

    def test_the_commands_are_every_subcommand_and_program(self):
        ddlsim, ddlrun = tools(".")["ddlsim"], tools(".")["ddlrun"]
        if not (os.access(ddlsim, os.X_OK) and os.access(ddlrun, os.X_OK)):
            self.skipTest("ddlsim and ddlrun are not built")
        expected = {"ddlsim SCENARIO", *(f"ddlsim {name}" for name in subcommands(ddlsim)),
                    *(f"ddlrun {name}" for name in subcommands(ddlrun)), "runtime/emulated_cluster/cluster",
                    "python3 -m ddlscale_torch.profile", "python3 -m ddlscale_torch.train"}
        for folder in ("analysis", "scripts", "scripts/slurm"):
            for name in os.listdir(os.path.join(SOURCE, folder)):
                path = os.path.join(SOURCE, folder, name)
                if os.path.isfile(path) and os.access(path, os.X_OK):
                    expected.add(f"{folder}/{name}")
        self.assertEqual(sorted(set(rules.COMMANDS) ^ expected), [], "listed in rules.COMMANDS or found, not both")
        self.assertEqual(len(rules.COMMANDS), len(set(rules.COMMANDS)))

    def test_the_c_api_listed_is_every_call_that_takes_a_handle(self):
        self.assertEqual(sorted(rules.C_API), sorted(handle_calls()))


class CApiHandles(unittest.TestCase):
    """Every call of libddlscale that takes a communicator or a request, given one destroyed (or waited for)
    and one never made, returns DDL_INVALID_ARGUMENT naming it, and reads nothing behind it. The gtest
    LibraryHandles holds a few calls to this under MPI; here the built library is loaded as it is shipped
    (ctypes), on a communicator of one rank over TCP, and every call of the header is tried: a call added to
    the header without a line here fails the test."""

    DDL_INVALID_ARGUMENT = 1

    def setUp(self):
        path = os.path.join(BUILD, "runtime", "library", "libddlscale.so")
        if sanitized(BUILD):
            self.skipTest("a sanitized libddlscale cannot be loaded into an unsanitized Python")
        if not os.path.exists(path):
            self.skipTest(f"{path} is not built")
        self.library = ctypes.CDLL(path)
        self.library.ddl_last_error.restype = ctypes.c_char_p

    def calls(self):
        """Each handle-taking call, with good arguments besides the handle."""
        lib, size_t, pointer = self.library, ctypes.c_size_t, ctypes.byref
        send, recv = (ctypes.c_float * 8)(*[1.0] * 8), (ctypes.c_float * 8)()
        counts, displacements = (size_t * 1)(8), (size_t * 1)(0)
        number, text = ctypes.c_int(-1), ctypes.create_string_buffer(64)
        tuning = os.path.join(SOURCE, cases.TUNING).encode()
        schedule = os.path.join(SOURCE, "tests/fuzz/corpus/schedule_reader/ring-4.json").encode()

        def request():
            return pointer(ctypes.c_void_p())
        return {
            "ddl_comm_destroy": lambda comm: lib.ddl_comm_destroy(comm),
            "ddl_comm_rank": lambda comm: lib.ddl_comm_rank(comm, pointer(number)),
            "ddl_comm_size": lambda comm: lib.ddl_comm_size(comm, pointer(number)),
            "ddl_comm_set_timeout": lambda comm: lib.ddl_comm_set_timeout(comm, ctypes.c_double(10)),
            "ddl_comm_set_algorithm": lambda comm: lib.ddl_comm_set_algorithm(comm, 0, b"ring", None),
            "ddl_comm_set_tuning": lambda comm: lib.ddl_comm_set_tuning(comm, 0, tuning),
            "ddl_comm_set_schedule": lambda comm: lib.ddl_comm_set_schedule(comm, 0, schedule),
            "ddl_comm_describe": lambda comm: lib.ddl_comm_describe(comm, 0, size_t(1024), text, size_t(64)),
            "ddl_allreduce": lambda comm: lib.ddl_allreduce(comm, send, recv, size_t(8), 0, 0),
            "ddl_iallreduce": lambda comm: lib.ddl_iallreduce(comm, send, recv, size_t(8), 0, 0, request()),
            "ddl_reduce_scatter": lambda comm: lib.ddl_reduce_scatter(comm, send, recv, size_t(8), 0, 0),
            "ddl_ireduce_scatter": lambda comm: lib.ddl_ireduce_scatter(comm, send, recv, size_t(8), 0, 0, request()),
            "ddl_allgather": lambda comm: lib.ddl_allgather(comm, send, recv, size_t(8), 0),
            "ddl_iallgather": lambda comm: lib.ddl_iallgather(comm, send, recv, size_t(8), 0, request()),
            "ddl_broadcast": lambda comm: lib.ddl_broadcast(comm, send, size_t(8), 0, 0),
            "ddl_ibroadcast": lambda comm: lib.ddl_ibroadcast(comm, send, size_t(8), 0, 0, request()),
            "ddl_alltoallv": lambda comm: lib.ddl_alltoallv(comm, send, counts, displacements, recv, counts, displacements, 0),
            "ddl_ialltoallv": lambda comm: lib.ddl_ialltoallv(comm, send, counts, displacements, recv, counts, displacements, 0,
                                                              request()),
            "ddl_send": lambda comm: lib.ddl_send(comm, send, size_t(8), 0, 1, 0),
            "ddl_isend": lambda comm: lib.ddl_isend(comm, send, size_t(8), 0, 1, 0, request()),
            "ddl_recv": lambda comm: lib.ddl_recv(comm, recv, size_t(8), 0, 1, 0),
            "ddl_irecv": lambda comm: lib.ddl_irecv(comm, recv, size_t(8), 0, 1, 0, request()),
            "ddl_recv_any": lambda comm: lib.ddl_recv_any(comm, recv, size_t(8), 0, 0, pointer(number)),
            "ddl_irecv_any": lambda comm: lib.ddl_irecv_any(comm, recv, size_t(8), 0, 0, pointer(number), request()),
            "ddl_barrier": lambda comm: lib.ddl_barrier(comm),
            "ddl_wait": lambda handle: lib.ddl_wait(handle),
            "ddl_test": lambda handle: lib.ddl_test(handle, pointer(number)),
        }

    def test_every_call_that_takes_a_handle_is_tried(self):
        self.assertEqual(sorted(self.calls()), sorted(handle_calls()))

    def test_every_call_refuses_a_destroyed_or_never_made_handle(self):
        with socket.socket() as probe:  # a port nobody listens on; the one rank is its own root
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        comm, request = ctypes.c_void_p(), ctypes.c_void_p()
        send = (ctypes.c_float * 8)(*[1.0] * 8)
        self.assertEqual(self.library.ddl_comm_init_tcp(0, 1, f"127.0.0.1:{port}".encode(), ctypes.byref(comm)), 0,
                         self.library.ddl_last_error())
        self.assertEqual(self.library.ddl_iallreduce(comm, send, send, ctypes.c_size_t(8), 0, 0, ctypes.byref(request)), 0)
        self.assertEqual(self.library.ddl_wait(request), 0, self.library.ddl_last_error())
        self.assertEqual(self.library.ddl_comm_destroy(comm), 0, self.library.ddl_last_error())
        never_made = ctypes.c_void_p(ctypes.addressof(send))  # memory that is no handle
        wrong = []
        for name, call in self.calls().items():
            takes_request = name in ("ddl_wait", "ddl_test")
            expected = "not a live request" if takes_request else "not a live communicator"
            for what, handle in ((("waited for" if takes_request else "destroyed"), request if takes_request else comm),
                                 ("never made", never_made)):
                result = call(handle)
                message = self.library.ddl_last_error().decode(errors="replace")
                if result != self.DDL_INVALID_ARGUMENT or not message.startswith(f"{name}: ") or expected not in message:
                    wrong.append(f"{name} on a handle {what}: {result}, {message!r}")
        self.assertEqual(wrong, [])
        self.assertEqual([value for value in send], [1.0] * 8, "a refused call wrote into its buffer")


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1] + sys.argv[3:])
