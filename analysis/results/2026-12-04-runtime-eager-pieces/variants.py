#!/usr/bin/python3
"""variants.py RANKS JOBS [bench flags]: ways of running one ddlrun build (DDLRUN, default
build/release/runtime/ddlrun; VARIANTS=name,name to choose among them), alternating job by job, each job
timing ddlrun's in-place allreduce and MPI_Allreduce on the same buffers; prints per size the median over
the jobs of MPI's time over ddlrun's (1.0 or more: ddlrun as fast or faster)."""
import subprocess, sys, statistics, os
env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
ranks, reps = sys.argv[1], int(sys.argv[2])
binary = os.environ.get("DDLRUN", "build/release/runtime/ddlrun")
variants = {
  "ring": ["--algorithm", "ring"],
  "ring-2K": ["--algorithm", "ring", "--piece-bytes", "2K"],
  "ring-4000": ["--algorithm", "ring", "--piece-bytes", "4000"],
  "rd-2K": ["--algorithm", "recursive-doubling", "--piece-bytes", "2K"],
  "rd": ["--algorithm", "recursive-doubling"],
  "hd": ["--algorithm", "halving-doubling"],
}
sel = os.environ.get("VARIANTS")
if sel: variants = {k: v for k, v in variants.items() if k in sel.split(",")}
flags = sys.argv[3:]
ratios = {v: {} for v in variants}
for r in range(reps):
    for name, args in variants.items():
        cmd = ["mpirun", "-np", ranks]
        if int(ranks) > 2: cmd += ["--oversubscribe", "--mca", "mpi_yield_when_idle", "1"]
        out = subprocess.run(cmd + [binary, "bench", *args, "--baseline", "mpi", *flags],
                             stdin=subprocess.DEVNULL, capture_output=True, text=True, env=env).stdout
        for line in out.splitlines():
            f = line.split()
            if not f or not f[0].isdigit(): continue
            ratios[name].setdefault(int(f[0]), []).append(float(f[13]) / float(f[9]))
print(f"{'bytes':>10} " + " ".join(f"{v:>10}" for v in variants))
for size in sorted(ratios[next(iter(variants))]):
    print(f"{size:>10} " + " ".join(f"{statistics.median(ratios[v][size]):10.3f}" for v in variants))
