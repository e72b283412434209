#!/usr/bin/python3
"""Every input and results format has a JSON Schema in docs/schemas/, and every file the project ships or writes
matches it:

- each schema is a valid JSON Schema (draft 2020-12), titled, with a description on every property, and a
  unit in the description of every property whose name carries one (_s, _Bps, _bytes);
- every shipped topology, model and scenario, every fuzz seed (tuning tables among them), the topology the
  emulated cluster writes, and the schedules `ddlsim schedule --json` writes, match their schema;
- the schemas are not vacuous: copies of shipped files with a required field removed, an unknown field added,
  a number out of range or a value of the wrong type fail, and with a build the loaders refuse each of those
  copies too (exit 2), while copies at the edges of the ranges pass both: schema and loader agree;
- the algorithms the scenario schema knows, and the options each takes, are those `ddlsim algorithms` lists;
- the format section of each README names every top-level property of its schema;
- the results formats (scaling points, collective sweeps and collections of them): every committed result set
  under analysis/results/ matches its schema, and with a build so does what `ddlsim SCENARIO`, `ddlsim
  collective`, `ddlrun bench` (threads, and MPI with a baseline) and `ddlrun train` write with --json, which also
  holds every field today's writers write (run, hosts, ranks_per_host, parameters, label: optional in the
  schemas, for the files written before them); copies of results files the schemas refuse, analysis/ddlcompare
  refuses too (exit 2) wherever it checks the field, and those they accept it reads; the README's results
  section names every property of both schemas.

Files are read as the loaders read them: a NaN, an infinity or a field given twice is an error.

Usage: schemas_test.py SOURCE_DIR [BUILD_DIR]   (BUILD_DIR: where sim/ddlsim and runtime/ddlrun are; without it,
the checks that run them are skipped)
"""
import concurrent.futures
import copy
import json
import math
import os
import pathlib
import re
import shutil
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
    "tuning-table": {"shipped": "scenarios/tuning/*.json", "seeds": "tests/fuzz/corpus/tuning_reader/*.json",
                     "readme": ("sim/README.md", "Tuning tables")},
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
    # The results schema refers to the collective sweep's by a relative $ref, resolved beside it.
    own = (SCHEMAS / f"{kind}.schema.json").as_uri()
    store = {(SCHEMAS / f"{other}.schema.json").as_uri(): schema(other) for other in ("results", "collective-sweep")
             if (SCHEMAS / f"{other}.schema.json").is_file()}
    document = schema(kind)
    return Validator(document, resolver=jsonschema.RefResolver(own, document, store=store))


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
TUNING = "tests/fuzz/corpus/tuning_reader/flat-h200-4.json"
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
            parent[path[-1]] = copy.deepcopy(value)  # a later edit may change inside it
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
    ("model", MODEL, "a profile keyed by an unknown precision", [(P100 + ("profiles", "fp32-32"), RENAME, "fp8-32")]),
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
    ("scenario", SCENARIO, "131073 GPUs", [(("gpus",), [1, 131073])]),
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
    ("schedule", SCHEDULE, "131073 ranks", [(("ranks",), 131073)]),
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
    ("tuning-table", TUNING, "no rows", [(("rows",), DELETE)]),
    ("tuning-table", TUNING, "no topology", [(("topology",), DELETE)]),
    ("tuning-table", TUNING, "a row without its best", [(("rows", 0, "best"), DELETE)]),
    ("tuning-table", TUNING, "an unknown field in a candidate", [(("candidates", 0, "seconds"), [1])]),
    ("tuning-table", TUNING, "a misspelt top-level field", [(("gpus",), RENAME, "ranks")]),
    ("tuning-table", TUNING, "0 GPUs", [(("gpus",), 0)]),
    ("tuning-table", TUNING, "a negative time", [(("candidates", 0, "time_s", 0), -1)]),
    ("tuning-table", TUNING, "a negative size", [(("rows", 0, "bytes"), -1)]),
    ("tuning-table", TUNING, "gpus as a string", [(("gpus",), "4")]),
    ("tuning-table", TUNING, "an unknown collective", [(("collective",), "broadcast")]),
    ("tuning-table", TUNING, "no candidate at all", [(("candidates",), [])]),
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
      (("forward_flops_per_image",), 1e18), (("gradients", 0, "backward_flops_per_image"), 0),
      (PROFILE, RENAME, "fp32-1048576")]),
    ("model", MODEL, "no parameters, no forward FLOPs, a mixed-precision profile",
     [(("parameters",), DELETE), (("forward_flops_per_image",), DELETE),
      (P100 + ("profiles", "fp32-64"), RENAME, "amp-64"), (PROFILE + ("confidence",), DELETE)]),
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
    ("tuning-table", TUNING, "without run, with a note", [(("run",), DELETE), (("note",), "written by hand")]),
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
    if kind == "tuning-table":  # the seed's cluster: 4 GPUs of flat-h200-edr
        return ddlsim("collective", "--algorithm", "auto", "--tuning", str(path), "--topology", "flat-h200-edr", "--gpus", "4",
                      "--bytes", "4K")
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


def registry():
    """ddlsim's registry as data (`ddlsim algorithms --json`): every algorithm and every option it may take."""
    listing = ddlsim("algorithms", "--json")
    assert listing.returncode == 0, listing.stderr
    return json.loads(listing.stdout)


def allreduce_options_in_schema(options):
    """name -> the options (of `options`) the scenario schema lets that allreduce take."""
    algorithm = schema("scenario")["$defs"]["algorithm"]
    taken = {}
    for rule in algorithm["allOf"]:
        name = rule["if"]["properties"]["name"]["const"]
        refused = {option for option, value in rule["then"].get("properties", {}).items() if value is False}
        taken[name] = set(options) - refused
    return taken


