"""One training step of a torchvision model or a GPT-style decoder on one process, timed phase by phase and gradient by gradient, for
`ddlsim model import` to turn into a model file: so that ddlsim predicts the very model that was measured.

    python3 -m ddlscale_torch.profile --model resnet18 --image-size 32 --batch 16 -n 20 --out profile.json

Runs alone (no MPI, no process group), on `--threads` torch threads (1 by default, as ddlscale_torch.train runs
each rank), on generated images, after `-w` untimed steps. Each timed step is split where PyTorch's own events
fall: the forward pass and the loss; then backward, whose autograd hooks say when each parameter's gradient is
computed (the order they fire is the backprop order DDP's buckets follow, and the time since the previous one
is that gradient's backward time; what backward does after the last gradient is added to the last); then the
SGD-with-momentum step. Each figure is the median over the timed steps; the file holds each gradient's name and
element count in backprop order, as `ddlsim model import` reads it.

With `--corun K`, K copies of the same steps then run at once in processes of their own, as K ranks of an
emulated cluster compute on one machine: `corun.throughput`, K times the step alone over the copies' mean step,
is what the machine delivers with K ranks busy in units of one rank alone (at K = its cores, the `throughput`
of a topology's `shared_host`). `ddlsim model import` leaves it out of the model.

    {"source": "ddlscale_torch.profile", "model": "resnet18", "torch": "1.13.0a0", "threads": 1, "batch": 16,
     "image_size": 32 (or "sequence_length": 128 for a GPT model), "precision": "fp32", "steps": 20, "iteration_s": ..., "forward_s": ..., "optimizer_s": ...,
     "gradients": [{"name": "fc.bias", "elements": 1000, "backward_s": ...}, ...],
     "corun": {"processes": 2, "iteration_s": ..., "throughput": ...}}
"""
import argparse
import json
import multiprocessing
import os
import statistics
import sys
import time

import torch

from . import memory, workload


def parse_arguments(argv):
    parser = argparse.ArgumentParser(prog="python3 -m ddlscale_torch.profile", description=__doc__.split("\n")[0])
    workload.add_arguments(parser)
    parser.add_argument("-n", "--steps", type=int, default=10, help="timed steps (default 10)")
    parser.add_argument("-w", "--warmup", type=int, default=2, help="untimed steps first (default 2)")
    parser.add_argument("--corun", type=int, default=0, help="then K copies at once: the machine's throughput (default: no)")
    parser.add_argument("--out", required=True, help="the profile to write")
    parser.add_argument("--dry-run", action="store_true",
                        help="check the options and the memory estimate (memory.py), print it, and run nothing")
    arguments = parser.parse_args(argv)
    workload.check_arguments(parser, arguments, positive=("steps",))
    if arguments.warmup < 0 or arguments.corun < 0:
        parser.error("--warmup and --corun must be at least 0")
    if not os.path.isdir(os.path.dirname(os.path.abspath(arguments.out))):
        parser.error(f"--out: no folder {os.path.dirname(os.path.abspath(arguments.out))}")
    # The profile, then --corun's copies at once, each keeping the model and its momentum when backward begins.
    arguments.processes = max(1, arguments.corun)
    arguments.estimate = memory.check(parser, arguments, parameter_copies=2, processes=arguments.processes,
                                      what=f"profiling {arguments.model}")
    return arguments


class GradientClock:
    """When each parameter's gradient is computed in this backward: autograd's hook on each parameter."""

    def __init__(self, model):
        self.ready = []  # (name, time) in the order the gradients came
        for name, parameter in model.named_parameters():
            if parameter.requires_grad:
                parameter.register_hook(self.hook_for(name))

    def hook_for(self, name):
        def hook(gradient):
            self.ready.append((name, time.perf_counter()))
            return gradient
        return hook


def corun_copy(arguments, seed, start, results):
    """One of --corun's copies: the same steps, timed whole, from when every copy is ready."""
    network = workload.model(arguments)
    optimiser = workload.optimiser(network.parameters())
    data = workload.batches(arguments, seed)
    start.wait()
    seconds = []
    for step in range(arguments.warmup + arguments.steps):
        began = time.perf_counter()
        workload.step(network, optimiser, data[step % len(data)])
        if step >= arguments.warmup:
            seconds.append(time.perf_counter() - began)
    results.put(statistics.median(seconds))


