#!/usr/bin/python3
"""Every input format has a JSON Schema in docs/schemas/, and every file the project ships or writes matches it:

- each schema is a valid JSON Schema (draft 2020-12), titled, with a description on every property, and a
  unit in the description of every property whose name carries one (_s, _Bps, _bytes);
- every shipped topology, model and scenario, every fuzz seed, the topology the emulated cluster writes, and
  the schedules `ddlsim schedule --json` writes, match their schema;
- the schemas are not vacuous: copies of shipped files with a required field removed, an unknown field added,
  a number out of range or a value of the wrong type fail, and with a build the loaders refuse each of those
  copies too (exit 2), while copies at the edges of the ranges pass both: schema and loader agree;
- the algorithms the scenario schema knows, and the options each takes, are those `ddlsim algorithms` lists;
- the format section of each README names every top-level property of its schema.

Files are read as the loaders read them: a NaN, an infinity or a field given twice is an error.

Usage: schemas_test.py SOURCE_DIR [BUILD_DIR]   (BUILD_DIR: where sim/ddlsim is; without it, the checks that
run ddlsim are skipped)
"""
import copy
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import unittest

try:
    import jsonschema
except ImportError:
    sys.exit("schemas_test.py: the Python module jsonschema is missing: run scripts/install-dependencies")

SOURCE = pathlib.Path(sys.argv.pop(1) if len(sys.argv) > 1 and not sys.argv[1].startswith("-") else ".").resolve()
BUILD = pathlib.Path(sys.argv.pop(1)).resolve() if len(sys.argv) > 1 and not sys.argv[1].startswith("-") else None
DDLSIM = BUILD / "sim" / "ddlsim" if BUILD else None
Validator = jsonschema.Draft202012Validator

SCHEMAS = SOURCE / "docs" / "schemas"
# The format, the files of it the project ships, and the README section that documents it.
FORMATS = {
    "topology": {"shipped": "topologies/*.json", "seeds": "tests/fuzz/corpus/topology_reader/*.json",
                 "readme": ("topologies/README.md", "Format")},
    "model": {"shipped": "models/*.json", "seeds": "tests/fuzz/corpus/model_reader/*.json",
              "readme": ("models/README.md", "Format")},
    "scenario": {"shipped": "scenarios/*.json", "seeds": "tests/fuzz/corpus/scenario_reader/*.json",
                 "readme": ("scenarios/README.md", "Format")},
    "schedule": {"shipped": None, "seeds": "tests/fuzz/corpus/schedule_reader/*.json",
                 "readme": ("algorithms/README.md", "Schedule files")},
}
UNITS = {"_s": ("seconds",), "_Bps": ("bytes", "per second"), "_bytes": ("bytes",)}
# ddlsim schedule commands whose output must match the schedule schema.
SCHEDULES = {
    "ring": ["--algorithm", "ring", "--ranks", "4", "--bytes", "64"],
    "ddl": ["--algorithm", "ddl", "--ranks", "16", "--dims", "2x4x2", "--bytes", "4K"],
    "halving-doubling": ["--algorithm", "halving-doubling", "--ranks", "6", "--bytes", "1K"],
    "hierarchical": ["--algorithm", "hierarchical", "--ranks", "8", "--ranks-per-node", "4", "--inner",
                     "halving-doubling", "--bytes", "1K"],
    "double-binary-tree": ["--algorithm", "double-binary-tree", "--ranks", "7", "--bytes", "8K", "--chunk-bytes", "512"],
    "torus-2d": ["--algorithm", "torus-2d", "--ranks", "6", "--dims", "3x2", "--inner", "recursive-doubling",
                 "--bytes", "1K"],
    "reduce-scatter": ["--algorithm", "ring", "--collective", "reduce-scatter", "--ranks", "3", "--bytes", "96",
                       "--element-bytes", "2"],
    "all-gather": ["--algorithm", "ring", "--collective", "all-gather", "--ranks", "5", "--bytes", "0"],
}


