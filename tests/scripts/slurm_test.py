#!/usr/bin/python3
"""The Slurm examples of scripts/slurm/ run, and scenario-sweep's parts merge into what one ddlsim run writes.

Usage: slurm_test.py BUILD [SOURCE]     (BUILD: the build folder with sim/ddlsim and runtime/ddlrun)

Without Slurm:
- a cut-down copy of scenarios/powerai-ddl-resnet50.json (1, 4 and 8 GPUs, two algorithms) split with
  `scenario-sweep split`, each part simulated by ddlsim and merged with `scenario-sweep merge` gives the
  document one `ddlsim SCENARIO --json` run gives: the same bytes where one part holds the whole sweep; with
  a part per GPU count the same fields, points in the same order, the same bytes around them, and figures
  equal to a relative 1e-9 (or 1e-12 absolute, near zero). They are not the same bytes: ddlsim simulates a
  run's points one after the other on one SimGrid clock, and a point's times carry the rounding of the
  clock it started at, which a part that simulated fewer points before it does not share (up to 1.7e-11
  relative on the whole powerai-ddl-resnet50 sweep, 2.2e-16 s absolute). A point merged keeps its part's
  bytes.
- entries that meet at some counts, copies in other folders, and bad input (exit 2, naming the file and
  field, nothing written).

With Slurm (as root): a one-node Slurm of the test's own, in a temporary folder: munged with its own key
and socket, slurmctld and slurmd on free ports of 127.0.0.1, proctrack/linuxproc, task/none,
select/cons_tres. It submits scripts/slurm/ddlrun-bench.sbatch (2 MPI ranks started by `srun --mpi=pmix`)
and scripts/slurm/ddlsim-sweep.sbatch (the cut-down scenario: a planning job, an array of 3 tasks and a
merge job after them), waits for every job, checks their outputs, and stops every process it started, also
on failure: the test is a child subreaper, so whatever Slurm starts and orphans (slurmstepd, the job's
processes) becomes its child, and is killed by process id.

Where Slurm cannot run (not root), the Slurm tests skip saying why and, if the rest passed, the test exits
77 (CTest's SKIP_RETURN_CODE). A missing program is a failure, not a skip: scripts/install-dependencies
installs them. Under `unittest discover` (every_program_is_installed), where no build folder is given,
everything here skips and no daemon starts.
"""
import ctypes
import importlib.machinery
import importlib.util
import json
import math
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SLURM_SCRIPTS = os.path.join(REPO, "scripts", "slurm")
SWEEP = os.path.join(SLURM_SCRIPTS, "scenario-sweep")
BUILD = None  # given on the command line only (__main__): discovered by another test's unittest, all skips
SKIPPED_FOR_A_CAPABILITY = "Slurm cannot run here: "
JOB_DEADLINE_S = 120
TEMPORARY = None  # this run's folder: copies of ddlsim and ddlrun (the build may be rebuilt meanwhile)
TOOLS = {}


def setUpModule():
    global TEMPORARY
    if BUILD is None:
        return
    TEMPORARY = tempfile.mkdtemp(prefix="ddlscale-slurm-test-")
    for tool, where in (("ddlsim", "sim"), ("ddlrun", "runtime")):
        source = os.path.join(BUILD, where, tool)
        if not os.access(source, os.X_OK):
            raise AssertionError(f"no {source}: build first (scripts/build)")
        os.makedirs(os.path.join(TEMPORARY, "build", where), exist_ok=True)
        TOOLS[tool] = os.path.join(TEMPORARY, "build", where, tool)
        shutil.copy2(source, TOOLS[tool])


def tearDownModule():
    if TEMPORARY:
        shutil.rmtree(TEMPORARY, ignore_errors=True)


def needs_build(test):
    if BUILD is None:
        raise unittest.SkipTest("no build folder given (slurm_test.py BUILD): nothing to run")


def run(command, check=True, **options):
    result = subprocess.run(command, capture_output=True, text=True, timeout=120, **options)
    if check and result.returncode != 0:
        raise AssertionError(f"{' '.join(command)} exited {result.returncode}:\n{result.stdout}{result.stderr}")
    return result


