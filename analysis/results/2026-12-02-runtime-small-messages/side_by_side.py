#!/usr/bin/python3
"""Two ddlrun builds side by side against MPI_Allreduce: side_by_side.py RANKS ALGORITHM JOBS [bench flags].
BEFORE=path/to/old/ddlrun AFTER=path/to/new/ddlrun; prints per size the median over JOBS jobs of MPI's time
over ddlrun's in-place time, the jobs of the two builds alternating."""
import subprocess, sys, statistics, os
env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
ranks, alg, reps = sys.argv[1], sys.argv[2], int(sys.argv[3])
extra = sys.argv[4:]
# The two ddlrun builds: BEFORE and AFTER in the environment (paths to their ddlrun).
bins = {"before": os.environ["BEFORE"], "after": os.environ["AFTER"]}
ratios = {b: {} for b in bins}
for r in range(reps):
    for name, binary in bins.items():  # alternating, so both meet the same machine
        cmd = ["mpirun", "-np", ranks]
        if int(ranks) > 2: cmd += ["--oversubscribe", "--mca", "mpi_yield_when_idle", "1"]
        out = subprocess.run(cmd + [binary, "bench", "--algorithm", alg, "--baseline", "mpi", *extra],
                             stdin=subprocess.DEVNULL, capture_output=True, text=True, env=env).stdout
        for line in out.splitlines():
            f = line.split()
            if not f or not f[0].isdigit(): continue
            ratios[name].setdefault(int(f[0]), []).append(float(f[13]) / float(f[9]))
print(f"{ranks} ranks, {alg}: median over {reps} jobs of MPI_Allreduce time / ddlrun in-place time (>= 1: ddlrun as fast or faster)")
print(f"{'bytes':>10} {'before':>8} {'after':>8}")
for size in sorted(ratios["after"]):
    print(f"{size:>10} {statistics.median(ratios['before'][size]):8.3f} {statistics.median(ratios['after'][size]):8.3f}")