def strict_json(text, name):
    """The document, refusing what the loaders refuse and Python's json accepts: NaN, Infinity, a key twice."""
    def refuse_constant(constant):
        raise ValueError(f"{name}: {constant} is not JSON")

    def refuse_duplicates(pairs):
        keys = [key for key, _ in pairs]
        twice = sorted({key for key in keys if keys.count(key) > 1})
        if twice:
            raise ValueError(f"{name}: the field {twice[0]!r} is given twice")
        return dict(pairs)
    return json.loads(text, parse_constant=refuse_constant, object_pairs_hook=refuse_duplicates)


def load(path):
    return strict_json(pathlib.Path(path).read_text(encoding="utf-8"), str(path))


def schema(kind):
    return load(SCHEMAS / f"{kind}.schema.json")


def validator(kind):
    return Validator(schema(kind))


def problems(kind, document):
    """What the schema of `kind` finds wrong with `document`, one line per error."""
    return [f"{error.json_path}: {error.message[:200]}" for error in validator(kind).iter_errors(document)]


def shipped(pattern):
    return sorted(SOURCE.glob(pattern))


def ddlsim(*arguments, timeout=120):
    environment = dict(os.environ, DDLSCALE_DATA_DIR=str(SOURCE))
    return subprocess.run([str(DDLSIM), *arguments], capture_output=True, text=True, timeout=timeout, env=environment)


# Mutations: a shipped file, edited. An edit is (path, value), (path, DELETE) or (path, RENAME, new name); a
# path is a tuple of keys and indices.
DELETE, RENAME = object(), object()
TOPOLOGY = "topologies/minsky-p100-ib-edr.json"
SHARED_GPU = "topologies/h200-ranks-sharing-one-gpu.json"
MODEL = "models/resnet50.json"
SCENARIO = "scenarios/powerai-ddl-resnet50.json"
SMALL_SCENARIO = "tests/fuzz/corpus/scenario_reader/tiny.json"
SCHEDULE = "tests/fuzz/corpus/schedule_reader/ring-4.json"
P100 = ("gpus", "P100")
PROFILE = P100 + ("profiles", "fp32-32")


def edited(base, *edits):
    document = copy.deepcopy(load(SOURCE / base))
    for edit in edits:
        path, value = edit[0], edit[1]
        parent = document
        for step in path[:-1]:
            parent = parent[step]
        if value is DELETE:
            del parent[path[-1]]
        elif value is RENAME:
            parent[edit[2]] = parent.pop(path[-1])
        elif callable(value):
            parent[path[-1]] = value(parent[path[-1]])
        else:
            parent[path[-1]] = value
    return document