class TheSchemas(unittest.TestCase):
    KINDS = tuple(FORMATS)

    def test_every_schema_is_a_valid_json_schema(self):
        for kind in self.KINDS:
            with self.subTest(kind):
                document = schema(kind)
                Validator.check_schema(document)
                self.assertEqual(document.get("$schema"), "https://json-schema.org/draft/2020-12/schema")

    def test_every_schema_and_every_property_says_what_it_means(self):
        for kind in self.KINDS:
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
        for kind in self.KINDS:
            for node in documented_subschemas(schema(kind)):
                for name, child in node.get("properties", {}).items():
                    for suffix, words in UNITS.items():
                        if name.endswith(suffix):
                            text = child["description"].lower()
                            for word in words:
                                self.assertIn(word, text, f"{kind}: {name} does not say its unit")

    def test_every_object_refuses_unknown_fields_as_the_loaders_do(self):
        for kind in self.KINDS:
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

    def test_the_benchmarks_scenarios_match_the_schema(self):
        self.check_files("scenario", "tests/benchmarks/scenarios/*.json")

    def test_every_shipped_model_matches_the_schema(self):
        self.check_files("model", FORMATS["model"]["shipped"])

    def test_every_shipped_scenario_matches_the_schema(self):
        self.check_files("scenario", FORMATS["scenario"]["shipped"])

    def test_every_shipped_tuning_table_matches_the_schema(self):
        self.check_files("tuning-table", FORMATS["tuning-table"]["shipped"])

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
        output = subprocess.run([sys.executable, str(writer), "--nodes", "4", "--rate-bytes", "25e6", "--latency-ms", "0.5",
                                 "--shared-cores", "2", "--throughput", "1.9"], capture_output=True, text=True, check=True).stdout
        self.assertEqual(problems("topology", strict_json(output, "emulated_topology.py")), [], "on a shared host")
        output = subprocess.run([sys.executable, str(writer), "--nodes", "4", "--rate-bytes", "25e6", "--latency-ms", "0.5",
                                 "--shared-cores", "2", "--throughput", "1.9", "--network-core-s-per-byte", "1.35e-8"],
                                capture_output=True, text=True, check=True).stdout
        topology = strict_json(output, "emulated_topology.py")
        self.assertEqual(problems("topology", topology), [], "on a shared host that carrying costs")
        self.assertEqual(topology["shared_host"]["network_core_s_per_byte"], 1.35e-8)


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

    def test_the_model_ddlsim_model_import_writes_matches_the_schema(self):
        with tempfile.TemporaryDirectory() as directory:
            path = pathlib.Path(directory, "model.json")
            written = ddlsim("model", "import", str(SOURCE / "tests/fuzz/corpus/profile_import/resnet18-head.json"), "--gpu",
                             "cpu-rank", "--out", str(path))
            self.assertEqual(written.returncode, 0, written.stderr)
            self.assertEqual(problems("model", load(path)), [])

    def test_the_tuning_tables_ddlsim_tune_writes_match_the_schema_and_are_read_back(self):
        # Every algorithm and option on 8 GPUs, and 2-byte elements, which name their type by size.
        with tempfile.TemporaryDirectory() as directory:
            for name, arguments in {"every algorithm": ["--gpus", "8"],
                                    "2-byte elements": ["--gpus", "4", "--element-bytes", "2", "--algorithms", "ring,ddl"]}.items():
                with self.subTest(name):
                    path = pathlib.Path(directory, "table.json")
                    written = ddlsim("tune", "--topology", "dgx1-v100-ib-edr", *arguments, "-b", "1K", "-e", "64K", "-f", "8",
                                     "--json", "--out", str(path))
                    self.assertEqual(written.returncode, 0, written.stderr)
                    document = load(path)
                    self.assertEqual(problems("tuning-table", document), [])
                    # Read back for its own element size, which ddlsim collective holds a table to.
                    element_bytes = arguments[arguments.index("--element-bytes") + 1] if "--element-bytes" in arguments else "4"
                    read_back = ddlsim("collective", "--algorithm", "auto", "--tuning", str(path), "--topology",
                                       "dgx1-v100-ib-edr", "--gpus", arguments[1], "--bytes", "8K", "--element-bytes", element_bytes)
                    self.assertEqual(read_back.returncode, 0, read_back.stderr)

    def test_the_scenario_schema_knows_every_allreduce_and_the_options_it_takes(self):
        known = registry()
        # A scenario names any allreduce, those that reduce in a switch (NVLS) too: an iteration places the switches.
        listed = {entry["name"]: set(entry["options"]) for entry in known["algorithms"] if entry["collective"] == "allreduce"}
        self.assertTrue(listed, "ddlsim algorithms listed no allreduce")
        self.assertEqual(allreduce_options_in_schema([option["key"] for option in known["options"]]), listed)
        names = schema("scenario")["$defs"]["algorithm"]["properties"]["name"]["enum"]
        self.assertEqual(sorted(names), sorted(listed))
        inner = schema("scenario")["$defs"]["algorithm"]["properties"]["inner"]["enum"]
        self.assertEqual(sorted(inner), sorted(entry["name"] for entry in known["algorithms"]
                                               if entry["collective"] == "allreduce" and entry["composable"]))

    def test_every_option_has_the_registry_s_bounds_and_derivation_in_every_schema(self):
        # The option table (algorithms/collectives/option_table.cpp) is the one home of an option's bounds and
        # of the scenario value that derives it; the schemas of the files that hold options follow it.
        def integer_bounds(node):
            """(minimum, maximum) of the integer form of a property, wherever anyOf puts it."""
            for form in [node] + node.get("anyOf", []):
                if form.get("type") == "integer":
                    return form.get("minimum"), form.get("maximum")
            return None

        known = registry()["options"]
        scenario_options = schema("scenario")["$defs"]["algorithm"]["properties"]
        parameter_options = {kind: schema(kind)["$defs"]["parameters"]["properties"] for kind in ("results", "collective-sweep")}
        for option in known:
            key = option["key"]
            with self.subTest(key):
                for kind, properties in [("scenario", scenario_options), *parameter_options.items()]:
                    self.assertIn(key, properties, f"the {kind} schema has no {key}")
                    if "minimum" in option:
                        self.assertEqual(integer_bounds(properties[key]), (option["minimum"], option["maximum"]),
                                         f"{kind} schema: the bounds of {key}")
                derived = [form.get("const") for form in scenario_options[key].get("anyOf", []) if "const" in form]
                expected = [option["derived_by"]["value"]] if "derived_by" in option else []
                self.assertEqual(derived, expected, f"scenario schema: the value that derives {key} from the cluster")


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



# The results formats: scaling points (and collections of results documents) in results.schema.json, collective
# sweeps in collective-sweep.schema.json. Their readers are analysis/ddlcompare and, for scaling points,
# resultsFromJson (algorithms/io/results_json.cpp, run only by its fuzz harness).
RESULT_KINDS = ("results", "collective-sweep")
DDLRUN = BUILD / "runtime" / "ddlrun" if BUILD else None
DDLCOMPARE = SOURCE / "analysis" / "ddlcompare"
RESULT_SETS = "analysis/results/**/*.json"
RESULTS_SEED = "tests/fuzz/corpus/results_reader/powerai-ddl-resnet50-3-points.json"
RESULTS_README = ("docs/results.md", "Results schema")
ANNOTATIONS = ("description", "source", "sources", "confidence", "note")
# The objects of each results schema whose every property the README's results section names (None: the root).
RESULT_OBJECTS = {"results": ("scaling_points", "collection", "point", "collective", "run", "parameters"),
                  "collective-sweep": (None, "row", "out_of_place", "baseline", "run", "parameters")}
