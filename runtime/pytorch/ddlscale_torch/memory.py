"""What one process of ddlscale_torch.profile or .train cannot do without, estimated before any batch is made:
so that a batch, an image size or a model larger than the machine is refused with the numbers (exit 2), not
ended half-way by torch's allocation failure or the kernel's OOM killer.

The estimate is a floor: what is alive when backward begins.
- the parameters, as many times over as the process keeps copies of them then (the model and SGD's momentum;
  and what else the caller names: DDP's buckets, the template train.py copies its models from);
- what autograd saved for backward in the forward pass and the loss of one `--batch` batch, found by running
  them on torch's "meta" device, which works out shapes and allocates nothing;
- the generated batches, workload.GENERATED_BATCHES of them.
Measured beside it (one thread; peak resident memory over the process before its first step, plus the model):
ResNet-18 at 160 px, batch 16 and 64: 1.65 and 1.6 times the floor of a profile (2 copies); ResNet-50 at 64 px,
batch 16: 1.55; gpt-mini, 256 tokens, batch 16: 1.65. The rest is backward's temporaries and torch's own; so a
refusal is certain, and a run this lets through may still need 1.7 times the estimate.
"""

import torch

from . import _C, workload


def parameter_bytes(network):
    return sum(parameter.numel() * parameter.element_size() for parameter in network.parameters())


def batch_on_meta(arguments):
    """One batch's inputs and targets, shaped as workload.batches makes them, allocated nowhere."""
    if workload.gpt.is_gpt(arguments.model):
        shape = (arguments.batch, arguments.sequence_length)
        return torch.empty(shape, dtype=torch.long, device="meta"), torch.empty(shape, dtype=torch.long, device="meta")
    return (torch.empty((arguments.batch, 3, arguments.image_size, arguments.image_size), device="meta"),
            torch.empty((arguments.batch,), dtype=torch.long, device="meta"))


def saved_for_backward_bytes(arguments, network_on_meta):
    """The tensors autograd keeps from the forward pass and the loss of one batch, each storage once (a view
    counts as its base; the parameters, counted apart, not at all)."""
    parameters = {id(parameter) for parameter in network_on_meta.parameters()}
    saved = {}

    def keep(tensor):
        base = tensor if tensor._base is None else tensor._base
        if id(base) not in parameters:
            saved[id(base)] = base  # held, so that no id is reused while the forward runs
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(keep, lambda tensor: tensor):
        workload.loss(network_on_meta, batch_on_meta(arguments))
    return sum(tensor.numel() * tensor.element_size() for tensor in saved.values())


def process_bytes(arguments, parameter_copies):
    """The floor of one process that keeps `parameter_copies` copies of the parameters when backward begins."""
    network = workload.model(arguments).to("meta")  # built as the run builds it, then its storage let go
    inputs, targets = batch_on_meta(arguments)
    batches = workload.GENERATED_BATCHES * sum(t.numel() * t.element_size() for t in (inputs, targets))
    return parameter_copies * parameter_bytes(network) + saved_for_backward_bytes(arguments, network) + batches


def check(parser, arguments, parameter_copies, processes, what):
    """Exits 2 through `parser`, with the numbers, unless this machine holds `processes` processes of the step
    at once, each at its floor (process_bytes). Returns the floor of one process, in bytes."""
    one = process_bytes(arguments, parameter_copies)
    refusal = _C.memory_refusal(one * processes, f"{what} on {processes} process(es) here, at least {_C.format_bytes(one)} each,",
                                one)
    if refusal:
        parser.error(f"--batch {arguments.batch}: {refusal}")
    return one


def processes_here():
    """How many ranks of this job run on this machine, as its launcher says (torchrun's LOCAL_WORLD_SIZE, Open
    MPI's and MPICH's local sizes, Slurm's tasks per node); 1 where none does. ddlrun's own reading of it."""
    return _C.ranks_on_this_host()


def report(program, one, processes):
    """What --dry-run prints: the estimate against what this machine has."""
    return (f"{program}: the options hold; {processes} process(es) here, each at least {_C.format_bytes(one)}, "
            f"{_C.format_bytes(one * processes)} in all of {_C.format_bytes(_C.available_memory_bytes())} available; "
            "nothing run (--dry-run)")
