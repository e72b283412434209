"""What ddlscale_torch.train and ddlscale_torch.profile both run: a torchvision model on generated images, or a
GPT-style decoder (gpt.py) on generated token sequences, from seed 0, with SGD and momentum, on a given number of
host threads; one options parser for both."""
import torch
import torch.nn as nn
import torchvision

from . import gpt

GENERATED_BATCHES = 4  # distinct batches per process, used in turn


def add_arguments(parser):
    parser.add_argument("--model", default="resnet18",
                        help=f"a torchvision.models builder (resnet18, resnet50, ...) or a GPT-style decoder ({', '.join(gpt.SIZES)})")
    parser.add_argument("--image-size", type=int, default=32, help="side of the square RGB images (default 32)")
    parser.add_argument("--sequence-length", type=int, default=128, help="tokens per sequence of a GPT model (default 128)")
    parser.add_argument("--batch", type=int, default=16, help="images or sequences per process per step (default 16)")
    parser.add_argument("--threads", type=int, default=1, help="torch's host threads per process (default 1)")


def check_arguments(parser, arguments, positive=()):
    """Exits 2 through `parser` on a workload option out of range, or on any of `positive` below 1."""
    for name in ("image_size", "sequence_length", "batch", "threads", *positive):
        if getattr(arguments, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")
    if gpt.is_gpt(arguments.model):
        longest = gpt.SIZES[arguments.model][4]
        if arguments.sequence_length > longest:
            parser.error(f"--sequence-length: {arguments.model} has positions for {longest} tokens, not {arguments.sequence_length}")
    elif not hasattr(torchvision.models, arguments.model) or arguments.model.startswith("_"):
        parser.error(f"--model: '{arguments.model}' is neither a torchvision model nor one of {', '.join(gpt.SIZES)}")


def shape_of(arguments):
    """What one sample is, for the results and profiles: {"image_size": N} or {"sequence_length": N}."""
    if gpt.is_gpt(arguments.model):
        return {"sequence_length": arguments.sequence_length}
    return {"image_size": arguments.image_size}


def model(arguments):
    """The model from seed 0, on `--threads` threads: the same parameters in every process."""
    torch.set_num_threads(arguments.threads)
    torch.manual_seed(0)
    if gpt.is_gpt(arguments.model):
        return gpt.build(arguments.model)
    return getattr(torchvision.models, arguments.model)()


def optimiser(parameters):
    return torch.optim.SGD(parameters, lr=0.01, momentum=0.9)


def batches(arguments, seed):
    """GENERATED_BATCHES batches from `seed`: images and labels, or token sequences and their next tokens."""
    generator = torch.Generator().manual_seed(seed)
    if gpt.is_gpt(arguments.model):
        return gpt.batches(arguments.model, arguments.batch, arguments.sequence_length, generator, GENERATED_BATCHES)
    shape = (arguments.batch, 3, arguments.image_size, arguments.image_size)
    return [(torch.randn(shape, generator=generator), torch.randint(0, 1000, (arguments.batch,), generator=generator))
            for _ in range(GENERATED_BATCHES)]


def loss(network, batch):
    """The forward pass and its loss: cross-entropy over the classes, or over the next token."""
    inputs, targets = batch
    if isinstance(network, gpt.Gpt) or isinstance(getattr(network, "module", None), gpt.Gpt):
        return gpt.loss(network, batch)
    return nn.functional.cross_entropy(network(inputs), targets)


def step(network, optimiser_, batch):
    """One training step: forward and loss, backward, the optimiser's step."""
    optimiser_.zero_grad(set_to_none=True)
    loss(network, batch).backward()
    optimiser_.step()