# (kind, base file, what is wrong, edits): every one must fail the schema, and the loader.
INVALID = [
    # A required field removed.
    ("topology", TOPOLOGY, "no node", [(("node",), DELETE)]),
    ("topology", TOPOLOGY, "a link without its latency", [(("node", "links", 0, "latency_s"), DELETE)]),
    ("topology", TOPOLOGY, "no network, though the node has NICs", [(("network",), DELETE)]),
    ("topology", TOPOLOGY, "no nics_used, though the node has NICs", [(("nics_used",), DELETE)]),
    ("topology", TOPOLOGY, "a port without its bandwidth", [(("node", "port", "bandwidth_Bps"), DELETE)]),
    # An unknown field.
    ("topology", TOPOLOGY, "a misspelt top-level field", [(("nics_used",), RENAME, "nic_used")]),
    ("topology", TOPOLOGY, "an unknown field in a link", [(("node", "links", 0, "bandwidth"), 1e9)]),
    ("topology", TOPOLOGY, "an unknown field in the network", [(("network", "oversubscribed"), 2)]),
    ("topology", SHARED_GPU, "an unknown field in shared_memory", [(("node", "shared_memory", "rate_Bps"), 1e9)]),
    # A number out of range.
    ("topology", TOPOLOGY, "0 GPUs per node", [(("node", "gpus"), 0)]),
    ("topology", TOPOLOGY, "1025 GPUs per node", [(("node", "gpus"), 1025)]),
    ("topology", TOPOLOGY, "a link latency of 2 s", [(("node", "links", 0, "latency_s"), 2)]),
    ("topology", TOPOLOGY, "a link of 999 B/s", [(("node", "links", 0, "bandwidth_Bps"), 999)]),
    ("topology", TOPOLOGY, "a negative NIC latency", [(("network", "nic_latency_s"), -1e-6)]),
    ("topology", TOPOLOGY, "reduce_Bps above 1e15", [(("node", "reduce_Bps"), 2e15)]),
    ("topology", TOPOLOGY, "oversubscription below 1", [(("network", "oversubscription"), 0.5)]),
    ("topology", TOPOLOGY, "2^20 + 1 nodes per leaf", [(("network", "nodes_per_leaf"), (1 << 20) + 1)]),
    ("topology", TOPOLOGY, "no NIC cabled, though the node has two", [(("nics_used",), 0)]),
    ("topology", TOPOLOGY, "a negative GPU in rank_order", [(("node", "rank_order", 0), -1)]),
    ("topology", SHARED_GPU, "a NIC cabled on a node without NICs", [(("nics_used",), 1)]),
    ("topology", SHARED_GPU, "a shared memory latency of 2 s", [(("node", "shared_memory", "latency_s"), 2)]),
    # A value of the wrong type or shape.
    ("topology", TOPOLOGY, "GPUs per node as a string", [(("node", "gpus"), "4")]),
    ("topology", TOPOLOGY, "a fraction of a GPU", [(("node", "gpus"), 4.5)]),
    ("topology", TOPOLOGY, "links as an object", [(("node", "links"), {})]),
    ("topology", TOPOLOGY, "a link with one end", [(("node", "links", 0, "between"), ["gpu0"])]),
    ("topology", TOPOLOGY, "a link from a GPU to itself", [(("node", "links", 0, "between"), ["gpu0", "gpu0"])]),
    ("topology", TOPOLOGY, "a device named twice", [(("node", "devices"), lambda devices: devices + devices[:1])]),
    ("topology", TOPOLOGY, "a NIC listed twice", [(("node", "nics"), ["nic0", "nic0"])]),

    ("model", MODEL, "no gradients", [(("gradients",), DELETE)]),
    ("model", MODEL, "no gpus", [(("gpus",), DELETE)]),
    ("model", MODEL, "a tensor without its elements", [(("gradients", 0, "elements"), DELETE)]),
    ("model", MODEL, "a profile without its source", [(PROFILE + ("source",), DELETE)]),
    ("model", MODEL, "a GPU without its memory", [(P100 + ("memory",), DELETE)]),
    ("model", MODEL, "a misspelt top-level field", [(("parameters",), RENAME, "parameter")]),
    ("model", MODEL, "an unknown field in a tensor", [(("gradients", 0, "flops"), 1)]),
    ("model", MODEL, "an unknown field in a profile", [(PROFILE + ("batch_size",), 32)]),
    ("model", MODEL, "an unknown field in a GPU's memory", [(P100 + ("memory", "latency_s"), 1e-6)]),
    ("model", MODEL, "a tensor of 0 elements", [(("gradients", 0, "elements"), 0)]),
    ("model", MODEL, "a tensor of 2^40 + 1 elements", [(("gradients", 0, "elements"), (1 << 40) + 1)]),
    ("model", MODEL, "negative backward FLOPs", [(("gradients", 1, "backward_flops_per_image"), -1)]),
    ("model", MODEL, "an iteration of 0 s", [(PROFILE + ("iteration_s",), 0)]),
    ("model", MODEL, "a batch of 0", [(PROFILE + ("batch",), 0)]),
    ("model", MODEL, "a memory of 1e5 B/s", [(P100 + ("memory", "bandwidth_Bps"), 1e5)]),
    ("model", MODEL, "0 parameters", [(("parameters",), 0)]),
    ("model", MODEL, "a profile keyed fp16-", [(P100 + ("profiles", "fp32-32"), RENAME, "fp16-32")]),
    ("model", MODEL, "no tensor", [(("gradients",), [])]),
    ("model", MODEL, "elements as a string", [(("gradients", 0, "elements"), "1000")]),
    ("model", MODEL, "gpus as a list", [(("gpus",), [])]),
    ("model", MODEL, "a source that is not a string", [(PROFILE + ("source",), 42)]),

    ("scenario", SCENARIO, "no model", [(("model",), DELETE)]),
    ("scenario", SCENARIO, "no algorithms", [(("algorithms",), DELETE)]),
    ("scenario", SCENARIO, "an algorithm without its name", [(("algorithms", 1, "name"), DELETE)]),
    ("scenario", SCENARIO, "ddl without dims", [(("algorithms", 0, "dims"), DELETE)]),
    ("scenario", SCENARIO, "hierarchical without ranks_per_node", [(("algorithms", 3, "ranks_per_node"), DELETE)]),
    ("scenario", SCENARIO, "a misspelt top-level field", [(("gpus",), RENAME, "gpuss")]),
    ("scenario", SCENARIO, "an unknown field in an algorithm", [(("algorithms", 0, "dims"), RENAME, "dim")]),
    ("scenario", SCENARIO, "an unknown override", [(("topology_overrides",), {"nics": 1})]),
    ("scenario", SCENARIO, "an option ring does not take", [(("algorithms", 1, "inner"), "ring")]),
    ("scenario", SCENARIO, "chunk_bytes for an inner ring", [(("algorithms", 3, "chunk_bytes"), 524288)]),
    ("scenario", SCENARIO, "a batch of 0", [(("batch_per_gpu",), 0)]),
    ("scenario", SCENARIO, "0 GPUs", [(("gpus",), [0, 4])]),
    ("scenario", SCENARIO, "65537 GPUs", [(("gpus",), [1, 65537])]),
    ("scenario", SCENARIO, "no GPU count", [(("gpus",), [])]),
    ("scenario", SCENARIO, "a GPU count twice", [(("gpus",), [1, 4, 4])]),
    ("scenario", SCENARIO, "buckets of 0 bytes", [(("bucket_bytes",), 0)]),
    ("scenario", SCENARIO, "65 NICs per node", [(("topology_overrides",), {"nics_per_node": 65})]),
    ("scenario", SCENARIO, "oversubscription below 1", [(("topology_overrides",), {"oversubscription": 0.5})]),
    ("scenario", SCENARIO, "a grid for 0 GPUs", [(("algorithms", 0, "dims"), {"0": "1"})]),
    ("scenario", SCENARIO, "a grid with a size of 0", [(("algorithms", 0, "dims"), {"1": "1", "4": "4x0"})]),
    ("scenario", SCENARIO, "ddl on five dimensions",
     [(("gpus",), [1]), (("algorithms",), [{"name": "ddl", "dims": {"1": "1x1x1x1x1"}}])]),
    ("scenario", SCENARIO, "torus-2d on three dimensions",
     [(("gpus",), [1]), (("algorithms",), [{"name": "torus-2d", "dims": {"1": "1x1x1"}}])]),
    ("scenario", SCENARIO, "an unknown placement", [(("placement",), "scattered")]),
    ("scenario", SCENARIO, "an unknown algorithm", [(("algorithms", 1, "name"), "rng")]),
    ("scenario", SCENARIO, "an inner allreduce that needs options", [(("algorithms", 3, "inner"), "ddl")]),
    ("scenario", SCENARIO, "ranks_per_node neither a number nor node", [(("algorithms", 3, "ranks_per_node"), "nodes")]),
    ("scenario", SCENARIO, "overlap_backward as a string", [(("overlap_backward",), "yes")]),
    ("scenario", SCENARIO, "batch_per_gpu as a string", [(("batch_per_gpu",), "32")]),
    ("scenario", SCENARIO, "a grid as a string other than topology", [(("algorithms", 0, "dims"), "4x16x4")]),

    ("schedule", SCHEDULE, "no programs", [(("programs",), DELETE)]),
    ("schedule", SCHEDULE, "no collective", [(("collective",), DELETE)]),
    ("schedule", SCHEDULE, "a step without its peer", [(("programs", 0, "steps", 0, "peer"), DELETE)]),
    ("schedule", SCHEDULE, "a program without its steps", [(("programs", 1, "steps"), DELETE)]),
    ("schedule", SCHEDULE, "a misspelt top-level field", [(("ranks",), RENAME, "rank")]),
    ("schedule", SCHEDULE, "an unknown field in a program", [(("programs", 0, "stream"), 0)]),
    ("schedule", SCHEDULE, "an unknown field in a step", [(("programs", 0, "steps", 0, "size"), 4)]),
    ("schedule", SCHEDULE, "0 ranks", [(("ranks",), 0)]),
    ("schedule", SCHEDULE, "65537 ranks", [(("ranks",), 65537)]),
    ("schedule", SCHEDULE, "elements of 0 bytes", [(("element_bytes",), 0)]),
    ("schedule", SCHEDULE, "elements of 2048 bytes", [(("element_bytes",), 2048)]),
    ("schedule", SCHEDULE, "a negative element count", [(("elements",), -1)]),
    ("schedule", SCHEDULE, "a negative channel", [(("programs", 0, "steps", 0, "channel"), -1)]),
    ("schedule", SCHEDULE, "channel 32768", [(("programs", 0, "steps", 0, "channel"), 32768)]),
    ("schedule", SCHEDULE, "a negative offset", [(("programs", 0, "steps", 0, "offset"), -1)]),
    ("schedule", SCHEDULE, "a negative peer", [(("programs", 0, "steps", 0, "peer"), -1)]),
    ("schedule", SCHEDULE, "a dependency on step -1", [(("programs", 0, "steps", 2, "after"), [-1])]),
    ("schedule", SCHEDULE, "no program at all", [(("programs",), [])]),
    ("schedule", SCHEDULE, "an unknown op", [(("programs", 0, "steps", 0, "op"), "recv")]),
    ("schedule", SCHEDULE, "an unknown collective", [(("collective",), "broadcast")]),
    ("schedule", SCHEDULE, "ranks as a string", [(("ranks",), "4")]),
    ("schedule", SCHEDULE, "after as a number", [(("programs", 0, "steps", 2, "after"), 1)]),
    ("schedule", SCHEDULE, "steps as an object", [(("programs", 0, "steps"), {})]),
    ("schedule", SCHEDULE, "a description that is not a string", [(("description",), 7)]),
]