def corun(arguments):
    """The mean over --corun copies, run at once, of their median step."""
    context = multiprocessing.get_context("spawn")  # not fork: torch's threads are already running here
    start, results = context.Barrier(arguments.corun), context.Queue()
    copies = [context.Process(target=corun_copy, args=(arguments, 2000 + k, start, results)) for k in range(arguments.corun)]
    for copy in copies:
        copy.start()
    medians = [results.get() for _ in copies]
    for copy in copies:
        copy.join()
        if copy.exitcode != 0:
            sys.exit(f"ddlscale_torch.profile: a --corun copy ended with status {copy.exitcode}")
    return statistics.fmean(medians)


def profile(arguments):
    model = workload.model(arguments)
    elements = {name: parameter.numel() for name, parameter in model.named_parameters() if parameter.requires_grad}
    optimiser = workload.optimiser(model.parameters())
    clock = GradientClock(model)
    data = workload.batches(arguments, 1000)
    order, steps = None, []
    for step in range(arguments.warmup + arguments.steps):
        optimiser.zero_grad(set_to_none=True)
        clock.ready = []
        start = time.perf_counter()
        loss = workload.loss(model, data[step % len(data)])
        forward_end = time.perf_counter()
        loss.backward()
        backward_end = time.perf_counter()
        optimiser.step()
        end = time.perf_counter()
        names = [name for name, _ in clock.ready]
        if len(names) != len(elements) or set(names) != set(elements):
            sys.exit(f"ddlscale_torch.profile: backward computed {len(names)} gradients for {len(elements)} parameters")
        if order is not None and names != order:
            sys.exit("ddlscale_torch.profile: the gradients came in another order from one step to the next")
        order = names
        times = [when for _, when in clock.ready]
        backward = [b - a for a, b in zip([forward_end] + times[:-1], times)]
        backward[-1] += backward_end - times[-1]
        if step >= arguments.warmup:
            steps.append((forward_end - start, backward, end - backward_end))
    forward = statistics.median(s[0] for s in steps)
    optimizer = statistics.median(s[2] for s in steps)
    backward = [statistics.median(s[1][i] for s in steps) for i in range(len(order))]
    return {"source": "ddlscale_torch.profile", "model": arguments.model, "torch": torch.__version__,
            "threads": arguments.threads, "batch": arguments.batch, **workload.shape_of(arguments), "precision": "fp32", "steps": arguments.steps,
            "iteration_s": forward + sum(backward) + optimizer, "forward_s": forward, "optimizer_s": optimizer,
            "gradients": [{"name": name, "elements": elements[name], "backward_s": seconds}
                          for name, seconds in zip(order, backward)]}


def main(argv=None):
    arguments = parse_arguments(sys.argv[1:] if argv is None else argv)
    if arguments.dry_run:
        print(memory.report("ddlscale_torch.profile", arguments.estimate, arguments.processes), flush=True)
        return
    result = profile(arguments)
    if arguments.corun:
        together = corun(arguments)
        result["corun"] = {"processes": arguments.corun, "iteration_s": together,
                           "throughput": arguments.corun * result["iteration_s"] / together}
    with open(arguments.out + ".partial", "w", encoding="utf-8") as file:
        file.write(json.dumps(result, indent=1) + "\n")
    os.replace(arguments.out + ".partial", arguments.out)
    shape = (f"{arguments.sequence_length} tokens" if "sequence_length" in result
             else f"{arguments.image_size}x{arguments.image_size}")
    print(f"{arguments.model} at {shape}, batch {arguments.batch}, "
          f"{arguments.threads} thread(s): iteration {result['iteration_s'] * 1e3:.1f} ms (forward "
          f"{result['forward_s'] * 1e3:.1f}, backward {sum(g['backward_s'] for g in result['gradients']) * 1e3:.1f}, "
          f"optimizer {result['optimizer_s'] * 1e3:.1f}), {len(result['gradients'])} gradients", flush=True)
    if arguments.corun:
        print(f"{arguments.corun} copies at once: {result['corun']['iteration_s'] * 1e3:.1f} ms per step, throughput "
              f"{result['corun']['throughput']:.3f} of one alone", flush=True)


if __name__ == "__main__":
    main()
