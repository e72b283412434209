"""The look every ddlscale plot shares: one fixed colour and marker per algorithm, byte and time tick labels,
figures written whole, what the ranks are and whether the results came from a dirty tree. Finding a Python
that has matplotlib is analysis/interpreter.py's.

analysis/plot_scaling and analysis/ddlcompare --plot (and through plot_scaling, ddlsim SCENARIO --plot) draw
with these, so ring is the same blue, ddl the same red, in every picture the project makes. The names are
`ddlsim algorithms --names`; reduce-scatter and all-gather are collectives of the algorithm ring and take its
colour (their panels say which collective). A name not listed gets a colour of its own, the same one every time
(chosen from its letters, not at random), from a second palette that none of the listed names uses.

Nothing here imports matplotlib at load time: a tool imports this module before it knows it can draw.
"""
import math
import os
import tempfile
import zlib

ALGORITHM_COLOURS = {
    "ring": "#1f77b4",                # blue
    "ddl": "#d62728",                 # red
    "halving-doubling": "#2ca02c",    # green
    "recursive-doubling": "#9467bd",  # purple
    "binomial-tree": "#8c564b",       # brown
    "double-binary-tree": "#e377c2",  # pink
    "torus-2d": "#17becf",            # cyan
    "hierarchical": "#ff7f0e",        # orange
    "nccl-ring": "#76b900",           # lime
    "nccl-tree": "#3b5e00",           # dark olive
    "nccl-nvls": "#00a087",           # teal
    "nccl-nvls-tree": "#005f73",      # dark teal
}
ALGORITHM_MARKERS = {
    "ring": "o",
    "ddl": "s",
    "halving-doubling": "^",
    "recursive-doubling": "v",
    "binomial-tree": "<",
    "double-binary-tree": ">",
    "torus-2d": "p",
    "hierarchical": "h",
    "nccl-ring": "D",
    "nccl-tree": "*",
    "nccl-nvls": "X",
    "nccl-nvls-tree": "P",
}
# For names outside the table: tones apart from the table's, and from the greys and black below.
FALLBACK_COLOURS = ("#393b79", "#637939", "#bcbd22", "#8c6d31", "#e7ba52", "#843c39", "#7b4173", "#b5cf6b")
FALLBACK_MARKER = "o"
# The second, third... series of one algorithm in one panel (two ddl entries of a scenario): the same colour,
# another marker and line.
VARIANT_MARKERS = ("D", "P", "X", "8", "d")
VARIANT_LINES = ("-", "-.", ":", (0, (5, 1, 1, 1)), (0, (1, 1)))

IDEAL_COLOUR = "#9a9a9a"  # ideal linear scaling, the 100% line
ZERO_COLOUR = "#303030"   # the zero line of an error panel
PUBLISHED_COLOUR = "black"
PUBLISHED_MARKERS = ("*", "P", "X", "D", "p")  # one per published point, in the scenario's order


def algorithm_name(label):
    """The algorithm a label names: "ddl 4x16x4" -> "ddl", "hierarchical 4 per node, inner ring" ->
    "hierarchical"; a label that is a name is itself. (Files from before "label" existed carry the label in
    "algorithm".)"""
    label = label.strip()
    if label in ALGORITHM_COLOURS:
        return label
    for name in sorted(ALGORITHM_COLOURS, key=len, reverse=True):
        if label.startswith(name + " "):
            return name
    return label.split(" ", 1)[0] if label else label


def colour(name):
    """The fixed colour of an algorithm (a name or a label), as a #rrggbb string."""
    name = algorithm_name(name)
    if name in ALGORITHM_COLOURS:
        return ALGORITHM_COLOURS[name]
    return FALLBACK_COLOURS[zlib.crc32(name.encode("utf-8")) % len(FALLBACK_COLOURS)]


def marker(name, variant=0):
    """The marker of an algorithm's `variant`-th series in one panel (0: its own marker)."""
    if variant == 0:
        return ALGORITHM_MARKERS.get(algorithm_name(name), FALLBACK_MARKER)
    return VARIANT_MARKERS[(variant - 1) % len(VARIANT_MARKERS)]


def line(variant=0):
    """The line style of an algorithm's `variant`-th series in one panel."""
    return VARIANT_LINES[variant % len(VARIANT_LINES)]


