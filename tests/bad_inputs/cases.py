"""The bad inputs of bad_inputs_test.py, one per line: what is wrong, the command, and what the message must
name. Commands are lists whose parts may use {ddlsim}, {ddlrun}, {ddlcompare}, {python}, {mpirun}, {source}
(the source tree), {dir} (the case's own directory, also its working directory) and {out} (an output path in
it, which must stay unwritten). Input files are written into {dir} first: `files` maps a name to its text,
bytes, a shipped file with edits (edited) or as it is (copied), DIRECTORY or FIFO.
"""
import copy
import json
import os
import re

DIRECTORY = object()
FIFO = object()  # a named pipe nobody writes to: opening it would block
NOT_UTF8 = os.fsdecode(b"\xff\xfe label")  # passed to the command as those very bytes


def under_memory_limit(kilobytes, *command):
    """`command` under ulimit -v, as on a machine (or a batch job) whose processes may map only so much."""
    return ["bash", "-c", f'ulimit -v {kilobytes} && exec "$0" "$@"', *command]


class Case:
    def __init__(self, name, command, expect, files=None, environment=None):
        self.name, self.command, self.expect = name, command, expect
        self._files = files or {}
        self.environment = environment or {}
        # AddressSanitizer reserves terabytes of shadow address space at start: under ulimit -v it cannot
        # start at all, so these cases run against optimised builds only.
        self.limits_address_space = command[:2] == ["bash", "-c"] and "ulimit -v" in command[2]

    def files(self, source):
        return {name: content(source) if callable(content) else content for name, content in self._files.items()}


def steps_of(path):
    """'$.a.b[2]' -> ['a', 'b', 2]"""
    return [int(index) if index else key for key, index in re.findall(r"\.([^.\[]+)|\[(\d+)\]", path)]


def edited(shipped, *edits):
    """The shipped file (a path in the source tree), or a document, with `edits` applied: (path, value) sets,
    (path, DELETE) removes, (path, RENAME, new) renames a field."""
    def make(source):
        if isinstance(shipped, str):
            with open(os.path.join(source, shipped)) as handle:
                document = json.load(handle)
        else:
            document = copy.deepcopy(shipped)
        for edit in edits:
            steps = steps_of(edit[0])
            parent = document
            for step in steps[:-1]:
                parent = parent[step]
            if edit[1] is DELETE:
                del parent[steps[-1]]
            elif edit[1] is RENAME:
                parent[edit[2]] = parent.pop(steps[-1])
            else:
                parent[steps[-1]] = edit[1]
        return json.dumps(document, indent=1)
    return make


DELETE, RENAME = object(), object()

SCENARIO = "scenarios/powerai-ddl-resnet50.json"
TOPOLOGY = "topologies/minsky-p100-ib-edr.json"
MODEL = "models/resnet50.json"
TUNING = "tests/fuzz/corpus/tuning_reader/flat-h200-4.json"  # ddlsim tune on 4 GPUs of flat-h200-edr
PROFILE = "tests/fuzz/corpus/profile_import/resnet18-head.json"  # ddlscale_torch.profile, its first three gradients
# A tuning table for 16384 GPUs of dgx-h100-ndr: ring at 4 KiB (2P(P-1) steps), halving-doubling at 1 MiB.
RING_THEN_HALVING_DOUBLING_AT_16384 = {
    "source": "ddlsim tune", "topology": "dgx-h100-ndr", "gpus": 16384, "collective": "allreduce", "type": "float32",
    "candidates": [{"algorithm": "ring", "parameters": {}, "label": "ring", "time_s": [1e-3, 2e-3]},
                   {"algorithm": "halving-doubling", "parameters": {}, "label": "halving-doubling", "time_s": [2e-3, 1e-3]}],
    "rows": [{"bytes": 4096, "best": "ring", "time_s": 1e-3, "runner_up": "halving-doubling", "runner_up_time_s": 2e-3,
              "margin": 1.0},
             {"bytes": 1048576, "best": "halving-doubling", "time_s": 1e-3, "runner_up": "ring", "runner_up_time_s": 2e-3,
              "margin": 1.0}]}
# A tuning table for one DGX H100 node whose best at 64 MiB is NVLS, which only a simulator places.
NVLS_AT_8 = {
    "source": "ddlsim tune", "topology": "dgx-h100-ndr", "gpus": 8, "collective": "allreduce", "type": "float32",
    "candidates": [{"algorithm": "nccl-nvls", "parameters": {"channels": 16}, "label": "nccl-nvls 16 channels, 131072 B shards",
                    "time_s": [1e-3]},
                   {"algorithm": "ring", "parameters": {}, "label": "ring", "time_s": [2e-3]}],
    "rows": [{"bytes": 67108864, "best": "nccl-nvls 16 channels, 131072 B shards", "time_s": 1e-3, "runner_up": "ring",
              "runner_up_time_s": 2e-3, "margin": 1.0}]}
# A scenario small enough to simulate in a moment, naming the shipped topology and model.
SMALL_SCENARIO = {"name": "small", "topology": "minsky-p100-ib-edr", "model": "resnet50", "gpu": "P100", "batch_per_gpu": 32,
                  "gpus": [1, 4], "algorithms": [{"name": "ring"}, {"name": "ddl", "dims": {"1": "1", "4": "4"}}]}
# The same for a model of sequences: GPT-2 small, profiled on the A100 at 1024 tokens.
SMALL_TRANSFORMER_SCENARIO = {"name": "small-gpt2", "topology": "dgx-a100-hdr", "model": "gpt2", "gpu": "A100", "precision": "bf16",
                              "sequence_length": 1024, "batch_per_gpu": 64, "gpus": [1, 8], "algorithms": [{"name": "ring"}]}
SCHEDULE = {"collective": "allreduce", "ranks": 2, "elements": 2, "element_bytes": 4, "programs": [
    {"rank": 0, "steps": [{"op": "send", "peer": 1, "offset": 0, "count": 1, "channel": 0, "after": []},
                          {"op": "receive-reduce", "peer": 1, "offset": 1, "count": 1, "channel": 0, "after": []},
                          {"op": "send", "peer": 1, "offset": 1, "count": 1, "channel": 0, "after": [1]},
                          {"op": "receive-copy", "peer": 1, "offset": 0, "count": 1, "channel": 0, "after": [0]}]},
    {"rank": 1, "steps": [{"op": "send", "peer": 0, "offset": 1, "count": 1, "channel": 0, "after": []},
                          {"op": "receive-reduce", "peer": 0, "offset": 0, "count": 1, "channel": 0, "after": []},
                          {"op": "send", "peer": 0, "offset": 0, "count": 1, "channel": 0, "after": [1]},
                          {"op": "receive-copy", "peer": 0, "offset": 1, "count": 1, "channel": 0, "after": [0]}]}]}
SWEEP = {"source": "ddlsim collective", "configuration": "c", "collective": "allreduce", "algorithm": "ring", "ranks": 4,
         "type": "float32", "rows": [{"bytes": 1024, "count": 256, "time_s": 0.001}, {"bytes": 2048, "count": 512, "time_s": 0.002}]}
POINTS = {"source": "ddlsim", "scenario": "s", "points": [{"configuration": "s", "gpus": 4, "algorithm": "ring",
                                                          "iteration_s": 0.2, "compute_s": 0.1}]}
DEEP = "[" * 100000 + "]" * 100000
# A ddlrun bench sweep of 8 ranks on two Minsky nodes at three sizes: enough rows for calibrate network to fit.
SWEEP_OF_8 = dict(SWEEP, ranks=8, rows=[{"bytes": 1024 * 4 ** i, "count": 256 * 4 ** i, "time_s": 1e-4 * (i + 1)} for i in range(3)])
# This machine as DDLSCALE_MEMORY_BYTES says it is: 200 MB available, whatever it has. Every estimate compares
# against availableMemoryBytes(), so a case holds an estimate without allocating what it refuses.
SMALL_MACHINE = {"DDLSCALE_MEMORY_BYTES": "200000000"}
# python3 -m ddlscale_torch.MODULE as its users run it, from the build's package.
TORCH = ["env", "PYTHONPATH={pytorch}", "{python}", "-m"]
RESULTS_OF_RESNET18 = "analysis/results/2026-12-03-pytorch-resnet18-tcp/predicted.json"  # ddlsim SCENARIO --json
TUNING_TABLE_PLOTTED = "scenarios/tuning/minsky-p100-ib-edr-allreduce-4.json"
VALIDATION = "analysis/results/2026-12-05-validation/validation.json"  # analysis/validate --json
COLLECTIVE_VALIDATION = "analysis/results/2026-12-05-nccl-collectives/validate_collectives.json"
MEASURED_TRAINING = "analysis/results/2026-12-03-pytorch-resnet18-tcp/raw/measured-8-ring.json"  # ddlrun train --json


def corpus_predicting(measured_set, other_set):
    """analysis/validation_corpus.json with `measured_set` predicted from the first scenario of `other_set`
    (another experiment), under `measured_set`'s own configuration label, so that the points join."""
    def make(source):
        with open(os.path.join(source, "analysis/validation_corpus.json")) as handle:
            corpus = json.load(handle)
        sets = {entry["name"]: entry for entry in corpus["measured_sets"]}
        label = sets[measured_set]["scenarios"][-1]["configuration"]
        sets[measured_set]["scenarios"] = [{"file": sets[other_set]["scenarios"][0]["file"], "configuration": label}]
        return json.dumps(corpus, indent=1)
    return make


def copied(shipped):
    """The shipped file (a path in the source tree) byte for byte, as an input under a name of the case's own
    (a results file named r.png, which an output of that name would draw over)."""
    def make(source):
        with open(os.path.join(source, shipped), "rb") as handle:
            return handle.read()
    return make


def ring_sweep_of(ranks, hosts, ranks_per_host):
    """tests/fuzz/corpus/collective_sweep_reader/measured-ring-with-baseline.json (ddlrun bench of a ring on 2 ranks)
    as if measured on `ranks` ranks over `hosts` hosts: each row's count its bytes in float32 elements."""
    def make(source):
        with open(os.path.join(source, "tests/fuzz/corpus/collective_sweep_reader/measured-ring-with-baseline.json")) as handle:
            sweep = json.load(handle)
        sweep.update(ranks=ranks, hosts=hosts, ranks_per_host=ranks_per_host)
        for row in sweep["rows"]:
            row["count"] = row["bytes"] // 4
        return json.dumps(sweep, indent=1)
    return make


TUNING_CANDIDATES = 9  # TUNING's candidates: tuning_check check reads measured-000.json to measured-008.json


def measured_for_tuning(**changes):
    """What `tuning_check check TUNING measured` reads: measured/measured-NNN.json for each candidate and
    measured/measured-auto.json, each a ddlrun bench sweep of the table's collective on its GPUs at its sizes (auto
    choosing what the table chose), with `changes` (edits as edited() takes them, by "003" or "auto") applied to
    the one named. Unchanged, tuning_check check takes them and exits 0."""
    def sweep(key):
        def make(source):
            with open(os.path.join(source, TUNING)) as handle:
                table = json.load(handle)
            auto = key == "auto"
            rows = [{"bytes": row["bytes"], "count": row["bytes"] // 4,
                     "time_s": 1e-3 * (1 + (position + (0 if auto else int(key))) % 3)}
                    for position, row in enumerate(table["rows"])]
            if auto:
                for row, tuned in zip(rows, table["rows"]):
                    row["chosen"] = tuned["best"]
            document = {"source": "ddlrun bench", "configuration": "c", "collective": table["collective"],
                        "algorithm": "auto" if auto else table["candidates"][int(key)]["algorithm"], "ranks": table["gpus"],
                        "type": table["type"], "rows": rows}
            return edited(document, *changes.get(key, []))(source)
        return make
    keys = [f"{index:03d}" for index in range(TUNING_CANDIDATES)] + ["auto"]
    return {f"measured/measured-{key}.json": sweep(key) for key in keys}


SIM, RUN, COMPARE = "{ddlsim}", "{ddlrun}", "{ddlcompare}"


def scenario_case(name, expect, *edits, base=SMALL_SCENARIO):
    return Case(f"scenario: {name}", [SIM, "{dir}/scenario.json", "--json", "--out", "{out}"],
                ["scenario.json", *expect], {"scenario.json": edited(base, *edits)})


def topology_case(name, expect, *edits):
    return Case(f"topology: {name}", [SIM, "platform", "{dir}/topology.json", "--nodes", "2", "--out", "{out}"],
                ["topology.json", *expect], {"topology.json": edited(TOPOLOGY, *edits)})


def based_on_case(name, expect, changes):
    """A topology file that changes the shipped Minsky one (copied beside it as base.json), with `changes`."""
    derived = json.dumps({"name": "derived", "based_on": "base", **changes})
    return Case(f"topology: {name}", [SIM, "platform", "{dir}/topology.json", "--nodes", "2", "--out", "{out}"],
                ["topology.json", *expect], {"topology.json": derived, "base.json": edited(TOPOLOGY),
                                             "middle.json": json.dumps({"name": "middle", "based_on": "base"})})


def model_case(name, expect, *edits):
    scenario = dict(SMALL_SCENARIO, model="model.json")
    return Case(f"model: {name}", [SIM, "{dir}/scenario.json", "--json", "--out", "{out}"], ["model.json", *expect],
                {"scenario.json": json.dumps(scenario), "model.json": edited(MODEL, *edits)})


def schedule_case(name, expect, *edits):
    return Case(f"schedule: {name}", [SIM, "schedule", "--from", "{dir}/schedule.json", "--verify"],
                ["schedule.json", *expect], {"schedule.json": edited(SCHEDULE, *edits)})


def results_case(name, expect, document, *edits):
    good = json.dumps(SWEEP if "rows" in document else POINTS)
    return Case(f"ddlcompare: {name}", ["{python}", COMPARE, "{dir}/predicted.json", "{dir}/measured.json", "--plot", "{dir}/plot.png"],
                ["measured.json", *expect], {"predicted.json": good, "measured.json": edited(document, *edits)})


def file_cases(label, command, name):
    """What every file reader refuses, whatever the format: `command` reads {dir}/NAME."""
    return [
        Case(f"{label}: a missing file", command, [name, "no such file"]),
        Case(f"{label}: a directory", command, [name, "directory"], {name: DIRECTORY}),
        Case(f"{label}: an empty file", command, [name, "not valid JSON"], {name: ""}),
        Case(f"{label}: truncated JSON", command, [name, "not valid JSON"], {name: '{"name": "x", "gpus": [1,'}),
        Case(f"{label}: invalid UTF-8", command, [name], {name: b'{"name": "\xff\xfe"}'}),
        Case(f"{label}: nested 100000 deep", command, [name, "deep"], {name: DEEP}),
        Case(f"{label}: a field given twice", command, [name, "twice"], {name: '{"name": "a", "name": "b"}'}),
        Case(f"{label}: a NaN literal", command, [name, "not valid JSON"], {name: '{"name": NaN}'}),
        Case(f"{label}: a number too large for a double", command, [name], {name: '{"name": 1e400}'}),
        Case(f"{label}: JSON that is not an object", command, [name], {name: "[1, 2, 3]"}),
    ]


# Each plot tool with a good input: the cases that hold a flag of theirs to a rule.
PLOT_TOOL_INPUTS = [
    ("plot_scaling", ["{source}/" + RESULTS_OF_RESNET18], None),
    ("plot_tuning", ["{source}/" + TUNING_TABLE_PLOTTED], None),
    ("plot_validation", ["{source}/" + VALIDATION], None),
    ("plot_collective_validation", ["{source}/" + COLLECTIVE_VALIDATION], None),
    ("plot_sensitivity", ["{dir}/sensitivity.json"], {"sensitivity.json": "{}"}),
]

