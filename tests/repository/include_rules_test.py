#!/usr/bin/python3
"""The include rules of docs/DESIGN.md ("Folders"), held to every C++ and CUDA file of the repository.

A file belongs to its folder (runtime/mpi, algorithms/schedule, sim, ...); a file that defines main() is a
program, a node of its own above its folder, since nothing includes it. Between folders:

- the top folders include only the ones DESIGN.md lets them depend on (common/ at the ground, no module
  reaching into algorithms/ for basics, sim/ and runtime/ never into each other);
- inside runtime/, the core (runtime/*.hpp: Transport, World, RankContext) includes no transport, the
  transports include neither launch/ nor the subcommands, and launch/ no subcommand;
- inside sim/, the wings are layers too: the engine interface, then the two engines, then the table of
  engines, then the sweep and calibration, then the command line; the step engine (and its fluid solver)
  never includes a file of SimGrid's engine nor a SimGrid header, and neither does the interface;
- no folder is on a cycle of includes, anywhere;
- algorithms/ outside its io/ module, and common/'s standard-library part, include no library header.

Usage: include_rules_test.py SOURCE_DIR
"""
import collections
import pathlib
import re
import subprocess
import sys
import unittest

SOURCE = pathlib.Path(sys.argv.pop(1) if len(sys.argv) > 1 else ".").resolve()
SUFFIXES = (".hpp", ".cpp", ".h", ".cu", ".cuh")
PROJECT_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
SYSTEM_INCLUDE = re.compile(r"^\s*#\s*include\s+<([^>]+)>", re.M)
DEFINES_MAIN = re.compile(r"^\s*int\s+main\s*\(", re.M)

# What each top folder may include, besides itself (docs/DESIGN.md, "Folders"). tests/ may include anything.
ALLOWED = {
    "common": set(),
    "algorithms": {"common"},
    "topologies": {"common"},
    "models": {"common", "algorithms"},
    "scenarios": {"common", "algorithms", "models", "topologies"},
    "sim": {"common", "algorithms", "models", "topologies", "scenarios"},
    "runtime": {"common", "algorithms", "models", "topologies", "scenarios"},
}

# runtime/'s layers, lowest first: a folder includes only folders of its own layer or lower ones.
RUNTIME_LAYERS = [
    {"runtime", "runtime/compute"},
    {"runtime/mpi", "runtime/in_process", "runtime/tcp", "runtime/cuda"},
    {"runtime/cuda_peer", "runtime/nccl"},
    {"runtime/launch"},
    {"runtime/bench"},
    {"runtime/train"},
    {"runtime/library"},
    {"runtime/pytorch"},
]

# sim/'s wings, lowest first (sim/README.md): a folder includes only folders of its own layer or lower ones,
# and the two engines, on one layer, never each other.
SIM_LAYERS = [
    {"sim/engine", "sim/step/fluid"},
    {"sim/simgrid", "sim/step"},
    {"sim"},
    {"sim/sweep", "sim/calibration"},
    {"sim/cli"},
]
# Folders that must not see SimGrid: the interface both engines implement, and the engine without it.
WITHOUT_SIMGRID = ("sim/engine", "sim/step", "sim/step/fluid")

# Headers of libraries: what a standard-library-only module must not include.
LIBRARY_HEADER = re.compile(r"^(nlohmann/|CLI/|simgrid/|mpi\.h|cuda|nccl|gtest/|torch/)")
STANDARD_LIBRARY_ONLY = ("algorithms/collectives", "algorithms/cost", "algorithms/execution", "algorithms/schedule", "algorithms/tuning",
                         "algorithms/training", "algorithms/verify")
# common/'s files that read JSON, check CLI11 options or compare MPI ranks' command lines (their own CMake
# targets, ddl_common_json, ddl_common_cli and ddl_common_mpi); the rest of common/ is what algorithms/
# links, so it stays standard-library only.
COMMON_WITH_LIBRARIES = {"common/json_reader.hpp", "common/json_reader.cpp", "common/cli_checks.hpp",
                         "common/cli_checks.cpp", "common/mpi_command_line.hpp", "common/mpi_command_line.cpp"}


