"""What the agreement check costs ddlrun bench: jobs with and without --check-agreement, alternating, on the
same sizes; per size the median over the jobs of each's time (in place and out of place pooled, each the
mean over the ranks of a run's time), and their ratio.

    side_by_side.py DDLRUN RANKS JOBS [ddlrun bench options ...]

Every job is `mpirun -np RANKS DDLRUN bench --json --algorithm ring OPTIONS`, with --check-agreement on every
other one, so that the machine's drift falls on both alike.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

DDLRUN, RANKS, JOBS, OPTIONS = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
MPIRUN = ["mpirun", "--allow-run-as-root", "--oversubscribe", "--mca", "mpi_yield_when_idle", "1", "-np", str(RANKS)]


def job(checked):
    with tempfile.TemporaryDirectory() as directory:
        out = os.path.join(directory, "sweep.json")
        command = [*MPIRUN, DDLRUN, "bench", "--algorithm", "ring", *OPTIONS, "--json", "--out", out]
        if checked:
            command.append("--check-agreement")
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        with open(out) as file:
            rows = json.load(file)["rows"]
    return {row["bytes"]: [row["time_s"], row["out_of_place"]["time_s"]] for row in rows}


times = {False: {}, True: {}}
for j in range(JOBS):
    for checked in (j % 2 == 0, j % 2 == 1):
        for size, seconds in job(checked).items():
            times[checked].setdefault(size, []).extend(seconds)

print(f"# {RANKS} ranks, {JOBS} jobs each way, alternating: {' '.join(OPTIONS)}")
print(f"# {'bytes':>9} {'plain us':>9} {'checked us':>10} {'ratio':>6} {'+us':>6}")
for size in sorted(times[False]):
    plain, checked = statistics.median(times[False][size]) * 1e6, statistics.median(times[True][size]) * 1e6
    print(f"  {size:>9} {plain:>9.2f} {checked:>10.2f} {checked / plain:>6.3f} {checked - plain:>6.2f}")
