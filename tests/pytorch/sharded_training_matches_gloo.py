"""Training that needs more of a backend than DDP's float sums trains over "ddlscale" as it does over gloo:
DistributedDataParallel with find_unused_parameters=True (an int32 allreduce of the map of used parameters
beside the gradients) and ZeroRedundancyOptimizer (each rank steps its shard of the optimizer, then broadcasts
it). Run by every rank of an MPI job (PYTHONPATH: the build's runtime/pytorch):

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
    failed = False
    for label, zero in (("DDP, find_unused_parameters=True", False), ("DDP + ZeroRedundancyOptimizer(Adam)", True)):
        our_losses, our_state = train(ours, rank, zero)
        their_losses, their_state = train(gloo, rank, zero)
        wrong = ["losses"] if differs(our_losses, their_losses, exact) else []
        wrong += [name for name in their_state if differs(our_state[name], their_state[name], exact)]
        if wrong:
            print(f"rank {rank}: {label}: differs from gloo in {', '.join(wrong)}", flush=True)
            failed = True
        elif rank == 0:
            print(f"{label}: {STEPS} steps match gloo {'bit for bit' if exact else f'within {TOLERANCE}'}"
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
