"""ZeRO stage 1 (Rajbhandari et al., SC'20, section 5.1) over any torch.distributed process group: gradients
reduce-scattered, each rank's optimizer stepping its shard of the parameters only (so holding only that
shard's momentum), the updated parameters all-gathered. It runs the collectives ddlsim's zero1 plan predicts
(algorithms/training/iteration_steps.hpp), in the same order:

- the gradients fill flat buckets in the order backward produces them, a bucket closing once it holds
  `first_bucket_bytes` (the first) or `bucket_bytes` (the rest), as DDP's and ddlsim's "ddp" fusion do;
- each bucket, divided by the ranks (an average, as DDP's), is reduce-scattered (`reduce_scatter_tensor`) as
  soon as its last gradient is computed, while backward goes on (DeepSpeed's overlap_comm);
- after backward, the optimizer steps each bucket's 1/N shard of the parameters;
- then each bucket's updated shard is all-gathered (`all_gather_into_tensor`) into the parameters, which are
  views of their bucket's flat buffer, so that nothing is copied back.

A bucket's length is padded to a multiple of the ranks with zeros, which neither collective nor SGD changes.
torch 1.13's own ZeroRedundancyOptimizer shards the optimizer too, but beside DDP's allreduce, with one
broadcast per rank's shard after the step: not the reduce-scatter and all-gather ZeRO and FSDP run.
"""
import time

import torch
import torch.distributed as dist


