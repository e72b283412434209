"""Data-parallel training of a torchvision model on generated images, or of a GPT-style decoder on generated
tokens, by DistributedDataParallel or by ZeRO stage 1 (`--parallelism zero1`, zero.py), timed as `ddlrun train` times its
emulated training, and written in the same results schema, so that ddlcompare sets it beside ddlsim's prediction.

    mpirun -np 4 python3 -m ddlscale_torch.train --model resnet18 --image-size 32 --batch 16 -n 20 --json out.json
    mpirun -np 4 -x DDLSCALE_ALGORITHM="ddl dims=2x2" python3 -m ddlscale_torch.train ...
    mpirun -np 4 python3 -m ddlscale_torch.train --backend gloo ...       (PyTorch's own, for comparison)

Nothing is downloaded: the model starts from seed 0 and every rank trains on batches of its own, generated from
its rank. Each rank runs torch on `--threads` host threads (1 by default, so that ranks sharing a machine's
cores do not oversubscribe them). The job measures, in this order, with every phase's iterations after
`--warmup` untimed ones:

1. **baseline**: rank 0 alone, the others blocked on the store (not spinning), trains the model alone without
   DDP: one GPU's iteration, the baseline of the scaling efficiency (weak scaling, as ddlsim's default);
2. **compute alone**: every rank at once trains its own copy without DDP: forward, backward and the optimiser
   step, beside the other ranks' compute but no communication (per rank: `measured_effects.compute_alone_s`);
3. **training**: DDP over the backend, each gradient bucket's allreduce timed by a communication hook from the
   moment DDP hands the bucket over to the moment its future completes; or ZeRO stage 1, each bucket's
   reduce-scatter and all-gather timed from the moment the bucket is handed over to the moment its wait ends.

The point's `iteration_s` is the median over iterations of the slowest rank's, `compute_s` the mean over ranks
of compute alone, `exposed_comm_s` their difference, each collective the mean over iterations of the slowest
rank's time for that bucket, and `measured_effects` what the hook saw per rank: compute beside the allreduces
(from the iteration's start to the last bucket's hand-over), its overlap with them, and the hook's own time to
issue each allreduce (`allreduce_overhead_s`).
"""
import argparse
import copy
import datetime
import json
import math
import os
import statistics
import sys
import time

import torch
import torch.distributed as dist
import torch.nn as nn

from . import ALGORITHM_VARIABLE, TUNING_VARIABLE, _C, launched_by_mpi, memory, workload, zero


def parse_arguments(argv):
    parser = argparse.ArgumentParser(prog="python3 -m ddlscale_torch.train", description=__doc__.split("\n")[0])
    workload.add_arguments(parser)
    parser.add_argument("-n", "--iterations", type=int, default=10, help="timed iterations per phase (default 10)")
    parser.add_argument("-w", "--warmup", type=int, default=2, help="untimed iterations before each phase (default 2)")
    parser.add_argument("--backend", default="ddlscale", help="ddlscale (default) or gloo")
    parser.add_argument("--parallelism", default="ddp", help="ddp (default) or zero1 (ZeRO stage 1, zero.py)")
    parser.add_argument("--bucket-cap-mb", type=float, default=25, help="DDP's bucket size (default 25, DDP's own)")
    parser.add_argument("--configuration", default=None, help="the point's configuration (default: 'N ranks')")
    parser.add_argument("--scenario", default=None, help="the results' scenario name (default: pytorch-MODEL)")
    parser.add_argument("--timeout-s", type=float, default=300, help="the process group's timeout (default 300)")
    parser.add_argument("--json", dest="json_path", default=None, help="write the results schema here (rank 0)")
    parser.add_argument("--dry-run", action="store_true",
                        help="check the options and the memory estimate of this machine's ranks (memory.py), print "
                             "it, and run nothing: no process group")
    arguments = parser.parse_args(argv)
    workload.check_arguments(parser, arguments, positive=("iterations",))
    if arguments.warmup < 0 or not arguments.bucket_cap_mb > 0 or not arguments.timeout_s >= 1:
        parser.error("--warmup must be >= 0, --bucket-cap-mb > 0 and --timeout-s >= 1")
    if arguments.backend not in ("ddlscale", "gloo"):
        parser.error(f"--backend: '{arguments.backend}' is neither ddlscale nor gloo")
    if arguments.parallelism not in ("ddp", "zero1"):
        parser.error(f"--parallelism: '{arguments.parallelism}' is neither ddp nor zero1")
    if arguments.parallelism == "zero1" and arguments.backend == "gloo":
        parser.error("--parallelism zero1 reduce-scatters, which torch 1.13's gloo does not: give --backend ddlscale")
    chosen = os.environ.get(ALGORITHM_VARIABLE, "").strip().partition(" ")[0]
    if arguments.parallelism == "zero1" and (chosen not in ("", "ring") or os.environ.get(TUNING_VARIABLE, "").strip()):
        parser.error(f"--parallelism zero1 reduce-scatters and all-gathers by ring; {ALGORITHM_VARIABLE} and {TUNING_VARIABLE} "
                     "choose the allreduce, which it does not run: leave them unset (or ring)")
    # When backward begins: the template, the trained copy and its momentum, and the gradients' buckets (DDP's
    # own; ZeRO-1's, which the reduce-scatters read, its momentum a shard of it, not counted).
    arguments.processes = memory.processes_here()
    arguments.estimate = memory.check(parser, arguments, parameter_copies=4 if arguments.parallelism == "ddp" else 3,
                                      processes=arguments.processes, what=f"training {arguments.model}")
    return arguments