def every_step(change):
    """An edit of the schedule's programs applying `change` to every step."""
    def apply(programs):
        for program in programs:
            for step in program["steps"]:
                change(step)
        return programs
    return apply


def without_defaults(step):
    if step.get("after") == []:
        del step["after"]
    if step.get("channel") == 0:
        del step["channel"]


# (kind, base file, what it shows, edits): each at an edge of what the loader accepts; the schema must accept
# it too, and with a build the loader must (exit 0).
VALID = [
    ("topology", TOPOLOGY, "bounds of the node and network",
     [(("node", "links", 0, "latency_s"), 1), (("node", "links", 1, "latency_s"), 0),
      (("node", "links", 8, "bandwidth_Bps"), 1e15), (("node", "reduce_Bps"), 1e6),
      (("network", "oversubscription"), 1000), (("network", "nodes_per_leaf"), 1 << 20), (("nics_used",), 1)]),
    ("topology", TOPOLOGY, "integers where numbers belong, and annotations anywhere",
     [(("node", "reduce_Bps"), 244000000000), (("network", "core_latency_s"), 0),
      (("node", "links", 0, "note"), "a remark"), (("network", "source"), "a citation"),
      (("node", "port", "confidence"), "assumed"), (("node", "rank_order"), DELETE)]),
    ("topology", SHARED_GPU, "a node without NICs, nics_used 0 and a network",
     [(("nics_used",), 0), (("network",), {"nic_bandwidth_Bps": 1e3, "nic_latency_s": 0, "nodes_per_leaf": 1,
                                           "oversubscription": 1, "core_latency_s": 1})]),
    ("model", MODEL, "bounds of a profile, the memory and the FLOPs",
     [(PROFILE + ("batch",), 1 << 20), (PROFILE + ("iteration_s",), 1e6), (P100 + ("memory", "bandwidth_Bps"), 1e15),
      (("forward_flops_per_image",), 1e18), (("gradients", 0, "backward_flops_per_image"), 0)]),
    ("model", MODEL, "no parameters, no forward FLOPs, a profile keyed by the prefix alone",
     [(("parameters",), DELETE), (("forward_flops_per_image",), DELETE),
      (P100 + ("profiles", "fp32-64"), RENAME, "fp32-"), (PROFILE + ("confidence",), DELETE)]),
    ("scenario", SMALL_SCENARIO, "bounds of the overrides and the sizes, and every option",
     [(("topology_overrides",), {"nics_per_node": 1, "nodes_per_leaf": 1 << 20, "oversubscription": 1000}),
      (("bucket_bytes",), 1 << 40), (("overlap_backward",), False), (("placement",), "round-robin"),
      (("algorithms",), [{"name": "ddl", "dims": {"01": "1", "2": "02"}},
                         {"name": "hierarchical", "ranks_per_node": 1, "inner": "double-binary-tree",
                          "chunk_bytes": 1 << 40},
                         {"name": "double-binary-tree", "chunk_bytes": 1 << 20},
                         {"name": "torus-2d", "dims": "topology", "inner": "binomial-tree", "note": "a remark"}])]),
    ("schedule", SCHEDULE, "the largest element size, the last channel, defaults left out",
     [(("element_bytes",), 1024), (("description",), DELETE), (("note",), "written by hand"),
      (("programs",), every_step(lambda step: step.update(channel=32767)))]),
    ("schedule", SCHEDULE, "steps without the fields that have defaults", [(("programs",), every_step(without_defaults))]),
]


