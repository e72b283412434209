"""One rank of frozen_peer_test.py's job: DDP over "ddlscale" with a 3 s timeout, where rank 1 is lost at step
STEP (default 2; "first": before DDP is made, whose broadcast of the parameters is the group's first
collective), as FAULT says: "stop" (SIGSTOP: a hung or suspended process), "exit" (dies with status 1) or
"raise" (an uncaught exception)."""
import datetime
import os
import signal
import sys

import torch
import torch.distributed as dist
import torch.nn as nn

import ddlscale_torch  # noqa: F401  (registers the backend)

TIMEOUT_S = 3
FAULT = sys.argv[1]
STEP = sys.argv[2] if len(sys.argv) > 2 else "2"


def lose_rank_1(when):
    if when != STEP or dist.get_rank() != 1:
        return
    print(f"rank 1 stops: {FAULT} at {when}", flush=True)
    if FAULT == "stop":
        os.kill(os.getpid(), signal.SIGSTOP)
    elif FAULT == "raise":
        raise RuntimeError(f"rank 1 raises at {when}")
    else:
        os._exit(1)


dist.init_process_group("ddlscale", init_method="ddlscale://", timeout=datetime.timedelta(seconds=TIMEOUT_S))
lose_rank_1("first")
model = nn.parallel.DistributedDataParallel(nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10)))
optimiser = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(1000):
    lose_rank_1(str(step))
    optimiser.zero_grad()
    model(torch.randn(16, 64)).sum().backward()
    optimiser.step()
print(f"rank {dist.get_rank()} trained 1000 steps beside a stopped rank", flush=True)