def timed_steps(model, arguments, data, before_each=None):
    """Seconds of each timed iteration of `model`, after the warm-up ones."""
    optimiser = workload.optimiser(model.parameters())
    seconds = []
    for i in range(arguments.warmup + arguments.iterations):
        if before_each:
            before_each()
        start = time.perf_counter()
        workload.step(model, optimiser, data[i % len(data)])
        if i >= arguments.warmup:
            seconds.append(time.perf_counter() - start)
    return seconds


class BucketTimer:
    """DDP's communication hook: the default allreduce (sum, divided by the ranks, as DDP's own), timed."""

    def __init__(self, group):
        self.group = group
        self.iteration_start = 0.0
        self.events = []  # this iteration's buckets: ["allreduce", bytes, handed over, issued, completed]

    def start_iteration(self):
        self.iteration_start = time.perf_counter()
        self.events = []

    def hook(self, _state, bucket):
        handed = time.perf_counter()
        buffer = bucket.buffer()
        buffer.div_(self.group.size())
        future = dist.all_reduce(buffer, group=self.group, async_op=True).get_future()
        event = ["allreduce", buffer.numel() * buffer.element_size(), handed, time.perf_counter(), math.nan]

        def completed(done):
            event[4] = time.perf_counter()
            return done.value()[0]

        self.events.append(event)
        return future.then(completed)


def union_within(intervals, low, high):
    """The length of the union of `intervals`, clipped to [low, high]."""
    total, reach = 0.0, low
    for start, end in sorted((max(low, s), min(high, e)) for s, e in intervals):
        if end > reach:
            total += end - max(start, reach)
            reach = end
    return total


def gathered(values, group):
    """Every rank's list of floats (each the same length), rank by rank."""
    mine = torch.tensor(values, dtype=torch.float64)
    every = [torch.zeros_like(mine) for _ in range(group.size())]
    dist.all_gather(every, mine, group=group)
    return [tensor.tolist() for tensor in every]


