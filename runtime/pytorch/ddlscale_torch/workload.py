"""What ddlscale_torch.train and ddlscale_torch.profile both run: a torchvision model from seed 0, on generated
images, with SGD and momentum, on a given number of host threads; one options parser for both."""
import torch
import torch.nn as nn
import torchvision

GENERATED_BATCHES = 4  # distinct batches per process, used in turn


def add_arguments(parser):
    parser.add_argument("--model", default="resnet18", help="a torchvision.models builder (resnet18, resnet50, ...)")
    parser.add_argument("--image-size", type=int, default=32, help="side of the square RGB images (default 32)")
    parser.add_argument("--batch", type=int, default=16, help="images per process per step (default 16)")
    parser.add_argument("--threads", type=int, default=1, help="torch's host threads per process (default 1)")


def check_arguments(parser, arguments, positive=()):
    """Exits 2 through `parser` on a workload option out of range, or on any of `positive` below 1."""
    for name in ("image_size", "batch", "threads", *positive):
        if getattr(arguments, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")
    if not hasattr(torchvision.models, arguments.model) or arguments.model.startswith("_"):
        parser.error(f"--model: torchvision has no model '{arguments.model}'")


def model(arguments):
    """The model from seed 0, on `--threads` threads: the same parameters in every process."""
    torch.set_num_threads(arguments.threads)
    torch.manual_seed(0)
    return getattr(torchvision.models, arguments.model)()


def optimiser(parameters):
    return torch.optim.SGD(parameters, lr=0.01, momentum=0.9)


def batches(arguments, seed):
    """GENERATED_BATCHES batches of images and labels from `seed`."""
    generator = torch.Generator().manual_seed(seed)
    shape = (arguments.batch, 3, arguments.image_size, arguments.image_size)
    return [(torch.randn(shape, generator=generator), torch.randint(0, 1000, (arguments.batch,), generator=generator))
            for _ in range(GENERATED_BATCHES)]


def step(network, optimiser_, batch):
    """One training step: forward and loss, backward, the optimiser's step."""
    images, labels = batch
    optimiser_.zero_grad(set_to_none=True)
    nn.functional.cross_entropy(network(images), labels).backward()
    optimiser_.step()