def load_with_ddlsim(kind, path, directory):
    """Runs the loader of `kind` on the file at `path`."""
    if kind == "topology":
        return ddlsim("platform", str(path), "--nodes", "1")
    if kind == "model":
        scenario = pathlib.Path(directory, "uses-the-model.json")
        scenario.write_text(json.dumps({"name": "model-check", "topology": "flat-h200-edr", "model": str(path),
                                        "gpu": "H200", "batch_per_gpu": 32, "gpus": [1],
                                        "algorithms": [{"name": "ring"}]}))
        return ddlsim(str(scenario))
    if kind == "scenario":
        return ddlsim(str(path))
    return ddlsim("schedule", "--from", str(path))


def markdown_section(path, title):
    """The text of the section headed `title` in a Markdown file, up to the next heading of its level or above."""
    lines = pathlib.Path(path).read_text(encoding="utf-8").splitlines()
    level, body, fenced = None, [], False
    for line in lines:
        if line.startswith("```"):
            fenced = not fenced
        heading = None if fenced else re.match(r"^(#+)\s+(.*?)\s*$", line)
        if level is None:
            if heading and heading.group(2) == title:
                level = len(heading.group(1))
            continue
        if heading and len(heading.group(1)) <= level:
            break
        body.append(line)
    return "\n".join(body) if level is not None else None