def cut_down_scenario(folder, algorithms=None):
    """scenarios/powerai-ddl-resnet50.json at 1, 4 and 8 GPUs with its first two algorithms: seconds to run."""
    with open(os.path.join(REPO, "scenarios", "powerai-ddl-resnet50.json"), encoding="utf-8") as handle:
        scenario = json.load(handle)
    scenario["gpus"] = [1, 4, 8]
    scenario["algorithms"] = algorithms or scenario["algorithms"][:2]
    path = os.path.join(folder, "cut-down.json")
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(scenario, handle, indent=1)
    return path


def one_run(scenario):
    return run([TOOLS["ddlsim"], scenario, "--json"]).stdout


def split_run_merge(scenario, cut, folder):
    """The sweep as the job array runs it, here: split, ddlsim on each part, merge. The merged text."""
    parts = os.path.join(folder, "parts")
    run([SWEEP, "split", scenario, cut, "--out", parts])
    with open(os.path.join(parts, "sweep.json"), encoding="utf-8") as handle:
        plan = json.load(handle)
    for k in range(len(plan["parts"])):
        run([TOOLS["ddlsim"], os.path.join(parts, f"part-{k}.json"), "--json", "--out", os.path.join(parts, f"result-{k}.json")])
    merged = os.path.join(folder, "merged.json")
    run([SWEEP, "merge", parts, "--out", merged])
    with open(merged, encoding="utf-8") as handle:
        return handle.read()


def numbers_as_words(text):
    """The document with its figures replaced by one word: what must be the same bytes."""
    return re.sub(r"-?\d+\.\d+(?:[eE][-+]?\d+)?|-?\d+[eE][-+]?\d+", "NUMBER", text)


def assert_close(test, merged, whole, where="$"):
    if isinstance(whole, dict):
        test.assertEqual(sorted(merged), sorted(whole), where)
        for key in whole:
            assert_close(test, merged[key], whole[key], f"{where}.{key}")
    elif isinstance(whole, list):
        test.assertEqual(len(merged), len(whole), where)
        for i, (m, w) in enumerate(zip(merged, whole)):
            assert_close(test, m, w, f"{where}[{i}]")
    elif isinstance(whole, float):
        test.assertTrue(math.isclose(merged, whole, rel_tol=1e-9, abs_tol=1e-12), f"{where}: {merged} against {whole}")
    else:
        test.assertEqual(merged, whole, where)


