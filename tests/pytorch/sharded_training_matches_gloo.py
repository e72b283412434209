"""Training that needs more of a backend than DDP's float sums trains over "ddlscale" as it does over gloo:
DistributedDataParallel with find_unused_parameters=True (an int32 allreduce of the map of used parameters
beside the gradients) and ZeroRedundancyOptimizer (each rank steps its shard of the optimizer, then broadcasts
it); and ZeRO stage 1 as ddlscale_torch.zero runs it (reduce-scatter of each gradient bucket, the optimizer
on each rank's shard, all-gather of the parameters), which must train a small GPT exactly as DDP over gloo
does (gloo 1.13 has no reduce-scatter, so it is compared with DDP, the training ZeRO promises to equal). Run
by every rank of an MPI job (PYTHONPATH: the build's runtime/pytorch):

    mpirun -np 2 python3 sharded_training_matches_gloo.py

Each trains the same model from the same seed on the same per-rank batches over both backends, and the losses
and parameters after STEPS steps must be equal bit for bit on 2 ranks (every sum is of two numbers) and
within TOLERANCE on more (other orders of addition). FSDP is not among them: torch 1.13.1's
torch.distributed.fsdp cannot be imported on Debian's Python 3.11 (a dataclass of sharded_tensor's metadata
has a mutable default, which Python 3.11 refuses: ValueError at import), whatever the backend; the script checks
that this is still so and says so, so that the day it imports, this test fails and FSDP is added here.
"""
import sys

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.distributed.optim import ZeroRedundancyOptimizer

import ddlscale_torch  # noqa: F401  (registers the backend)
from ddlscale_torch import gpt, zero

STEPS = 3
TOLERANCE = 1e-6  # as ddp_matches_gloo.py's, for the same reason


class Branchy(nn.Module):
    """A model whose second head is used only on even steps: its parameters get no gradient on odd ones."""

    def __init__(self):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(12, 16), nn.ReLU())
        self.head = nn.Linear(16, 4)
        self.sometimes = nn.Linear(16, 4)

    def forward(self, x, step):
        features = self.trunk(x)
        return self.head(features) + (self.sometimes(features) if step % 2 == 0 else 0)


def train(group, rank, zero):
    """Losses and state after STEPS steps over `group`: DDP with find_unused_parameters, and the optimizer
    ZeroRedundancyOptimizer (Adam, sharded over the group) where `zero`, else plain SGD with momentum."""
    torch.manual_seed(0)
    model = nn.parallel.DistributedDataParallel(Branchy(), process_group=group, find_unused_parameters=True)
    if zero:
        optimiser = ZeroRedundancyOptimizer(model.parameters(), optimizer_class=torch.optim.Adam, process_group=group, lr=0.01)
    else:
        optimiser = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    data = torch.Generator().manual_seed(1000 + rank)
    losses = []
    for step in range(STEPS):
        inputs = torch.randn(8, 12, generator=data)
        targets = torch.randn(8, 4, generator=data)
        optimiser.zero_grad()
        loss = nn.functional.mse_loss(model(inputs, step), targets)
        loss.backward()
        optimiser.step()
        losses.append(loss.detach().clone())
    return torch.stack(losses), {name: value.detach().clone() for name, value in model.module.state_dict().items()}


def tiny_gpt():
    torch.manual_seed(0)
    return gpt.Gpt(layers=2, heads=2, width=16, vocabulary=64, longest=16)


def gpt_batches(rank):
    return gpt.batches_of_vocabulary(64, 4, 12, torch.Generator().manual_seed(1000 + rank), STEPS)


def make_sgd(parameters):
    return torch.optim.SGD(parameters, lr=0.1, momentum=0.9)


def train_gpt_ddp(group, rank):
    """The reference: DDP over `group`, SGD with momentum on every rank's whole model."""
    model = nn.parallel.DistributedDataParallel(tiny_gpt(), process_group=group)
    optimiser = make_sgd(model.parameters())
    losses = []
    for batch in gpt_batches(rank):
        optimiser.zero_grad()
        loss = gpt.loss(model, batch)
        loss.backward()
        optimiser.step()
        losses.append(loss.detach().clone())
    return torch.stack(losses), {name: value.detach().clone() for name, value in model.module.state_dict().items()}


def train_gpt_zero1(group, rank):
    """ZeRO stage 1 over `group`, buckets small enough that the model makes several (the first 1 KiB, then 4 KiB)."""
    model = tiny_gpt()
    order = zero.backprop_order(tiny_gpt(), lambda network: gpt.loss(network, gpt_batches(rank)[0]))
    trainer = zero.Zero1(model, group, order, make_sgd, first_bucket_bytes=1 << 10, bucket_bytes=4 << 10)
    if len(trainer.buckets) < 3:
        raise AssertionError(f"the tiny GPT made {len(trainer.buckets)} buckets: the test wants several")
    losses = [trainer.step(batch, gpt.loss) for batch in gpt_batches(rank)]
    return torch.stack(losses), {name: value.detach().clone() for name, value in model.state_dict().items()}


def differs(ours, reference, exact):
    if exact:
        return not torch.equal(ours, reference)
    return ((ours - reference).abs().max() / reference.abs().max().clamp(min=1.0)).item() > TOLERANCE


def fsdp_still_fails_to_import():
    try:
        import torch.distributed.fsdp  # noqa: F401
    except ValueError as error:
        return str(error)
    return None


def main():
    dist.init_process_group("ddlscale", init_method="ddlscale://")
    rank, ranks = dist.get_rank(), dist.get_world_size()
    ours = dist.distributed_c10d._get_default_group()
    gloo = dist.new_group(backend="gloo")
    exact = ranks == 2
    trainings = [("DDP, find_unused_parameters=True against gloo", lambda: train(ours, rank, False), lambda: train(gloo, rank, False)),
                 ("DDP + ZeroRedundancyOptimizer(Adam) against gloo", lambda: train(ours, rank, True), lambda: train(gloo, rank, True)),
                 ("ZeRO-1 (ddlscale_torch.zero) over ddlscale against DDP over gloo, a small GPT",
                  lambda: train_gpt_zero1(ours, rank), lambda: train_gpt_ddp(gloo, rank))]
    failed = False
    for label, ours_trained, reference_trained in trainings:
        our_losses, our_state = ours_trained()
        their_losses, their_state = reference_trained()
        wrong = ["losses"] if differs(our_losses, their_losses, exact) else []
        wrong += [name for name in their_state if differs(our_state[name], their_state[name], exact)]
        if wrong:
            print(f"rank {rank}: {label}: differs in {', '.join(wrong)}", flush=True)
            failed = True
        elif rank == 0:
            print(f"{label}: {STEPS} steps match {'bit for bit' if exact else f'within {TOLERANCE}'}"
                  f" (losses {[round(x, 6) for x in our_losses.tolist()]})", flush=True)
    why = fsdp_still_fails_to_import()
    if why is None:
        print(f"rank {rank}: torch.distributed.fsdp imports now: add FSDP to this test", flush=True)
        failed = True
    elif rank == 0:
        print(f"FSDP not run: torch {torch.__version__} cannot import torch.distributed.fsdp here ({why[:80]}...)", flush=True)
    dist.barrier()
    dist.destroy_process_group()
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