class Bucket:
    """Consecutive parameters (in backprop order) sharing one flat parameter buffer and one flat gradient buffer."""

    def __init__(self, named_parameters, ranks, rank):
        self.names = [name for name, _ in named_parameters]
        self.parameters = [parameter for _, parameter in named_parameters]
        elements = sum(parameter.numel() for parameter in self.parameters)
        self.shard_elements = -(-elements // ranks)
        padded = self.shard_elements * ranks
        self.flat_parameters = torch.zeros(padded, dtype=self.parameters[0].dtype)
        self.flat_gradients = torch.zeros(padded, dtype=self.parameters[0].dtype)
        self.slices = []
        offset = 0
        with torch.no_grad():
            for parameter in self.parameters:
                view = self.flat_parameters[offset:offset + parameter.numel()]
                view.copy_(parameter.view(-1))
                parameter.data = view.view_as(parameter)  # the parameter now lives in the bucket's buffer
                self.slices.append((offset, parameter.numel()))
                offset += parameter.numel()
        begin = rank * self.shard_elements
        # What this rank's optimizer steps: its shard of the parameters (a view, so steps land in the buffer).
        self.parameter_shard = self.flat_parameters[begin:begin + self.shard_elements]
        self.gradient_shard = torch.zeros(self.shard_elements, dtype=self.flat_gradients.dtype)
        self.pending = set()
        self.bytes = padded * self.flat_gradients.element_size()


def buckets_by_size(order, sizes_bytes, first_bucket_bytes, bucket_bytes):
    """Names in `order` cut into buckets: one closes once it holds at least its threshold (the first bucket's,
    then everyone else's), the last with the last name; ddlsim's "ddp" fusion (iteration_plan.cpp) alike."""
    buckets, current, held = [], [], 0
    for name in order:
        current.append(name)
        held += sizes_bytes[name]
        if held >= (first_bucket_bytes if not buckets else bucket_bytes):
            buckets.append(current)
            current, held = [], 0
    if current:
        buckets.append(current)
    return buckets


def backprop_order(model, loss):
    """The names of `model`'s parameters in the order one backward of `loss(model)` computes their gradients
    (leaves `model`'s gradients set)."""
    order = []
    handles = [parameter.register_hook(lambda gradient, name=name: order.append(name) or gradient)
               for name, parameter in model.named_parameters() if parameter.requires_grad]
    loss(model).backward()
    for handle in handles:
        handle.remove()
    return order


class Zero1:
    """A model trained by ZeRO stage 1 over `group`. `order` is the backprop order of the parameters' names
    (ddlscale_torch.profile's GradientClock finds it); `make_optimiser` builds the optimizer over a list of
    tensors (the shards). `events` holds the current step's collectives: [kind, bytes, handed over, issued,
    completed], kind "reduce-scatter" or "all-gather"."""

    def __init__(self, model, group, order, make_optimiser, first_bucket_bytes=1 << 20, bucket_bytes=25 << 20):
        self.model = model
        self.group = group
        ranks, rank = group.size(), group.rank()
        named = dict(model.named_parameters())
        if sorted(order) != sorted(name for name, parameter in named.items() if parameter.requires_grad):
            raise ValueError("Zero1: the backprop order must name every parameter that requires a gradient, once")
        sizes = {name: named[name].numel() * named[name].element_size() for name in order}
        self.buckets = [Bucket([(name, named[name]) for name in names], ranks, rank)
                        for names in buckets_by_size(order, sizes, first_bucket_bytes, bucket_bytes)]
        self.optimiser = make_optimiser([bucket.parameter_shard for bucket in self.buckets])
        self.works = []
        self.events = []
        self._hooks = []  # the gradient accumulators must live as long as their hooks
        for bucket in self.buckets:
            for parameter, (offset, elements) in zip(bucket.parameters, bucket.slices):
                accumulator = parameter.expand_as(parameter).grad_fn.next_functions[0][0]
                accumulator.register_hook(self._ready_hook(bucket, parameter, offset, elements))
                self._hooks.append(accumulator)

    def _ready_hook(self, bucket, parameter, offset, elements):
        def hook(*_):
            bucket.flat_gradients[offset:offset + elements].copy_(parameter.grad.view(-1))
            bucket.pending.discard(id(parameter))
            if not bucket.pending:
                self._reduce_scatter(bucket)
        return hook

    def _issue(self, kind, bucket, call):
        handed = time.perf_counter()
        work = call()
        event = [kind, bucket.bytes, handed, time.perf_counter(), float("nan")]

        # Completed when its future is, on the backend's thread: not when the step gets round to waiting.
        def completed(done):
            event[4] = time.perf_counter()
            return done.value()

        self.events.append(event)
        self.works.append((work, work.get_future().then(completed)))

    def _reduce_scatter(self, bucket):
        bucket.flat_gradients.div_(self.group.size())
        self._issue("reduce-scatter", bucket, lambda: dist.reduce_scatter_tensor(
            bucket.gradient_shard, bucket.flat_gradients, group=self.group, async_op=True))

    def _wait_all(self):
        # The work completes before its future's callbacks run: wait for the stamp too, or the step's last
        # collective may still read as never completed (NaN) when the step's events are read.
        for work, stamped in self.works:
            work.wait()
            stamped.wait()
        self.works = []

    def step(self, batch, loss):
        """One training step: forward and `loss(model, batch)`, backward with the reduce-scatters, the shard's
        optimizer step, the all-gathers. Returns the loss."""
        self.events = []
        for bucket in self.buckets:
            bucket.pending = {id(parameter) for parameter in bucket.parameters}
        for parameter in self.model.parameters():
            parameter.grad = None
        value = loss(self.model, batch)
        value.backward()
        if any(bucket.pending for bucket in self.buckets):
            raise RuntimeError("Zero1: backward left a parameter without a gradient; every parameter must take part")
        self._wait_all()
        for bucket in self.buckets:
            bucket.parameter_shard.grad = bucket.gradient_shard
        self.optimiser.step()
        for bucket in self.buckets:
            mine = bucket.parameter_shard.clone()  # the gathered buffer holds the shard: no aliasing
            self._issue("all-gather", bucket, lambda bucket=bucket, mine=mine: dist.all_gather_into_tensor(
                bucket.flat_parameters, mine, group=self.group, async_op=True))
        self._wait_all()
        return value.detach()