def documented_subschemas(node):
    """Every schema that documents a value (the root, $defs, properties, items and what they lead to), with its
    place; not the conditions of if/then/else and dependentSchemas, which only restrict."""
    if not isinstance(node, dict):
        return
    yield node
    for key in ("properties", "$defs"):
        for child in node.get(key, {}).values():
            yield from documented_subschemas(child)
    for key in ("items", "additionalProperties"):
        yield from documented_subschemas(node.get(key))
    for key in ("anyOf", "oneOf"):
        for child in node.get(key, []):
            yield from documented_subschemas(child)


def allreduce_options_in_schema():
    """name -> the options the scenario schema lets that allreduce take."""
    algorithm = schema("scenario")["$defs"]["algorithm"]
    options = {"dims", "ranks_per_node", "inner", "chunk_bytes"}
    taken = {}
    for rule in algorithm["allOf"]:
        name = rule["if"]["properties"]["name"]["const"]
        refused = {option for option, value in rule["then"].get("properties", {}).items() if value is False}
        taken[name] = options - refused
    return taken


class TheSchemas(unittest.TestCase):
    def test_every_schema_is_a_valid_json_schema(self):
        for kind in FORMATS:
            with self.subTest(kind):
                document = schema(kind)
                Validator.check_schema(document)
                self.assertEqual(document.get("$schema"), "https://json-schema.org/draft/2020-12/schema")

    def test_every_schema_and_every_property_says_what_it_means(self):
        for kind in FORMATS:
            document = schema(kind)
            self.assertTrue(document.get("title"), f"{kind}: no title")
            self.assertTrue(document.get("description"), f"{kind}: no description")
            undocumented = []
            for node in documented_subschemas(document):
                for name, child in node.get("properties", {}).items():
                    if not isinstance(child, dict) or not child.get("description"):
                        undocumented.append(name)
            self.assertEqual(undocumented, [], f"{kind}: properties without a description")

    def test_every_property_with_a_unit_in_its_name_states_the_unit(self):
        for kind in FORMATS:
            for node in documented_subschemas(schema(kind)):
                for name, child in node.get("properties", {}).items():
                    for suffix, words in UNITS.items():
                        if name.endswith(suffix):
                            text = child["description"].lower()
                            for word in words:
                                self.assertIn(word, text, f"{kind}: {name} does not say its unit")

    def test_every_object_refuses_unknown_fields_as_the_loaders_do(self):
        for kind in FORMATS:
            for node in documented_subschemas(schema(kind)):
                if "properties" in node:
                    self.assertIs(node.get("additionalProperties"), False,
                                  f"{kind}: an object with properties {sorted(node['properties'])} allows others")