# What the schemas define that today's writers write only where it applies; every other member they always write,
# though the schemas leave run, hosts, ranks_per_host, parameters and label optional for the files written before.
WRITTEN_WHERE_THEY_APPLY = {
    "topology": "ddlsim's scaling points", "compute_scale": "scaling points", "precision": "scaling points",
    "compute_precision": "scaling points", "engine": "ddlsim",
    "exposed_latency_s": "ddlsim's scaling points", "exposed_bandwidth_s": "ddlsim's scaling points",
    "fusion": "scaling points", "parallelism": "scaling points", "effects": "ddlsim, where effects are on", "efficiency_range": "ddlsim --range, before 2026-12-05",
    **{name: "ddlsim --samples" for name in ["samples"] + [f"{quantity}_{percentile}" for quantity in
                                                           ("iteration_s", "images_per_s", "efficiency")
                                                           for percentile in ("p05", "p50", "p95")]},
    "evened_bucket_change": "ddlsim's step engine, where it evened buckets",
    "gpu_time_factors": "ddlsim, where the scenario draws GPU time factors from a fleet's file",
    "job_time_factors": "ddlsim, where the scenario names a machine's jobs for its samples to draw from",
    "measured_effects": "ddlrun train", "compute_jitter": "ddlrun train, two iterations",
    "gpu_speed_spread": "ddlrun train, two ranks and iterations", "overlap_slowdown": "ddlrun train, where overlap explains the stretch",
    "wrong": "ddlrun bench, which checks", "out_of_place": "ddlrun bench", "baseline": "ddlrun bench --baseline",
    "dims": "ddl, torus-2d", "ranks_per_node": "hierarchical, nccl-ring", "inner": "hierarchical, torus-2d",
    "chunk_bytes": "double-binary-tree, or an inner one", "channels": "nccl-ring", "chosen": "--algorithm auto or nccl",
    "protocol": "ddlsim collective --protocol",
}


def results_kind(document):
    """The schema a results document is held to, chosen as ddlcompare chooses how to read it; None if it is none."""
    if not isinstance(document, dict):
        return None
    if "results" in document or "points" in document:
        return "results"
    if "candidates" in document:  # a tuning table, held to its own schema (committed_tuning_tables)
        return None
    if "overall" in document:  # analysis/validate's and validate_collectives' scores: joined rows, not a sweep's
        return None
    return "collective-sweep" if "rows" in document else None


def committed_tuning_tables():
    """(path, document) of every tuning table (ddlsim tune --json) under analysis/results/."""
    return [(path, document) for path, document in ((path, load(path)) for path in shipped(RESULT_SETS))
            if isinstance(document, dict) and "candidates" in document]


def committed_results():
    """(path, document, kind) of every results file under analysis/results/; the other JSON files there (the
    emulated cluster's topologies and the training scenario) are left out by their content."""
    found = []
    for path in shipped(RESULT_SETS):
        document = load(path)
        if results_kind(document):
            found.append((path, document, results_kind(document)))
    return found


def resolved(kind, node):
    while "$ref" in node and node["$ref"].startswith("#/$defs/"):
        node = schema(kind)["$defs"][node["$ref"][len("#/$defs/"):]]
    return node


def is_annotation(node):
    return node.get("$ref") in {f"#/$defs/{name}" for name in ANNOTATIONS}


def unwritten(kind, document, also=(), node=None, path="$"):
    """The paths of what today's writers always write that `document` lacks: every member its schema defines, but
    the annotations and those of WRITTEN_WHERE_THEY_APPLY not named in `also`. Of kind results, scaling points only
    (a collection is no writer's)."""
    if node is None:
        node = schema(kind)["$defs"]["scaling_points"] if kind == "results" else schema(kind)
    node = resolved(kind, node)
    missing = []
    if isinstance(document, dict) and "properties" in node:
        for name, child in node["properties"].items():
            if is_annotation(child):
                continue
            if name in document:
                missing += unwritten(kind, document[name], also, child, f"{path}.{name}")
            elif name not in WRITTEN_WHERE_THEY_APPLY or name in also:
                missing.append(f"{path}.{name}")
    elif isinstance(document, list) and "items" in node:
        for i, item in enumerate(document):
            missing += unwritten(kind, item, also, node["items"], f"{path}[{i}]")
    return missing


