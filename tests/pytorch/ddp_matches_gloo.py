"""DistributedDataParallel over the "ddlscale" backend trains to the parameters it reaches over PyTorch's own
gloo, for every allreduce algorithm that fits the job. Run by every rank of an MPI job, or of a torchrun job
(the ranks then meet over TCP, through torch's env:// rendezvous):

    mpirun -np 2 python3 ddp_matches_gloo.py      (PYTHONPATH: the build's runtime/pytorch)
    python3 -m torch.distributed.run --standalone --nproc_per_node 2 ddp_matches_gloo.py

Each algorithm trains the same model from the same seed on the same per-rank batches as gloo does. On 2 ranks
every sum is of two numbers, whichever order the algorithm adds them in, so the parameters must be equal bit
for bit; on more ranks the algorithms add in other orders than gloo, and the parameters must agree within
fp32 rounding grown over the steps (TOLERANCE). The model has BatchNorm, so DDP also broadcasts its buffers
(an int64 among them) before every forward, and checks the parameters' shapes with an all-gather at start.
Exits non-zero, naming the algorithm and parameter, on the first difference; rank 0 prints one line per
algorithm.
"""
import sys

import torch
import torch.distributed as dist
import torch.nn as nn

import ddlscale_torch

STEPS = 5
# |ddlscale - gloo| <= TOLERANCE * max(|gloo|, 1) on more than 2 ranks: fp32 sums of a few ranks in another
# order differ by a unit or two of the last place (6e-8 relative); after 5 steps of SGD at lr 0.1 through
# BatchNorm the largest difference measured on 4 ranks was 5.9e-8 (2026-12-03), so 1e-6 leaves room for
# other orders of addition and nothing for a wrong sum.
TOLERANCE = 1e-6


def algorithms(ranks):
    """Every allreduce configuration that fits `ranks` ranks: (name, options)."""
    configurations = [("ring", ""), ("halving-doubling", ""), ("recursive-doubling", ""), ("binomial-tree", ""),
                      ("double-binary-tree", "chunk-bytes=4K"), ("ddl", f"dims={ranks}"),
                      ("hierarchical", "ranks-per-node=1 inner=halving-doubling"),
                      ("torus-2d", f"dims=1x{ranks} inner=recursive-doubling")]
    if ranks % 2 == 0 and ranks > 2:
        configurations += [("ddl", f"dims=2x{ranks // 2}"), ("hierarchical", "ranks-per-node=2 inner=ring"),
                           ("torus-2d", f"dims=2x{ranks // 2}")]
    return configurations


class SmallNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                                      nn.Conv2d(8, 16, 3, stride=2, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
                                      nn.AdaptiveAvgPool2d(1))
        self.classifier = nn.Linear(16, 10)

    def forward(self, x):
        return self.classifier(torch.flatten(self.features(x), 1))


def train(group, rank):
    """The state after STEPS steps of DDP over `group`, from seed 0, on rank `rank`'s own batches."""
    torch.manual_seed(0)
    model = nn.parallel.DistributedDataParallel(SmallNet(), process_group=group, bucket_cap_mb=0.01)
    optimiser = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    data = torch.Generator().manual_seed(1000 + rank)
    for _ in range(STEPS):
        images = torch.randn(8, 3, 16, 16, generator=data)
        labels = torch.randint(0, 10, (8,), generator=data)
        optimiser.zero_grad()
        nn.functional.cross_entropy(model(images), labels).backward()
        optimiser.step()
    return {name: value.detach().clone() for name, value in model.module.state_dict().items()}


def compare(label, ours, reference, exact):
    """The largest difference from gloo's state relative to each tensor's magnitude; exits on one too large."""
    largest = 0.0
    for name, expected in reference.items():
        got = ours[name]
        scale = expected.double().abs().max().clamp(min=1.0)
        relative = ((got.double() - expected.double()).abs().max() / scale).item()
        largest = max(largest, relative)
        same = torch.equal(got, expected) if exact else relative <= TOLERANCE
        if not same:
            difference = (got.double() - expected.double()).abs().max().item()
            sys.exit(f"rank {dist.get_rank()}: {label}: {name} differs from gloo's by {difference:.3g}"
                     f" ({'bit for bit' if exact else f'tolerance {TOLERANCE}'})")
    return largest


def main():
    dist.init_process_group("ddlscale", init_method="ddlscale://" if ddlscale_torch.launched_by_mpi() else None)
    rank, ranks = dist.get_rank(), dist.get_world_size()
    ours = dist.distributed_c10d._get_default_group()
    reference = train(dist.new_group(backend="gloo"), rank)
    exact = ranks == 2
    for name, options in algorithms(ranks):
        ours.set_algorithm("allreduce", name, options)
        label = f"{name} {options}".strip()
        largest = compare(label, train(ours, rank), reference, exact)
        if rank == 0:
            print(f"{label}: {ours.describe('allreduce', 1 << 16)} matches gloo"
                  f" {'bit for bit' if exact else f'within {TOLERANCE} (largest relative difference {largest:.2g})'}"
                  f" after {STEPS} steps", flush=True)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
