#!/usr/bin/env python3
"""Writes models/resnet50.json, resnet101.json and resnet101-22k.json from the gradient lists in
docs/reference (torchvision, backprop order) and the single-GPU timings cited below.

Per-tensor FLOPs come from the tensor's size and where it sits in torchvision's ResNet (v1.5: the stride is
in each bottleneck's 3x3 convolution): a convolution with W weights producing an H x H map costs 2·W·H²
FLOPs per image forward, the fully connected layer 2·W. Batch-norm tensors get no FLOPs of their own.
Backward costs twice the forward FLOPs of each layer (gradients of input and of weights). These are the
assumptions the iteration plan's per-layer timing rests on: a layer's share of the measured backward time
is its share of the backward FLOPs.

Usage: models/generate_resnet_models.py docs/reference models   (from the repository root)
"""
import csv
import json
import re
import sys

# Output side length of the feature maps after each stage of a 224x224 ImageNet input.
STAGE_SIDE = {1: 56, 2: 28, 3: 14, 4: 7}

P100_SOURCE = ("tensorflow/benchmarks performance page (tensorflow docs performance/benchmarks.md), "
               "DGX-1 P100, TensorFlow, fp32, synthetic data; via docs/reference/README.md (read)")
H200_SOURCE = "measured 2026-11-29 on one H200, PyTorch 2.11 fp32 (docs/reference/h200-measured-2026-11-29.json)"
H200_BF16_SOURCE = "measured 2026-11-29 on one H200, PyTorch 2.11 bf16 (docs/reference/h200-measured-2026-11-29.json)"
# The H200 was measured in fp32 and in bf16; the P100 figures are fp32 only.
H200_PRECISIONS = (("fp32", H200_SOURCE), ("bf16", H200_BF16_SOURCE))


def output_side(name):
    """Side of the map a weight tensor's layer produces, from its torchvision name."""
    if name == "conv1.weight":
        return 112
    match = re.match(r"layer(\d)\.(\d+)\.(conv\d|downsample\.0)\.weight$", name)
    if not match:
        return None
    stage, block, layer = int(match.group(1)), int(match.group(2)), match.group(3)
    side = STAGE_SIDE[stage]
    if stage > 1 and block == 0 and layer == "conv1":
        return STAGE_SIDE[stage - 1]  # the first 1x1 reduction still runs at the previous stage's size
    return side


def forward_flops(name, numel):
    if name == "fc.weight":
        return 2 * numel
    side = output_side(name)
    return 0 if side is None else 2 * numel * side * side


def read_gradients(path):
    with open(path) as f:
        return [(row["name"], int(row["numel"])) for row in csv.DictReader(f)]


def model_json(name, description, gradients, gpus, sources):
    tensors = [{"name": n, "elements": e, "backward_flops_per_image": 2 * forward_flops(n, e)} for n, e in gradients]
    return {
        "name": name,
        "description": description,
        "parameters": sum(e for _, e in gradients),
        "forward_flops_per_image": sum(forward_flops(n, e) for n, e in gradients),
        "gradients": tensors,
        "gpus": gpus,
        "sources": sources,
    }


def profile(batch, iteration_s, source, confidence):
    return {"batch": batch, "iteration_s": iteration_s, "source": source, "confidence": confidence}


def main(reference, out):
    h200 = json.load(open(f"{reference}/h200-measured-2026-11-29.json"))
    r50 = read_gradients(f"{reference}/resnet50-gradients-backprop-order.csv")
    r101 = read_gradients(f"{reference}/resnet101-gradients-backprop-order.csv")
    # ImageNet-22K head: fc 2048 x 21,841 plus its bias (docs/reference/README.md, derived).
    r101_22k = [("fc.bias", 21841), ("fc.weight", 2048 * 21841)] + [g for g in r101 if not g[0].startswith("fc.")]

    ratio_101_to_50 = h200["resnet101_bs32_fp32_ms"] / h200["resnet50_bs32_fp32_ms"]
    p100_r50_bs32 = 32 / 195
    memory = {
        "P100": {"bandwidth_Bps": 732e9, "source": "P100 HBM2 732 GB/s (docs/reference/README.md, recalled)"},
        "H200": {"bandwidth_Bps": h200["d2d_copy_GBps"] * 1e9,
                 "source": "device-to-device copy measured 2026-11-29 (bytes read + written)"},
    }

    def gpus_for(model, scale_to_r50):
        gpus = {"P100": {"memory": memory["P100"], "profiles": {}}, "H200": {"memory": memory["H200"], "profiles": {}}}
        if model == "resnet50":
            gpus["P100"]["profiles"]["fp32-32"] = profile(32, p100_r50_bs32, P100_SOURCE + ": 195 images/s at batch 32", "read")
            gpus["P100"]["profiles"]["fp32-64"] = profile(64, 64 / 219, P100_SOURCE + ": 219 images/s at batch 64", "read")
            for precision, source in H200_PRECISIONS:
                for batch in (32, 64, 128):
                    gpus["H200"]["profiles"][f"{precision}-{batch}"] = profile(
                        batch, h200[f"resnet50_bs{batch}_{precision}_ms"] / 1e3, source, "measured")
        else:
            gpus["P100"]["profiles"]["fp32-32"] = profile(
                32, p100_r50_bs32 * ratio_101_to_50 * scale_to_r50,
                "derived: P100 ResNet-50 at batch 32 (195 images/s, " + P100_SOURCE + ") times the ResNet-101 / "
                "ResNet-50 time ratio measured on the H200 at batch 32 (%.4f)" % ratio_101_to_50
                + ("" if scale_to_r50 == 1 else ", times the FLOP ratio of the 21,841-class head (%.5f)" % scale_to_r50),
                "derived")
            for precision, source in H200_PRECISIONS:
                for batch in (32, 64, 128):
                    gpus["H200"]["profiles"][f"{precision}-{batch}"] = profile(
                        batch, h200[f"resnet101_bs{batch}_{precision}_ms"] / 1e3 * scale_to_r50,
                        source + ("" if scale_to_r50 == 1 else
                                  "; times the FLOP ratio of the 21,841-class head (%.5f), derived" % scale_to_r50),
                        "measured" if scale_to_r50 == 1 else "derived")
        return gpus

    flops_101 = sum(forward_flops(n, e) for n, e in r101)
    flops_22k = sum(forward_flops(n, e) for n, e in r101_22k)
    sources = {
        "gradients": "torchvision ResNet, measured 2026-11-29 (docs/reference/*-gradients-backprop-order.csv)",
        "flops": "derived from tensor sizes and torchvision's architecture by models/generate_resnet_models.py",
    }
    models = [
        ("resnet50", "ResNet-50 (torchvision), ImageNet-1K, 224x224", r50, gpus_for("resnet50", 1)),
        ("resnet101", "ResNet-101 (torchvision), ImageNet-1K, 224x224", r101, gpus_for("resnet101", 1)),
        ("resnet101-22k", "ResNet-101 with a 21,841-class head (ImageNet-22K), 224x224", r101_22k,
         gpus_for("resnet101-22k", flops_22k / flops_101)),
    ]
    for name, description, gradients, gpus in models:
        with open(f"{out}/{name}.json", "w") as f:
            json.dump(model_json(name, description, gradients, gpus, sources), f, indent=1)
            f.write("\n")
        print(name, sum(e for _, e in gradients), "parameters,",
              "%.3f GFLOPs forward per image" % (sum(forward_flops(n, e) for n, e in gradients) / 1e9))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