class EveryShippedFileMatchesItsSchema(unittest.TestCase):
    def check_files(self, kind, pattern):
        files = shipped(pattern)
        self.assertTrue(files, f"no file matches {pattern}: the test would check nothing")
        for path in files:
            with self.subTest(str(path.relative_to(SOURCE))):
                self.assertEqual(problems(kind, load(path)), [])

    def test_every_shipped_topology_matches_the_schema(self):
        self.check_files("topology", FORMATS["topology"]["shipped"])

    def test_every_shipped_model_matches_the_schema(self):
        self.check_files("model", FORMATS["model"]["shipped"])

    def test_every_shipped_scenario_matches_the_schema(self):
        self.check_files("scenario", FORMATS["scenario"]["shipped"])

    def test_every_fuzz_seed_matches_its_schema(self):
        for kind, format in FORMATS.items():
            self.check_files(kind, format["seeds"])

    def test_the_topology_of_the_emulated_cluster_matches_the_schema(self):
        writer = SOURCE / "runtime/emulated_cluster/emulated_topology.py"
        for nodes, ranks in ((2, 1), (4, 2), (8, 3)):
            output = subprocess.run([sys.executable, str(writer), "--nodes", str(nodes), "--ranks-per-node", str(ranks),
                                     "--rate-bytes", "25e6", "--latency-ms", "0.5"],
                                    capture_output=True, text=True, check=True).stdout
            self.assertEqual(problems("topology", strict_json(output, "emulated_topology.py")), [], f"{nodes}x{ranks}")