CASES = [
    # --- the files every reader refuses, for each reader
    *file_cases("scenario file", [SIM, "{dir}/scenario.json", "--out", "{out}"], "scenario.json"),
    *file_cases("topology file", [SIM, "platform", "{dir}/topology.json", "--out", "{out}"], "topology.json"),
    *file_cases("schedule file", [SIM, "schedule", "--from", "{dir}/schedule.json", "--json", "--out", "{out}"], "schedule.json"),
    *file_cases("results file", ["{python}", COMPARE, "{dir}/results.json", "{dir}/results.json"], "results.json"),
    *file_cases("ddlrun train's scenario", [RUN, "train", "{dir}/scenario.json", "--out", "{out}"], "scenario.json"),

    # --- scenario fields
    scenario_case("gpus missing", ["$.gpus", "missing"], ("$.gpus", DELETE)),
    scenario_case("a sequence length for a model of images", ["$.sequence_length", "images"], ("$.sequence_length", 224)),
    scenario_case("a sequence length of 0", ["$.sequence_length"], ("$.sequence_length", 0), base=SMALL_TRANSFORMER_SCENARIO),
    scenario_case("a sequence length the model is not profiled at", ["$.sequence_length", "1024 tokens only"],
                  ("$.sequence_length", 2048), base=SMALL_TRANSFORMER_SCENARIO),
    scenario_case("a model whose states outgrow the GPU", ["$.model", "107.8 GB per GPU", "80.0 GB of each A100"],
                  ("$.model", "llama2-7b"), ("$.sequence_length", 4096), ("$.batch_per_gpu", 16), base=SMALL_TRANSFORMER_SCENARIO),
    scenario_case("an unknown parallelism", ["$.parallelism", "'zero4' is not one of", "zero3"], ("$.parallelism", "zero4"),
                  base=SMALL_TRANSFORMER_SCENARIO),
    scenario_case("a sharded plan whose share outgrows the GPU at one count", ["$.gpus[0]", "under zero3", "107.8 GB per GPU at 1 GPUs"],
                  ("$.model", "llama2-7b"), ("$.sequence_length", 4096), ("$.batch_per_gpu", 16), ("$.parallelism", "zero3"),
                  base=SMALL_TRANSFORMER_SCENARIO),
    scenario_case("hybrid sharding over a node part full", ["$.gpus[1]", "nodes of 8 GPUs", "12 GPUs"],
                  ("$.parallelism", "hybrid"), ("$.gpus", [1, 12]), base=SMALL_TRANSFORMER_SCENARIO),
    scenario_case("a sharded plan with an allreduce-only algorithm", ["$.algorithms[1].name", "no reduce-scatter algorithm named 'ddl'"],
                  ("$.parallelism", "zero2")),
    scenario_case("a model of sequences without the sequence length", ["scenario.json: $:", "\"sequence_length\": 1024"],
                  ("$.sequence_length", DELETE), base=SMALL_TRANSFORMER_SCENARIO),
    scenario_case("a published point above 150% efficiency", ["$.published[0].efficiency"],
                  ("$.published", [{"gpus": 8, "efficiency": 2, "label": "x", "source": "y"}])),
    scenario_case("a published point without its source", ["$.published[0].source", "missing"],
                  ("$.published", [{"gpus": 8, "efficiency": 0.9, "label": "x"}])),
    scenario_case("a misspelt field of a published point", ["$.published[0].efficency", "did you mean 'efficiency'"],
                  ("$.published", [{"gpus": 8, "efficency": 0.9, "label": "x", "source": "y"}])),
    scenario_case("published not a list", ["$.published"], ("$.published", {"gpus": 8})),
    scenario_case("gpus empty", ["$.gpus"], ("$.gpus", [])),
    scenario_case("a GPU count of 0", ["$.gpus[1]"], ("$.gpus", [1, 0])),
    scenario_case("a negative GPU count", ["$.gpus[1]"], ("$.gpus", [1, -4])),
    scenario_case("a fractional GPU count", ["$.gpus[1]", "integer"], ("$.gpus", [1, 4.5])),
    scenario_case("a GPU count as text", ["$.gpus[1]", "integer"], ("$.gpus", [1, "4"])),
    scenario_case("a million GPUs", ["$.gpus[1]", "131072"], ("$.gpus", [1, 1048576])),
    scenario_case("a GPU count above 2^63", ["$.gpus[1]"], ("$.gpus", [1, 18446744073709551615])),
    # Jitter drawn per rank: every rank is simulated, none standing for others (sim/step/step_iteration.hpp).
    scenario_case("65536 GPUs in a ring: more memory than there is", ["$.gpus[0]", "needs about"],
                  ("$.gpus", [65536]), ("$.algorithms", [{"name": "ring"}]), ("$.effects", {"compute_jitter": 0.02})),
    scenario_case("gpus not an array", ["$.gpus", "array"], ("$.gpus", 4)),
    scenario_case("batch_per_gpu 0", ["$.batch_per_gpu"], ("$.batch_per_gpu", 0)),
    scenario_case("batch_per_gpu without a profile", ["$.batch_per_gpu", "batch 48"], ("$.batch_per_gpu", 48)),
    scenario_case("batch_per_gpu as text", ["$.batch_per_gpu"], ("$.batch_per_gpu", "32")),
    scenario_case("baseline_gpus 0", ["$.baseline_gpus"], ("$.baseline_gpus", 0)),
    scenario_case("a baseline too large to simulate here", ["$.baseline_gpus", "needs about"], ("$.baseline_gpus", 65536),
                  ("$.algorithms", [{"name": "ring"}]), ("$.effects", {"compute_jitter": 0.02})),
    scenario_case("a baseline where an algorithm has no grid", ["$.baseline_gpus", "ddl cannot run", "no grid given for 2 GPUs"],
                  ("$.baseline_gpus", 2)),
    scenario_case("an unknown precision", ["$.precision", "fp8", "bf16"], ("$.precision", "fp8")),
    scenario_case("a precision the GPU has no profile of", ["$.precision", "no bf16 profile for P100"], ("$.precision", "bf16")),
    scenario_case("gradients in a compute precision", ["$.gradients", "amp"], ("$.gradients", "amp")),
    scenario_case("baseline_gpus where ddl's grid cannot follow the topology", ["$.baseline_gpus", "6 GPUs", "ddl"],
                  ("$.baseline_gpus", 6)),
    scenario_case("bucket_bytes 0", ["$.bucket_bytes"], ("$.bucket_bytes", 0)),
    scenario_case("bucket_bytes above 2^40", ["$.bucket_bytes"], ("$.bucket_bytes", 1e15)),
    scenario_case("overlap_backward as text", ["$.overlap_backward"], ("$.overlap_backward", "yes")),
    scenario_case("an unknown placement", ["$.placement"], ("$.placement", "scattered")),
    scenario_case("no algorithms", ["$.algorithms"], ("$.algorithms", [])),
    scenario_case("a misspelt algorithm", ["$.algorithms[0].name", "did you mean 'ring'"], ("$.algorithms[0].name", "rnig")),
    scenario_case("an algorithm name that is a number", ["$.algorithms[0].name"], ("$.algorithms[0].name", 7)),
    scenario_case("nccl's nvls as text", ["$.algorithms[0].nvls", "true or false"],
                  ("$.algorithms", [{"name": "nccl", "nvls": "off"}])),
    scenario_case("NVLS on a node without a multicast switch", ["$.algorithms[0]", "nccl-nvls", "multicast_switch"],
                  ("$.algorithms[0].name", "nccl-nvls")),
    scenario_case("NVLS on one node's switch across two nodes", ["$.algorithms[0]", "at 16 GPUs", "one node's NVSwitch"],
                  ("$.topology", "dgx-h100-ndr"), ("$.gpu", "H200"), ("$.gpus", [8, 16]), ("$.placement", "packed"),
                  ("$.algorithms", [{"name": "nccl-nvls"}])),
    scenario_case("dims that do not multiply", ["$.algorithms[1]", "does not multiply"], ("$.algorithms[1].dims.4", "2x3")),
    scenario_case("dims of zero", ["$.algorithms[1].dims.4"], ("$.algorithms[1].dims.4", "0x4")),
    scenario_case("a dims key that is no GPU count", ["$.algorithms[1].dims.four"], ("$.algorithms[1].dims", {"1": "1", "four": "4"})),
    scenario_case("a dims key with trailing text", ["$.algorithms[1].dims.4x"], ("$.algorithms[1].dims", {"1": "1", "4x": "4"})),
    scenario_case("dims for a count the sweep lacks", ["$.algorithms[1].dims.8"], ("$.algorithms[1].dims.8", "4x2")),
    scenario_case("dims missing a count", ["$.algorithms[1].dims", "no grid given for 4"], ("$.algorithms[1].dims", {"1": "1"})),
    scenario_case("a misspelt algorithm field", ["$.algorithms[1].dimz", "did you mean 'dims'"], ("$.algorithms[1].dims", RENAME, "dimz")),
    # {"name": "auto", "tuning": FILE}: a tuning table per GPU count above 1
    scenario_case("auto without its tuning tables", ["$.algorithms[0].tuning", "missing"], ("$.algorithms[0]", {"name": "auto"})),
    scenario_case("auto with dims", ["$.algorithms[0].dims"],
                  ("$.algorithms[0]", {"name": "auto", "tuning": "t-{gpus}.json", "dims": "topology"})),
    scenario_case("tuning beside one algorithm", ["$.algorithms[0].tuning"], ("$.algorithms[0]", {"name": "ring", "tuning": "t.json"})),
    scenario_case("auto without the table of a GPU count", ["$.algorithms[0].tuning", "t-4.json"],
                  ("$.algorithms[0]", {"name": "auto", "tuning": "t-{gpus}.json"})),
    Case("scenario: auto with a table of another topology", [SIM, "{dir}/scenario.json", "--json", "--out", "{out}"],
         ["scenario.json", "$.algorithms[0].tuning", "t-4.json", "flat-h200-edr"],
         {"scenario.json": edited(SMALL_SCENARIO, ("$.algorithms[0]", {"name": "auto", "tuning": "t-{gpus}.json"})),
          "t-4.json": edited(TUNING)}),
    Case("scenario: auto with fp32 tables for fp16 gradients", [SIM, "{dir}/scenario.json", "--json", "--out", "{out}"],
         ["scenario.json", "$.algorithms[0].tuning", "4-byte elements", "fp16"],
         {"scenario.json": edited(SMALL_SCENARIO, ("$.gradients", "fp16"),
                                  ("$.algorithms[0]", {"name": "auto", "tuning": "t-{gpus}.json"})),
          "t-4.json": edited("scenarios/tuning/minsky-p100-ib-edr-allreduce-4.json")}),
    Case("scenario: auto with a table that is not JSON", [SIM, "{dir}/scenario.json", "--json", "--out", "{out}"],
         ["scenario.json", "$.algorithms[0].tuning", "t-4.json", "JSON"],
         {"scenario.json": edited(SMALL_SCENARIO, ("$.algorithms[0]", {"name": "auto", "tuning": "t-{gpus}.json"})),
          "t-4.json": "{\"rows\": "}),
    scenario_case("dims on an algorithm without them", ["$.algorithms[0]", "takes no dims"], ("$.algorithms[0].dims", {"1": "1", "4": "4"})),
    scenario_case("an unknown inner algorithm", ["$.algorithms[0]", "butterfly"], ("$.gpus", [2, 4]),
                  ("$.algorithms", [{"name": "hierarchical", "ranks_per_node": 2, "inner": "butterfly"}])),
    scenario_case("ranks_per_node 0", ["$.algorithms[0].ranks_per_node"], ("$.algorithms[0]", {"name": "hierarchical", "ranks_per_node": 0})),
    scenario_case("ranks_per_node that does not divide", ["$.algorithms[0]"], ("$.algorithms[0]", {"name": "hierarchical", "ranks_per_node": 3})),
    scenario_case("chunk_bytes 0", ["$.algorithms[0].chunk_bytes"], ("$.algorithms[0]", {"name": "double-binary-tree", "chunk_bytes": 0})),
    scenario_case("channels 0", ["$.algorithms[0].channels"], ("$.algorithms[0]", {"name": "nccl-ring", "channels": 0})),
    scenario_case("channels beyond NCCL's 32", ["$.algorithms[0].channels", "32"], ("$.algorithms[0]", {"name": "nccl-ring", "channels": 33})),
    scenario_case("channels derived from the node", ["$.algorithms[0].channels", "topology"],
                  ("$.algorithms[0]", {"name": "nccl-ring", "channels": "node"})),
    scenario_case("channels on ring", ["$.algorithms[0]", "channels"], ("$.algorithms[0]", {"name": "ring", "channels": 2})),
    scenario_case("a misspelt top-level field", ["$.gpuss", "did you mean 'gpus'"], ("$.gpus", RENAME, "gpuss")),
    scenario_case("an unknown top-level field", ["$.colour", "unknown field"], ("$.colour", "blue")),
    scenario_case("a topology that does not exist", ["$.topology", "no topology named 'minksy'", "minsky-p100-ib-edr"], ("$.topology", "minksy")),
    scenario_case("a misspelt topology", ["$.topology", "did you mean 'minsky-p100-ib-edr'"], ("$.topology", "minsky-p100-ib-erd")),
    scenario_case("a topology path that does not exist", ["$.topology", "no such file"], ("$.topology", "missing/cluster.json")),
    scenario_case("a model that does not exist", ["$.model", "no model named"], ("$.model", "resnet5O")),
    scenario_case("a GPU the model has no profile for", ["$.gpu", "V100"], ("$.gpu", "V100")),
    scenario_case("the name a number", ["$.name", "string"], ("$.name", 3)),
    scenario_case("nodes_per_leaf 0", ["$.topology_overrides.nodes_per_leaf"], ("$.topology_overrides", {"nodes_per_leaf": 0})),
    scenario_case("oversubscription below 1", ["$.topology_overrides.oversubscription"], ("$.topology_overrides", {"oversubscription": 0.5})),
    scenario_case("more NICs than the node has", ["$.topology_overrides.nics_per_node"], ("$.topology_overrides", {"nics_per_node": 9})),
    scenario_case("more GPUs per node than the node has", ["$.topology_overrides.gpus_per_node", "5 ranks per node", "has 4 GPUs"],
                  ("$.topology_overrides", {"gpus_per_node": 5})),
    scenario_case("no GPUs per node", ["$.topology_overrides.gpus_per_node"], ("$.topology_overrides", {"gpus_per_node": 0})),
    scenario_case("an unknown override", ["$.topology_overrides.nic_count"], ("$.topology_overrides", {"nic_count": 1})),
    scenario_case("a GPU count twice", ["$.gpus[2]", "twice"], ("$.gpus", [1, 4, 4])),
    scenario_case("the same algorithm twice", ["$.algorithms[1]", "as $.algorithms[0]"], ("$.algorithms", [{"name": "ring"}, {"name": "ring"}])),
    scenario_case("the topology's grid and the same grid by count", ["$.algorithms[1]", "as $.algorithms[0]"],
                  ("$.algorithms", [{"name": "ddl", "dims": "topology"}, {"name": "ddl", "dims": {"1": "1", "4": "4"}}])),
    scenario_case("1-byte chunks of 25 MB buckets", ["$.algorithms[0]", "chunk"], ("$.algorithms", [{"name": "double-binary-tree", "chunk_bytes": 1}])),

    # --- ddlsim SCENARIO flags
    Case("ddlsim: --compute-scale nan", [SIM, "{source}/" + SCENARIO, "--compute-scale", "nan", "--out", "{out}"], ["--compute-scale"]),
    Case("ddlsim: --compute-scale -1", [SIM, "{source}/" + SCENARIO, "--compute-scale", "-1", "--out", "{out}"], ["--compute-scale"]),
    Case("ddlsim: --compute-scale 0", [SIM, "{source}/" + SCENARIO, "--compute-scale", "0", "--out", "{out}"], ["--compute-scale"]),
    Case("ddlsim: --compute-scale inf", [SIM, "{source}/" + SCENARIO, "--compute-scale", "inf", "--out", "{out}"], ["--compute-scale"]),
    Case("ddlsim: --samples 0", [SIM, "{source}/" + SCENARIO, "--samples", "0", "--out", "{out}"], ["--samples"]),
    Case("ddlsim: --samples -5", [SIM, "{source}/" + SCENARIO, "--samples", "-5", "--out", "{out}"], ["--samples"]),
    Case("ddlsim: --samples of words", [SIM, "{source}/" + SCENARIO, "--samples", "many", "--out", "{out}"], ["--samples"]),
    Case("ddlsim: --samples 1e9", [SIM, "{source}/" + SCENARIO, "--samples", "1000000000", "--out", "{out}"], ["--samples"]),
    Case("ddlsim: --samples over a million simulations", [SIM, "{source}/" + SCENARIO, "--samples", "100000", "--out", "{out}"],
         ["--samples", "simulations"]),
    Case("ddlsim: --samples with nothing uncertain", [SIM, "{dir}/scenario.json", "--samples", "8", "--out", "{out}"],
         ["--samples", "nothing uncertain"], {"scenario.json": edited(SMALL_SCENARIO)}),
    Case("ddlsim: --sensitivity with nothing uncertain", [SIM, "{dir}/scenario.json", "--sensitivity", "--out", "{out}"],
         ["--sensitivity", "no uncertain input"], {"scenario.json": edited(SMALL_SCENARIO)}),
    Case("ddlsim: --sensitivity at two GPU counts", [SIM, "{source}/" + SCENARIO, "--sensitivity", "--gpus", "64,256", "--out", "{out}"],
         ["--gpus", "one GPU count"]),
    Case("ddlsim: --plot onto the file --out writes", [SIM, "{source}/" + SCENARIO, "--out", "{dir}/same.png", "--plot",
                                                      "{dir}/./same.png"], ["--plot", "--out", "a file of its own"]),
    Case("ddlsim tune: --plot onto its --out", [SIM, "tune", "--topology", "minsky-p100-ib-edr", "--gpus", "4", "--out",
                                                "{dir}/t.png", "--plot", "{dir}/t.png"], ["--plot", "--out"]),
    Case("ddlrun train: --trace onto its --out", [RUN, "train", "{source}/" + SCENARIO, "--transport", "threads", "--ranks", "2",
                                                  "--out", "{dir}/t.json", "--trace", "{dir}/t.json"], ["--trace", "--out"]),
    Case("ddlsim: --sensitivity's --plot onto its --out", [SIM, "{source}/" + SCENARIO, "--sensitivity", "--out", "{dir}/t.png",
                                                           "--plot", "{dir}/t.png"], ["--plot", "--out"]),
    Case("ddlsim: --job-time-factors of no machine", [SIM, "{source}/" + SCENARIO, "--samples", "4", "--job-time-factors",
                                                     "no-such-machine", "--out", "{out}"], ["--job-time-factors", "no-such-machine"]),
    Case("ddlsim: --job-time-factors without --samples", [SIM, "{source}/" + SCENARIO, "--job-time-factors", "{dir}/jobs.json",
                                                         "--out", "{out}"], ["--job-time-factors", "only with --samples"],
         {"jobs.json": '{"time_factors": [1, 1.1]}'}),
    Case("ddlsim: --job-time-factors of a fleet's GPUs", [SIM, "{source}/" + SCENARIO, "--samples", "4", "--job-time-factors",
                                                         "{dir}/jobs.json", "--out", "{out}"], ["jobs.json", "$.gpus"],
         {"jobs.json": '{"gpus": 2, "time_factors": [1, 1.1]}'}),
    Case("ddlsim: --range, which --samples replaced", [SIM, "{source}/" + SCENARIO, "--range", "--out", "{out}"],
         ["--range", "--samples"]),
    Case("ddlsim: --engine of another name", [SIM, "{source}/" + SCENARIO, "--engine", "smpi", "--out", "{out}"], ["--engine", "auto, message or step"]),
    Case("ddlsim: --gpus not of the sweep", [SIM, "{source}/" + SCENARIO, "--gpus", "3", "--out", "{out}"], ["--gpus", "$.gpus"]),
    Case("ddlsim: --gpus 0", [SIM, "{source}/" + SCENARIO, "--gpus", "0", "--out", "{out}"], ["--gpus"]),
    Case("ddlsim: --gpus of words", [SIM, "{source}/" + SCENARIO, "--gpus", "4,many", "--out", "{out}"], ["--gpus"]),
    Case("ddlsim: --out a directory", [SIM, "{source}/" + SCENARIO, "--out", "{dir}"], ["--out", "directory"]),
    Case("ddlsim: --out in a missing directory", [SIM, "{source}/" + SCENARIO, "--out", "{dir}/no/out.json"], ["--out", "no directory"]),
    Case("ddlsim: --csv and --json", [SIM, "{source}/" + SCENARIO, "--csv", "--json", "--out", "{out}"], ["--csv"]),
    Case("ddlsim: --plot to a .gif", [SIM, "{source}/" + SCENARIO, "--plot", "{dir}/scaling.gif", "--out", "{out}"],
         ["--plot", ".png"]),
    Case("ddlsim: --plot a directory", [SIM, "{source}/" + SCENARIO, "--plot", "{dir}", "--out", "{out}"], ["--plot", "directory"]),
    Case("ddlsim: an unknown subcommand", [SIM, "simulate", "x"], ["simulate"]),
    Case("ddlsim: a misspelt subcommand", [SIM, "colective", "--gpus", "4"], ["colective", "did you mean 'collective'"]),
    Case("ddlsim: a misspelt subcommand of calibrate", [SIM, "calibrate", "netwrok"], ["netwrok", "did you mean 'network'"]),
    Case("ddlsim collective: a misspelt flag", [SIM, "collective", "--algoritm", "ring", "--gpus", "4"],
         ["--algoritm", "no such option of ddlsim collective", "did you mean '--algorithm'"]),
    Case("ddlsim: a misspelt flag of a scenario's sweep", [SIM, "{source}/" + SCENARIO, "--gpu", "4", "--out", "{out}"],
         ["--gpu", "did you mean '--gpus'"]),
    Case("ddlrun: a misspelt subcommand", [RUN, "bnech"], ["bnech", "did you mean 'bench'"]),
    Case("ddlrun bench: a misspelt flag", [RUN, "bench", "--algoritm", "ring"], ["--algoritm", "did you mean '--algorithm'"]),
    Case("ddlsim: no scenario", [SIM], ["scenario"]),

    # --- topology fields
    topology_case("a GPU memory of 0 bytes", ["$.node.gpu_memory_bytes"], ("$.node.gpu_memory_bytes", 0)),
    topology_case("0 GPUs per node", ["$.node.gpus"], ("$.node.gpus", 0)),
    topology_case("2000 GPUs per node", ["$.node.gpus"], ("$.node.gpus", 2000)),
    topology_case("GPUs per node as text", ["$.node.gpus"], ("$.node.gpus", "4")),
    topology_case("a reduction rate of 0", ["$.node.reduce_Bps"], ("$.node.reduce_Bps", 0)),
    topology_case("a port without bandwidth", ["$.node.port.bandwidth_Bps", "missing"], ("$.node.port.bandwidth_Bps", DELETE)),
    topology_case("a negative port latency", ["$.node.port.latency_s"], ("$.node.port.latency_s", -1e-6)),
    topology_case("a link to no device", ["$.node.links[0].between[1]", "no such device"], ("$.node.links[0].between", ["gpu0", "gpu9"])),
    topology_case("a link between three devices", ["$.node.links[0].between"], ("$.node.links[0].between", ["gpu0", "gpu1", "gpu2"])),
    topology_case("a link from a device to itself", ["$.node.links[0].between"], ("$.node.links[0].between", ["gpu0", "gpu0"])),
    topology_case("a link of bandwidth 0", ["$.node.links[0].bandwidth_Bps"], ("$.node.links[0].bandwidth_Bps", 0)),
    topology_case("a link latency of 5 s", ["$.node.links[0].latency_s"], ("$.node.links[0].latency_s", 5)),
    topology_case("a link named twice", ["$.node.links[1].name", "twice"], ("$.node.links[1].name", "nvlink-gpu0-gpu1")),
    topology_case("a misspelt link field", ["$.node.links[0].bandwith_Bps", "did you mean 'bandwidth_Bps'"],
                  ("$.node.links[0].bandwidth_Bps", RENAME, "bandwith_Bps")),
    topology_case("a device named like a GPU", ["$.node.devices[0]", "twice"], ("$.node.devices[0]", "gpu0")),
    topology_case("a NIC that is no device", ["$.node.nics[0]", "not a device"], ("$.node.nics[0]", "eth7")),
    topology_case("a NIC listed twice", ["$.node.nics[1]", "twice"], ("$.node.nics[1]", "nic0")),
    topology_case("a rank order that is no permutation", ["$.node.rank_order"], ("$.node.rank_order", [0, 0, 1, 2])),
    topology_case("a rank order beyond the GPUs", ["$.node.rank_order[3]"], ("$.node.rank_order", [0, 1, 2, 4])),
    topology_case("nodes_per_leaf 0", ["$.network.nodes_per_leaf"], ("$.network.nodes_per_leaf", 0)),
    topology_case("oversubscription 0.5", ["$.network.oversubscription"], ("$.network.oversubscription", 0.5)),
    topology_case("a NIC bandwidth of 1e300", ["$.network.nic_bandwidth_Bps"], ("$.network.nic_bandwidth_Bps", 1e300)),
    topology_case("a negative device latency", ["$.network.device_latency_s"], ("$.network.device_latency_s", -1e-6)),
    topology_case("a multicast switch that is no device", ["$.node.multicast_switch", "not a device"],
                  ("$.node.multicast_switch", "nvswitch")),
    topology_case("a multicast switch that is a NIC", ["$.node.multicast_switch", "is a NIC"], ("$.node.multicast_switch", "nic0")),
    topology_case("nics_used 0 with NICs", ["$.nics_used"], ("$.nics_used", 0)),
    topology_case("nics_used beyond the NICs", ["$.nics_used"], ("$.nics_used", 9)),
    topology_case("no network", ["$.network", "missing"], ("$.network", DELETE)),
    topology_case("an unknown node field", ["$.node.nvswitch", "unknown field"], ("$.node.nvswitch", True)),
    topology_case("a misspelt network field", ["$.network.node_per_leaf", "did you mean 'nodes_per_leaf'"],
                  ("$.network.nodes_per_leaf", RENAME, "node_per_leaf")),
    based_on_case("a base that does not exist", ["$.based_on", "no topology file"], {"based_on": "minksy"}),
    based_on_case("a base that is the file itself", ["$.based_on", "based on itself"], {"based_on": "topology"}),
    based_on_case("a base that has a base", ["$.based_on", "one level only"], {"based_on": "middle"}),
    based_on_case("a base in another folder", ["$.based_on", "same folder"], {"based_on": "../base"}),
    based_on_case("a misspelt network member over a base", ["$.network.nic_latncy_s", "did you mean 'nic_latency_s'"],
                  {"network": {"nic_latncy_s": 1e-5}}),
    based_on_case("nics_used beyond the base's NICs", ["$.nics_used"], {"nics_used": 3}),

    # --- model fields
    model_case("no gradients", ["$.gradients"], ("$.gradients", [])),
    model_case("a tensor of 0 elements", ["$.gradients[0].elements"], ("$.gradients[0].elements", 0)),
    model_case("a tensor of -1 elements", ["$.gradients[0].elements"], ("$.gradients[0].elements", -1)),
    model_case("a tensor of 2^41 elements", ["$.gradients[0].elements"], ("$.gradients[0].elements", 2 ** 41)),
    model_case("negative backward FLOPs", ["$.gradients[0].backward_flops_per_image"], ("$.gradients[0].backward_flops_per_image", -1)),
    model_case("parameters that disagree with the gradients", ["$.parameters", "add up to"], ("$.parameters", 25)),
    model_case("a profile key of an unknown precision", ["$.gpus.P100.profiles.fp8-32", "PRECISION-BATCH"],
               ("$.gpus.P100.profiles.fp32-32", RENAME, "fp8-32")),
    model_case("a profile key that names another batch", ["$.gpus.P100.profiles.fp32-33.batch", "names batch 33"],
               ("$.gpus.P100.profiles.fp32-32", RENAME, "fp32-33")),
    model_case("a profile batch of 0", ["$.gpus.P100.profiles.fp32-32.batch"], ("$.gpus.P100.profiles.fp32-32.batch", 0)),
    model_case("an iteration time of 0", ["$.gpus.P100.profiles.fp32-32.iteration_s"], ("$.gpus.P100.profiles.fp32-32.iteration_s", 0)),
    model_case("an iteration shorter than the optimizer step", ["$.gpus.P100", "optimizer"], ("$.gpus.P100.profiles.fp32-32.iteration_s", 1e-6)),
    model_case("a profile without its source", ["$.gpus.P100.profiles.fp32-32.source", "missing"],
               ("$.gpus.P100.profiles.fp32-32.source", DELETE)),
    model_case("a memory bandwidth of 0", ["$.gpus.P100.memory.bandwidth_Bps"], ("$.gpus.P100.memory.bandwidth_Bps", 0)),
    model_case("a misspelt tensor field", ["$.gradients[0].element", "did you mean 'elements'"], ("$.gradients[0].elements", RENAME, "element")),
    model_case("an unknown model field", ["$.learning_rate", "unknown field"], ("$.learning_rate", 0.1)),
    model_case("an unknown optimizer", ["$.optimizer", "sgd-momentum or adam"], ("$.optimizer", "sgd")),
    model_case("a sequence length of 0", ["$.sequence_length"], ("$.sequence_length", 0)),
    model_case("FLOPs per image in a model of sequences", ["$.forward_flops_per_image", "per sequence"], ("$.sequence_length", 1024)),
    model_case("FLOPs per sequence in a model of images", ["$.gradients[0].backward_flops_per_sequence", "per image"],
               ("$.gradients[0].backward_flops_per_image", RENAME, "backward_flops_per_sequence")),
    model_case("a tensor without a name", ["$.gradients[0].name", "missing"], ("$.gradients[0].name", DELETE)),
    Case("model: every backward FLOP 0", [SIM, "{dir}/scenario.json", "--out", "{out}"], ["model.json", "$.gradients", "backward_flops_per_image"],
         {"scenario.json": json.dumps(dict(SMALL_SCENARIO, model="model.json")),
          "model.json": json.dumps({"name": "zero", "gradients": [{"name": "w", "elements": 10, "backward_flops_per_image": 0}],
                                    "gpus": {"P100": {"memory": {"bandwidth_Bps": 7.32e11},
                                                      "profiles": {"fp32-32": {"batch": 32, "iteration_s": 0.1, "source": "x"}}}}})}),

    # --- schedule fields
    schedule_case("a peer outside the ranks", ["$.programs[0].steps[0].peer"], ("$.programs[0].steps[0].peer", 99)),
    schedule_case("a negative peer", ["$.programs[0].steps[0].peer"], ("$.programs[0].steps[0].peer", -1)),
    schedule_case("a rank sending to itself", ["$.programs[0].steps[0].peer", "itself"], ("$.programs[0].steps[0].peer", 0)),
    schedule_case("an offset beyond the buffer", ["$.programs[0].steps[0].offset"], ("$.programs[0].steps[0].offset", 5)),
    schedule_case("a count beyond the buffer", ["$.programs[0].steps[0].count"], ("$.programs[0].steps[0].count", 3)),
    schedule_case("an unknown op", ["$.programs[0].steps[0].op", "sned"], ("$.programs[0].steps[0].op", "sned")),
    schedule_case("'afer' for 'after'", ["$.programs[0].steps[2].afer", "did you mean 'after'"],
                  ("$.programs[0].steps[2].after", RENAME, "afer")),
    schedule_case("a dependency on a later step", ["$.programs[0].steps[2].after[0]"], ("$.programs[0].steps[2].after", [3])),
    schedule_case("a dependency that is not a number", ["$.programs[0].steps[2].after[0]"], ("$.programs[0].steps[2].after", ["1"])),
    schedule_case("0 ranks", ["$.ranks"], ("$.ranks", 0)),
    schedule_case("140000 ranks", ["$.ranks"], ("$.ranks", 140000)),
    schedule_case("negative elements", ["$.elements"], ("$.elements", -1)),
    schedule_case("element_bytes 0", ["$.element_bytes"], ("$.element_bytes", 0)),
    schedule_case("a buffer above 1 PiB", ["$.elements"], ("$.elements", 2 ** 60)),
    schedule_case("fewer programs than ranks", ["$.programs", "programs for 3 ranks"], ("$.ranks", 3)),
    schedule_case("a program of the wrong rank", ["$.programs[1].rank"], ("$.programs[1].rank", 0)),
    schedule_case("a program's rank as text", ["$.programs[0].rank", "integer"], ("$.programs[0].rank", "0")),
    schedule_case("a program's rank above 2^31", ["$.programs[0].rank"], ("$.programs[0].rank", 2 ** 31)),
    schedule_case("a negative channel", ["$.programs[0].steps[0].channel"], ("$.programs[0].steps[0].channel", -1)),
    schedule_case("an unknown collective", ["$.collective", "allgather"], ("$.collective", "allgather")),
    schedule_case("steps not an array", ["$.programs[0].steps"], ("$.programs[0].steps", {})),
    schedule_case("an unknown field", ["$.author", "unknown field"], ("$.author", "x")),

    # --- ddlsim calibrate: its measurements
    *file_cases("calibrate network sweep", [SIM, "calibrate", "network", "minsky-p100-ib-edr", "{dir}/sweep.json", "--level",
                                            "network", "--out", "{out}"], "sweep.json"),
    *file_cases("calibrate effects results", [SIM, "calibrate", "effects", "{source}/" + SCENARIO, "{dir}/train.json",
                                              "--out", "{out}"], "train.json"),
    *[Case(f"ddlsim calibrate network: {name}", [SIM, "calibrate", "network", "minsky-p100-ib-edr", "{dir}/sweep.json", *flags,
                                                 "--out", "{out}"], ["sweep.json", *expect] if expect[0].startswith("$") else expect,
           {"sweep.json": edited(SWEEP, *edits)})
      for name, flags, edits, expect in [
          ("two measured sizes", ["--level", "network"], [], ["three or more"]),
          ("a count that is not the bytes", ["--level", "network"], [("$.rows[0].count", 255)], ["$.rows[0].count"]),
          ("an element type of none", ["--level", "network"], [("$.type", "float128")], ["$.type"]),
          ("an algorithm the simulator does not know", ["--level", "network"], [("$.algorithm", "schedule file")], ["$.algorithm"]),
          ("a zero time", ["--level", "network"], [("$.rows[1].time_s", 0)], ["$.rows[1].time_s"]),
          ("an unknown field", ["--level", "network"], [("$.rows[0].latency", 1)], ["$.rows[0].latency", "unknown field"]),
          ("an unknown level", ["--level", "rack"], [], ["--level"]),
          ("no level", [], [], ["--level"]),
      ]],
    Case("ddlsim calibrate effects: measurements of another GPU",
         [SIM, "calibrate", "effects", "{source}/" + SCENARIO, "{source}/analysis/results/2026-12-03-pytorch-resnet18-tcp/raw/"
          "measured-8-ring.json", "--out", "{out}"], ["$.gpu", "'cpu-rank'", "another machine"]),
    Case("ddlsim-sweep.sbatch: RESULTS onto its scenario", ["bash", "{source}/scripts/slurm/ddlsim-sweep.sbatch", "{dir}/s.json",
                                                           "{dir}/./s.json"], ["s.json", "is the scenario"],
         {"s.json": copied(SCENARIO)}),
    Case("ddlsim calibrate effects: results without measured effects",
         [SIM, "calibrate", "effects", "{source}/" + SCENARIO, "{dir}/train.json", "--out", "{out}"],
         ["train.json", "$.points", "measured_effects"], {"train.json": edited(POINTS, ("$.points[0].batch_per_gpu", 32))}),
    Case("ddlsim calibrate effects: an unknown effect",
         [SIM, "calibrate", "effects", "{source}/" + SCENARIO, "{dir}/train.json", "--only", "jitter", "--out", "{out}"],
         ["--only"], {"train.json": json.dumps(POINTS)}),

    # --- ddlsim model import: a PyTorch profile (ddlscale_torch.profile)
    *file_cases("model import profile", [SIM, "model", "import", "{dir}/profile.json", "--gpu", "cpu-rank", "--out", "{out}"],
                "profile.json"),
    *[Case(f"ddlsim model import: {name}", [SIM, "model", "import", "{dir}/profile.json", *flags, "--out", "{out}"],
           ["profile.json", *expect] if expect[0].startswith("$") else expect, {"profile.json": edited(PROFILE, *edits)})
      for name, flags, edits, expect in [
          ("phases that do not add up", ["--gpu", "cpu-rank"], [("$.iteration_s", 1.0)], ["$.iteration_s", "add up"]),
          ("a gradient twice", ["--gpu", "cpu-rank"], [("$.gradients[1].name", "fc.bias")], ["$.gradients[1].name", "twice"]),
          ("a gradient of no elements", ["--gpu", "cpu-rank"], [("$.gradients[0].elements", 0)], ["$.gradients[0].elements"]),
          ("a negative backward time", ["--gpu", "cpu-rank"], [("$.gradients[2].backward_s", -1)], ["$.gradients[2].backward_s"]),
          ("no gradients", ["--gpu", "cpu-rank"], [("$.gradients", [])], ["$.gradients", "at least one"]),
          ("a bf16 profile", ["--gpu", "cpu-rank"], [("$.precision", "bf16")], ["$.precision"]),
          ("a sequence of no tokens", ["--gpu", "cpu-rank"], [("$.sequence_length", 0)], ["$.sequence_length"]),
          ("an unknown field", ["--gpu", "cpu-rank"], [("$.colour", "red")], ["$.colour", "unknown field"]),
          ("no --gpu", [], [], ["--gpu"]),
      ]],
    Case("ddlsim model import: an --out in a missing folder",
         [SIM, "model", "import", "{source}/" + PROFILE, "--gpu", "cpu-rank", "--out", "{dir}/none/model.json"], ["--out"]),

    # --- ddlsim collective flags
    *[Case(f"ddlsim collective: {name}", [SIM, "collective", "--topology", "minsky-p100-ib-edr", "--out", "{out}", *flags], expect)
      for name, flags, expect in [
          ("--gpus 0", ["--algorithm", "ring", "--gpus", "0"], ["--gpus"]),
          ("--engine fast", ["--algorithm", "ring", "--gpus", "4", "--engine", "fast"], ["--engine", "auto, message or step"]),
          ("--engine empty", ["--algorithm", "ring", "--gpus", "4", "--engine", ""], ["--engine"]),
          ("--schedule of a missing file", ["--schedule", "{dir}/none.json"], ["--schedule"]),
          ("--schedule and --algorithm", ["--schedule", "{source}/tests/fuzz/corpus/schedule_reader/ring-4.json",
                                          "--algorithm", "ring"], ["--algorithm", "--schedule"]),
          ("--schedule and --bytes", ["--schedule", "{source}/tests/fuzz/corpus/schedule_reader/ring-4.json", "--bytes", "1M"],
           ["--bytes", "--schedule"]),
          ("--schedule for other --gpus", ["--schedule", "{source}/tests/fuzz/corpus/schedule_reader/ring-4.json", "--gpus", "8"],
           ["--gpus", "ranks"]),
          ("--gpus -1", ["--algorithm", "ring", "--gpus", "-1"], ["--gpus"]),
          ("--gpus 140000", ["--algorithm", "ring", "--gpus", "140000"], ["--gpus"]),
          ("--gpus 10000000", ["--algorithm", "ring", "--gpus", "10000000"], ["--gpus"]),
          ("--gpus as text", ["--algorithm", "ring", "--gpus", "four"], ["--gpus"]),
          ("--gpus missing", ["--algorithm", "ring"], ["--gpus"]),
          ("4096 GPUs in a ring: more memory than there is", ["--algorithm", "ring", "--gpus", "65536"], ["--gpus", "needs about"]),
          ("--bytes -1", ["--algorithm", "ring", "--gpus", "4", "--bytes", "-1"], ["--bytes"]),
          ("--bytes 1Q", ["--algorithm", "ring", "--gpus", "4", "--bytes", "1Q"], ["--bytes"]),
          ("--bytes beyond 1 PiB", ["--algorithm", "ring", "--gpus", "4", "--bytes", "2000000G"], ["--bytes"]),
          ("--bytes not whole elements", ["--algorithm", "ring", "--gpus", "4", "--bytes", "10"], ["--bytes", "4-byte elements"]),
          ("-b 0 in a sweep", ["--algorithm", "ring", "--gpus", "4", "-b", "0", "-e", "1K"], ["--min-bytes"]),
          ("-b above -e", ["--algorithm", "ring", "--gpus", "4", "-b", "2K", "-e", "1K"], ["--min-bytes"]),
          ("-f 1", ["--algorithm", "ring", "--gpus", "4", "-b", "1K", "-e", "4K", "-f", "1"], ["--factor"]),
          ("-f nan", ["--algorithm", "ring", "--gpus", "4", "-b", "1K", "-e", "4K", "-f", "nan"], ["--factor"]),
          ("-f 1.0001: too many sizes", ["--algorithm", "ring", "--gpus", "4", "-b", "1", "-e", "1G", "-f", "1.0001"], ["--factor", "sizes"]),
          ("-n 0", ["--algorithm", "ring", "--gpus", "4", "-n", "0"], ["--iters"]),
          ("-n 5000", ["--algorithm", "ring", "--gpus", "4", "-n", "5000"], ["--iters"]),
          ("--element-bytes 0", ["--algorithm", "ring", "--gpus", "4", "--element-bytes", "0"], ["--element-bytes"]),
          ("a misspelt algorithm", ["--algorithm", "hallving-doubling", "--gpus", "4"], ["--algorithm", "did you mean 'halving-doubling'"]),
          ("dims that do not multiply", ["--algorithm", "ddl", "--dims", "4x4", "--gpus", "8"], ["--dims", "does not multiply"]),
          ("dims of zero", ["--algorithm", "ddl", "--dims", "0x8", "--gpus", "8"], ["--dims"]),
          ("dims on ring", ["--algorithm", "ring", "--dims", "2x2", "--gpus", "4"], ["--dims"]),
          ("--ranks-per-node 0", ["--algorithm", "hierarchical", "--ranks-per-node", "0", "--gpus", "4"], ["--ranks-per-node"]),
          ("--chunk-bytes 0", ["--algorithm", "double-binary-tree", "--chunk-bytes", "0", "--gpus", "4"], ["--chunk-bytes"]),
          ("--channels 0", ["--algorithm", "nccl-ring", "--channels", "0", "--gpus", "4"], ["--channels"]),
          ("--channels beyond NCCL's 32", ["--algorithm", "nccl-ring", "--channels", "33", "--gpus", "4"], ["--channels", "32"]),
          ("--channels on ring", ["--algorithm", "ring", "--channels", "2", "--gpus", "4"], ["--channels", "ring takes no"]),
          ("--algorithm nccl with an option it chooses", ["--algorithm", "nccl", "--channels", "4", "--gpus", "4"],
           ["--channels", "cannot be combined with --algorithm nccl"]),
          ("--algorithm nccl on ranks placed round-robin", ["--algorithm", "nccl", "--placement", "round-robin", "--gpus", "4"],
           ["--placement", "packed"]),
          ("a protocol that does not exist", ["--algorithm", "ring", "--protocol", "ll256", "--gpus", "4"],
           ["--protocol", "simple, ll or ll128"]),
          ("nccl-ring's nodes that do not divide", ["--algorithm", "nccl-ring", "--ranks-per-node", "3", "--gpus", "4"],
           ["--ranks-per-node"]),
          ("1-byte chunks of 100 MB", ["--algorithm", "double-binary-tree", "--chunk-bytes", "1", "--gpus", "4", "--bytes", "100M"],
           ["--chunk-bytes", "steps"]),
          ("an unknown inner algorithm", ["--algorithm", "hierarchical", "--ranks-per-node", "2", "--inner", "foo", "--gpus", "4"], ["foo"]),
          ("an unknown collective", ["--algorithm", "ring", "--collective", "allgather", "--gpus", "4"], ["--collective"]),
          ("--nodes-per-leaf 0", ["--algorithm", "ring", "--gpus", "4", "--nodes-per-leaf", "0"], ["--nodes-per-leaf"]),
          ("--nodes-per-leaf -1", ["--algorithm", "ring", "--gpus", "4", "--nodes-per-leaf", "-1"], ["--nodes-per-leaf"]),
          ("--oversubscription -1", ["--algorithm", "ring", "--gpus", "4", "--oversubscription", "-1"], ["--oversubscription"]),
          ("--oversubscription nan", ["--algorithm", "ring", "--gpus", "4", "--oversubscription", "nan"], ["--oversubscription"]),
          ("--nics-per-node 99", ["--algorithm", "ring", "--gpus", "4", "--nics-per-node", "99"], ["--nics-per-node"]),
          ("--gpus-per-node beyond the node", ["--algorithm", "ring", "--gpus", "4", "--gpus-per-node", "5"],
           ["--gpus-per-node", "5 ranks per node", "has 4 GPUs"]),
          ("--gpus-per-node 0", ["--algorithm", "ring", "--gpus", "4", "--gpus-per-node", "0"], ["--gpus-per-node"]),
          ("an unknown placement", ["--algorithm", "ring", "--gpus", "4", "--placement", "spread"], ["--placement"]),
      ]],
    Case("ddlsim collective: an unknown topology", [SIM, "collective", "--algorithm", "ring", "--gpus", "4", "--topology", "nowhere",
                                                    "--out", "{out}"], ["--topology", "no topology named 'nowhere'", "minsky-p100-ib-edr"]),
    Case("ddlsim collective: a label that is not UTF-8", [SIM, "collective", "--algorithm", "ring", "--gpus", "4", "--topology",
                                                          "minsky-p100-ib-edr", "--json", "--configuration", NOT_UTF8, "--out", "{out}"],
         ["--configuration", "UTF-8"]),
    Case("ddlsim collective: 4096 GPUs in a ring under a 4 GB ulimit -v",
         under_memory_limit(4000000, SIM, "collective", "--algorithm", "ring", "--gpus", "4096", "--topology", "dgx-h100-ndr"),
         ["--gpus", "address space"]),
    *[Case(f"ddlsim collective: nccl-nvls {name}", [SIM, "collective", "--algorithm", "nccl-nvls", "--out", "{out}", *flags], expect)
      for name, flags, expect in [
          ("on a node without a multicast switch", ["--topology", "minsky-p100-ib-edr", "--gpus", "4"],
           ["--algorithm", "multicast_switch"]),
          ("over two nodes", ["--topology", "dgx-h100-ndr", "--gpus", "16"], ["--gpus", "one node", "2 nodes"]),
          ("under LL", ["--topology", "dgx-h100-ndr", "--gpus", "8", "--protocol", "ll"], ["--protocol", "Simple"]),
          ("on 0 channels", ["--topology", "dgx-h100-ndr", "--gpus", "8", "--channels", "0"], ["--channels"]),
          ("with ranks per node", ["--topology", "dgx-h100-ndr", "--gpus", "8", "--ranks-per-node", "8"],
           ["--ranks-per-node", "takes no"]),
      ]],
    Case("ddlsim collective: an NVLS schedule file on a node without a multicast switch",
         [SIM, "collective", "--schedule", "{source}/tests/fuzz/corpus/schedule_reader/nccl-nvls-2.json", "--topology",
          "minsky-p100-ib-edr", "--out", "{out}"], ["--schedule", "multicast_switch"]),
    Case("ddlsim schedule: nccl-nvls on more channels than a schedule numbers",
         [SIM, "schedule", "--algorithm", "nccl-nvls", "--ranks", "600", "--channels", "32", "--bytes", "128K", "--json",
          "--out", "{out}"], ["--channels", "connections"]),
    Case("ddlsim schedule: nccl-nvls as MSCCL XML", [SIM, "schedule", "--algorithm", "nccl-nvls", "--ranks", "8", "--msccl-xml",
                                                     "--out", "{out}"], ["--msccl-xml", "switch"]),
    Case("ddlsim tune: nccl-nvls on a node without a multicast switch",
         [SIM, "tune", "--topology", "minsky-p100-ib-edr", "--gpus", "4", "--algorithms", "nccl-nvls", "--out", "{out}"],
         ["--algorithms", "NVLS", "multicast_switch"]),
    Case("ddlsim tune: nccl-nvls over two nodes",
         [SIM, "tune", "--topology", "dgx-h100-ndr", "--gpus", "16", "--algorithms", "nccl-nvls", "--out", "{out}"],
         ["--algorithms", "one node's NVSwitch", "2 nodes"]),
    Case("ddlrun bench: nccl-nvls", [RUN, "bench", "--algorithm", "nccl-nvls", "-b", "1K", "-e", "1K"],
         ["--algorithm", "NVLS", "no part for"]),
    Case("ddlrun bench: a tuning table that chooses NVLS",
         [RUN, "bench", "--algorithm", "auto", "--tuning", "{dir}/t.json", "-b", "64M", "-e", "64M"],
         ["--tuning", "chooses nccl-nvls 16 channels", "no part for"], {"t.json": json.dumps(NVLS_AT_8)}),
    Case("ddlsim collective: --out a directory", [SIM, "collective", "--algorithm", "ring", "--gpus", "4", "--topology",
                                                  "minsky-p100-ib-edr", "--out", "{dir}"], ["--out", "directory"]),

    # --- ddlsim tune, and --algorithm auto --tuning FILE
    *[Case(f"ddlsim tune: {name}", [SIM, "tune", "--out", "{out}", *flags], expect) for name, flags, expect in [
        ("--gpus missing", ["--topology", "minsky-p100-ib-edr"], ["--gpus"]),
        ("--topology missing", ["--gpus", "4"], ["--topology"]),
        ("an unknown topology", ["--topology", "nowhere", "--gpus", "4"], ["--topology", "nowhere"]),
        ("a misspelt algorithm", ["--topology", "minsky-p100-ib-edr", "--gpus", "4", "--algorithms", "ring,dll"],
         ["--algorithms", "did you mean 'ddl'"]),
        ("an algorithm of another collective", ["--topology", "minsky-p100-ib-edr", "--gpus", "4", "--collective",
                                                "reduce-scatter", "--algorithms", "ddl"], ["--algorithms", "ddl"]),
        ("an unknown collective", ["--topology", "minsky-p100-ib-edr", "--gpus", "4", "--collective", "allgather"],
         ["--collective"]),
        ("-b above -e", ["--topology", "minsky-p100-ib-edr", "--gpus", "4", "-b", "2K", "-e", "1K"], ["--min-bytes"]),
        ("--element-bytes 100", ["--topology", "minsky-p100-ib-edr", "--gpus", "4", "--element-bytes", "100"],
         ["--element-bytes"]),
        ("--jobs 0", ["--topology", "minsky-p100-ib-edr", "--gpus", "4", "--jobs", "0"], ["--jobs"]),
        ("--engine fast", ["--topology", "minsky-p100-ib-edr", "--gpus", "4", "--engine", "fast"], ["--engine"]),
        ("--plot to a .txt", ["--topology", "minsky-p100-ib-edr", "--gpus", "4", "--plot", "{dir}/plot.txt"], ["--plot", ".png"]),
        # SimGrid's world: an actor per rank and an N x N routing table (the step engine's 128 ranks fit).
        ("65536 GPUs on SimGrid's engine: more memory than there is",
         ["--topology", "dgx-h100-ndr", "--gpus", "65536", "--algorithms", "ring", "--engine", "message"], ["--gpus", "needs about"]),
    ]],
    *[Case(f"ddlsim collective --algorithm auto: {name}",
           [SIM, "collective", "--algorithm", "auto", "--topology", "flat-h200-edr", "--out", "{out}", *flags], expect, files)
      for name, flags, expect, files in [
          ("no --tuning", ["--gpus", "4"], ["--tuning", "ddlsim tune"], None),
          ("a missing table", ["--gpus", "4", "--tuning", "{dir}/none.json"], ["--tuning"], None),
          ("a table for other GPUs", ["--gpus", "8", "--tuning", "{source}/" + TUNING], ["--tuning", "4 ranks"], None),
          ("options beside auto", ["--gpus", "4", "--tuning", "{source}/" + TUNING, "--dims", "2x2"], ["--dims", "auto"], None),
          ("a table whose best is not the fastest", ["--gpus", "4", "--tuning", "{dir}/t.json"], ["t.json: $.rows[0].best"],
           {"t.json": edited(TUNING, ("$.rows[0].best", "ring"))}),
          ("a table that is not JSON", ["--gpus", "4", "--tuning", "{dir}/t.json"], ["t.json", "JSON"], {"t.json": "{\"rows\": "}),
          ("a float32 table for 2-byte elements", ["--gpus", "4", "--tuning", "{source}/" + TUNING, "--element-bytes", "2"],
           ["--tuning", "flat-h200-4.json", "tuned for 4-byte elements, not 2"], None),
      ]],
    Case("ddlsim collective --algorithm auto: a table of another topology",
         [SIM, "collective", "--algorithm", "auto", "--topology", "minsky-p100-ib-edr", "--gpus", "4", "--tuning",
          "{source}/" + TUNING, "--out", "{out}"], ["--tuning", "flat-h200-edr"]),
    # Only the small size's choice, ring, is too large (2P(P-1) steps: about 86 GB); the largest's fits.
    Case("ddlsim collective --algorithm auto: a ring at the small size of a 16384-GPU table",
         [SIM, "collective", "--algorithm", "auto", "--tuning", "{dir}/t.json", "--topology", "dgx-h100-ndr", "--gpus", "16384",
          "-b", "4K", "-e", "1M", "-f", "256", "--out", "{out}"],
         ["--gpus", "simulating ring", "needs about"], {"t.json": json.dumps(RING_THEN_HALVING_DOUBLING_AT_16384)}),
    Case("ddlsim collective: --tuning without auto", [SIM, "collective", "--algorithm", "ring", "--gpus", "4", "--topology",
                                                      "flat-h200-edr", "--tuning", "{source}/" + TUNING, "--out", "{out}"],
         ["--tuning", "auto"]),
    Case("ddlrun bench --algorithm auto: a float32 table run as float16",
         [RUN, "bench", "--algorithm", "auto", "--tuning", "{dir}/t.json", "--transport", "threads", "--ranks", "4", "--type", "float16"],
         ["--tuning", "t.json", "tuned for 4-byte elements, not 2"], {"t.json": copied(TUNING)}),
    Case("ddlrun bench: a table for other ranks", [RUN, "bench", "--algorithm", "auto", "--tuning", "{source}/" + TUNING,
                                                   "--transport", "threads", "--ranks", "2"], ["--tuning", "4 ranks", "--ranks"]),

    # --- ddlsim schedule flags
    *[Case(f"ddlsim schedule: {name}", [SIM, "schedule", *flags], expect) for name, flags, expect in [
        ("--ranks 0", ["--algorithm", "ring", "--ranks", "0"], ["--ranks"]),
        ("--ranks 140000", ["--algorithm", "ring", "--ranks", "140000"], ["--ranks"]),
        ("--ranks 65536 in a ring: more memory than there is", ["--algorithm", "ring", "--ranks", "65536"], ["--ranks", "needs about"]),
        ("--bytes 1Q", ["--algorithm", "ring", "--ranks", "4", "--bytes", "1Q"], ["--bytes"]),
        ("--bytes 2^63-1", ["--algorithm", "ring", "--ranks", "4", "--bytes", "9223372036854775807", "--element-bytes", "1"], ["--bytes"]),
        ("--element-bytes 0", ["--algorithm", "ring", "--ranks", "4", "--element-bytes", "0"], ["--element-bytes"]),
        ("--latency-s nan", ["--algorithm", "ring", "--ranks", "4", "--latency-s", "nan"], ["--latency-s"]),
        ("--latency-s -1", ["--algorithm", "ring", "--ranks", "4", "--latency-s", "-1"], ["--latency-s"]),
        ("--bandwidth-Bps 0", ["--algorithm", "ring", "--ranks", "4", "--bandwidth-Bps", "0"], ["--bandwidth-Bps"]),
        ("--reduce-Bps inf", ["--algorithm", "ring", "--ranks", "4", "--reduce-Bps", "inf"], ["--reduce-Bps"]),
        ("--rank beyond the ranks", ["--algorithm", "ring", "--ranks", "4", "--rank", "9"], ["--rank"]),
        ("--levels that do not multiply", ["--from", "{source}/tests/fuzz/corpus/schedule_reader/ring-4.json", "--levels", "3x3"], ["--levels"]),
        ("--from with --algorithm", ["--from", "{source}/tests/fuzz/corpus/schedule_reader/ring-4.json", "--algorithm", "ring"], ["--algorithm"]),
        ("--out without --json", ["--algorithm", "ring", "--ranks", "4", "--out", "{out}"], ["--out"]),
        ("--msccl-xml of a reduce-scatter", ["--algorithm", "ring", "--collective", "reduce-scatter", "--ranks", "4",
                                             "--msccl-xml", "--out", "{out}"], ["--msccl-xml", "allreduce"]),
        ("--msccl-xml with --json", ["--algorithm", "ring", "--ranks", "4", "--msccl-xml", "--json", "--out", "{out}"],
         ["--msccl-xml", "--json"]),
        ("--msccl-xml with --rank", ["--algorithm", "ring", "--ranks", "4", "--msccl-xml", "--rank", "1", "--out", "{out}"],
         ["--rank"]),
        ("--msccl-xml of an empty buffer", ["--algorithm", "ring", "--ranks", "4", "--bytes", "0", "--msccl-xml",
                                            "--out", "{out}"], ["--msccl-xml", "empty"]),
        ("--msccl-xml of a buffer too small for its channels", ["--algorithm", "nccl-ring", "--ranks", "4", "--ranks-per-node", "2",
                                                               "--channels", "2", "--bytes", "16", "--msccl-xml", "--out", "{out}"],
         ["--bytes", "a step of no elements", "cnt=\"0\""]),
        ("dims that do not multiply", ["--algorithm", "ddl", "--ranks", "4", "--dims", "2x3"], ["--dims"]),
        ("--algorithm missing", ["--ranks", "4"], ["--algorithm"]),
        ("--out a directory", ["--algorithm", "ring", "--ranks", "4", "--json", "--out", "{dir}"], ["--out", "directory"]),
    ]],

    # --- ddlsim platform flags
    *[Case(f"ddlsim platform: {name}", [SIM, "platform", *flags, "--out", "{out}"], expect) for name, flags, expect in [
        ("--nodes 0", ["minsky-p100-ib-edr", "--nodes", "0"], ["--nodes"]),
        ("--nodes 1000000", ["minsky-p100-ib-edr", "--nodes", "1000000", "--xml"], ["--nodes"]),
        ("an XML file of one leaf of 16000 nodes", ["minsky-p100-ib-edr", "--nodes", "16000", "--nodes-per-leaf", "16000", "--xml"],
         ["--nodes", "16000 per leaf", "routes"]),
        ("an unknown topology", ["minksy-p100-ib-edr", "--nodes", "2"], ["topology", "did you mean 'minsky-p100-ib-edr'"]),
        ("--nics-per-node 99", ["minsky-p100-ib-edr", "--nics-per-node", "99"], ["--nics-per-node"]),
        ("--gpus-per-node 9", ["minsky-p100-ib-edr", "--gpus-per-node", "9"], ["--gpus-per-node"]),
        ("an unknown placement", ["minsky-p100-ib-edr", "--placement", "x"], ["--placement"]),
        ("more nodes than a NIC-less node allows", ["h200-ranks-sharing-one-gpu", "--nodes", "2"], ["$.node.nics"]),
    ]],

    # A control character has no form in XML 1.0, escaped or not: the topology reader refuses it before any export.
    Case("ddlsim platform: an XML file of a link named with a control character",
         [SIM, "platform", "{dir}/topology.json", "--xml", "--out", "{dir}/p.xml"],
         ["topology.json", "$.node.links[0].name", "holds a control character"],
         {"topology.json": edited(TOPOLOGY, ("$.node.links[0].name", "a\u0001b"))}),

    # --- ddlrun bench (one process; threads for several ranks)
    *[Case(f"ddlrun bench: {name}", [RUN, "bench", *flags], expect) for name, flags, expect in [
        ("a misspelt algorithm", ["--algorithm", "rnig"], ["--algorithm", "did you mean 'ring'"]),
        ("--algorithm missing", [], ["--algorithm"]),
        ("-b 0 in a sweep", ["--algorithm", "ring", "--transport", "threads", "--ranks", "2", "-b", "0", "-e", "1K"], ["--min-bytes"]),
        ("-e 1000G: more memory than there is", ["--algorithm", "ring", "-e", "1000G"], ["--max-bytes", "needs about"]),
        ("-e beyond 1 PiB", ["--algorithm", "ring", "-e", "2000000G"], ["--max-bytes"]),
        ("-f 1", ["--algorithm", "ring", "-f", "1"], ["--factor"]),
        ("-f nan", ["--algorithm", "ring", "-f", "nan"], ["--factor"]),
        ("-n 0", ["--algorithm", "ring", "-n", "0"], ["--iters"]),
        ("-w -1", ["--algorithm", "ring", "-w", "-1"], ["--warmup"]),
        ("-c -1", ["--algorithm", "ring", "-c", "-1"], ["--check"]),
        ("an unknown type", ["--algorithm", "ring", "--type", "float8"], ["--type"]),
        ("--timeout-s nan", ["--algorithm", "ring", "--timeout-s", "nan"], ["--timeout-s"]),
        ("--timeout-s 0", ["--algorithm", "ring", "--timeout-s", "0"], ["--timeout-s"]),
        ("--timeout-s -1", ["--algorithm", "ring", "--timeout-s", "-1"], ["--timeout-s"]),
        ("--timeout-s 1e9", ["--algorithm", "ring", "--timeout-s", "1e9"], ["--timeout-s"]),
        ("--piece-bytes 0", ["--algorithm", "ring", "--piece-bytes", "0"], ["--piece-bytes"]),
        ("1-byte pieces of 64 MiB", ["--algorithm", "ring", "--piece-bytes", "1", "-e", "64M"], ["--piece-bytes", "messages at once"]),
        ("an unknown transport", ["--algorithm", "ring", "--transport", "infiniband"], ["--transport"]),
        ("threads without --ranks", ["--algorithm", "ring", "--transport", "threads"], ["--ranks"]),
        ("--ranks 0", ["--algorithm", "ring", "--transport", "threads", "--ranks", "0"], ["--ranks"]),
        ("--ranks 5000", ["--algorithm", "ring", "--transport", "threads", "--ranks", "5000"], ["--ranks"]),
        ("--ranks under MPI", ["--algorithm", "ring", "--ranks", "2"], ["--ranks"]),
        ("the nccl baseline on MPI", ["--algorithm", "ring", "--baseline", "nccl"], ["--baseline"]),
        ("an unknown baseline", ["--algorithm", "ring", "--baseline", "gloo"], ["--baseline"]),
        ("--csv and --json", ["--algorithm", "ring", "--csv", "--json"], ["--csv"]),
        ("--out without a format", ["--algorithm", "ring", "--out", "{out}"], ["--out"]),
        ("--out a directory", ["--algorithm", "ring", "--json", "--out", "{dir}"], ["--out", "directory"]),
        ("--out in a missing directory", ["--algorithm", "ring", "--json", "--out", "{dir}/no/out.json"], ["--out"]),
        ("dims that do not fit the ranks", ["--algorithm", "ddl", "--dims", "3x3", "--transport", "threads", "--ranks", "2"], ["--dims"]),
        ("dims on ring", ["--algorithm", "ring", "--dims", "2", "--transport", "threads", "--ranks", "2"], ["--dims"]),
        ("--schedule and -e", ["--schedule", "{source}/tests/fuzz/corpus/schedule_reader/ring-4.json", "-e", "1M"],
         ["--max-bytes", "--schedule"]),
        ("--schedule for 4 ranks on 2", ["--schedule", "{source}/tests/fuzz/corpus/schedule_reader/ring-4.json",
                                         "--transport", "threads", "--ranks", "2"], ["--ranks", "schedule for 4"]),
        ("--schedule of float32 run as half", ["--schedule", "{source}/tests/fuzz/corpus/schedule_reader/ring-4.json",
                                               "--transport", "threads", "--ranks", "4", "-d", "half"], ["--type", "4-byte"]),
        ("nccl-tests' -o prod", ["--algorithm", "ring", "-o", "prod"], ["--op", "only -o sum"]),
        ("nccl-tests' -z 0", ["--algorithm", "ring", "-z", "0"], ["--blocking", "only -z 1"]),
        ("nccl-tests' -d int8", ["--algorithm", "ring", "-d", "int8"], ["--type"]),
        ("-g 2 under MPI", ["--algorithm", "ring", "-g", "2"], ["--gpus-per-process", "-g 1"]),
        ("-g and --ranks that disagree", ["--algorithm", "ring", "--transport", "threads", "--ranks", "2", "-g", "4"],
         ["--gpus-per-process", "disagrees"]),
        ("-g 0", ["--algorithm", "ring", "--transport", "threads", "-g", "0"], ["--gpus-per-process"]),
        ("nccl-tests' -a 4", ["--algorithm", "ring", "-a", "4"], ["--average"]),
        ("-u -1", ["--algorithm", "ring", "-u", "-1"], ["--unalign"]),
        ("-i 0", ["--algorithm", "ring", "-i", "0"], ["--step-bytes"]),
        ("-i and -f", ["--algorithm", "ring", "-i", "1K", "-f", "4"], ["--step-bytes", "-f"]),
        ("-N 0", ["--algorithm", "ring", "-N", "0"], ["--cycles"]),
        ("-N 2 with --json", ["--algorithm", "ring", "-N", "2", "--json"], ["--cycles", "table"]),
        ("nccl-tests' -G 1", ["--algorithm", "ring", "-G", "1"], ["-G", "CUDA graph"]),
        ("nccl-tests' -t 4", ["--algorithm", "ring", "-t", "4"], ["-t", "threads per process"]),
        ("all-gather too small for its ranks", ["--algorithm", "ring", "--collective", "all-gather", "--transport", "threads",
                                                "--ranks", "4", "-b", "8", "-e", "32"], ["--max-bytes", "16-byte block"]),
    ]],
    Case("ddlrun bench: a label that is not UTF-8", [RUN, "bench", "--algorithm", "ring", "--json", "--configuration", NOT_UTF8],
         ["--configuration", "UTF-8"]),
    Case("ddlrun bench: 2 GiB on 2 threads under a 4 GB ulimit -v",
         under_memory_limit(4000000, RUN, "bench", "--algorithm", "ring", "-b", "2G", "-e", "2G", "--transport", "threads", "--ranks", "2"),
         ["--max-bytes", "address space"]),
    Case("ddlrun bench: 1024 threads' stacks under a 4 GB ulimit -v",
         under_memory_limit(4000000, RUN, "bench", "--algorithm", "ring", "-e", "4K", "--transport", "threads", "--ranks", "1024"),
         ["address space"]),
    Case("ddlrun bench under mpirun: dims that do not fit", ["{mpirun}", "--allow-run-as-root", "--oversubscribe", "-np", "2", RUN,
                                                             "bench", "--algorithm", "ddl", "--dims", "3x3"], ["--dims"]),

    # --- ddlrun train
    *[Case(f"ddlrun train: {name}", [RUN, "train", "{source}/" + SCENARIO, *flags], expect) for name, flags, expect in [
        ("--compute-scale nan", ["--compute-scale", "nan"], ["--compute-scale"]),
        ("--compute-scale -1", ["--compute-scale", "-1"], ["--compute-scale"]),
        ("--compute-scale 1e9", ["--compute-scale", "1e9"], ["--compute-scale"]),
        ("-n 0", ["-n", "0"], ["--iters"]),
        ("-w -1", ["-w", "-1"], ["--warmup"]),
        ("--out a directory", ["--out", "{dir}"], ["--out", "directory"]),
        ("--timeout-s inf", ["--timeout-s", "inf"], ["--timeout-s"]),
        ("an unknown transport", ["--transport", "tcp"], ["--transport"]),
    ]],
    Case("ddlrun train: a scenario with a misspelt field", [RUN, "train", "{dir}/scenario.json"], ["scenario.json", "$.gpuss"],
         {"scenario.json": edited(SMALL_SCENARIO, ("$.gpus", RENAME, "gpuss"))}),
    Case("ddlrun train: a sharded scenario it cannot run", [RUN, "train", "{dir}/scenario.json", "--transport", "threads", "--ranks", "2"],
         ["scenario.json", "$.parallelism", "ddp only"],
         {"scenario.json": edited(dict(SMALL_SCENARIO, algorithms=[{"name": "ring"}]), ("$.parallelism", "zero3"))}),
    Case("ddlrun train: a scenario whose nccl chooses NVLS", [RUN, "train", "{dir}/scenario.json", "--transport", "threads",
                                                              "--ranks", "8"],
         ["scenario.json", "$.algorithms[0]", "NVLS", "no part for", '"nvls": false'],
         {"scenario.json": json.dumps(dict(SMALL_SCENARIO, topology="dgx-h100-ndr", gpu="H200", placement="packed", gpus=[8],
                                           algorithms=[{"name": "nccl"}]))}),
    Case("ddlrun train: auto without a table for the job's ranks",
         [RUN, "train", "{source}/scenarios/powerai-ddl-resnet50-tuned.json", "--transport", "threads", "--ranks", "3"],
         ["powerai-ddl-resnet50-tuned.json", "$.algorithms[0].tuning", "allreduce-3.json"]),
    Case("ddlrun train: dims that do not fit the ranks", [RUN, "train", "{dir}/scenario.json", "--transport", "threads", "--ranks", "2"],
         ["scenario.json", "$.algorithms[1].dims"], {"scenario.json": edited(SMALL_SCENARIO)}),
    Case("ddlrun train: a label that is not UTF-8", [RUN, "train", "{source}/" + SCENARIO, "--json", "--configuration", NOT_UTF8],
         ["--configuration", "UTF-8"]),
    Case("ddlrun: no subcommand", [RUN], ["subcommand"]),

    # --- ddlcompare
    results_case("a configuration that is a number", ["$.configuration", "string"], SWEEP, ("$.configuration", 5)),
    results_case("a point's configuration that is a number", ["$.points[0].configuration"], POINTS, ("$.points[0].configuration", 5)),
    results_case("a time of 0", ["$.rows[0].time_s"], SWEEP, ("$.rows[0].time_s", 0)),
    results_case("a negative time", ["$.rows[0].time_s"], SWEEP, ("$.rows[0].time_s", -1)),
    results_case("a time of 1e300", ["$.rows[0].time_s"], SWEEP, ("$.rows[0].time_s", 1e300)),
    results_case("a time as text", ["$.rows[0].time_s", "number"], SWEEP, ("$.rows[0].time_s", "1 ms")),
    results_case("bytes negative", ["$.rows[0].bytes"], SWEEP, ("$.rows[0].bytes", -1)),
    results_case("ranks 0", ["$.ranks"], SWEEP, ("$.ranks", 0)),
    results_case("gpus 0", ["$.points[0].gpus"], POINTS, ("$.points[0].gpus", 0)),
    results_case("a misspelt field", ["$.rows[0].time", "did you mean 'time_s'"], SWEEP, ("$.rows[0].time_s", RENAME, "time")),
    results_case("an unknown point field", ["$.points[0].speedup", "unknown field"], POINTS, ("$.points[0].speedup", 2)),
    results_case("the same row twice", ["$.rows[1]", "the same point"], SWEEP, ("$.rows[1].bytes", 1024)),
    results_case("rows not an array", ["$.rows", "array"], SWEEP, ("$.rows", {})),
    results_case("no rows, points or results", ["expected"], SWEEP, ("$.rows", RENAME, "data")),
    results_case("a row that is not an object", ["$.rows[0]", "object"], SWEEP, ("$.rows[0]", 5)),
    results_case("a negative count of wrong elements", ["$.rows[0].wrong"], SWEEP, ("$.rows[0].wrong", -1)),
    results_case("a measurement whose result was wrong", ["$.rows[0].wrong", "wrong"], SWEEP, ("$.rows[0].wrong", 5)),
    results_case("a negative count", ["$.rows[0].count"], SWEEP, ("$.rows[0].count", -1)),
    results_case("a baseline that is a number", ["$.rows[0].baseline"], SWEEP, ("$.rows[0].baseline", 3)),
    results_case("a NaN-free but infinite bandwidth", ["$.rows[0].algbw_Bps"], SWEEP, ("$.rows[0].algbw_Bps", 1e300)),
    results_case("a point's collectives not an array", ["$.points[0].collectives"], POINTS, ("$.points[0].collectives", 1)),
    Case("ddlcompare: a field given twice, with its path", ["{python}", COMPARE, "{dir}/predicted.json", "{dir}/measured.json"],
         ["measured.json", "$.rows[0].time_s", "twice"],
         {"predicted.json": json.dumps(SWEEP),
          "measured.json": json.dumps(SWEEP).replace('"time_s": 0.001', '"time_s": 0.001, "time_s": 0.002')}),
    Case("ddlcompare: a named pipe as input", ["{python}", COMPARE, "{dir}/predicted.json", "{dir}/pipe"], ["pipe", "regular file"],
         {"predicted.json": json.dumps(SWEEP), "pipe": FIFO}),
    Case("ddlcompare: no point matches", ["{python}", COMPARE, "{dir}/predicted.json", "{dir}/measured.json"], ["measured.json", "no point matches"],
         {"predicted.json": json.dumps(SWEEP), "measured.json": edited(SWEEP, ("$.algorithm", "ddl 2x2"))}),
    *[Case(f"ddlcompare: {name}", ["{python}", COMPARE, "{dir}/results.json", "{dir}/results.json", *flags], expect,
           {"results.json": json.dumps(SWEEP)}) for name, flags, expect in [
        ("--max-error nan", ["--max-error", "nan"], ["--max-error"]),
        ("--max-error -1", ["--max-error", "-1"], ["--max-error"]),
        ("--max-error as text", ["--max-error", "ten"], ["--max-error"]),
        ("--plot a directory", ["--plot", "{dir}"], ["--plot"]),
        ("--plot without an image extension", ["--plot", "{dir}/plot"], ["--plot"]),
        ("--plot in a missing directory", ["--plot", "{dir}/no/plot.png"], ["--plot", "no directory"]),
    ]],
    Case("ddlcompare: one file only", ["{python}", COMPARE, "{dir}/results.json"], ["measured"], {"results.json": json.dumps(SWEEP)}),

    # --- the scripts
    *[Case(f"tune_on_emulated_cluster: {name}", ["{source}/analysis/tune_on_emulated_cluster", *flags, "--out", "{dir}/results"], expect)
      for name, flags, expect in [
          ("an unknown option", ["--nodez", "2"], ["--nodez"]),
          ("one node", ["--nodes", "1"], ["--nodes"]),
          ("-n 0", ["-n", "0"], ["-n"]),
          ("a rate without a unit", ["--rate", "100"], ["--rate"]),
          ("--within as text", ["--within", "five"], ["--within"]),
          ("an unknown protocol", ["--protocol", "lazy"], ["--protocol"]),
          ("-b above -e", ["-b", "2M", "-e", "1M"], ["--min-bytes"]),
      ]],
    *[Case(f"tune_this_machine: {name}", ["{source}/analysis/tune_this_machine", *flags, "--out", "{dir}/results"], expect)
      for name, flags, expect in [
          ("an unknown option", ["--rank", "2"], ["--rank"]),
          ("one rank", ["--ranks", "1"], ["--ranks"]),
          ("a rank count that is no number", ["--ranks", "two"], ["--ranks"]),
          ("--jobs 0", ["--jobs", "0"], ["--jobs"]),
          ("-b above -e", ["-b", "2M", "-e", "1M"], ["--min-bytes"]),
          ("a size that is no size", ["-e", "lots"], ["--max-bytes"]),
      ]],
    Case("tuning_check: a table that is no tuning table", ["{python}", "{source}/analysis/tuning_check", "flags", "{dir}/t.json"],
         ["t.json", "tuning table"], {"t.json": json.dumps(SWEEP)}),
    Case("tuning_check: a measurement missing", ["{python}", "{source}/analysis/tuning_check", "check", "{source}/" + TUNING, "{dir}"],
         ["measured-000.json"]),
    *[Case(f"compare_on_emulated_cluster: {name}", ["{source}/analysis/compare_on_emulated_cluster", *flags, "--out", "{dir}/results"], expect)
      for name, flags, expect in [
          ("an unknown option", ["--nodez", "2"], ["--nodez"]),
          ("a node count that is no number", ["--nodes", "two"], ["--nodes"]),
          ("one node", ["--nodes", "1"], ["--nodes"]),
          ("0 ranks per node", ["--ranks-per-node", "0"], ["--ranks-per-node"]),
          ("an unknown algorithm", ["--algorithms", "ring rnig"], ["--algorithms", "rnig"]),
          ("-n 0", ["-n", "0"], ["-n"]),
          ("a rate without a unit", ["--rate", "100"], ["--rate"]),
          ("a negative latency", ["--latency-ms", "-1"], ["--latency-ms"]),
          ("an unknown protocol", ["--protocol", "fast"], ["--protocol"]),
          ("--max-error nan", ["--max-error", "nan"], ["--max-error"]),
          ("-b 0", ["-b", "0"], ["-b"]),
          ("a missing value", ["--nodes"], ["--nodes"]),
      ]],
    *[Case(f"train_on_emulated_cluster: {name}", ["{source}/analysis/train_on_emulated_cluster", *flags, "--out", "{dir}/results"],
           expect)
      for name, flags, expect in [
          ("an unknown option", ["--node", "2"], ["--node"]),
          ("0 nodes", ["--nodes", "0"], ["--nodes"]),
          ("an unknown algorithm", ["--algorithms", "ring rnig"], ["--algorithms", "rnig"]),
          ("an unknown transport", ["--transport", "udp"], ["--transport", "udp"]),
          ("-w 0", ["-w", "0"], ["-w"]),
          ("no jobs per point", ["--jobs", "0"], ["--jobs"]),
          ("a parallelism it does not train", ["--parallelism", "ddp zero3"], ["--parallelism", "zero3"]),
          ("a sequence of no tokens", ["--model", "gpt-mini", "--sequence-length", "0"], ["--sequence-length"]),
          ("a model that is neither torchvision's nor a GPT", ["--model", "gpt-huge"], ["--model", "gpt-huge"]),
          ("a missing value", ["--transport"], ["--transport"]),
      ]],
    *[Case(f"validate_calibration: {name}", ["{source}/analysis/validate_calibration", *flags, "--out", "{dir}/results"], expect)
      for name, flags, expect in [
          ("an unknown option", ["--node", "2"], ["--node"]),
          ("an unknown model", ["--models", "resnet50 resnet05"], ["--models", "resnet05"]),
          ("an unknown algorithm", ["--algorithms", "ring rnig"], ["--algorithms", "rnig"]),
          ("-n 1: no jitter to fit", ["-n", "1"], ["-n"]),
          ("an unknown gradient type", ["--gradients", "fp8"], ["--gradients"]),
          ("an unknown host compute", ["--host-compute", "spin"], ["--host-compute"]),
          ("a rate without a unit", ["--rate", "100"], ["--rate"]),
          ("a missing value", ["--models"], ["--models"]),
          ("--calibrate-only with nothing measured", ["--calibrate-only"], ["--calibrate-only", "measure first"]),
      ]],
    *[Case(f"bench_simulator: {name}", ["{python}", "{source}/analysis/bench_simulator", *flags, "--out", "{dir}/results"], expect)
      for name, flags, expect in [
          ("an unknown option", ["--rank", "4"], ["--rank"]),
          ("a rank count of one", ["--ranks", "1"], ["--ranks"]),
          ("a rank count that is no number", ["--ranks", "four"], ["--ranks"]),
          ("no rank count", ["--ranks", ""], ["--ranks"]),
          ("a size without whole elements", ["--bytes", "10"], ["--bytes"]),
          ("a size that is no size", ["--bytes", "100Q"], ["--bytes"]),
          ("an unknown topology", ["--ranks", "4", "--topology", "nowhere"], ["nowhere"]),
          ("an unknown algorithm", ["--ranks", "4", "--algorithm", "rnig"], ["rnig"]),
          ("an SMPI algorithm that is no name", ["--smpi-algorithm", "lr;rm"], ["--smpi-algorithm"]),
          ("an unknown engine", ["--engines", "message fluid"], ["--engines"]),
          ("an engine twice", ["--engines", "step step"], ["--engines"]),
      ]],
    *[Case(f"cluster: {name}", ["{source}/runtime/emulated_cluster/cluster", *flags], expect)
      for name, flags, expect in [
          ("up with one node", ["up", "--nodes", "1"], ["--nodes"]),
          ("up with a rate without a unit", ["up", "--nodes", "2", "--rate", "100"], ["--rate"]),
          ("up with an MTU of 10", ["up", "--nodes", "2", "--mtu", "10"], ["--mtu"]),
          ("up with an unknown option", ["up", "--nodes", "2", "--speed", "1"], ["--speed"]),
          ("an unknown command", ["launch"], ["usage"]),
      ]],
    Case("fuzz: an unknown harness", ["{source}/scripts/fuzz", "json_reader", "10"], ["json_reader", "schedule_reader"]),
    Case("fuzz: seconds that are no number", ["{source}/scripts/fuzz", "all", "soon"], ["SECONDS"]),
    Case("install-dependencies: an unknown table", ["{source}/scripts/install-dependencies", "--list", "fonts"], ["--list"]),
    Case("validate-gpu: an unknown option", ["{source}/scripts/validate-gpu", "--cpu"], ["--cpu"]),
    Case("validate-gpu: no folder for the results", ["{source}/scripts/validate-gpu", "--cpu-rehearsal"], ["--out"]),
    Case("build: an unknown flavour", ["{source}/scripts/build", "debug"], ["debug"]),

    # --- deliverable 3's rules, each command held to each (rules.py lists which case holds which)
    # Several inputs describe one experiment.
    Case("ddlsim: --sweep-values of another sweep", [SIM, "{dir}/scenario.json", "--sweep-values", "{dir}/share.json", "--json",
                                                     "--out", "{out}"], ["--sweep-values", "share.json", "another sweep"],
         {"scenario.json": edited(SMALL_SCENARIO), "share.json": '{"simulations": 8, "sweep": "another; engine step", "values": []}'}),
    Case("ddlsim collective --algorithm auto: a table of allreduce for a reduce-scatter",
         [SIM, "collective", "--algorithm", "auto", "--collective", "reduce-scatter", "--topology", "flat-h200-edr", "--gpus", "4",
          "--tuning", "{source}/" + TUNING, "--out", "{out}"], ["--tuning", "allreduce", "reduce-scatter"]),
    Case("ddlsim calibrate network: a sweep of more ranks per host than a node has",
         [SIM, "calibrate", "network", "minsky-p100-ib-edr", "{dir}/sweep.json", "--level", "network", "--out", "{out}"],
         ["sweep.json", "$.ranks_per_host", "8 ranks per node, but a node of minsky-p100-ib-edr has 4 GPUs"],
         {"sweep.json": edited(SWEEP_OF_8, ("$.ranks_per_host", 8), ("$.hosts", 1))}),
    Case("ddlsim calibrate network: a sweep whose hosts its ranks do not fill",
         [SIM, "calibrate", "network", "minsky-p100-ib-edr", "{dir}/sweep.json", "--level", "network", "--out", "{out}"],
         ["sweep.json", "$.hosts", "8 ranks fill 2 nodes"], {"sweep.json": edited(SWEEP_OF_8, ("$.hosts", 3))}),
    # The one part named twice, the second time by another path.
    Case("merge_results: one part given twice", ["{python}", "{source}/analysis/merge_results", "{dir}/a.json", "./a.json",
                                                 "--out", "{dir}/m.json"], ["./a.json", "the same file as", "given twice"],
         {"a.json": json.dumps(SWEEP)}),
    # PowerAI's published ResNet-50 on P100 points over ResNet-18 on CPU ranks over TCP.
    Case("plot_scaling: a --scenario of another experiment",
         ["{python}", "{source}/analysis/plot_scaling", "{source}/" + RESULTS_OF_RESNET18, "--scenario", "{source}/" + SCENARIO,
          "--out", "{dir}/x.png"], ["--scenario", "model 'resnet50'", "resnet18-160px", "another experiment's"]),
    Case("ddlrun bench --algorithm auto: a table of allreduce for an all-gather",
         [RUN, "bench", "--algorithm", "auto", "--collective", "all-gather", "--tuning", "{source}/" + TUNING, "--transport", "threads",
          "--ranks", "4"], ["--tuning", "allreduce", "all-gather"]),
    Case("ddlrun bench --algorithm nccl without the topology its model needs",
         [RUN, "bench", "--algorithm", "nccl", "--transport", "threads", "--ranks", "8"], ["--topology", "--algorithm nccl"]),
    Case("ddlrun bench --algorithm nccl: ranks that leave a node part full",
         [RUN, "bench", "--algorithm", "nccl", "--topology", "dgx-h100-ndr", "--transport", "threads", "--ranks", "12"],
         ["--ranks", "part full"]),
    Case("ddlrun bench: --topology without --algorithm nccl",
         [RUN, "bench", "--algorithm", "ring", "--topology", "dgx-h100-ndr", "--transport", "threads", "--ranks", "4"],
         ["--topology", "only with --algorithm nccl"]),
    Case("ddlrun train: auto with a table of another topology", [RUN, "train", "{dir}/scenario.json", "--transport", "threads", "--ranks", "4"],
         ["scenario.json", "$.algorithms[0].tuning", "t-4.json", "flat-h200-edr"],
         {"scenario.json": edited(SMALL_SCENARIO, ("$.algorithms", [{"name": "auto", "tuning": "t-{gpus}.json"}])), "t-4.json": edited(TUNING)}),
    Case("ddlcompare: two joined points of different element types", ["{python}", COMPARE, "{dir}/predicted.json", "{dir}/measured.json"],
         ["measured.json", "predicted.json", "element_bytes 4 against 8"],
         {"predicted.json": json.dumps(SWEEP), "measured.json": edited(SWEEP, ("$.type", "float64"))}),
    Case("validate: a measured set predicted from another experiment's scenario",
         ["{python}", "{source}/analysis/validate", "--corpus", "{dir}/corpus.json", "--set", "2026-12-03-pytorch-resnet18-tcp",
          "--samples", "2"], ["measured.json", "is not the run", "precision fp16 against fp32"],
         {"corpus.json": corpus_predicting("2026-12-03-pytorch-resnet18-tcp", "2026-12-01-calibrated-100mbit")}),
    *[Case(f"tuning_check: {name}", ["{python}", "{source}/analysis/tuning_check", "check", "{source}/" + TUNING, "{dir}/measured"],
           expect, measured_for_tuning(**changes))
      for name, changes, expect in [
          ("a candidate measured on other ranks than the table's", {"003": [("$.ranks", 8)]},
           ["measured-003.json", "$.ranks", "8", "a table for 4"]),
          ("a candidate measured for another collective", {"000": [("$.collective", "reduce-scatter")]},
           ["measured-000.json", "$.collective", "reduce-scatter", "a table for 'allreduce'"]),
          ("a candidate measured of another algorithm", {"000": [("$.algorithm", "halving-doubling")]},
           ["measured-000.json", "$.algorithm", "'halving-doubling'", "candidate 0", "'ring'"]),
          ("the auto run on other ranks than the table's", {"auto": [("$.ranks", 2)]},
           ["measured-auto.json", "$.ranks", "a table for 4"]),
          # The disagreement is at the last size: every size before it has been checked, and nothing printed.
          ("the auto run choosing otherwise at the last size", {"auto": [("$.rows[2].chosen", "ring")]},
           ["measured-auto.json", "at 1048576 bytes auto chose ring"]),
      ]],
    # Every rank under mpirun must run the one experiment: the ranks compare their command lines first.
    Case("ddlrun bench under mpirun: ranks started with different command lines",
         ["{mpirun}", "--allow-run-as-root", "--oversubscribe", "-np", "1", RUN, "bench", "--algorithm", "ring", "-b", "1K", "-e", "1K",
          ":", "-np", "1", RUN, "bench", "--algorithm", "ring", "-b", "4K", "-e", "4K"],
         ["the ranks were started with different command lines", "-b 1K -e 1K", "-b 4K -e 4K"]),
    Case("ddlrun train under mpirun: ranks started with different command lines",
         ["{mpirun}", "--allow-run-as-root", "--oversubscribe",
          "-np", "1", RUN, "train", "{dir}/s1.json", "--compute-scale", "0.01", "-n", "1", "-w", "0",
          ":", "-np", "1", RUN, "train", "{dir}/s2.json", "--compute-scale", "0.01", "-n", "1", "-w", "0"],
         ["the ranks were started with different command lines", "s1.json", "s2.json"],
         {"s1.json": edited(SMALL_SCENARIO, ("$.gpus", [1, 2]), ("$.algorithms", [{"name": "ring"}])),
          "s2.json": edited(SMALL_SCENARIO, ("$.gpus", [1, 2]), ("$.algorithms", [{"name": "ring"}]), ("$.batch_per_gpu", 64))}),
    Case("ddlsim under mpirun: ranks started with different scenario files",
         ["{mpirun}", "--allow-run-as-root", "--oversubscribe", "-np", "1", SIM, "{dir}/s1.json", "--json", "--out", "{out}",
          ":", "-np", "1", SIM, "{dir}/s2.json", "--json", "--out", "{out}"],
         ["the ranks were started with different command lines", "s1.json", "s2.json"],
         {"s1.json": edited(SMALL_SCENARIO), "s2.json": edited(SMALL_SCENARIO, ("$.gpus", [1, 2]), ("$.algorithms", [{"name": "ring"}]))}),
    Case("ddlsim under mpirun: ranks started with different --gpus",
         ["{mpirun}", "--allow-run-as-root", "--oversubscribe", "-np", "1", SIM, "{dir}/s.json", "--gpus", "1", "--json", "--out", "{out}",
          ":", "-np", "1", SIM, "{dir}/s.json", "--gpus", "4", "--json", "--out", "{out}"],
         ["the ranks were started with different command lines", "--gpus 1", "--gpus 4"], {"s.json": edited(SMALL_SCENARIO)}),

    # What outgrows the machine is refused with the estimate, before anything is allocated or started.
    Case("ddlsim: a sweep point larger than this machine", [SIM, "{dir}/scenario.json", "--out", "{out}"],
         ["scenario.json", "$.gpus[2]", "simulating ring on 1024 GPUs needs about", "200.0 MB available"],
         # Jitter drawn per rank: every rank is simulated, none standing for others (sim/step/step_iteration.hpp).
         {"scenario.json": edited(SMALL_SCENARIO, ("$.gpus", [1, 4, 1024]), ("$.algorithms", [{"name": "ring"}]),
                                  ("$.effects", {"compute_jitter": 0.02}))}, SMALL_MACHINE),
    Case("ddlsim: a file larger than this machine can parse", [SIM, "{dir}/scenario.json", "--out", "{out}"],
         ["scenario.json", "parsing this file needs about", "1.0 kB available"], {"scenario.json": edited(SMALL_SCENARIO)},
         {"DDLSCALE_MEMORY_BYTES": "1000"}),
    Case("ddlrun train: a model larger than this machine", [RUN, "train", "{source}/" + SCENARIO, "--transport", "threads", "--ranks", "4"],
         ["powerai-ddl-resnet50.json", "training resnet50 on 4 rank(s) of this machine needs about", "200.0 MB available"],
         None, SMALL_MACHINE),
    Case("ddlrun train under mpirun: two ranks' model larger than this machine",
         ["{mpirun}", "--allow-run-as-root", "--oversubscribe", "-np", "2", RUN, "train", "{source}/" + SCENARIO],
         ["training resnet50 on 2 rank(s) of this machine needs about", "200.0 MB available"], None, SMALL_MACHINE),
    Case("ddlrun bench under mpirun: two ranks' buffers larger than this machine",
         ["{mpirun}", "--allow-run-as-root", "--oversubscribe", "-np", "2", RUN, "bench", "--algorithm", "ring", "-e", "64M"],
         ["--max-bytes", "on 2 rank(s) of this machine needs about", "200.0 MB available"], None, SMALL_MACHINE),
    # The sweep's ranks are what calibrate network simulates at each measured size: estimated before the fit starts.
    Case("ddlsim calibrate network: a 256-rank ring larger than this machine",
         [SIM, "calibrate", "network", "dgx-h100-ndr", "{dir}/sweep.json", "--level", "network", "--out", "{out}"],
         ["sweep.json", "$.ranks", "simulating ring of 1024 bytes on 256 ranks needs about", "20.0 MB available"],
         {"sweep.json": ring_sweep_of(256, 32, 8)}, {"DDLSCALE_MEMORY_BYTES": "20000000"}),
    Case("bench_simulator: 65536 ranks: more memory than there is",
         ["{python}", "{source}/analysis/bench_simulator", "--ranks", "65536", "--out", "{dir}/results"],
         ["simulating ring on 65536 GPUs needs about"]),
    # Each of the ranks a script puts on this machine at once holds its buffers: one rank's 12.6 MB fits in
    # 200 MB, eight ranks' do not (tune_this_machine once counted one, passed, and failed inside mpirun).
    Case("tune_this_machine: more ranks than this machine holds buffers for",
         ["{source}/analysis/tune_this_machine", "--ranks", "64", "-e", "4M", "--out", "{dir}/results"],
         ["--max-bytes", "needs about 12.6 MB", "each of the 64 ranks"], None, SMALL_MACHINE),
    Case("tune_this_machine: a buffer larger than this machine",
         ["{source}/analysis/tune_this_machine", "--ranks", "2", "-e", "256M", "--out", "{dir}/results"],
         ["--max-bytes", "needs about", "ranks this machine would hold"], None, SMALL_MACHINE),
    Case("compare_on_emulated_cluster: a buffer larger than this machine",
         ["{source}/analysis/compare_on_emulated_cluster", "-e", "256M", "--out", "{dir}/results"],
         ["--max-bytes", "needs about", "ranks this machine would hold"], None, SMALL_MACHINE),
    Case("tune_on_emulated_cluster: a buffer larger than this machine",
         ["{source}/analysis/tune_on_emulated_cluster", "-e", "256M", "--out", "{dir}/results"],
         ["--max-bytes", "needs about", "ranks this machine would hold"], None, SMALL_MACHINE),
    # The PyTorch programs estimate a floor before they make a batch (ddlscale_torch.memory): what backward
    # keeps of a real batch, worked out on torch's meta device, and the parameters' copies. A refusal is certain.
    Case("ddlscale_torch.profile: a batch larger than this machine",
         [*TORCH, "ddlscale_torch.profile", "--batch", "100000", "-n", "1", "-w", "0", "--out", "{out}"],
         ["--batch 100000", "profiling resnet18 on 1 process(es) here", "needs about", "200.0 MB available"], None, SMALL_MACHINE),
    Case("ddlscale_torch.profile: --corun copies larger than this machine",
         [*TORCH, "ddlscale_torch.profile", "--corun", "64", "--out", "{out}"], ["64 process(es) here", "200.0 MB available"], None, SMALL_MACHINE),
    Case("ddlscale_torch.profile: a batch larger than ulimit -v lets it map",
         under_memory_limit(4000000, *TORCH, "ddlscale_torch.profile", "--batch", "3000", "--image-size", "64", "--out", "{out}"),
         ["--batch 3000", "of address space", "(ulimit -v)"]),
    Case("ddlscale_torch.train: a batch larger than this machine", [*TORCH, "ddlscale_torch.train", "--batch", "100000"],
         ["--batch 100000", "training resnet18 on 1 process(es) here", "200.0 MB available"], None, SMALL_MACHINE),
    Case("ddlscale_torch.train: torchrun's ranks here larger than this machine", [*TORCH, "ddlscale_torch.train", "--model", "resnet50"],
         ["training resnet50 on 16 process(es) here", "needs about"], None, {"LOCAL_WORLD_SIZE": "16", **SMALL_MACHINE}),
    # A script that puts ranks on this machine asks each program's estimate first, for that many ranks.
    Case("train_on_emulated_cluster: --corun copies larger than this machine",
         ["{source}/analysis/train_on_emulated_cluster", "--nodes", "1 2 4 8", "--out", "{dir}/results"],
         ["--batch 16", "profiling resnet18 on 8 process(es) here", "200.0 MB available"], None, SMALL_MACHINE),
    Case("train_on_emulated_cluster: more ranks than this machine holds models for",
         ["{source}/analysis/train_on_emulated_cluster", "--nodes", "1 2", "--out", "{dir}/results"],
         ["training resnet18 on 1 process(es) here", "each of the 2 ranks"], None, {"DDLSCALE_MEMORY_BYTES": "700000000"}),
    Case("validate_calibration: eight ranks' models larger than this machine",
         ["{source}/analysis/validate_calibration", "--out", "{dir}/results"],
         ["scenario-resnet50.json", "training resnet50 on 1 rank(s)", "each of the 8 ranks"], None, SMALL_MACHINE),
    Case("measure_job_speed: a batch larger than this machine",
         ["{python}", "{source}/analysis/measure_job_speed", "--name", "here", "--batch", "100000", "--out", "{out}",
          "--build", "{pytorch}/../.."], ["--batch 100000", "available"]),
    Case("measure_job_speed: --jobs 2", ["{python}", "{source}/analysis/measure_job_speed", "--name", "here", "--jobs", "2",
                                         "--out", "{out}"], ["--jobs", "between 3 and 1000"]),
    Case("measure_job_speed: --out a directory", ["{python}", "{source}/analysis/measure_job_speed", "--name", "here",
                                                  "--out", "{dir}"], ["--out", "is a directory"]),
    Case("measure_job_speed: --name a path", ["{python}", "{source}/analysis/measure_job_speed", "--name", "../here",
                                              "--out", "{out}"], ["--name", "not a plain file name"]),
    Case("validate: --samples beyond ddlsim's", ["{python}", "{source}/analysis/validate", "--samples", "1000000"], ["--samples", "100000"]),

    # No two outputs of one command are one file.
    Case("ddlsim: --trace onto its --out", [SIM, "{dir}/scenario.json", "--json", "--out", "{dir}/t.json", "--trace", "{dir}/t.json"],
         ["--trace", "--out", "a file of its own"], {"scenario.json": edited(SMALL_SCENARIO)}),
    Case("ddlsim: --share-out onto its --out", [SIM, "{dir}/scenario.json", "--share", "0/2", "--share-out", "{dir}/t.json",
                                                "--out", "{dir}/t.json"], ["--share-out", "--out", "a file of its own"],
         {"scenario.json": edited(SMALL_SCENARIO)}),

    # No output is one of the command's inputs: each would be written over (the message names the path given).
    *[Case(name, command, [flag, path.split("/")[-1], "an input of this command"], files)
      for name, flag, path, command, files in [
          ("ddlsim: --out onto its scenario", "--out", "{dir}/s.json",
           [SIM, "{dir}/s.json", "--json", "--out", "{dir}/s.json"], {"s.json": edited(SMALL_SCENARIO)}),
          ("ddlsim: --trace onto its scenario", "--trace", "{dir}/s.json",
           [SIM, "{dir}/s.json", "--trace", "{dir}/s.json", "--out", "{out}"], {"s.json": edited(SMALL_SCENARIO)}),
          ("ddlsim: --plot onto its scenario, a file named s.png", "--plot", "{dir}/s.png",
           [SIM, "{dir}/s.png", "--plot", "{dir}/s.png", "--out", "{out}"], {"s.png": edited(SMALL_SCENARIO)}),
          ("ddlsim: --share-out onto its scenario", "--share-out", "{dir}/s.json",
           [SIM, "{dir}/s.json", "--share", "0/2", "--share-out", "{dir}/s.json"], {"s.json": edited(SMALL_SCENARIO)}),
          ("ddlsim: --out onto a share of --sweep-values", "--out", "{dir}/s0.json",
           [SIM, "{dir}/s.json", "--sweep-values", "{dir}/s0.json", "{dir}/s1.json", "--json", "--out", "{dir}/s0.json"],
           {"s.json": edited(SMALL_SCENARIO), "s0.json": '{"simulations": 8, "sweep": "small; engine step", "values": []}',
            "s1.json": '{"simulations": 8, "sweep": "small; engine step", "values": []}'}),
          ("ddlsim collective: --out onto its --tuning", "--out", "{dir}/t.json",
           [SIM, "collective", "--algorithm", "auto", "--topology", "flat-h200-edr", "--gpus", "4", "--tuning", "{dir}/t.json",
            "--json", "--out", "{dir}/t.json"], {"t.json": copied(TUNING)}),
          ("ddlsim collective: --out onto its --schedule", "--out", "{dir}/s.json",
           [SIM, "collective", "--schedule", "{dir}/s.json", "--topology", "flat-h200-edr", "--json", "--out", "{dir}/s.json"],
           {"s.json": copied("tests/fuzz/corpus/schedule_reader/ring-4.json")}),
          ("ddlsim collective: --out onto its --topology", "--out", "{dir}/topo.json",
           [SIM, "collective", "--algorithm", "ring", "--gpus", "4", "--topology", "{dir}/topo.json", "--json", "--out",
            "{dir}/topo.json"], {"topo.json": copied(TOPOLOGY)}),
          ("ddlsim tune: --out onto its --topology", "--out", "{dir}/topo.json",
           [SIM, "tune", "--topology", "{dir}/topo.json", "--gpus", "4", "--json", "--out", "{dir}/topo.json"],
           {"topo.json": copied(TOPOLOGY)}),
          ("ddlsim platform: --out onto its topology", "--out", "{dir}/topo.json",
           [SIM, "platform", "{dir}/topo.json", "--xml", "--out", "{dir}/topo.json"], {"topo.json": copied(TOPOLOGY)}),
          ("ddlsim schedule: --out onto its --from", "--out", "{dir}/s.json",
           [SIM, "schedule", "--from", "{dir}/s.json", "--json", "--out", "{dir}/s.json"], {"s.json": edited(SCHEDULE)}),
          ("ddlsim schedule: --msccl-xml --out onto its --from", "--out", "{dir}/s.json",
           [SIM, "schedule", "--from", "{dir}/s.json", "--msccl-xml", "--out", "{dir}/s.json"], {"s.json": edited(SCHEDULE)}),
          ("ddlsim calibrate network: --out onto its sweep", "--out", "{dir}/sweep.json",
           [SIM, "calibrate", "network", "minsky-p100-ib-edr", "{dir}/sweep.json", "--level", "network", "--out", "{dir}/sweep.json"],
           {"sweep.json": edited(SWEEP_OF_8)}),
          ("ddlsim calibrate network: --out onto its topology", "--out", "{dir}/topo.json",
           [SIM, "calibrate", "network", "{dir}/topo.json", "{dir}/sweep.json", "--level", "network", "--out", "{dir}/topo.json"],
           {"topo.json": copied(TOPOLOGY), "sweep.json": edited(SWEEP_OF_8)}),
          ("ddlsim calibrate effects: --out onto its scenario", "--out", "{dir}/s.json",
           [SIM, "calibrate", "effects", "{dir}/s.json", "{dir}/m.json", "--out", "{dir}/s.json"],
           {"s.json": copied(SCENARIO), "m.json": copied(MEASURED_TRAINING)}),
          ("ddlsim calibrate effects: --out onto its measurements", "--out", "{dir}/m.json",
           [SIM, "calibrate", "effects", "{dir}/s.json", "{dir}/m.json", "--out", "{dir}/m.json"],
           {"s.json": copied(SCENARIO), "m.json": copied(MEASURED_TRAINING)}),
          ("ddlsim model import: --out onto its profile", "--out", "{dir}/p.json",
           [SIM, "model", "import", "{dir}/p.json", "--gpu", "cpu-rank", "--out", "{dir}/p.json"], {"p.json": copied(PROFILE)}),
          ("ddlrun bench: --out onto its --tuning", "--out", "{dir}/t.json",
           [RUN, "bench", "--algorithm", "auto", "--tuning", "{dir}/t.json", "--transport", "threads", "--ranks", "4", "--json",
            "--out", "{dir}/t.json"], {"t.json": copied(TUNING)}),
          ("ddlrun bench: --out onto its --schedule", "--out", "{dir}/s.json",
           [RUN, "bench", "--schedule", "{dir}/s.json", "--transport", "threads", "--ranks", "4", "--json", "--out", "{dir}/s.json"],
           {"s.json": copied("tests/fuzz/corpus/schedule_reader/ring-4.json")}),
          ("ddlrun train: --out onto its scenario", "--out", "{dir}/s.json",
           [RUN, "train", "{dir}/s.json", "--transport", "threads", "--ranks", "4", "--json", "--out", "{dir}/s.json"],
           {"s.json": edited(SMALL_SCENARIO)}),
          ("ddlrun train: --trace onto its scenario", "--trace", "{dir}/s.json",
           [RUN, "train", "{dir}/s.json", "--transport", "threads", "--ranks", "4", "--trace", "{dir}/s.json"],
           {"s.json": edited(SMALL_SCENARIO)}),
          ("ddlcompare: --plot onto its measured file, named m.png", "--plot", "{dir}/m.png",
           ["{python}", COMPARE, "{dir}/p.json", "{dir}/m.png", "--plot", "{dir}/m.png"],
           {"p.json": json.dumps(SWEEP), "m.png": json.dumps(SWEEP)}),
          ("merge_results: --out onto a part", "--out", "{dir}/a.json",
           ["{python}", "{source}/analysis/merge_results", "{dir}/a.json", "{dir}/b.json", "--out", "{dir}/a.json"],
           {"a.json": json.dumps(SWEEP), "b.json": edited(SWEEP, ("$.ranks", 8))}),
          ("plot_scaling: --out onto its results, named r.png", "--out", "{dir}/r.png",
           ["{python}", "{source}/analysis/plot_scaling", "{dir}/r.png", "--out", "{dir}/r.png"], {"r.png": copied(RESULTS_OF_RESNET18)}),
          ("plot_scaling: --out onto its --scenario, named s.png", "--out", "{dir}/s.png",
           ["{python}", "{source}/analysis/plot_scaling", "{source}/" + RESULTS_OF_RESNET18, "--scenario", "{dir}/s.png", "--out",
            "{dir}/s.png"], {"s.png": copied(SCENARIO)}),
          *[(f"{tool}: --out onto its input, named in.png", "--out", "{dir}/in.png",
             ["{python}", f"{{source}}/analysis/{tool}", "{dir}/in.png", "--out", "{dir}/in.png"], {"in.png": content})
            for tool, content in [("plot_tuning", copied(TUNING_TABLE_PLOTTED)), ("plot_validation", copied(VALIDATION)),
                                  ("plot_collective_validation", copied(COLLECTIVE_VALIDATION)), ("plot_sensitivity", "{}")]],
          ("tuning_check: --json onto its table", "--json", "{dir}/t.json",
           ["{python}", "{source}/analysis/tuning_check", "check", "{dir}/t.json", "{dir}/measured", "--json", "{dir}/t.json"],
           {"t.json": copied(TUNING), **measured_for_tuning()}),
          ("tuning_check: --json onto a measurement", "--json", "{dir}/measured/measured-000.json",
           ["{python}", "{source}/analysis/tuning_check", "check", "{source}/" + TUNING, "{dir}/measured", "--json",
            "{dir}/measured/measured-000.json"], measured_for_tuning()),
          ("validate: --plot onto its corpus, named c.png", "--plot", "{dir}/c.png",
           ["{python}", "{source}/analysis/validate", "--corpus", "{dir}/c.png", "--plot", "{dir}/c.png"],
           {"c.png": copied("analysis/validation_corpus.json")}),
      ]],

    # An exporter refuses what its format cannot hold.
    *[Case(f"{tool}: --out a .gif", ["{python}", f"{{source}}/analysis/{tool}", *inputs, "--out", "{dir}/plot.gif"],
           ["--out", ".png, .svg or .pdf"], files)
      for tool, inputs, files in PLOT_TOOL_INPUTS],
    Case("validate: --plot a .gif", ["{python}", "{source}/analysis/validate", "--plot", "{dir}/plot.gif"], ["--plot", ".png, .svg or .pdf"]),
    Case("ddlsim: --sensitivity's --plot a .gif", [SIM, "{source}/" + SCENARIO, "--sensitivity", "--plot", "{dir}/plot.gif"],
         ["--plot", ".png, .svg or .pdf"]),
    Case("ddlsim: --trace a directory", [SIM, "{source}/" + SCENARIO, "--trace", "{dir}"], ["--trace", "directory"]),
    Case("ddlrun train: --trace a directory", [RUN, "train", "{source}/" + SCENARIO, "--trace", "{dir}"], ["--trace", "directory"]),
    # A title that is not UTF-8 has no text to write into SVG: refused with the other arguments, before anything is read.
    Case("ddlcompare: a --title that is not UTF-8", ["{python}", COMPARE, "{dir}/p.json", "{dir}/m.json", "--plot", "{dir}/t.svg",
                                                     "--title", NOT_UTF8], ["--title", "not UTF-8"],
         {"p.json": json.dumps(SWEEP), "m.json": json.dumps(SWEEP)}),
    *[Case(f"{tool}: a --title that is not UTF-8", ["{python}", f"{{source}}/analysis/{tool}", *inputs, "--out", "{dir}/t.svg",
                                                     "--title", NOT_UTF8], ["--title", "not UTF-8"], files)
      for tool, inputs, files in PLOT_TOOL_INPUTS],
]