def bytes_label(size):
    """A byte count as the axis shows it: 1 KiB, 64 MiB, 1 GiB; 1.5 MiB where it is no whole number."""
    size = float(size)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(size) < 1024 or unit == "TiB":
            return f"{size:.0f} {unit}" if size == int(size) else f"{size:.3g} {unit}"
        size /= 1024


def seconds_label(value):
    """A time as the axis shows it: 50 us, 2 ms, 1.5 s."""
    for unit, scale in (("s", 1), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9)):
        if abs(value) >= scale or unit == "ns":
            return f"{value / scale:.3g} {unit}"


def byte_ticks(sizes, most=8):
    """Tick positions for a log2 axis of byte sizes: the sizes themselves when they are few, otherwise powers of
    2 at a step of 1, 2, 5 or 10 in the exponent (1 KiB, 1 MiB and 1 GiB fall on the step)."""
    sizes = sorted({size for size in sizes if size > 0})
    if len(sizes) <= most:
        return sizes
    low, high = math.floor(math.log2(sizes[0])), math.ceil(math.log2(sizes[-1]))
    for step in (1, 2, 5, 10, 20):
        ticks = [2 ** e for e in range(low, high + 1) if e % step == 0 and sizes[0] <= 2 ** e <= sizes[-1]]
        if len(ticks) <= most:
            return ticks or sizes[:1]
    return ticks


# Transports whose ranks are GPUs; a measured run on any other (mpi, threads, tcp) had CPU ranks.
GPU_TRANSPORTS = {"nccl", "cuda-peer"}


def rank_unit(documents):
    """What the documents' ranks are, for axis labels: "GPUs" where every one is a GPU (a simulation of GPUs,
    or a run on a GPU transport), else "ranks" (CPU ranks, whatever GPU their compute profile is of).
    Documents that do not say (collective sweeps) count as GPUs only if simulated."""
    for document in documents:
        if not isinstance(document, dict):
            continue
        if isinstance(document.get("results"), list):  # a collection: what its parts are
            if rank_unit(document["results"]) == "ranks":
                return "ranks"
            continue
        run = document.get("run") if isinstance(document.get("run"), dict) else {}
        transport = run.get("transport")
        simulated = transport == "simulated" or document.get("source") in ("ddlsim", "ddlsim collective")
        if document.get("gpu") == "cpu-rank" or (not simulated and transport not in GPU_TRANSPORTS):
            return "ranks"
    return "GPUs"


def dirty_commits(documents):
    """The commits of the documents' writers that had uncommitted changes ("1abc264-dirty"), sorted."""
    found = set()
    for document in documents:
        if isinstance(document, dict) and "results" in document and isinstance(document["results"], list):
            found |= set(dirty_commits(document["results"]))
        run = document.get("run") if isinstance(document, dict) and isinstance(document.get("run"), dict) else {}
        commit = run.get("commit")
        if isinstance(commit, str) and commit.endswith("-dirty"):
            found.add(commit)
    return sorted(found)


# The figure's height the footnote of note_dirty takes, as a fraction: leave it free below everything else.
DIRTY_NOTE_HEIGHT = 0.03


def note_dirty(figure, documents):
    """A footnote, at the figure's bottom left, where any of the documents was written from a working tree with
    uncommitted changes: its figures come from code no commit holds exactly. True if there is one."""
    dirty = dirty_commits(documents)
    footnote_dirty(figure, dirty)
    return bool(dirty)


def footnote_dirty(figure, commits):
    """note_dirty's footnote, for `commits` (nothing for none)."""
    if commits:
        figure.text(0.005, 0.005, "written from a working tree with uncommitted changes: " + ", ".join(commits),
                    fontsize=7, color="#8a1c1c", ha="left", va="bottom")


def save_whole(figure, path, dpi=120):
    """Writes `figure` to `path` whole or not at all: a failure part-way leaves no half-written picture behind.
    Raises OSError when it cannot."""
    directory, name = os.path.split(os.path.abspath(path))
    handle, partial = tempfile.mkstemp(prefix=f".{name}.", suffix=os.path.splitext(name)[1], dir=directory)
    os.close(handle)
    try:
        figure.savefig(partial, dpi=dpi)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(partial, 0o666 & ~umask)  # as an image written directly would be, not mkstemp's 0600
        os.replace(partial, path)
    finally:
        if os.path.exists(partial):
            os.remove(partial)
