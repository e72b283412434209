#!/usr/bin/python3
"""ddlrun bench's and ddlsim collective's tables read by a parser written from nccl-tests 2.19's own printing
code (src/util.cu: writeDeviceReport, writeResultHeader, writeBenchmarkLinePreamble, writeBenchmarkLineBody,
writeResultFooter; src/common.cu's options), at every -a.

The parser takes every line at the fixed widths nccl-tests' printf formats give it, so a column out of place,
a number in another format or a missing line fails it, as it would fail the tools written for all_reduce_perf:
"%12li  %12li  %8s  %6s  %6s" before the halves, "  %7s  %6s  %6s  %6g" for each half (or 32 spaces for a
half that was not run, or "    N/A" for an unchecked #wrong), the numbers as getFloatStr writes them.

Usage: nccl_tests_format_test.py DDLRUN MPIRUN DDLSIM
"""
import os
import re
import subprocess
import sys
import unittest

DDLRUN, MPIRUN, DDLSIM = sys.argv.pop(1), sys.argv.pop(1), sys.argv.pop(1)
MPI_ENVIRONMENT = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")

# writeResultHeader, without -I or -S: its three lines, as its printf formats render them.
RESULT_HEADER = [
    "# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          " % ("", "", "", "", ""),
    "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %s" % (
        "size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong", ""),
    "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %s" % (
        "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "", ""),
]
# writeDeviceReport's parameter line.
PARAMETERS = re.compile(r"^# nThread (\d+) nGpus (\d+) minBytes (\d+) maxBytes (\d+) step: (\d+)\((factor|bytes)\) "
                        r"warmup iters: (\d+) iters: (\d+) agg iters: (\d+) validation: (\d+) graph: (\d+) unalign: (\d+)$")
# parseRankInfo's sscanf: "#  Rank %d Group %d Pid %d on %1024s device %d [%128[^]]] %1024[^\n]".
RANK = re.compile(r"^#  Rank +(-?\d+) Group +(-?\d+) Pid +(-?\d+) on +(\S+) device +(-?\d+) \[([^]]*)\] (.*)$")
FOOTER = [re.compile(r"^# Out of bounds values : (\d+) (OK|FAILED)$"), re.compile(r"^# Avg bus bandwidth    : (\S+) $"),
          re.compile(r"^#$"), re.compile(r"^# Collective test concluded: (.+)$")]


def number(text, width):
    """A field getFloatStr wrote: exactly `width` characters, right-aligned."""
    if len(text) != width or text != text.rjust(width) or not text.strip():
        raise ValueError(f"{text!r} is not {width} characters right-aligned")
    return float(text)


def halves(text):
    """The halves after the preamble, each "  %7s  %6s  %6s  %6g" (33 characters), or with "    N/A" for an
    unchecked #wrong (32: nccl-tests' format there keeps its older width), or nccl-tests' null body of 32
    spaces for a half that was not run. None for a null body."""
    found, at = [], 0
    while at < len(text):
        if text[at:at + 32] == " " * 32:
            found.append(None)
            at += 32
            continue
        for start in (0, 9, 17):
            if text[at + start:at + start + 2] != "  ":
                raise ValueError(f"no two spaces at {at + start} of {text!r}")
        measured = {"time_us": number(text[at + 2:at + 9], 7), "algbw": number(text[at + 11:at + 17], 6),
                    "busbw": number(text[at + 19:at + 25], 6)}
        if text[at + 25:at + 32] == "    N/A":
            measured["wrong"], at = None, at + 32
        elif text[at + 25:at + 27] == "  ":
            measured["wrong"], at = int(number(text[at + 27:at + 33], 6)), at + 33
        else:
            raise ValueError(f"no #wrong at {at + 25} of {text!r}")
        found.append(measured)
    return found


def parse(output):
    """The table nccl-tests prints, or ValueError saying where it is not."""
    lines = output.splitlines()
    table = {"rows": [], "ranks": [], "comments": []}
    at = 0

    def take(pattern, what):
        nonlocal at
        if at >= len(lines):
            raise ValueError(f"the output ends before {what}")
        match = pattern.match(lines[at]) if hasattr(pattern, "match") else (lines[at] == pattern or None)
        if not match:
            raise ValueError(f"line {at + 1}: {lines[at]!r} is not {what}")
        at += 1
        return match

    table["program"] = take(re.compile(r"^# Collective test starting: (.+)$"), "the test starting line").group(1)
    parameters = take(PARAMETERS, "the parameter line").groups()
    table.update(zip(("threads", "gpus", "min_bytes", "max_bytes", "step", "step_kind", "warmup", "iters", "agg_iters",
                      "validation", "graph", "unalign"), parameters))
    while at < len(lines) and lines[at].startswith("# ") and lines[at] != "# Using devices":
        table["comments"].append(lines[at])  # what the program adds, as nccl-tests' "Blocking Enabled" lines
        at += 1
    take("#", "the '#' after the parameters")
    take("# Using devices", "'# Using devices'")
    while at < len(lines) and lines[at].startswith("#  Rank "):
        table["ranks"].append(take(RANK, "a rank's line").groups())
    take("#", "the '#' after the devices")
    for expected in RESULT_HEADER:
        if not lines[at].startswith(expected):  # a baseline's columns may follow nccl-tests' own
            raise ValueError(f"line {at + 1}: {lines[at]!r} is not nccl-tests' header {expected!r}")
        at += 1
    while at < len(lines) and not lines[at].startswith("# Out of bounds"):
        line = lines[at]
        at += 1
        if line.startswith("#  "):
            continue  # a comment between rows (ddlrun's "auto chose ...")
        preamble, rest = line[:52], line[52:]
        if len(preamble) != 52 or any(preamble[i:i + 2] != "  " for i in (12, 26, 36, 44)):
            raise ValueError(f"line {at}: {line!r}: the preamble is not nccl-tests' %12li  %12li  %8s  %6s  %6s")
        parsed = halves(rest)
        if len(parsed) < 2:
            raise ValueError(f"line {at}: {line!r}: fewer than nccl-tests' two halves")
        row = {"size": int(preamble[0:12]), "count": int(preamble[14:26]), "type": preamble[28:36].strip(),
               "redop": preamble[38:44].strip(), "root": int(preamble[46:52]),
               "out_of_place": parsed[0], "in_place": parsed[1], "extra": parsed[2:]}
        if preamble[0:12] != preamble[0:12].rjust(12) or row["type"] != preamble[28:36].lstrip():
            raise ValueError(f"line {at}: {line!r}: a field of the preamble is not right-aligned")
        table["rows"].append(row)
    footer = [take(pattern, "the footer") for pattern in FOOTER]
    table["out_of_bounds"], table["ok"] = int(footer[0].group(1)), footer[0].group(2)
    table["avg_bus_bandwidth"] = float(footer[1].group(1))
    table["concluded"] = footer[3].group(1)
    if at != len(lines):
        raise ValueError(f"line {at + 1}: {lines[at]!r} after the test concluded")
    return table


def run(command, environment=None):
    result = subprocess.run(command, capture_output=True, text=True, timeout=300, env=environment or os.environ)
    if result.returncode != 0:
        raise AssertionError(f"{' '.join(command)} exited {result.returncode}: {result.stderr}")
    return result.stdout


def bench(*arguments, mpi_ranks=None):
    command = [DDLRUN, "bench", *arguments]
    if mpi_ranks:
        command = [MPIRUN, "--oversubscribe", "-np", str(mpi_ranks), *command]
    return run(command, MPI_ENVIRONMENT)


class ConsistentTable:
    """What every parsed table must say of itself."""

    def check_table(self, table, ranks, bus_factor):
        self.assertEqual(table["program"], table["concluded"])
        self.assertEqual(len(table["ranks"]), min(ranks, 16))
        for index, rank in enumerate(table["ranks"]):
            self.assertEqual(int(rank[0]), index)
        busbws = []
        for row in table["rows"]:
            self.assertEqual(row["root"], -1)
            for measured in (row["out_of_place"], row["in_place"]):
                if measured is None:
                    continue
                # algbw = size / time and busbw = algbw x the bus factor, to the table's two decimals.
                algbw = row["size"] / (measured["time_us"] * 1e-6) / 1e9
                self.assertAlmostEqual(measured["algbw"], algbw, delta=0.006 + 0.002 * algbw)
                self.assertAlmostEqual(measured["busbw"], measured["algbw"] * bus_factor, delta=0.012 + 0.002 * algbw)
                busbws.append(measured["busbw"])
        self.assertAlmostEqual(table["avg_bus_bandwidth"], sum(busbws) / len(busbws), delta=0.006)


class DdlrunBench(unittest.TestCase, ConsistentTable):
    def test_every_average_prints_nccl_tests_table(self):
        for average in ("0", "1", "2", "3"):
            output = bench("--algorithm", "ring", "--transport", "threads", "-g", "4", "-b", "8", "-e", "1M", "-f", "4",
                           "-n", "3", "-w", "1", "-a", average)
            table = parse(output)
            self.check_table(table, 4, 1.5)
            self.assertEqual((table["min_bytes"], table["max_bytes"], table["step"], table["step_kind"]), ("8", "1048576", "4", "factor"))
            self.assertEqual((table["warmup"], table["iters"], table["validation"], table["unalign"]), ("1", "3", "1", "0"))
            self.assertEqual([row["size"] for row in table["rows"]], [8, 32, 128, 512, 2048, 8192, 32768, 131072, 524288])
            for row in table["rows"]:
                self.assertEqual((row["count"] * 4, row["type"], row["redop"]), (row["size"], "float", "sum"))
                self.assertEqual((row["out_of_place"]["wrong"], row["in_place"]["wrong"]), (0, 0))
            self.assertEqual((table["out_of_bounds"], table["ok"]), (0, "OK"))
            self.assertTrue(any(f"(-a {average})" in comment for comment in table["comments"]), table["comments"])

    def test_all_gather_and_reduce_scatter_count_a_ranks_block_of_whole_16_bytes(self):
        for collective, redop in (("all-gather", "none"), ("reduce-scatter", "sum")):
            table = parse(bench("--algorithm", "ring", "--collective", collective, "--transport", "threads", "-g", "4",
                                "-b", "8", "-e", "4K", "-f", "4", "-n", "2", "-w", "1"))
            self.check_table(table, 4, 0.75)
            # nccl-tests' blocks: (count / ranks) rounded down to 16 bytes; 8 and 32 bytes hold none on 4 ranks.
            self.assertEqual([row["size"] for row in table["rows"]], [128, 512, 2048])
            for row in table["rows"]:
                self.assertEqual((row["count"], row["redop"]), (row["size"] // 4 // 4, redop))

    def test_a_linear_sweep_misaligned_buffers_and_half_precision(self):
        table = parse(bench("--algorithm", "halving-doubling", "--transport", "threads", "--ranks", "2", "-d", "half",
                            "-b", "1K", "-e", "4K", "-i", "1K", "-u", "3", "-n", "2", "-w", "1"))
        self.check_table(table, 2, 1.0)
        self.assertEqual((table["step"], table["step_kind"], table["unalign"]), ("1024", "bytes", "3"))
        self.assertEqual([(row["size"], row["count"], row["type"]) for row in table["rows"]],
                         [(1024, 512, "half"), (2048, 1024, "half"), (3072, 1536, "half"), (4096, 2048, "half")])
        self.assertTrue(all(row["in_place"]["wrong"] == 0 for row in table["rows"]))

    def test_nccl_tests_flags_are_taken_at_their_names_or_refused_saying_what_they_are(self):
        same = parse(bench("--algorithm", "ring", "--transport", "threads", "--ngpus", "2", "--minbytes", "1K",
                           "--maxbytes", "4K", "--stepfactor", "2", "--warmup_iters", "1", "--iters", "2", "--datatype",
                           "float", "-t", "1", "-G", "0", "-m", "1", "-C", "0", "-T", "20", "-N", "2"))
        self.assertEqual([row["size"] for row in same["rows"]], [1024, 2048, 4096] * 2)
        for flag, value, meaning in (("-G", "1", "CUDA graph"), ("-t", "2", "threads per process"), ("-m", "4", "one group"),
                                     ("-R", "2", "registration"), ("-I", "1", "per-iteration"), ("-r", "1", "root"),
                                     ("-J", "out.json", "JSON")):
            result = subprocess.run([DDLRUN, "bench", "--algorithm", "ring", "--transport", "threads", "--ranks", "2",
                                     flag, value], capture_output=True, text=True, timeout=60)
            self.assertEqual(result.returncode, 2, (flag, result.stderr))
            self.assertIn(flag, result.stderr)
            self.assertIn(meaning, result.stderr)
            self.assertEqual(result.stdout, "")

    def test_a_baseline_adds_its_half_after_nccl_tests_columns(self):
        output = bench("--algorithm", "ring", "-b", "1K", "-e", "4K", "-n", "2", "-w", "1", "--baseline", "mpi", mpi_ranks=2)
        table = parse(output)
        self.check_table(table, 2, 1.0)
        self.assertEqual(len(table["rows"]), 3)
        for row in table["rows"]:
            self.assertEqual(len(row["extra"]), 1)
            self.assertEqual(row["extra"][0]["wrong"], 0)  # the library's own #wrong


class DdlsimCollective(unittest.TestCase, ConsistentTable):
    def test_every_average_prints_nccl_tests_table_with_no_out_of_place_half(self):
        for average in ("0", "1", "2", "3"):
            table = parse(run([DDLSIM, "collective", "--algorithm", "ring", "--topology", "dgx-h100-ndr", "--gpus", "32",
                               "-b", "1M", "-e", "1G", "-f", "32", "-a", average]))
            self.check_table(table, 32, 2 * 31 / 32)
            self.assertEqual([row["size"] for row in table["rows"]], [1 << 20, 1 << 25, 1 << 30])
            for row in table["rows"]:
                self.assertIsNone(row["out_of_place"])
                self.assertIsNone(row["in_place"]["wrong"])
            self.assertEqual(table["validation"], "0")

    def test_its_times_over_the_ranks_order_as_the_averages_say(self):
        def times(average):
            document = run([DDLSIM, "collective", "--algorithm", "hierarchical", "--ranks-per-node", "4", "--topology",
                            "dgx-h100-ndr", "--gpus", "16", "-b", "64K", "-e", "64M", "-f", "32", "-a", average, "--json"])
            import json
            parsed = json.loads(document)
            self.assertEqual(parsed["time_over_ranks"], ("rank0", "mean", "min", "max")[int(average)])
            return [row["time_s"] for row in parsed["rows"]]
        least, mean, most = times("2"), times("1"), times("3")
        for low, middle, high in zip(least, mean, most):
            self.assertLessEqual(low, middle)
            self.assertLessEqual(middle, high)


class ParserRefusesWhatIsNotNcclTests(unittest.TestCase):
    """The parser is not vacuous: a column a space out of place, or a line missing, fails it."""

    def test_a_shifted_column_or_a_missing_footer_fails(self):
        output = bench("--algorithm", "ring", "--transport", "threads", "--ranks", "2", "-b", "1K", "-e", "1K")
        parse(output)
        lines = output.splitlines()
        row = next(i for i, line in enumerate(lines) if not line.startswith("#"))
        for broken in (lines[:row] + [" " + lines[row]] + lines[row + 1:], lines[:-1],
                       [line.replace("unalign: 0", "") for line in lines]):
            with self.assertRaises(ValueError):
                parse("\n".join(broken) + "\n")


if __name__ == "__main__":
    unittest.main()