class ScenarioSweepTest(unittest.TestCase):
    """scenario-sweep split, ddlsim on each part, merge: one ddlsim run's document."""
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        needs_build(cls)
        cls.folder = tempfile.mkdtemp(dir=TEMPORARY)
        cls.scenario = cut_down_scenario(cls.folder)
        cls.whole = one_run(cls.scenario)

    def folder_for(self, name):
        folder = os.path.join(self.folder, name)
        os.makedirs(folder)
        return folder

    def test_one_part_per_gpu_count_merges_into_one_runs_document(self):
        merged = split_run_merge(self.scenario, "each", self.folder_for("each"))
        whole = json.loads(self.whole)
        self.assertEqual([(p["label"], p["gpus"]) for p in json.loads(merged)["points"]],
                         [(p["label"], p["gpus"]) for p in whole["points"]])
        # On the step engine, ddlsim's default, every simulation starts from clock zero: the very bytes.
        self.assertEqual(merged, self.whole)

    def test_a_merged_point_keeps_its_parts_bytes(self):
        folder = self.folder_for("bytes")
        merged = split_run_merge(self.scenario, "each", folder)
        for k in range(3):
            with open(os.path.join(folder, "parts", f"result-{k}.json"), encoding="utf-8") as handle:
                part = handle.read()
            body = part[part.index('"points": [') + len('"points": ['):part.index("\n ],\n")]
            for point in body.split("\n  },\n"):
                self.assertIn(point.rstrip("}").rstrip(), merged)

    def test_one_part_gives_the_very_bytes_of_one_run(self):
        self.assertEqual(split_run_merge(self.scenario, "1", self.folder_for("one")), self.whole)

    def test_entries_that_meet_at_some_counts_keep_ddlsims_order(self):
        # At 1 GPU both ddl entries are "ddl 1" and at 8 "ddl 4x2": ddlsim simulates each once, for the first
        # entry; a part of 1 GPU alone would hold the two entries as one configuration, which ddlsim refuses.
        folder = self.folder_for("meet")
        scenario = cut_down_scenario(folder, [
            {"name": "ddl", "dims": "topology"}, {"name": "ring"},
            {"name": "ddl", "dims": {"1": "1", "4": "2x2", "8": "4x2"}},
            {"name": "hierarchical", "ranks_per_node": "node", "inner": "ring"}, {"name": "torus-2d", "dims": "topology"},
            {"name": "double-binary-tree"}])
        whole = json.loads(one_run(scenario))
        self.assertEqual(len(whole["points"]), 16)
        for cut in ("each", "2", "8/1,4"):
            merged = json.loads(split_run_merge(scenario, cut, self.folder_for("meet-" + cut.replace("/", "_"))))
            self.assertEqual([(p["label"], p["gpus"]) for p in merged["points"]],
                             [(p["label"], p["gpus"]) for p in whole["points"]], cut)
            assert_close(self, merged, whole)

    def test_copies_keep_working_in_another_folder(self):
        folder = self.folder_for("relative")
        os.makedirs(os.path.join(folder, "mine"))
        with open(self.scenario, encoding="utf-8") as handle:
            scenario = json.load(handle)
        scenario["topology"] = os.path.relpath(os.path.join(REPO, "topologies", "minsky-p100-ib-edr.json"),
                                               os.path.join(folder, "mine"))
        scenario["model"] = os.path.relpath(os.path.join(REPO, "models", "resnet50.json"), os.path.join(folder, "mine"))
        path = os.path.join(folder, "mine", "scenario.json")
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(scenario, handle)
        merged = split_run_merge(path, "each", os.path.join(folder, "elsewhere"))
        with open(os.path.join(folder, "elsewhere", "parts", "part-0.json"), encoding="utf-8") as handle:
            part = json.load(handle)
        self.assertTrue(os.path.isabs(part["topology"]) and os.path.isabs(part["model"]), part["topology"])
        self.assertEqual(part["gpus"], [1])
        self.assertEqual(numbers_as_words(merged), numbers_as_words(self.whole))

    def test_a_tuned_entry_merges_into_one_runs_document_from_another_folder(self):
        # "auto" reads a table per count, by a path from the scenario's folder that each copy must keep.
        folder = self.folder_for("tuned")
        os.makedirs(os.path.join(folder, "mine"))
        with open(self.scenario, encoding="utf-8") as handle:
            scenario = json.load(handle)
        tables = os.path.relpath(os.path.join(REPO, "scenarios", "tuning"), os.path.join(folder, "mine"))
        scenario["algorithms"] = [{"name": "auto", "tuning": tables + "/minsky-p100-ib-edr-allreduce-{gpus}.json"}, {"name": "ring"}]
        path = os.path.join(folder, "mine", "scenario.json")
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(scenario, handle)
        whole = one_run(path)
        self.assertIn('"chosen"', whole)
        self.assertEqual(split_run_merge(path, "each", os.path.join(folder, "elsewhere")), whole)

    def test_it_knows_every_allreduce_ddlsim_has(self):
        # Placing points takes each algorithm's label: a new algorithm must be taught to scenario-sweep.
        loader = importlib.machinery.SourceFileLoader("scenario_sweep", SWEEP)
        module = importlib.util.module_from_spec(importlib.util.spec_from_loader("scenario_sweep", loader))
        loader.exec_module(module)
        names = run([TOOLS["ddlsim"], "algorithms", "--names"]).stdout.split("\n")
        allreduces = sorted(line.split()[0] for line in names if line.endswith(" allreduce"))
        self.assertEqual(sorted(module.ALGORITHMS), allreduces)

    def bad(self, arguments, *expected):
        result = run([SWEEP, *arguments], check=False)
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertEqual(result.stdout, "")
        self.assertEqual(len(result.stderr.splitlines()), 1, result.stderr)
        self.assertTrue(result.stderr.startswith("scenario-sweep: "), result.stderr)
        for text in expected:
            self.assertIn(text, result.stderr)

    def edited(self, folder, edit):
        with open(self.scenario, encoding="utf-8") as handle:
            scenario = json.load(handle)
        edit(scenario)
        path = os.path.join(folder, f"bad-{len(os.listdir(folder))}.json")
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(scenario, handle)
        return path

    def test_bad_input_to_split_names_the_field_and_writes_nothing(self):
        folder = self.folder_for("bad-split")
        out = os.path.join(folder, "out")
        cases = [
            (lambda s: s.update(gpus=[1, 4, 4]), "each", "$.gpus[2]", "listed twice"),
            (lambda s: s.update(gpus=[1, 4.5]), "each", "$.gpus[1]", "integer"),
            (lambda s: s.update(gpus=[]), "each", "$.gpus", "at least one"),
            (lambda s: s["algorithms"].append({"name": "rign"}), "each", "$.algorithms[2].name", "'rign'"),
            (lambda s: s["algorithms"].append({"name": "ring", "dims": "topology"}), "each", "$.algorithms[2].dims", "ring takes no dims"),
            (lambda s: s["algorithms"].append({"name": "ddl", "dims": {"1": "1", "4": "4", "8": "8", "16": "16"}}), "each",
             "$.algorithms[2].dims.16", "does not list"),
            (lambda s: s["algorithms"].append({"name": "ddl", "dims": {"1": "1", "4": "4"}}), "each",
             "$.algorithms[2].dims", "no grid given for 8 GPUs"),
            (lambda s: s["algorithms"].append({"name": "ddl", "dims": {"1": "1", "4": "4", "8": "4y2"}}), "each",
             "$.algorithms[2].dims.8", "4y2"),
            (lambda s: s["algorithms"].append({"name": "ring"}), "each", "$.algorithms[2]", "same configuration as $.algorithms[1]"),
            (lambda s: s["algorithms"].append({"name": "hierarchical"}), "each", "$.algorithms[2]", "ranks_per_node"),
            (lambda s: s.update(gpus=[1, 4, 6]), "each", "$.algorithms[0].dims", "6 GPUs do not fill"),
            (lambda s: s.update(topology="minksy-p100-ib-edr"), "each", "$.topology", "no topology named 'minksy-p100-ib-edr'"),
            (lambda s: s.update(model="../nowhere/resnet50.json"), "each", "$.model", "no file"),
            (lambda s: s.pop("algorithms"), "each", "$", "'algorithms' is missing"),
            (lambda s: None, "4", "N_OR_COUNTS '4'", "1 to 3 parts"),
            (lambda s: None, "0", "N_OR_COUNTS '0'", "1 to 3 parts"),
            (lambda s: None, "1,4", "N_OR_COUNTS '1,4'", "no part has 8 GPUs"),
            (lambda s: None, "1,4/4,8", "N_OR_COUNTS '1,4/4,8'", "4 GPUs are in two parts"),
            (lambda s: None, "1,2/4,8", "N_OR_COUNTS '1,2/4,8'", "2 GPUs"),
            (lambda s: None, "half", "N_OR_COUNTS 'half'", "expected N"),
        ]
        for edit, cut, *expected in cases:
            with self.subTest(expected=expected):
                path = self.edited(folder, edit)
                self.bad(["split", path, cut, "--out", out], path if expected[0].startswith("$") else "", *expected)
                self.assertFalse(os.path.exists(out), "written on bad input")
        not_json = os.path.join(folder, "not-json.json")
        with open(not_json, "w", encoding="utf-8") as handle:
            handle.write('{"name": ')
        self.bad(["split", not_json, "each", "--out", out], not_json, "not JSON")
        self.bad(["split", os.path.join(folder, "absent.json"), "each", "--out", out], "absent.json: no such file")
        self.bad(["split", self.scenario, "each"], "usage")
        self.assertFalse(os.path.exists(out), "written on bad input")
        run([SWEEP, "split", self.scenario, "each", "--out", out])
        before = sorted(os.listdir(out))
        self.bad(["split", self.scenario, "2", "--out", out], f"--out {out}", "earlier sweep")
        self.assertEqual(sorted(os.listdir(out)), before)

    def test_bad_input_to_merge_names_the_file_and_writes_nothing(self):
        folder = self.folder_for("bad-merge")
        split_run_merge(self.scenario, "each", folder)
        parts = os.path.join(folder, "parts")
        out = os.path.join(folder, "out.json")

        def result(k):
            return os.path.join(parts, f"result-{k}.json")

        def read(path):
            with open(path, encoding="utf-8") as handle:
                return handle.read()

        def write(path, text):
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(text)

        originals = {k: read(result(k)) for k in range(3)}
        cases = [
            (lambda: os.remove(result(1)), result(1), "no such file", "part 1, 4 GPUs"),
            (lambda: write(result(1), originals[2]), result(1), "$.points[0].gpus", "8 where the plan has 4"),
            (lambda: write(result(2), originals[2].replace('"label": "ddl 4x2"', '"label": "ddl 2x4"')), result(2),
             "$.points[0].label", '"ddl 2x4" where the plan has "ddl 4x2"'),
            (lambda: write(result(0), originals[0].replace('"tool": "ddlsim"', '"tool": "ddlsim2"')), result(0), "$.run",
             "differs from"),
            (lambda: write(result(1), originals[1][:200]), result(1), "not JSON"),
            (lambda: write(result(1), originals[1].replace('"points": [', '"points": [{"gpus": 4},', 1)), result(1),
             "$.points", "3 points where part 1 gives 2"),
            (lambda: write(os.path.join(parts, "sweep.json"), "[]"), "sweep.json", "not a plan"),
        ]
        manifest = read(os.path.join(parts, "sweep.json"))
        for damage, *expected in cases:
            with self.subTest(expected=expected):
                damage()
                try:
                    self.bad(["merge", parts, "--out", out], *expected)
                    self.assertFalse(os.path.exists(out), "written on bad input")
                finally:
                    for k, text in originals.items():
                        write(result(k), text)
                    write(os.path.join(parts, "sweep.json"), manifest)
        self.bad(["merge", os.path.join(folder, "absent"), "--out", out], "absent: no such folder")
        self.bad(["merge", parts, "--out", os.path.join(folder, "absent", "out.json")], "no folder")
        self.assertFalse(os.path.exists(out), "written on bad input")


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def set_child_subreaper():
    """Orphans of what this process starts (slurmstepd, the jobs' processes) become its children."""
    libc = ctypes.CDLL(None, use_errno=True)
    PR_SET_CHILD_SUBREAPER = 36
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER)")