def tool_environment():
    # Names of topologies and models resolve under the source tree; mpirun runs as root too; and under
    # AddressSanitizer, what Open MPI allocates for good is no leak of ddlrun's (tests/CMakeLists.txt,
    # MPI_TEST_ENVIRONMENT).
    asan = os.environ.get("ASAN_OPTIONS")
    return dict(os.environ, DDLSCALE_DATA_DIR=str(SOURCE), OMPI_ALLOW_RUN_AS_ROOT="1",
                OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", ASAN_OPTIONS=f"{asan}:detect_leaks=0" if asan else "detect_leaks=0")


def ddlcompare(predicted, measured):
    return subprocess.run([sys.executable, str(DDLCOMPARE), str(predicted), str(measured)], capture_output=True,
                          text=True, timeout=60)


def ddlcompare_all(pairs):
    """ddlcompare on each (predicted, measured), several at a time: each is a Python start-up."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        return list(pool.map(lambda pair: ddlcompare(*pair), pairs))


def json_path(path):
    """A path of keys and indices as ddlcompare and jsonschema write it: $.points[0].gpus."""
    return "$" + "".join(f"[{step}]" if isinstance(step, int) else f".{step}" for step in path)


def edited_path(edit):
    """Where an edit's value ends up: its path, or for a rename the new name's."""
    return edit[0][:-1] + (edit[2],) if edit[1] is RENAME else edit[0]


# Bases of the mutations: committed files, as written before results recorded how they were made ("old"), and
# as written today: the results reader's fuzz seed (ddlsim's), and a committed sweep given what ddlrun bench
# writes today.
OLD_POINTS = "analysis/results/2026-11-30-emulated-100mbit/raw/measured-training.json"
OLD_SWEEP = "analysis/results/2026-11-30-emulated-100mbit/raw/measured-2x2-node-ddl.json"
COLLECTION = "analysis/results/2026-11-30-emulated-100mbit/measured.json"


def with_out_of_place_and_baseline(rows):
    return [dict(row, out_of_place={key: row[key] for key in ("time_s", "algbw_Bps", "busbw_Bps", "wrong")},
                 baseline={"library": "MPI", "time_s": 2 * row["time_s"], "algbw_Bps": row["algbw_Bps"] / 2,
                           "busbw_Bps": row["busbw_Bps"] / 2, "wrong": 0})
            for row in rows]


AS_DDLRUN_BENCH_WRITES_IT_TODAY = [
    (("run",), {"tool": "ddlrun", "version": "0.1.0", "commit": "9c41ee6e4423", "transport": "mpi"}),
    (("algorithm",), "ddl"), (("parameters",), {"dims": [2, 2]}), (("label",), "ddl 2x2"), (("hosts",), 2),
    (("ranks_per_host",), 2), (("time_over_ranks",), "mean"), (("rows",), with_out_of_place_and_baseline)]
# name -> (kind, file, the edits that make it)
RESULT_BASES = {
    "points": ("results", RESULTS_SEED, []),
    "old points": ("results", OLD_POINTS, []),
    "sweep": ("collective-sweep", OLD_SWEEP, AS_DDLRUN_BENCH_WRITES_IT_TODAY),
    "old sweep": ("collective-sweep", OLD_SWEEP, []),
    "collection": ("results", COLLECTION, []),
}
POINTS_FIRST = (("results",), lambda parts: parts[-1:] + parts[:-1])  # the collection's scaling points first


def result_base(name):
    return edited(RESULT_BASES[name][1], *RESULT_BASES[name][2])


def result_edited(name, edits):
    return edited(RESULT_BASES[name][1], *RESULT_BASES[name][2], *edits)


# (base, what is wrong, edits, ddlcompare): each must fail its schema. ddlcompare, given the copy and the base
# as its counterpart, must refuse it (exit 2) naming where the last edit was (True) or saying the text given;
# False: ddlcompare does not check that field, and the test fails once it does, so that the table is updated.
RESULTS_INVALID = [
    # A required field removed.
    ("points", "no points", [(("points",), DELETE)], 'expected "points", "rows" or "results"'),
    ("points", "no source", [(("source",), DELETE)], False),
    ("points", "no scenario", [(("scenario",), DELETE)], False),
    ("points", "no model", [(("model",), DELETE)], False),
    ("points", "a point without its GPU count", [(("points", 0, "gpus"), DELETE)], True),
    ("points", "a point without its algorithm", [(("points", 1, "algorithm"), DELETE)], True),
    ("points", "a point without its iteration time", [(("points", 2, "iteration_s"), DELETE)], True),
    ("points", "a point without its configuration", [(("points", 0, "configuration"), DELETE)], False),
    ("points", "a point without its compute time", [(("points", 0, "compute_s"), DELETE)], False),
    ("points", "a point without its efficiency", [(("points", 0, "efficiency"), DELETE)], False),
    ("points", "a point without its collectives", [(("points", 0, "collectives"), DELETE)], False),
    ("points", "a collective without its bytes", [(("points", 1, "collectives", 0, "bytes"), DELETE)], False),
    ("points", "a run without its commit", [(("run", "commit"), DELETE)], True),
    ("old points", "a point without its batch", [(("points", 0, "batch_per_gpu"), DELETE)], False),
    # An unknown field.
    ("points", "a misspelt top-level field", [(("model",), RENAME, "models")], True),
    ("points", "a sweep's rows beside the points", [(("rows",), [])], True),
    ("points", "an unknown field in a point", [(("points", 0, "throughput"), 195.0)], True),
    ("points", "a misspelt field in a point", [(("points", 1, "exposed_comm_s"), RENAME, "exposed_s")], True),
    ("points", "an unknown field in a collective", [(("points", 1, "collectives", 0, "latency_s"), 1e-6)], True),
    ("points", "an unknown field in run", [(("run", "host"), "node0")], True),
    ("points", "an unknown field in parameters", [(("points", 2, "parameters", "stride"), 2)], True),
    ("old points", "an unknown top-level field", [(("cluster",), "emulated")], True),
    # A number out of range.
    ("points", "0 GPUs", [(("points", 0, "gpus"), 0)], True),
    ("points", "2^24 + 1 GPUs", [(("points", 0, "gpus"), (1 << 24) + 1)], True),
    ("points", "0 hosts", [(("points", 1, "hosts"), 0)], True),
    ("points", "0 ranks per host", [(("points", 1, "ranks_per_host"), 0)], True),
    ("points", "an iteration of 0 s", [(("points", 1, "iteration_s"), 0)], True),
    ("points", "an iteration of 2e9 s", [(("points", 1, "iteration_s"), 2e9)], True),
    ("points", "a negative compute time", [(("points", 1, "compute_s"), -1)], True),
    ("points", "a negative batch", [(("points", 1, "batch_per_gpu"), -1)], True),
    ("points", "a batch of 2^24 + 1", [(("points", 1, "batch_per_gpu"), (1 << 24) + 1)], True),
    ("points", "negative images per second", [(("points", 1, "images_per_s"), -1.0)], True),
    ("points", "an efficiency of 2e6", [(("points", 1, "efficiency"), 2e6)], True),
    ("points", "exposed communication of -2e9 s", [(("points", 1, "exposed_comm_s"), -2e9)], True),
    ("points", "a collective of 2^50 + 1 bytes", [(("points", 1, "collectives", 0, "bytes"), (1 << 50) + 1)], True),
    ("points", "a negative collective time", [(("points", 1, "collectives", 0, "time_s"), -1e-3)], True),
    ("points", "a busbw of 2e18 B/s", [(("points", 1, "collectives", 0, "busbw_Bps"), 2e18)], True),
    ("points", "a compute scale of 0", [(("run", "compute_scale"), 0)], True),
    ("points", "a grid size of 0", [(("points", 2, "parameters", "dims", 0), 0)], True),
    ("points", "a chunk of 0 bytes", [(("points", 2, "parameters", "chunk_bytes"), 0)], True),
    # A value of the wrong type or shape.
    ("points", "GPUs as a string", [(("points", 0, "gpus"), "1")], True),
    ("points", "a fraction of a GPU", [(("points", 2, "gpus"), 8.5)], True),
    ("points", "an iteration time as a string", [(("points", 0, "iteration_s"), "0.16")], True),
    ("points", "points as an object", [(("points",), {})], True),
    ("points", "a point that is not an object", [(("points", 0), [])], True),
    ("points", "collectives as an object", [(("points", 0, "collectives"), {})], True),
    ("points", "run as a string", [(("run",), "ddlsim")], True),
    ("points", "parameters as a list", [(("points", 0, "parameters"), [1])], True),
    ("points", "a label that is not a string", [(("points", 0, "label"), 1)], True),
    ("points", "a model that is not a string", [(("model",), ["resnet50"])], True),
    ("points", "the source as a number", [(("source",), 1)], True),
    ("points", "dims as a string", [(("points", 2, "parameters", "dims"), "4x2")], True),
    ("points", "a note that is not a string", [(("points", 0, "note"), 1)], True),

    ("collection", "a scaling-points field in a collection", [(("model",), "resnet50")], True),
    ("collection", "results as an object", [(("results",), {})], True),
    ("collection", "a document that is not an object", [(("results", 0), [])], True),
    ("collection", "a document of neither points nor rows", [(("results", 0), {"row": []})], True),
    ("collection", "a sweep's row without its time", [(("results", 0, "rows", 0, "time_s"), DELETE)], True),
    ("collection", "scaling points of 0 GPUs", [POINTS_FIRST, (("results", 0, "points", 0, "gpus"), 0)], True),
    ("collection", "a nested collection with an unknown field",
     [(("results",), lambda parts: [{"results": parts, "merged": True}])], True),

    ("sweep", "no rows", [(("rows",), DELETE)], 'expected "points", "rows" or "results"'),
    ("sweep", "no collective", [(("collective",), DELETE)], True),
    ("sweep", "no algorithm", [(("algorithm",), DELETE)], True),
    ("sweep", "no ranks", [(("ranks",), DELETE)], True),
    ("sweep", "no type", [(("type",), DELETE)], False),
    ("sweep", "no configuration", [(("configuration",), DELETE)], False),
    ("sweep", "a row without its bytes", [(("rows", 0, "bytes"), DELETE)], True),
    ("sweep", "a row without its time", [(("rows", 1, "time_s"), DELETE)], True),
    ("sweep", "a row without its count", [(("rows", 1, "count"), DELETE)], False),
    ("sweep", "an out-of-place run without its time", [(("rows", 0, "out_of_place", "time_s"), DELETE)], False),
    ("sweep", "a baseline without its library", [(("rows", 0, "baseline", "library"), DELETE)], False),
    ("sweep", "a run without its transport", [(("run", "transport"), DELETE)], True),
    ("old sweep", "no source", [(("source",), DELETE)], False),
    ("sweep", "a misspelt top-level field", [(("ranks",), RENAME, "rank")], True),
    ("sweep", "a scaling point's field in a sweep", [(("gpus",), 4)], True),
    ("sweep", "an unknown field in a row", [(("rows", 0, "size"), 1024)], True),
    ("sweep", "an unknown field in an out-of-place run", [(("rows", 0, "out_of_place", "bytes"), 1024)], True),
    ("sweep", "an unknown field in a baseline", [(("rows", 0, "baseline", "algorithm"), "ring")], True),
    ("sweep", "an unknown field in run", [(("run", "compute"), 1)], True),
    ("sweep", "0 ranks", [(("ranks",), 0)], True),
    ("sweep", "2^24 + 1 ranks", [(("ranks",), (1 << 24) + 1)], True),
    ("sweep", "0 hosts", [(("hosts",), 0)], True),
    ("sweep", "a negative size", [(("rows", 0, "bytes"), -1)], True),
    ("sweep", "a size of 2^50 + 1 bytes", [(("rows", 0, "bytes"), (1 << 50) + 1)], True),
    ("sweep", "a row of 0 s", [(("rows", 0, "time_s"), 0)], True),
    ("sweep", "a row of 2e9 s", [(("rows", 0, "time_s"), 2e9)], True),
    ("sweep", "a negative algbw", [(("rows", 0, "algbw_Bps"), -1.0)], True),
    ("sweep", "a negative count", [(("rows", 0, "count"), -1)], True),
    ("sweep", "a count of 2^50 + 1", [(("rows", 0, "count"), (1 << 50) + 1)], True),
    ("sweep", "a negative number wrong", [(("rows", 0, "wrong"), -1)], True),
    ("sweep", "a negative out-of-place time", [(("rows", 0, "out_of_place", "time_s"), -1.0)], True),
    ("sweep", "a baseline busbw of 2e18 B/s", [(("rows", 0, "baseline", "busbw_Bps"), 2e18)], True),
    ("sweep", "ranks as a string", [(("ranks",), "4")], True),
    ("sweep", "rows as an object", [(("rows",), {})], True),
    ("sweep", "a row that is not an object", [(("rows", 0), 1048576)], True),
    ("sweep", "a fraction of a byte", [(("rows", 0, "bytes"), 1048576.5)], True),
    ("sweep", "wrong as a fraction", [(("rows", 0, "wrong"), 0.5)], True),
    ("sweep", "out_of_place as a number", [(("rows", 0, "out_of_place"), 0.1)], True),
    ("sweep", "a baseline as a list", [(("rows", 0, "baseline"), [])], True),
    ("sweep", "a collective that is not a string", [(("collective",), 1)], True),
    ("sweep", "a type that is not a string", [(("type",), 4)], True),
    ("sweep", "a label that is not a string", [(("label",), ["ddl", "2x2"])], True),
    ("sweep", "parameters as a string", [(("parameters",), "2x2")], True),
    ("sweep", "a library that is not a string", [(("rows", 0, "baseline", "library"), 1)], True),
    ("old sweep", "an algorithm that is not a string", [(("algorithm",), 2)], True),
]

# (base, what it shows, edits, ddlcompare): each at an edge of what the readers accept; the schema must accept it,
# and ddlcompare, given it as both files, must read it (True) or, where it refuses what the schema accepts, refuse
# it saying the text given (the differences the schemas' descriptions list).
RESULTS_VALID = [
    ("points", "bounds of the figures",
     [(("points", 0, "iteration_s"), 1e9), (("points", 1, "iteration_s"), 1e-12), (("points", 0, "compute_s"), 0),
      (("points", 0, "efficiency"), 1e6), (("points", 1, "exposed_comm_s"), -1e9),
      (("points", 2, "images_per_s"), 1e18),
      (("points", 0, "batch_per_gpu"), 0), (("points", 2, "batch_per_gpu"), 1 << 24),
      (("points", 1, "collectives", 0, "bytes"), 1 << 50), (("points", 1, "collectives", 1, "time_s"), 1e9),
      (("points", 1, "collectives", 1, "algbw_Bps"), 1e18)], True),
    ("points", "bounds of the counts, the run and the parameters",
     [(("points", 2, "gpus"), 1 << 24), (("points", 2, "hosts"), 1 << 24), (("points", 2, "ranks_per_host"), 1),
      (("points", 2, "parameters"), {"dims": [65536, 1], "ranks_per_node": 65536, "inner": "double-binary-tree",
                                     "chunk_bytes": 1 << 40}),
      (("run", "compute_scale"), 1e-6), (("run", "precision"), "16-bit")], True),
    ("points", "no topology, run or provenance, integers for numbers, and annotations anywhere",
     [(("topology",), DELETE), (("run",), DELETE), (("points", 0, "hosts"), DELETE), (("points", 0, "label"), DELETE),
      (("points", 0, "parameters"), DELETE), (("points", 0, "ranks_per_host"), DELETE),
      (("points", 1, "collectives", 0, "bytes"), 30257056), (("points", 1, "note"), "a remark"),
      (("points", 1, "collectives", 0, "source"), "a measurement"),
      (("points", 2, "parameters", "confidence"), "derived"),
      (("sources",), {"iteration_s": "simulated"}), (("description",), "three points")], True),
    ("collection", "a collection nested in a collection, annotated",
     [(("results",), lambda parts: [{"results": parts[:3], "note": "2 nodes"}] + parts[3:]),
      (("description",), "the measurements")], True),
    ("sweep", "bounds of the rows",
     [(("rows", 0, "time_s"), 1e-12), (("rows", 1, "time_s"), 1e9), (("rows", 2, "bytes"), 1 << 50),
      (("rows", 2, "count"), 1 << 50), (("rows", 0, "out_of_place", "time_s"), 0), (("rows", 1, "busbw_Bps"), 1e18),
      (("rows", 3, "bytes"), 0), (("rows", 3, "count"), 0), (("ranks",), 1 << 24), (("hosts",), 1 << 24)], True),
    ("sweep", "what ddlsim collective writes: no wrong, out-of-place run or baseline",
     [(("rows",), lambda rows: [{key: row[key] for key in ("bytes", "count", "time_s", "algbw_Bps", "busbw_Bps")}
                                for row in rows]),
      (("run", "tool"), "ddlsim"), (("run", "transport"), "simulated"), (("source",), "ddlsim collective")], True),
    ("sweep", "a baseline that came out wrong (compared with nothing)", [(("rows", 0, "baseline", "wrong"), 7)], True),
    ("old sweep", "no provenance, the label in algorithm, annotations",
     [(("note",), "by hand"), (("rows", 0, "confidence"), "measured")], True),
    # ddlcompare refuses what came out wrong, which the schema, describing what ddlrun writes, accepts.
    ("sweep", "a row that came out wrong", [(("rows", 0, "wrong"), 3)], "$.rows[0].wrong: 3 elements came out wrong"),
    ("sweep", "an out-of-place run that came out wrong", [(("rows", 1, "out_of_place", "wrong"), 1)],
     "$.rows[1].out_of_place.wrong: 1 elements came out wrong"),
]


class TheResultsSchemas(TheSchemas):
    """TheSchemas's checks (valid, titled, every property described with its unit, unknown fields refused), on the
    results schemas."""
    KINDS = RESULT_KINDS

    def test_the_definitions_both_results_schemas_hold_are_the_same(self):
        # One reader reads run and parameters in both (algorithms/io/run_description_json.cpp).
        points, sweeps = schema("results")["$defs"], schema("collective-sweep")["$defs"]
        for name in ("run", "parameters", *ANNOTATIONS):
            self.assertEqual(points[name], sweeps[name], name)

    def test_what_is_written_only_where_it_applies_is_defined_by_the_schemas(self):
        defined = set()
        for kind in RESULT_KINDS:
            for node in documented_subschemas(schema(kind)):
                defined |= set(node.get("properties", {}))
        self.assertLessEqual(set(WRITTEN_WHERE_THEY_APPLY), defined)


class EveryCommittedResultMatchesItsSchema(unittest.TestCase):
    def test_every_committed_results_file_matches_its_schema(self):
        found = committed_results()
        self.assertTrue(found, f"no results file matches {RESULT_SETS}: the test would check nothing")
        self.assertEqual({kind for _, _, kind in found}, set(RESULT_KINDS), "the result sets no longer hold both kinds")
        for path, document, kind in found:
            with self.subTest(str(path.relative_to(SOURCE))):
                self.assertEqual(problems(kind, document), [])

    def test_every_committed_tuning_table_matches_its_schema(self):
        found = committed_tuning_tables()
        self.assertTrue(found, f"no tuning table among {RESULT_SETS}: the test would check nothing")
        for path, document in found:
            with self.subTest(str(path.relative_to(SOURCE))):
                self.assertEqual(problems("tuning-table", document), [])

    def test_the_results_readers_fuzz_seeds_match_the_schema_and_hold_what_is_written_today(self):
        seeds = shipped("tests/fuzz/corpus/results_reader/*.json")
        self.assertTrue(seeds)
        for path in seeds:
            with self.subTest(path.name):
                self.assertEqual(problems("results", load(path)), [])
        seed = load(SOURCE / RESULTS_SEED)
        self.assertEqual(unwritten("results", seed, {"topology", "compute_scale", "precision", "compute_precision"}), [])

    def test_the_bases_of_the_mutations_are_as_written_then_and_today(self):
        for name, (kind, _, _) in RESULT_BASES.items():
            with self.subTest(name):
                document = result_base(name)
                self.assertEqual(problems(kind, document), [])
                if name.startswith("old "):
                    self.assertIn("$.run", unwritten(kind, document))
                elif name == "points":
                    self.assertEqual(unwritten(kind, document, {"topology", "compute_scale", "precision", "compute_precision"}), [])
                elif name == "sweep":
                    self.assertEqual(unwritten(kind, document, {"wrong", "out_of_place", "baseline"}), [])

    def test_the_command_line_check_the_schemas_readme_gives_resolves_the_sweeps_schema(self):
        command = [sys.executable, "-m", "jsonschema", "--base-uri", (SCHEMAS / "results.schema.json").as_uri(),
                   "-i", str(SOURCE / COLLECTION), str(SCHEMAS / "results.schema.json")]
        checked = subprocess.run(command, capture_output=True, text=True, timeout=60)
        self.assertEqual(checked.returncode, 0, checked.stderr[-500:])
        self.assertIn("--base-uri", (SCHEMAS / "README.md").read_text(encoding="utf-8"))


@unittest.skipUnless(DDLSIM and DDLSIM.is_file() and DDLRUN and DDLRUN.is_file(),
                     "no BUILD_DIR with sim/ddlsim and runtime/ddlrun given")
class TheResultsTheToolsWriteMatchTheSchemas(unittest.TestCase):
    """Each tool's --json, written now, matches its schema, holds everything today's writers write, and ddlcompare
    reads it."""
    # name -> (kind, command with {scenario} and {out}, what it writes of WRITTEN_WHERE_THEY_APPLY, run's tool
    # and transport)
    WRITERS = {
        "ddlsim SCENARIO": ("results", ["{ddlsim}", "{scenario}", "--json", "--out", "{out}"],
                            {"topology", "compute_scale", "precision", "compute_precision", "engine"}, ("ddlsim", "simulated")),
        # The same with every effect sourced, each sampled from its prior.
        "ddlsim SCENARIO --samples": ("results", ["{ddlsim}", "{uncertain}", "--samples", "5", "--json", "--out", "{out}"],
                                      {"topology", "compute_scale", "precision", "compute_precision", "engine", "effects",
                                       "compute_jitter", "gpu_speed_spread", "overlap_slowdown", "allreduce_overhead_s",
                                       "iteration_overhead_s", "seed", "samples", "iteration_s_p05", "iteration_s_p50",
                                       "iteration_s_p95", "images_per_s_p05", "images_per_s_p50", "images_per_s_p95",
                                       "efficiency_p05", "efficiency_p50", "efficiency_p95"}, ("ddlsim", "simulated")),
        "ddlsim collective": ("collective-sweep",
                              ["{ddlsim}", "collective", "--algorithm", "ddl", "--dims", "2x2", "--topology",
                               "minsky-p100-ib-edr", "--gpus", "4", "-b", "1M", "-e", "4M", "--json", "--out", "{out}"],
                              {"engine"}, ("ddlsim", "simulated")),
        "ddlsim collective --protocol": ("collective-sweep",
                                         ["{ddlsim}", "collective", "--algorithm", "nccl-ring", "--channels", "2",
                                          "--ranks-per-node", "4", "--protocol", "ll128", "--topology", "dgx-a100-hdr",
                                          "--gpus", "8", "-b", "1K", "-e", "1M", "-f", "32", "--json", "--out", "{out}"],
                                         {"engine", "protocol", "channels", "ranks_per_node"}, ("ddlsim", "simulated")),
        "ddlsim collective --algorithm nccl": ("collective-sweep",
                                               ["{ddlsim}", "collective", "--algorithm", "nccl", "--topology", "dgx-a100-hdr",
                                                "--gpus", "16", "-b", "1K", "-e", "1G", "-f", "1024", "--json", "--out", "{out}"],
                                               {"engine", "chosen"}, ("ddlsim", "simulated")),
        "ddlsim collective, auto": ("collective-sweep",
                                    ["{ddlsim}", "collective", "--algorithm", "auto", "--tuning", str(SOURCE / TUNING),
                                     "--topology", "flat-h200-edr", "--gpus", "4", "-b", "1K", "-e", "1M", "-f", "32", "--json",
                                     "--out", "{out}"],
                                    {"engine", "chosen"}, ("ddlsim", "simulated")),
        "ddlrun bench, threads": ("collective-sweep",
                                  ["{ddlrun}", "bench", "--transport", "threads", "--ranks", "4", "--algorithm", "ring",
                                   "-b", "1K", "-e", "64K", "--json", "--out", "{out}"],
                                  {"wrong", "out_of_place"}, ("ddlrun", "threads")),
        "ddlrun bench, MPI with a baseline": ("collective-sweep",
                                              ["mpirun", "--oversubscribe", "-np", "2", "{ddlrun}", "bench",
                                               "--algorithm", "ring", "-b", "1K", "-e", "4K", "--baseline", "mpi",
                                               "--json", "--out", "{out}"],
                                              {"wrong", "out_of_place", "baseline"}, ("ddlrun", "mpi")),
        "ddlrun train": ("results",
                         ["{ddlrun}", "train", "{scenario}", "--transport", "threads", "--ranks", "2",
                          "--compute-scale", "0.01", "-n", "2", "-w", "1", "--json", "--out", "{out}"],
                         {"compute_scale", "precision", "measured_effects"}, ("ddlrun", "threads")),
    }

    @classmethod
    def setUpClass(cls):
        cls.directory = tempfile.TemporaryDirectory()
        directory = pathlib.Path(cls.directory.name)
        # The PowerAI DDL scenario cut down to 1 and 8 GPUs and two algorithms (without its published figures and
        # citations): a second to simulate, a few to run.
        scenario = {key: value for key, value in load(SOURCE / SCENARIO).items()
                    if key in ("name", "topology", "model", "gpu", "batch_per_gpu", "bucket_bytes", "placement")}
        scenario["gpus"] = [1, 8]
        scenario["algorithms"] = [{"name": "ddl", "dims": "topology"},
                                  {"name": "hierarchical", "ranks_per_node": "node", "inner": "ring"}]
        (directory / "scenario.json").write_text(json.dumps(scenario, indent=1))
        effects = {key: "sourced" for key in ("compute_jitter", "gpu_speed_spread", "overlap_slowdown", "allreduce_overhead_s",
                                              "iteration_overhead_s")}
        (directory / "uncertain.json").write_text(json.dumps({**scenario, "effects": effects}, indent=1))
        cls.written = {}
        for number, (name, (_, command, _, _)) in enumerate(cls.WRITERS.items()):
            out = directory / f"written-{number}.json"
            if command[0] == "mpirun" and not shutil.which("mpirun"):
                cls.written[name] = (None, out)
                continue
            arguments = [part.format(ddlsim=DDLSIM, ddlrun=DDLRUN, scenario=directory / "scenario.json",
                                     uncertain=directory / "uncertain.json", out=out)
                         for part in command]
            cls.written[name] = (subprocess.run(arguments, capture_output=True, text=True, timeout=120,
                                                env=tool_environment(), cwd=directory), out)

    @classmethod
    def tearDownClass(cls):
        cls.directory.cleanup()

    def check(self, name):
        kind, _, also, (tool, transport) = self.WRITERS[name]
        result, out = self.written[name]
        if result is None:
            self.skipTest("no mpirun")
        self.assertEqual(result.returncode, 0, f"{name}: {result.stderr.strip()[-500:]}")
        document = load(out)
        self.assertEqual(results_kind(document), kind)
        self.assertEqual(problems(kind, document), [])
        self.assertEqual(unwritten(kind, document, also), [], f"{name} leaves out what today's writers write")
        self.assertEqual((document["run"]["tool"], document["run"]["transport"]), (tool, transport))
        read = ddlcompare(out, out)
        self.assertEqual(read.returncode, 0, f"ddlcompare refuses what {name} writes: {read.stderr.strip()[:300]}")
        return document

    def check_points(self, document):
        for point in document["points"]:
            with self.subTest(point["label"]):
                self.assertTrue(point["label"].startswith(point["algorithm"]))
                if point["algorithm"] == "ddl":
                    self.assertEqual(math.prod(point["parameters"]["dims"]), point["gpus"])
                else:
                    self.assertEqual(sorted(point["parameters"]), ["inner", "ranks_per_node"])
                self.assertLessEqual(point["ranks_per_host"], point["gpus"])
                self.assertGreaterEqual(point["ranks_per_host"] * point["hosts"], point["gpus"])

    def test_ddlsim_scenario(self):
        document = self.check("ddlsim SCENARIO")
        self.assertEqual(sorted(point["gpus"] for point in document["points"]), [1, 1, 8, 8])
        self.check_points(document)

    def test_ddlsim_scenario_with_samples(self):
        document = self.check("ddlsim SCENARIO --samples")
        self.check_points(document)
        self.assertTrue(all(point["samples"] == 5 for point in document["points"]))

    def test_ddlsim_collective(self):
        document = self.check("ddlsim collective")
        self.assertEqual((document["label"], document["parameters"]), ("ddl 2x2", {"dims": [2, 2]}))
        self.assertEqual([row["bytes"] for row in document["rows"]], [1 << 20, 1 << 21, 1 << 22])

    def test_ddlsim_collective_under_a_protocol(self):
        document = self.check("ddlsim collective --protocol")
        self.assertEqual((document["protocol"], document["label"]), ("ll128", "nccl-ring 2 channels, 4 per node"))

    def test_ddlsim_collective_as_nccl_chooses(self):
        document = self.check("ddlsim collective --algorithm nccl")
        self.assertEqual((document["algorithm"], document["label"]), ("nccl", "nccl"))
        self.assertEqual([row["chosen"].split(" ")[0] for row in document["rows"]], ["nccl-tree", "nccl-tree", "nccl-ring"])

    def test_ddlsim_collective_with_a_tuning_table(self):
        document = self.check("ddlsim collective, auto")
        table = load(SOURCE / TUNING)
        self.assertEqual((document["algorithm"], document["label"]), ("auto", "auto"))
        self.assertEqual([row["chosen"] for row in document["rows"]], [row["best"] for row in table["rows"]])

    def test_ddlrun_bench_over_threads(self):
        document = self.check("ddlrun bench, threads")
        self.assertEqual((document["ranks"], document["parameters"]), (4, {}))
        self.assertTrue(all(row["wrong"] == 0 and row["out_of_place"]["wrong"] == 0 for row in document["rows"]))

    def test_ddlrun_bench_over_mpi_with_a_baseline(self):
        document = self.check("ddlrun bench, MPI with a baseline")
        self.assertTrue(all(row["baseline"]["library"] == "MPI" for row in document["rows"]))

    def test_ddlrun_train(self):
        document = self.check("ddlrun train")
        self.assertNotIn("topology", document)
        self.assertEqual(document["run"]["compute_scale"], 0.01)
        self.assertEqual(sorted(point["gpus"] for point in document["points"]), [2, 2])
        self.check_points(document)


class TheResultsSchemasAreNotVacuous(unittest.TestCase):
    def test_every_mutated_copy_of_a_results_file_fails_its_schema(self):
        for base, what, edits, _ in RESULTS_INVALID:
            with self.subTest(f"{base}: {what}"):
                kind = RESULT_BASES[base][0]
                self.assertNotEqual(problems(kind, result_edited(base, edits)), [], f"the {kind} schema accepts {what}")

    def test_each_is_refused_a_required_field_an_unknown_field_a_number_out_of_range_and_a_wrong_type(self):
        for kind in RESULT_KINDS:
            errors = set()
            for base, what, edits, _ in RESULTS_INVALID:
                if RESULT_BASES[base][0] == kind:
                    for error in validator(kind).iter_errors(result_edited(base, edits)):
                        errors.add(error.validator)
            for keyword in ("required", "additionalProperties", "type"):
                self.assertIn(keyword, errors, kind)
            self.assertTrue(errors & {"minimum", "maximum"}, f"{kind}: no number out of range")

    def test_the_copies_at_the_edges_of_the_ranges_match_their_schema(self):
        for base, what, edits, _ in RESULTS_VALID:
            with self.subTest(f"{base}: {what}"):
                self.assertEqual(problems(RESULT_BASES[base][0], result_edited(base, edits)), [])

    def test_ddlcompare_refuses_every_copy_the_schemas_refuse_where_it_checks_the_field(self):
        with tempfile.TemporaryDirectory() as directory:
            bases = {}
            for name in RESULT_BASES:
                bases[name] = pathlib.Path(directory, f"{name.replace(' ', '-')}.json")
                bases[name].write_text(json.dumps(result_base(name), indent=1))
            pairs = []
            for number, (base, what, edits, _) in enumerate(RESULTS_INVALID):
                path = pathlib.Path(directory, f"invalid-{number}.json")
                path.write_text(json.dumps(result_edited(base, edits), indent=1))
                pairs.append((path, bases[base]))
            for (base, what, edits, checked), result in zip(RESULTS_INVALID, ddlcompare_all(pairs)):
                with self.subTest(f"{base}: {what}"):
                    said = checked if isinstance(checked, str) else json_path(edited_path(edits[-1]))
                    refused = result.returncode == 2 and said in result.stderr
                    if checked:
                        self.assertTrue(refused, f"ddlcompare should refuse {what}, naming {said}: exit "
                                                 f"{result.returncode}, {result.stderr.strip()[:300]}")
                        self.assertTrue(result.stderr.startswith("ddlcompare: "), result.stderr)
                    else:
                        self.assertFalse(refused, f"ddlcompare now refuses {what}: mark the case checked, and drop "
                                                  "the difference from the schema's description")

    def test_ddlcompare_reads_every_copy_the_schemas_accept_but_those_it_knowingly_refuses(self):
        with tempfile.TemporaryDirectory() as directory:
            pairs = []
            for number, (base, what, edits, _) in enumerate(RESULTS_VALID):
                path = pathlib.Path(directory, f"valid-{number}.json")
                path.write_text(json.dumps(result_edited(base, edits), indent=1))
                pairs.append((path, path))
            for (base, what, edits, reads), result in zip(RESULTS_VALID, ddlcompare_all(pairs)):
                with self.subTest(f"{base}: {what}"):
                    if reads is True:
                        self.assertEqual(result.returncode, 0, f"{what}: {result.stderr.strip()[:300]}")
                    else:
                        self.assertEqual(result.returncode, 2, what)
                        self.assertIn(reads, result.stderr)


class TheReadmeNamesEveryResultsField(unittest.TestCase):
    def test_the_results_section_names_every_property_of_both_results_schemas(self):
        readme, title = RESULTS_README
        text = markdown_section(SOURCE / readme, title)
        self.assertIsNotNone(text, f"{readme} has no section '{title}'")
        for kind, objects in RESULT_OBJECTS.items():
            for name in objects:
                node = schema(kind) if name is None else schema(kind)["$defs"][name]
                with self.subTest(f"{kind}: {name or 'the top level'}"):
                    missing = [field for field in node["properties"]
                               if not re.search(r'["`]' + re.escape(field) + r'["`]', text)]
                    self.assertEqual(missing, [], f"{readme}, section '{title}', does not name these fields")


if __name__ == "__main__":
    unittest.main()
