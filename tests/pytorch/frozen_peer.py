"""One rank of frozen_peer_test.py's job: DDP over "ddlscale" with a 3 s timeout, where rank 1 stops after two
steps, as FAULT says: "stop" (SIGSTOP: a hung or suspended process) or "exit" (dies with status 1)."""
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

dist.init_process_group("ddlscale", init_method="ddlscale://", timeout=datetime.timedelta(seconds=TIMEOUT_S))
model = nn.parallel.DistributedDataParallel(nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10)))
optimiser = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(1000):
    if step == 2 and dist.get_rank() == 1:
        print(f"rank 1 stops: {FAULT}", flush=True)
        if FAULT == "stop":
            os.kill(os.getpid(), signal.SIGSTOP)
        else:
            os._exit(1)
    optimiser.zero_grad()
    model(torch.randn(16, 64)).sum().backward()
    optimiser.step()
print(f"rank {dist.get_rank()} trained 1000 steps beside a stopped rank", flush=True)