def descendants(root):
    """The processes below `root`, by their parent ids in /proc."""
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="utf-8", errors="replace") as handle:
                    parent = int(handle.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry))
    found, queue = [], [root]
    while queue:
        for child in children.get(queue.pop(), []):
            found.append(child)
            queue.append(child)
    return found


def processes_with(marker):
    """Processes whose environment holds `marker` (this test's SLURM_CONF): whatever its Slurm started."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            try:
                with open(f"/proc/{entry}/environ", "rb") as handle:
                    if marker.encode() in handle.read():
                        found.append(int(entry))
            except OSError:
                continue
    return found


def is_alive(pid):
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


class OneNodeSlurm:
    """munged, slurmctld and slurmd of this test's own, in `folder`."""

    def __init__(self, folder):
        self.folder, self.daemons = folder, []
        self.conf = os.path.join(folder, "slurm.conf")
        for sub in ("munge", "state", "spool", "log"):
            os.makedirs(os.path.join(folder, sub), mode=0o700)
        self.environment = {key: value for key, value in os.environ.items()
                            if not key.startswith(("SLURM_", "SBATCH_", "SRUN_", "SALLOC_", "PMIX_", "PMI_", "OMPI_"))}
        self.environment.update(SLURM_CONF=self.conf, DDLSCALE=REPO, DDLSCALE_BUILD=os.path.join(TEMPORARY, "build"),
                                PATH="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")

    def log(self, name, lines=40):
        path = os.path.join(self.folder, "log", name)
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                return f"--- {path} (last {lines} lines)\n" + "".join(handle.readlines()[-lines:])
        except OSError:
            return f"--- {path}: none\n"

    def logs(self):
        return "".join(self.log(name) for name in ("munged.log", "slurmctld.log", "slurmd.log", "slurmctld.out", "slurmd.out"))

    def start_daemon(self, name, command):
        with open(os.path.join(self.folder, "log", name + ".out"), "w", encoding="utf-8") as output:
            process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=output, stderr=subprocess.STDOUT,
                                       env=self.environment, start_new_session=True)
        self.daemons.append((name, process))
        return process

    def start(self):
        folder = self.folder
        munge = os.path.join(folder, "munge")
        run(["mungekey", "--create", "--keyfile", os.path.join(munge, "munge.key")])
        socket_path = os.path.join(munge, "munge.socket")
        self.start_daemon("munged", ["munged", "--foreground", "--force", "--key-file", os.path.join(munge, "munge.key"),
                                     "--socket", socket_path, "--pid-file", os.path.join(munge, "munged.pid"),
                                     "--seed-file", os.path.join(munge, "munged.seed"),
                                     "--log-file", os.path.join(folder, "log", "munged.log")])
        self.wait_for(lambda: os.path.exists(socket_path), 10, "munged's socket")
        hardware = run(["slurmd", "-C"]).stdout
        cpus = max(2, int(re.search(r"\bCPUs=(\d+)", hardware).group(1)))  # bench's 2 ranks need 2 CPUs
        settings = {
            "ClusterName": "ddlscaletest", "SlurmctldHost": "localhost(127.0.0.1)",
            "SlurmctldPort": free_port(), "SlurmdPort": free_port(), "SlurmUser": "root", "SlurmdUser": "root",
            "AuthType": "auth/munge", "CredType": "cred/munge", "AuthInfo": f"socket={socket_path}",
            "StateSaveLocation": os.path.join(folder, "state"), "SlurmdSpoolDir": os.path.join(folder, "spool"),
            "SlurmctldPidFile": os.path.join(folder, "slurmctld.pid"), "SlurmdPidFile": os.path.join(folder, "slurmd.pid"),
            "SlurmctldLogFile": os.path.join(folder, "log", "slurmctld.log"),
            "SlurmdLogFile": os.path.join(folder, "log", "slurmd.log"),
            "ProctrackType": "proctrack/linuxproc", "TaskPlugin": "task/none", "SelectType": "select/cons_tres",
            "SelectTypeParameters": "CR_CPU", "SlurmdParameters": "config_overrides", "MpiDefault": "none",
            "ReturnToService": 2, "MailProg": "/bin/true", "AccountingStorageType": "accounting_storage/none",
            "JobCompType": "jobcomp/none", "JobAcctGatherType": "jobacct_gather/none",
            # Schedule within a second of each submission and job end (the default main loop runs each minute).
            "SchedulerParameters": "sched_interval=1,batch_sched_delay=0,sched_min_interval=0",
            "NodeName": f"localhost NodeAddr=127.0.0.1 CPUs={cpus} State=UNKNOWN",
            "PartitionName": "test Nodes=localhost Default=YES MaxTime=INFINITE State=UP",
        }
        with open(self.conf, "w", encoding="utf-8") as handle:
            handle.writelines(f"{key}={value}\n" for key, value in settings.items())
        self.start_daemon("slurmctld", ["slurmctld", "-D", "-i", "-f", self.conf])
        self.start_daemon("slurmd", ["slurmd", "-D", "-N", "localhost", "-f", self.conf])
        self.wait_for(lambda: re.search(r"\bState=IDLE\b", self.scontrol("show", "node", "localhost", "-o")), 30,
                      "the node to be idle")

    def scontrol(self, *arguments):
        result = subprocess.run(["scontrol", *arguments], capture_output=True, text=True, timeout=30, env=self.environment)
        return result.stdout if result.returncode == 0 else ""

    def wait_for(self, condition, seconds, what):
        deadline = time.monotonic() + seconds
        while not condition():
            for name, process in self.daemons:
                if process.poll() is not None:
                    raise AssertionError(f"{name} exited {process.returncode} while waiting for {what}\n{self.logs()}")
            if time.monotonic() > deadline:
                raise AssertionError(f"no {what} after {seconds} s\n{self.logs()}")
            time.sleep(0.1)

    def submit(self, script, *arguments, output):
        result = subprocess.run(["sbatch", "--parsable", f"--output={output}", script, *arguments], capture_output=True,
                                text=True, timeout=30, env=self.environment, cwd=self.folder)
        if result.returncode != 0:
            raise AssertionError(f"sbatch {script} exited {result.returncode}: {result.stderr}\n{self.logs()}")
        return result.stdout.strip().split(";")[0]

    def jobs(self):
        """Every job the controller knows, finished ones included: {JobId: {field: value}}."""
        jobs = {}
        for line in self.scontrol("show", "job", "-o").splitlines():
            fields = dict(re.findall(r"(\w+)=(\S*)", line))
            if "JobId" in fields:
                jobs[fields["JobId"]] = fields
        return jobs

    def wait_for_every_job(self, seconds):
        unfinished = ("PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "SUSPENDED", "REQUEUED", "RESIZING")
        self.wait_for(lambda: self.jobs() and not any(job["JobState"] in unfinished for job in self.jobs().values()),
                      seconds, "end of every job")
        return self.jobs()

    def stop(self):
        """Every process this Slurm started ends, by process id: the daemons, then what is left below this test
        (slurmstepd and the jobs, orphaned to this subreaper), then whatever still holds this SLURM_CONF."""
        for _, process in self.daemons:
            if process.poll() is None:
                try:
                    os.killpg(process.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        deadline = time.monotonic() + 5
        for _, process in self.daemons:
            try:
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
        daemon_pids = {process.pid for _, process in self.daemons}
        left = []
        for attempt in range(50):
            for _, process in self.daemons:
                if process.poll() is None:
                    try:
                        os.killpg(process.pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
            left = [pid for pid in set(descendants(os.getpid())) | set(processes_with("SLURM_CONF=" + self.conf))
                    if pid not in daemon_pids or is_alive(pid)]
            for pid in left:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            for pid in left:
                if pid not in daemon_pids:
                    try:
                        os.waitpid(pid, os.WNOHANG)  # an orphan this subreaper adopted
                    except ChildProcessError:
                        pass
            for _, process in self.daemons:
                process.poll()
            left = [pid for pid in left if is_alive(pid)]
            if not left and all(process.poll() is not None for _, process in self.daemons):
                return []
            time.sleep(0.1)
        return left


class SlurmTest(unittest.TestCase):
    """The examples of scripts/slurm/ submitted to a one-node Slurm started for the test."""
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        needs_build(cls)
        if os.geteuid() != 0:
            raise unittest.SkipTest(SKIPPED_FOR_A_CAPABILITY + "slurmd runs jobs as root only (this test runs as uid "
                                    f"{os.geteuid()}); run it as root")
        missing = [program for program, found in (("slurmctld", shutil.which("slurmctld")), ("slurmd", shutil.which("slurmd")),
                                                  ("sbatch", shutil.which("sbatch")), ("srun", shutil.which("srun")),
                                                  ("scontrol", shutil.which("scontrol")), ("munged", shutil.which("munged")),
                                                  ("mungekey", shutil.which("mungekey"))) if not found]
        if missing:
            raise AssertionError(f"not installed: {', '.join(missing)}: run scripts/install-dependencies")
        set_child_subreaper()
        cls.folder = tempfile.mkdtemp(dir=TEMPORARY)
        cls.slurm = OneNodeSlurm(os.path.join(cls.folder, "slurm"))
        cls.started = time.monotonic()
        try:
            cls.slurm.start()
            cls.up_s = time.monotonic() - cls.started
            cls.scenario = cut_down_scenario(cls.folder)
            cls.outputs = {"bench": os.path.join(cls.folder, "bench.out"), "sweep": os.path.join(cls.folder, "sweep.out")}
            cls.results = os.path.join(cls.folder, "sweep", "predicted.json")
            os.makedirs(os.path.dirname(cls.results))
            cls.bench_job = cls.slurm.submit(os.path.join(SLURM_SCRIPTS, "ddlrun-bench.sbatch"), "--algorithm", "ring",
                                             "-b", "1K", "-e", "64K", "-f", "4", "-n", "5", "-w", "1", "--baseline", "mpi",
                                             output=cls.outputs["bench"])
            cls.sweep_job = cls.slurm.submit(os.path.join(SLURM_SCRIPTS, "ddlsim-sweep.sbatch"), cls.scenario, cls.results,
                                             output=cls.outputs["sweep"])
            cls.jobs = cls.slurm.wait_for_every_job(JOB_DEADLINE_S)
            cls.jobs_s = time.monotonic() - cls.started - cls.up_s
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def tearDownClass(cls):
        left = cls.slurm.stop()
        print(f"\nslurm_test: Slurm up in {getattr(cls, 'up_s', float('nan')):.1f} s, jobs done in "
              f"{getattr(cls, 'jobs_s', float('nan')):.1f} s, all stopped {time.monotonic() - cls.started:.1f} s after "
              "the start", file=sys.stderr)
        if left:
            raise AssertionError(f"processes outlive the test's Slurm: {left}")

    def output(self, name):
        with open(self.outputs[name], encoding="utf-8", errors="replace") as handle:
            return handle.read()

    def job_report(self):
        outputs = "".join(f"--- {path}\n{open(path, errors='replace').read()}" for path in
                          [*self.outputs.values(), *sorted(os.path.join(d, f) for d, _, fs in os.walk(self.folder)
                                                             for f in fs if f.startswith(("part-", "merge")) and f.endswith(".out"))]
                          if os.path.exists(path))
        jobs = "\n".join(f"{job['JobId']} {job.get('JobName')} {job['JobState']} {job.get('ExitCode')}"
                         for job in self.jobs.values())
        return f"{jobs}\n{outputs}{self.slurm.logs()}"

    def test_every_job_ended_well(self):
        names = sorted(job["JobName"] for job in self.jobs.values())
        self.assertEqual(names, ["ddlrun-bench", "ddlsim-sweep", "ddlsim-sweep-merge"] + ["ddlsim-sweep-part"] * 3,
                         self.job_report())
        for job in self.jobs.values():
            self.assertEqual((job["JobState"], job["ExitCode"]), ("COMPLETED", "0:0"), self.job_report())

    def test_bench_ran_two_mpi_ranks_under_srun(self):
        text = self.output("bench")
        self.assertIn("srun --mpi=pmix", text, self.job_report())
        self.assertIn("ring allreduce on 2 ranks", text, self.job_report())
        ranks = re.findall(r"^#  Rank +(\d+) Group +0 Pid +(\d+) on", text, re.M)
        self.assertEqual(sorted(rank for rank, _ in ranks), ["0", "1"], self.job_report())
        self.assertEqual(len({pid for _, pid in ranks}), 2, "two processes")
        rows = [line.split() for line in text.splitlines() if re.match(r"^ +\d", line)]
        self.assertEqual([row[0] for row in rows], ["1024", "4096", "16384", "65536"], self.job_report())
        for row in rows:
            self.assertEqual(len(row), 17, row)  # nccl-tests' 13 columns and MPI_Allreduce's 4
            self.assertEqual((row[8], row[12], row[16]), ("0", "0", "0"), row)  # #wrong
        self.assertRegex(text, r"# Out of bounds values : 0 OK")

    def test_sweep_array_merges_into_one_runs_document(self):
        self.assertTrue(os.path.exists(self.results), self.job_report())
        with open(self.results, encoding="utf-8") as handle:
            merged = handle.read()
        # The same bytes as this split, run and merged here with the same ddlsim, and as one whole run: on the
        # step engine every simulation starts from clock zero.
        self.assertEqual(merged, split_run_merge(self.scenario, "each", tempfile.mkdtemp(dir=self.folder)))
        self.assertEqual(merged, one_run(self.scenario))
        self.assertRegex(self.output("sweep"), r"ddlsim-sweep: array job \d+ \(3 tasks\) and merge job \d+")


if __name__ == "__main__":
    arguments = sys.argv[1:]
    BUILD = os.path.abspath(arguments.pop(0)) if arguments and not arguments[0].startswith("-") else \
        os.path.join(REPO, "build", "release")
    if arguments and not arguments[0].startswith("-"):
        arguments.pop(0)  # the source folder: this file's own checkout is used
    program = unittest.main(argv=[sys.argv[0], *arguments], exit=False)
    result = program.result
    capability = [reason for _, reason in result.skipped if reason.startswith(SKIPPED_FOR_A_CAPABILITY)]
    if not result.wasSuccessful():
        sys.exit(1)
    if capability:
        print(f"SKIPPED: {capability[0]}")
        sys.exit(77)
    sys.exit(0)
