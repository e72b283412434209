#!/usr/bin/python3
"""ddlrun bench's table read as the tools written for nccl-tests read all_reduce_perf's: lines that do not
start with '#' split on white space, each field taken by its position; the '# Avg bus bandwidth' and
'# Out of bounds values' footer lines by pattern; the header lines compared with nccl-tests' own.

Usage: nccl_tests_format_test.py DDLRUN MPIRUN
"""
import os
import re
import subprocess
import sys
import unittest

DDLRUN, MPIRUN = sys.argv.pop(1), sys.argv.pop(1)
MPI_ENVIRONMENT = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")

# nccl-tests 2.x (all_reduce_perf), its three header lines above the rows, as it prints them.
NCCL_TESTS_HEADER = [
    "#                                                              out-of-place                       in-place          ",
    "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong",
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       ",
]
# Column positions, as parsers of nccl-tests output index them.
SIZE, COUNT, TYPE, REDOP, ROOT = 0, 1, 2, 3, 4
OUT_OF_PLACE = {"time": 5, "algbw": 6, "busbw": 7, "wrong": 8}
IN_PLACE = {"time": 9, "algbw": 10, "busbw": 11, "wrong": 12}
AVG_BUS_BANDWIDTH = re.compile(r"^# Avg bus bandwidth\s*:\s*([0-9.eE+-]+)")
OUT_OF_BOUNDS = re.compile(r"^# Out of bounds values\s*:\s*(\d+)\s+(OK|FAILED)")


def bench(*arguments, mpi_ranks=None):
    command = [DDLRUN, "bench", *arguments]
    if mpi_ranks:
        command = [MPIRUN, "--oversubscribe", "-np", str(mpi_ranks), *command]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300, env=MPI_ENVIRONMENT)
    if result.returncode != 0:
        raise AssertionError(f"{' '.join(command)} exited {result.returncode}: {result.stderr}")
    return result.stdout.splitlines()


def rows(lines):
    return [line.split() for line in lines if line.strip() and not line.startswith("#")]


class NcclTestsTable(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.lines = bench("--algorithm", "ring", "--transport", "threads", "-g", "4", "-b", "8", "-e", "1M", "-f", "4",
                          "-n", "3", "-w", "1")

    def test_the_header_lines_are_nccl_tests_own(self):
        start = next(i for i, line in enumerate(self.lines) if "out-of-place" in line)
        self.assertEqual(self.lines[start:start + 3], NCCL_TESTS_HEADER)

    def test_the_first_line_gives_the_sweep_as_nccl_tests_does(self):
        self.assertRegex(self.lines[0], r"^# nThread 1 nGpus 1 minBytes 8 maxBytes \d+ step: 4\(factor\) warmup iters: 1 "
                                        r"iters: 3 agg iters: 1 validation: 1 graph: 0$")

    def test_every_rank_has_its_line_with_host_and_pid(self):
        ranks = [line for line in self.lines if line.startswith("#  Rank ")]
        self.assertEqual(len(ranks), 4)
        for index, line in enumerate(ranks):
            self.assertRegex(line, rf"^#  Rank +{index} Group +0 Pid +\d+ on +\S+ device ")

    def test_each_row_has_nccl_tests_thirteen_columns_in_their_places(self):
        table = rows(self.lines)
        self.assertEqual([int(row[SIZE]) for row in table], [8, 32, 128, 512, 2048, 8192, 32768, 131072, 524288])
        for row in table:
            self.assertEqual(len(row), 13, row)
            self.assertEqual(int(row[COUNT]) * 4, int(row[SIZE]))
            self.assertEqual(row[TYPE], "float")
            self.assertEqual(row[REDOP], "sum")
            self.assertEqual(int(row[ROOT]), -1)
            for half in (OUT_OF_PLACE, IN_PLACE):
                time_us, algbw, busbw = float(row[half["time"]]), float(row[half["algbw"]]), float(row[half["busbw"]])
                self.assertGreater(time_us, 0)
                self.assertEqual(int(row[half["wrong"]]), 0)
                # algbw = size / time; busbw = algbw x 2(n-1)/n on 4 ranks, to the table's two decimals.
                self.assertAlmostEqual(algbw, int(row[SIZE]) / (time_us * 1e-6) / 1e9, delta=0.006 + 0.001 * algbw)
                self.assertAlmostEqual(busbw, algbw * 1.5, delta=0.011 + 0.001 * busbw)

    def test_the_footer_gives_the_mean_bus_bandwidth_and_the_wrong_values(self):
        average = [float(match.group(1)) for line in self.lines if (match := AVG_BUS_BANDWIDTH.match(line))]
        bounds = [match.groups() for line in self.lines if (match := OUT_OF_BOUNDS.match(line))]
        self.assertEqual(len(average), 1)
        self.assertEqual(bounds, [("0", "OK")])
        busbw = [float(row[half["busbw"]]) for row in rows(self.lines) for half in (OUT_OF_PLACE, IN_PLACE)]
        self.assertAlmostEqual(average[0], sum(busbw) / len(busbw), delta=0.006)

    def test_nccl_tests_names_and_flags_are_accepted(self):
        table = rows(bench("--algorithm", "halving-doubling", "--transport", "threads", "-g", "2", "-d", "half", "-o", "sum",
                           "-z", "1", "-c", "1", "-b", "64", "-e", "64"))
        self.assertEqual(len(table), 1)
        self.assertEqual(table[0][TYPE], "half")
        self.assertEqual(int(table[0][COUNT]), 32)


class NcclTestsTableUnderMpi(unittest.TestCase):
    def test_a_baseline_adds_four_columns_after_nccl_tests_thirteen(self):
        lines = bench("--algorithm", "ring", "-b", "1K", "-e", "4K", "-n", "2", "-w", "1", "--baseline", "mpi", mpi_ranks=2)
        table = rows(lines)
        self.assertEqual(len(table), 3)
        for row in table:
            self.assertEqual(len(row), 17, row)
            self.assertEqual(int(row[IN_PLACE["wrong"]]), 0)
            self.assertEqual(int(row[16]), 0)  # the library's own #wrong
        self.assertEqual(sum(line.startswith("#  Rank ") for line in lines), 2)


if __name__ == "__main__":
    unittest.main()