def algorithm_of(arguments, group, largest_bucket):
    """The point's algorithm, parameters and label: what ran the largest bucket."""
    if arguments.backend == "gloo":
        return "gloo", {}, "gloo"
    if arguments.parallelism == "zero1":
        # DDLSCALE_ALGORITHM and DDLSCALE_TUNING choose the allreduce, which ZeRO-1 does not run: its
        # reduce-scatters and all-gathers run the group's own choice for them (ring unless set_algorithm).
        label = group.describe("reduce_scatter", largest_bucket)
        return label.split(" ")[0], {}, label
    label = group.describe("allreduce", largest_bucket)
    if os.environ.get(TUNING_VARIABLE, "").strip():
        return "auto", {}, f"auto ({label})"
    name, _, options = os.environ.get(ALGORITHM_VARIABLE, "ring").strip().partition(" ")
    parameters = {}
    for option in options.split():
        key, _, value = option.partition("=")
        key = key.replace("-", "_")
        if key == "dims":
            parameters[key] = [int(size) for size in value.split("x")]
        elif key in ("ranks_per_node", "channels"):
            parameters[key] = int(value)
        elif key == "chunk_bytes":
            parameters[key] = int(float(value.rstrip("KMG")) * {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(value[-1:], 1))
        else:
            parameters[key] = value
    return name, parameters, label


def effects_estimates(alone, alone_sd, overlapped, overlap, overhead, iterations):
    """ddlsim's estimates from the per-rank figures, as algorithms/training/measured_effects.cpp derives them
    (its reader recomputes them and refuses a file where they differ)."""
    ranks = len(alone)
    estimates = {}
    grand = statistics.fmean(alone)
    within = sum(sd * sd / ranks for sd in alone_sd)
    if iterations >= 2 and grand > 0:
        estimates["compute_jitter"] = math.sqrt(within) / grand
        if ranks >= 2:
            between = statistics.stdev(alone)
            estimates["gpu_speed_spread"] = math.sqrt(max(0.0, between * between - within / iterations)) / grand
    stretch = sum(overlapped) - sum(alone)
    if sum(overlap) >= 0.01 * sum(alone) and stretch < sum(overlap):
        estimates["overlap_slowdown"] = stretch / (sum(overlap) - stretch)
    estimates["allreduce_overhead_s"] = statistics.median(overhead)
    return estimates


def main(argv=None):
    arguments = parse_arguments(sys.argv[1:] if argv is None else argv)
    if arguments.dry_run:
        print(memory.report("ddlscale_torch.train", arguments.estimate, arguments.processes), flush=True)
        return
    template = workload.model(arguments)
    dist.init_process_group(arguments.backend, init_method="ddlscale://",
                            timeout=datetime.timedelta(seconds=arguments.timeout_s))
    rank, ranks = dist.get_rank(), dist.get_world_size()
    group = dist.distributed_c10d._get_default_group()
    store = dist.distributed_c10d._get_default_store()
    data = workload.batches(arguments, 1000 + rank)

    # 1. One rank alone: the others wait on the store, asleep in a socket read.
    if rank == 0:
        baseline = statistics.median(timed_steps(copy.deepcopy(template), arguments, data))
        store.set("ddlscale-train-baseline", repr(baseline))
    baseline = float(store.get("ddlscale-train-baseline").decode())

    # 2. Every rank at once, without communication.
    dist.barrier()
    alone = timed_steps(copy.deepcopy(template), arguments, data)

    # 3. DDP or ZeRO-1 over the backend, each collective timed.
    dist.barrier()
    records = []
    if arguments.parallelism == "ddp":
        model = nn.parallel.DistributedDataParallel(copy.deepcopy(template), bucket_cap_mb=arguments.bucket_cap_mb)
        timer = BucketTimer(group)
        model.register_comm_hook(None, timer.hook)

        def keep_and_restart():
            if timer.iteration_start:
                records.append((timer.iteration_start, list(timer.events)))
            timer.start_iteration()

        iterations = timed_steps(model, arguments, data, before_each=keep_and_restart)
        keep_and_restart()
        # DDP rebuilds its buckets after the first iteration: the timed ones all have the last one's.
        records = records[arguments.warmup:]
    else:
        # The buckets follow the order backward computes the gradients in, found on a copy of the model.
        order = zero.backprop_order(copy.deepcopy(template), lambda network: workload.loss(network, data[0]))
        trainer = zero.Zero1(copy.deepcopy(template), group, order, workload.optimiser,
                             bucket_bytes=int(arguments.bucket_cap_mb * (1 << 20)))
        iterations = []
        for i in range(arguments.warmup + arguments.iterations):
            start = time.perf_counter()
            trainer.step(data[i % len(data)], workload.loss)
            if i >= arguments.warmup:
                iterations.append(time.perf_counter() - start)
                records.append((start, list(trainer.events)))
    shape = [(kind, size) for kind, size, _, _, _ in records[-1][1]]
    if any([(kind, size) for kind, size, _, _, _ in events] != shape for _, events in records):
        raise RuntimeError("ddlscale_torch.train: DDP's buckets changed during the timed iterations: give -w 1 or more")

    # Per rank: compute beside the gradients' collectives (allreduces, or reduce-scatters), its overlap with
    # them, the time to issue one.
    overlapped, overlap, overhead = [], [], []
    for start, events in records:
        during_backward = [event for event in events if event[0] != "all-gather"]
        compute_end = max(handed for _, _, handed, _, _ in during_backward)
        overlapped.append(compute_end - start)
        overlap.append(union_within([(handed, done) for _, _, handed, _, done in during_backward], start, compute_end))
        overhead.append(statistics.fmean(issued - handed for _, _, handed, issued, _ in during_backward))
    collective_seconds = [statistics.fmean(events[c][4] - events[c][2] for _, events in records) for c in range(len(shape))]
    mine = [statistics.fmean(alone), statistics.stdev(alone) if len(alone) > 1 else 0.0,
            statistics.fmean(overlapped), statistics.fmean(overlap), statistics.median(overhead)]
    every = gathered(mine + iterations + collective_seconds, group)
    largest_bucket = max(size for _, size in shape)
    algorithm, parameters, label = algorithm_of(arguments, group, largest_bucket)
    dist.barrier()
    if rank == 0:
        write(arguments, every, len(mine), ranks, baseline, algorithm, parameters, label, shape)
    dist.destroy_process_group()


def write(arguments, every, figures, ranks, baseline, algorithm, parameters, label, shape):
    n = arguments.iterations
    alone, alone_sd, overlapped, overlap, overhead = ([rank[i] for rank in every] for i in range(figures))
    slowest = [max(rank[figures + i] for rank in every) for i in range(n)]
    seconds = [max(rank[figures + n + c] for rank in every) for c in range(len(shape))]
    iteration = statistics.median(slowest)
    compute = statistics.fmean(alone)
    # nccl-tests' bus bandwidths: 2(n-1)/n of the algorithm bandwidth for an allreduce, (n-1)/n for the others.
    collectives = [{"collective": kind, "bytes": float(size), "time_s": time_s, "algbw_Bps": size / time_s,
                    "busbw_Bps": size / time_s * (2 if kind == "allreduce" else 1) * (ranks - 1) / ranks}
                   for (kind, size), time_s in zip(shape, seconds)]
    version, commit = _C.build_info()
    point = {"configuration": arguments.configuration or f"{ranks} ranks", "gpus": ranks, "algorithm": algorithm,
             "parameters": parameters, "label": label, "batch_per_gpu": arguments.batch, "iteration_s": iteration,
             "compute_s": compute, "baseline_gpus": 1, "baseline_s": baseline,
             "images_per_s": arguments.batch * ranks / iteration, "efficiency": baseline / iteration,
             "exposed_comm_s": max(0.0, iteration - compute),
             "measured_effects": {"compute": f"PyTorch {torch.__version__} on {arguments.threads} host thread(s) per rank",
                                  "iterations": n, "compute_alone_s": alone, "compute_alone_sd_s": alone_sd,
                                  "compute_overlapped_s": overlapped, "overlap_s": overlap,
                                  "allreduce_overhead_s": overhead,
                                  "estimates": effects_estimates(alone, alone_sd, overlapped, overlap, overhead, n)},
             "collectives": collectives}
    results = {"source": "ddlscale_torch.train",
               "run": {"tool": "ddlscale_torch.train", "version": version, "commit": commit,
                       "transport": arguments.backend if arguments.backend != "ddlscale"
                       else "mpi" if launched_by_mpi() else "tcp",
                       "compute_scale": 1.0, "precision": "fp32", "compute_precision": "fp32", "fusion": "ddp",
                       "parallelism": arguments.parallelism},
               "scenario": arguments.scenario or f"pytorch-{arguments.model}", "model": arguments.model, "gpu": "cpu-rank",
               "points": [point]}
    text = json.dumps(results, indent=1) + "\n"
    if arguments.json_path:
        with open(arguments.json_path + ".partial", "w", encoding="utf-8") as file:
            file.write(text)
        os.replace(arguments.json_path + ".partial", arguments.json_path)
    print(f"{point['configuration']}: {label}: iteration {iteration * 1e3:.1f} ms, compute alone {compute * 1e3:.1f} ms,"
          f" one rank alone {baseline * 1e3:.1f} ms, efficiency {point['efficiency']:.3f},"
          f" {arguments.parallelism}, {len(collectives)} collectives, {point['images_per_s']:.1f} samples/s", flush=True)


if __name__ == "__main__":
    main()
