#!/usr/bin/python3
"""The Slurm examples of scripts/slurm/ run, and a sweep split into ddlsim's shares gives what one ddlsim run writes.

Usage: slurm_test.py BUILD [SOURCE]     (BUILD: the build folder with sim/ddlsim and runtime/ddlrun)

Without Slurm: a cut-down copy of scenarios/powerai-ddl-resnet50.json (1, 4 and 8 GPUs, two algorithms)
simulated as 1, 3 and more shares than it has simulations (`ddlsim SCENARIO --share K/N --share-out FILE`)
and written from them (`ddlsim SCENARIO --sweep-values FILES --json`) gives the bytes one `ddlsim SCENARIO
--json` run gives, with options too; shares of another sweep, a share missing or given twice, and bad input
to scripts/slurm/ddlsim-sweep.sbatch exit 2, naming what is wrong, writing and submitting nothing.

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
import json
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


def shares_merged(scenario, tasks, folder, options=()):
    """The sweep as the job array runs it, here: ddlsim's shares K/tasks, then ddlsim writing the results from
    them. The merged text."""
    os.makedirs(folder)
    shares = []
    for k in range(tasks):
        shares.append(os.path.join(folder, f"share-{k}.json"))
        run([TOOLS["ddlsim"], scenario, *options, "--share", f"{k}/{tasks}", "--share-out", shares[-1], "-j", "1"])
    merged = os.path.join(folder, "merged.json")
    run([TOOLS["ddlsim"], scenario, *options, "--sweep-values", *shares, "--json", "--out", merged])
    with open(merged, encoding="utf-8") as handle:
        return handle.read()


class SweepSharesTest(unittest.TestCase):
    """ddlsim --share K/N in each task, and ddlsim --sweep-values: one ddlsim run's document, byte for byte."""
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        needs_build(cls)
        cls.folder = tempfile.mkdtemp(dir=TEMPORARY)
        cls.scenario = cut_down_scenario(cls.folder)
        cls.whole = one_run(cls.scenario)

    def test_any_number_of_shares_merges_into_one_runs_bytes(self):
        simulations = 2 * len(json.loads(self.whole)["points"])  # each point's iteration and its no-latency twin
        for tasks in (1, 3, simulations + 2):  # the last with shares that hold nothing
            self.assertEqual(shares_merged(self.scenario, tasks, os.path.join(self.folder, f"tasks-{tasks}")), self.whole, tasks)

    def test_options_reach_every_share(self):
        with open(self.scenario, encoding="utf-8") as handle:
            scenario = json.load(handle)
        scenario["effects"] = {"compute_jitter": "sourced", "seed": 3}
        path = os.path.join(self.folder, "ranged.json")
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(scenario, handle)
        options = ["--samples", "5", "--gpus", "8,1"]
        self.assertEqual(shares_merged(path, 4, os.path.join(self.folder, "ranged"), options),
                         run([TOOLS["ddlsim"], path, *options, "--json"]).stdout)

    def test_shares_of_another_sweep_or_a_missing_one_are_refused_and_nothing_is_written(self):
        folder = os.path.join(self.folder, "foreign")
        shares_merged(self.scenario, 2, folder)
        plain = [os.path.join(folder, f"share-{k}.json") for k in range(2)]
        out = os.path.join(folder, "out.json")
        for options, shares, expected in (([], plain[:1], "no share holds simulation"),
                                          (["--compute-scale", "0.5"], plain, "a share of another sweep"),
                                          (["--gpus", "4"], plain, "a share of another sweep"),
                                          (["--engine", "message"], plain, "a share of another sweep"),
                                          ([], plain + plain[:1], "out of place")):
            result = run([TOOLS["ddlsim"], self.scenario, *options, "--sweep-values", *shares, "--json", "--out", out], check=False)
            self.assertEqual(result.returncode, 2, (options, result.stderr))
            self.assertIn("--sweep-values", result.stderr)
            self.assertIn(expected, result.stderr)
            self.assertFalse(os.path.exists(out), "written on bad input")

    def test_the_planning_script_refuses_bad_input_before_submitting_anything(self):
        environment = dict(os.environ, DDLSCALE=REPO, DDLSCALE_BUILD=os.path.join(TEMPORARY, "build"), PATH="/usr/bin:/bin")
        script = os.path.join(SLURM_SCRIPTS, "ddlsim-sweep.sbatch")
        results = os.path.join(self.folder, "planned", "predicted.json")
        os.makedirs(os.path.dirname(results))
        for arguments, expected in (([os.path.join(self.folder, "absent.json")], "no such scenario file"),
                                    ([self.scenario, results, "--gpus", "3"], "--gpus"),
                                    ([self.scenario, results, "--engine", "smpi"], "--engine")):
            result = run(["bash", script, *arguments], check=False, env=environment)
            self.assertEqual(result.returncode, 2, result.stderr)
            self.assertIn(expected, result.stderr)
        self.assertEqual(os.listdir(os.path.dirname(results)), [], "nothing planned on bad input")


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
        self.environment.update(SLURM_CONF=self.conf, DDLSCALE=REPO, DDLSCALE_BUILD=os.path.join(TEMPORARY, "build"), SWEEP_TASKS="3",
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
                                             output=cls.outputs["sweep"])  # SWEEP_TASKS=3: OneNodeSlurm
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
        def text(path):
            with open(path, encoding="utf-8", errors="replace") as handle:
                return handle.read()

        outputs = "".join(f"--- {path}\n{text(path)}" for path in
                          [*self.outputs.values(), *sorted(os.path.join(d, f) for d, _, fs in os.walk(self.folder)
                                                             for f in fs if f.startswith(("share-", "merge")) and f.endswith(".out"))]
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
        # The same bytes as one whole run: every simulation runs in a fresh process, wherever it runs.
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