def source_files():
    listing = subprocess.run(["git", "-C", str(SOURCE), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                             capture_output=True, check=True)
    names = sorted(set(name for name in listing.stdout.decode().split("\0") if name.endswith(SUFFIXES)))
    return [name for name in names if (SOURCE / name).is_file()]


def folder_of(path):
    return str(pathlib.PurePosixPath(path).parent)


def top_of(folder):
    return folder.split("/")[0]


def node_of(path, text):
    return f"{path} (program)" if DEFINES_MAIN.search(text) else folder_of(path)


class IncludeGraph:
    def __init__(self):
        self.texts = {path: (SOURCE / path).read_text(errors="replace") for path in source_files()}
        # (including file, included file) for every project include that resolves to a file here.
        self.includes = []
        for path, text in self.texts.items():
            for included in PROJECT_INCLUDE.findall(text):
                if (SOURCE / included).is_file():
                    self.includes.append((path, included))
                elif (SOURCE / folder_of(path) / included).is_file():
                    self.includes.append((path, f"{folder_of(path)}/{included}"))

    def edges(self):
        """Folder-level edges (node, node) -> an example include, for messages."""
        edges = {}
        for path, included in self.includes:
            source, target = node_of(path, self.texts[path]), folder_of(included)
            if source != target:
                edges.setdefault((source, target), f"{path} includes {included}")
        return edges


GRAPH = IncludeGraph()


def cycles(edges):
    """Strongly connected components of more than one node (Tarjan), as sorted lists."""
    successors = collections.defaultdict(list)
    for source, target in edges:
        successors[source].append(target)
    index, low, on_stack, stack, found = {}, {}, set(), [], []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for next_node in successors[node]:
            if next_node not in index:
                visit(next_node)
                low[node] = min(low[node], low[next_node])
            elif next_node in on_stack:
                low[node] = min(low[node], index[next_node])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in list(successors):
        if node not in index:
            visit(node)
    return found


def layer_of(folder, layers):
    for level, layer in enumerate(layers):
        if folder in layer:
            return level
    return None


def runtime_layer(folder):
    return layer_of(folder, RUNTIME_LAYERS)


class IncludeRules(unittest.TestCase):
    def test_the_graph_is_read(self):
        # A guard against a test that passes because it reads nothing.
        self.assertGreater(len(GRAPH.texts), 200)
        self.assertGreater(len(GRAPH.includes), 400)

    def test_top_folders_include_only_what_the_design_allows(self):
        broken = []
        for (source, target), example in GRAPH.edges().items():
            top, target_top = top_of(source), top_of(target)
            if top == "tests" or top == target_top:
                continue
            if target_top == "tests":
                broken.append(f"{example}: only tests include tests/")
            elif top in ALLOWED and target_top not in ALLOWED[top]:
                broken.append(f"{example}: {top}/ may include only {sorted(ALLOWED[top]) or 'the standard library'}")
        self.assertEqual(broken, [])

    def test_no_folder_is_on_an_include_cycle(self):
        edges = GRAPH.edges()
        found = []
        for component in cycles(edges):
            members = set(component)
            examples = [example for (source, target), example in edges.items() if source in members and target in members]
            found.append(f"{' <-> '.join(component)}: {'; '.join(sorted(examples))}")
        self.assertEqual(found, [])

    def test_runtime_layers_include_only_lower_ones(self):
        broken = []
        for (source, target), example in GRAPH.edges().items():
            if not (source.startswith("runtime") and target.startswith("runtime")) or source.endswith("(program)"):
                continue
            source_level, target_level = runtime_layer(source), runtime_layer(target)
            if source_level is None or target_level is None:
                if "emulated_cluster" not in source + target:
                    broken.append(f"{example}: {source if source_level is None else target} is in no layer of RUNTIME_LAYERS")
            elif target_level > source_level:
                broken.append(f"{example}: {source} is below {target}")
        self.assertEqual(broken, [])

    def test_sim_wings_include_only_lower_ones(self):
        broken = []
        for (source, target), example in GRAPH.edges().items():
            if top_of(source) != "sim" or top_of(target) != "sim" or source.endswith("(program)"):
                continue
            source_level, target_level = layer_of(source, SIM_LAYERS), layer_of(target, SIM_LAYERS)
            if source_level is None or target_level is None:
                broken.append(f"{example}: {source if source_level is None else target} is in no layer of SIM_LAYERS")
            elif target_level > source_level:
                broken.append(f"{example}: {source} is below {target}")
            elif {source, target} == {"sim/simgrid", "sim/step"}:
                broken.append(f"{example}: the two engines never include each other")
        self.assertEqual(broken, [])

    def test_the_step_engine_and_the_interface_never_see_simgrid(self):
        broken = []
        for path, included in GRAPH.includes:
            if folder_of(path) in WITHOUT_SIMGRID and folder_of(included).startswith("sim/simgrid"):
                broken.append(f"{path} includes {included}")
        for path, text in GRAPH.texts.items():
            if folder_of(path) in WITHOUT_SIMGRID:
                broken += [f"{path} includes <{header}>" for header in SYSTEM_INCLUDE.findall(text) if header.startswith("simgrid")]
        self.assertEqual(broken, [])

    def test_standard_library_modules_include_no_library_header(self):
        broken = []
        for path, text in GRAPH.texts.items():
            folder = folder_of(path)
            std_only = folder in STANDARD_LIBRARY_ONLY or (folder == "common" and path not in COMMON_WITH_LIBRARIES)
            if not std_only:
                continue
            for header in SYSTEM_INCLUDE.findall(text):
                if LIBRARY_HEADER.match(header):
                    broken.append(f"{path} includes <{header}>")
        self.assertEqual(broken, [])

    def test_the_rules_catch_a_cycle(self):
        # The cycle finder itself, on the shape runtime/ once had: cuda/ and nccl/ including each other.
        self.assertEqual(cycles({("runtime/cuda", "runtime/nccl"): "", ("runtime/nccl", "runtime/cuda"): "",
                                 ("runtime/nccl", "runtime"): ""}), [["runtime/cuda", "runtime/nccl"]])


if __name__ == "__main__":
    unittest.main()