@unittest.skipUnless(DDLSIM and DDLSIM.is_file(), "no BUILD_DIR with sim/ddlsim given")
class TheSchedulesDdlsimWritesMatchTheSchema(unittest.TestCase):
    def test_every_schedule_ddlsim_writes_matches_the_schema(self):
        with tempfile.TemporaryDirectory() as directory:
            for name, arguments in SCHEDULES.items():
                with self.subTest(name):
                    path = pathlib.Path(directory, f"{name}.json")
                    written = ddlsim("schedule", *arguments, "--json", "--out", str(path))
                    self.assertEqual(written.returncode, 0, written.stderr)
                    document = load(path)
                    self.assertEqual(problems("schedule", document), [])
                    self.assertTrue(any(program["steps"] for program in document["programs"]) or name == "all-gather")
                    read_back = ddlsim("schedule", "--from", str(path), "--verify")
                    self.assertEqual(read_back.returncode, 0, read_back.stderr)

    def test_the_scenario_schema_knows_every_allreduce_and_the_options_it_takes(self):
        listing = ddlsim("algorithms")
        self.assertEqual(listing.returncode, 0, listing.stderr)
        listed = {}
        for line in listing.stdout.splitlines():
            fields = line.split()
            if len(fields) >= 3 and fields[1] == "allreduce":
                flags = [field for field in fields[2:] if field.startswith("--")]
                listed[fields[0]] = {flag[2:].replace("-", "_") for flag in flags}
        self.assertTrue(listed, "ddlsim algorithms listed no allreduce")
        self.assertEqual(allreduce_options_in_schema(), listed)
        names = schema("scenario")["$defs"]["algorithm"]["properties"]["name"]["enum"]
        self.assertEqual(sorted(names), sorted(listed))


class TheSchemasAreNotVacuous(unittest.TestCase):
    def test_every_mutated_copy_of_a_shipped_file_fails_its_schema(self):
        for kind, base, what, edits in INVALID:
            with self.subTest(f"{kind}: {what}"):
                self.assertNotEqual(problems(kind, edited(base, *edits)), [], f"the {kind} schema accepts {what}")

    def test_every_schema_is_refused_a_required_field_an_unknown_field_a_number_out_of_range_and_a_wrong_type(self):
        # The table above covers, for each format, each of the four ways a file can be wrong.
        for kind in FORMATS:
            errors = set()
            for case_kind, base, what, edits in INVALID:
                if case_kind == kind:
                    for error in validator(kind).iter_errors(edited(base, *edits)):
                        errors.add(error.validator)
            for keyword in ("required", "additionalProperties", "type"):
                self.assertIn(keyword, errors, kind)
            self.assertTrue(errors & {"minimum", "maximum"}, f"{kind}: no number out of range")

    def test_the_copies_at_the_edges_of_the_ranges_match_their_schema(self):
        for kind, base, what, edits in VALID:
            with self.subTest(f"{kind}: {what}"):
                self.assertEqual(problems(kind, edited(base, *edits)), [])

    @unittest.skipUnless(DDLSIM and DDLSIM.is_file(), "no BUILD_DIR with sim/ddlsim given")
    def test_the_loaders_refuse_every_copy_the_schemas_refuse_and_accept_every_copy_they_accept(self):
        with tempfile.TemporaryDirectory() as directory:
            for cases, expected in ((INVALID, 2), (VALID, 0)):
                for kind, base, what, edits in cases:
                    with self.subTest(f"{kind}: {what}"):
                        path = pathlib.Path(directory, f"{kind}.json")
                        path.write_text(json.dumps(edited(base, *edits), indent=1))
                        result = load_with_ddlsim(kind, path, directory)
                        self.assertEqual(result.returncode, expected, f"{what}: {result.stderr.strip()[:300]}")
                        if expected == 2:
                            self.assertTrue(result.stderr.startswith("ddlsim: "), result.stderr)


class TheReadmesNameEveryField(unittest.TestCase):
    def test_each_format_section_names_every_top_level_property_of_its_schema(self):
        for kind, format in FORMATS.items():
            readme, title = format["readme"]
            with self.subTest(kind):
                text = markdown_section(SOURCE / readme, title)
                self.assertIsNotNone(text, f"{readme} has no section '{title}'")
                missing = [name for name in schema(kind)["properties"]
                           if not re.search(r'["`]' + re.escape(name) + r'["`]', text)]
                self.assertEqual(missing, [], f"{readme}, section '{title}', does not name these fields")


if __name__ == "__main__":
    unittest.main()
