#!/usr/bin/env python3
"""Writes the transformer model files (models/gpt2.json, gpt2-medium.json, gpt2-xl.json, bert-large.json,
bert-large-seq512.json, llama2-7b.json) from the networks' published configurations and the training throughputs cited below.

Tensors are the parameters of the Hugging Face implementation of each network (GPT2LMHeadModel,
BertForPreTraining, LlamaForCausalLM), by their names there, in backprop order: the order backward finishes
their gradients, the last layer's first. A tied parameter (GPT-2's and BERT's word embedding, which the
output layer reuses) is finished only when the embedding's backward ends, so it comes last.

FLOPs per sequence of S tokens follow Narayanan et al., "Efficient Large-Scale Language Model Training on GPU
Clusters Using Megatron-LM" (SC'21, section 5.1): a weight matrix of W elements applied to every token costs
2·W·S FLOPs forward, and the attention of a layer of width h costs 4·S²·h forward (QKᵀ and the weighted sum
of V, the causal mask not exploited); backward costs twice the forward (gradients of inputs and of weights).
Per layer that gives their 24·S·h² + 4·S²·h forward, and 6·N·S in all for N matrix parameters when S ≪ 6h.
Biases and normalisation weights get no FLOPs of their own, as batch norm in the ResNets. Each tensor is
charged the backward that runs between the previous tensor's gradient and its own, as a workload splits
the backward time: the attention's backward to the layer's Q/K/V projection, which follows it; the output
layer's backward to the first tensor in backprop order, which it precedes.

Profiles come from published throughputs, not from runs of ours: iteration_s = batch × S / (tokens per second
per GPU), each with its source and confidence (derived from a read figure). A throughput measured on many
GPUs already holds their communication; the profile's note says where that is so.

Usage: models/generate_transformer_models.py models   (from the repository root)
"""
import json
import sys

# Memory bandwidth for the optimizer step, as the DGX topologies cite them.
MEMORY = {
    "A100": {"bandwidth_Bps": 2.039e12, "source": "A100-SXM4-80GB HBM2e 2.039 TB/s (NVIDIA A100 data sheet, recalled; "
                                                  "topologies/dgx-a100-hdr.json)"},
    "H100": {"bandwidth_Bps": 3.35e12, "source": "H100-SXM5 HBM3 3.35 TB/s (secondary sources, read; topologies/dgx-h100-ndr.json)"},
}


class Tensors:
    """Gradient tensors appended in backprop order, each with its backward FLOPs per sequence."""

    def __init__(self, sequence_length):
        self.s = sequence_length
        self.list = []
        self.forward = 0

    def matrix(self, name, rows, columns, extra_backward=0):
        """A weight applied to every token; extra_backward: FLOPs of work that runs just before its gradient."""
        w = rows * columns
        self.forward += 2 * w * self.s
        self.list.append({"name": name, "elements": w, "backward_flops_per_sequence": 4 * w * self.s + extra_backward})

    def vector(self, name, elements):
        """A bias or normalisation weight: no FLOPs of its own."""
        self.list.append({"name": name, "elements": elements, "backward_flops_per_sequence": 0})

    def lookup(self, name, rows, columns):
        """An embedding table read by index: no FLOPs."""
        self.list.append({"name": name, "elements": rows * columns, "backward_flops_per_sequence": 0})

    def attention(self, width):
        """A layer's attention core (QKᵀ, softmax, ·V): forward FLOPs added, the backward returned for the tensor after it."""
        self.forward += 4 * self.s * self.s * width
        return 8 * self.s * self.s * width

    def head(self, vocabulary, width):
        """An output layer over the vocabulary: forward FLOPs added, the backward returned for the first tensor."""
        self.forward += 2 * vocabulary * width * self.s
        return 4 * vocabulary * width * self.s


def gpt2(layers, width, vocabulary=50257, positions=1024, sequence=1024):
    """GPT2LMHeadModel: pre-LN blocks, the head tied to wte."""
    t = Tensors(sequence)
    head = t.head(vocabulary, width)
    t.vector("transformer.ln_f.bias", width)
    t.list[-1]["backward_flops_per_sequence"] += head
    t.vector("transformer.ln_f.weight", width)
    for layer in reversed(range(layers)):
        p = f"transformer.h.{layer}."
        t.vector(p + "mlp.c_proj.bias", width)
        t.matrix(p + "mlp.c_proj.weight", 4 * width, width)
        t.vector(p + "mlp.c_fc.bias", 4 * width)
        t.matrix(p + "mlp.c_fc.weight", width, 4 * width)
        t.vector(p + "ln_2.bias", width)
        t.vector(p + "ln_2.weight", width)
        t.vector(p + "attn.c_proj.bias", width)
        t.matrix(p + "attn.c_proj.weight", width, width)
        core = t.attention(width)
        t.vector(p + "attn.c_attn.bias", 3 * width)
        t.list[-1]["backward_flops_per_sequence"] += core
        t.matrix(p + "attn.c_attn.weight", width, 3 * width)
        t.vector(p + "ln_1.bias", width)
        t.vector(p + "ln_1.weight", width)
    t.lookup("transformer.wpe.weight", positions, width)
    t.lookup("transformer.wte.weight", vocabulary, width)
    return t


def bert_large(sequence, layers=24, width=1024, vocabulary=30522, positions=512, types=2):
    """BertForPreTraining: post-LN blocks, masked-LM head (decoder tied to the word embeddings, over every
    position as Hugging Face computes it) and next-sentence head on the pooler."""
    t = Tensors(sequence)
    t.vector("cls.seq_relationship.bias", 2)
    t.vector("cls.seq_relationship.weight", 2 * width)  # one token's worth: no FLOPs to speak of
    t.vector("cls.predictions.bias", vocabulary)
    t.list[-1]["backward_flops_per_sequence"] += t.head(vocabulary, width)
    t.vector("cls.predictions.transform.LayerNorm.bias", width)
    t.vector("cls.predictions.transform.LayerNorm.weight", width)
    t.vector("cls.predictions.transform.dense.bias", width)
    t.matrix("cls.predictions.transform.dense.weight", width, width)
    t.vector("bert.pooler.dense.bias", width)
    t.vector("bert.pooler.dense.weight", width * width)  # the first token only
    for layer in reversed(range(layers)):
        p = f"bert.encoder.layer.{layer}."
        t.vector(p + "output.LayerNorm.bias", width)
        t.vector(p + "output.LayerNorm.weight", width)
        t.vector(p + "output.dense.bias", width)
        t.matrix(p + "output.dense.weight", 4 * width, width)
        t.vector(p + "intermediate.dense.bias", 4 * width)
        t.matrix(p + "intermediate.dense.weight", width, 4 * width)
        t.vector(p + "attention.output.LayerNorm.bias", width)
        t.vector(p + "attention.output.LayerNorm.weight", width)
        t.vector(p + "attention.output.dense.bias", width)
        t.matrix(p + "attention.output.dense.weight", width, width)
        core = t.attention(width)
        t.vector(p + "attention.self.value.bias", width)
        t.list[-1]["backward_flops_per_sequence"] += core
        t.matrix(p + "attention.self.value.weight", width, width)
        t.vector(p + "attention.self.key.bias", width)
        t.matrix(p + "attention.self.key.weight", width, width)
        t.vector(p + "attention.self.query.bias", width)
        t.matrix(p + "attention.self.query.weight", width, width)
    t.vector("bert.embeddings.LayerNorm.bias", width)
    t.vector("bert.embeddings.LayerNorm.weight", width)
    t.lookup("bert.embeddings.token_type_embeddings.weight", types, width)
    t.lookup("bert.embeddings.position_embeddings.weight", positions, width)
    t.lookup("bert.embeddings.word_embeddings.weight", vocabulary, width)
    return t


def llama(sequence, layers=32, width=4096, intermediate=11008, vocabulary=32000):
    """LlamaForCausalLM: pre-RMSNorm blocks with SwiGLU, untied output layer."""
    t = Tensors(sequence)
    t.matrix("lm_head.weight", width, vocabulary)
    t.vector("model.norm.weight", width)
    for layer in reversed(range(layers)):
        p = f"model.layers.{layer}."
        t.matrix(p + "mlp.down_proj.weight", intermediate, width)
        t.matrix(p + "mlp.up_proj.weight", width, intermediate)
        t.matrix(p + "mlp.gate_proj.weight", width, intermediate)
        t.vector(p + "post_attention_layernorm.weight", width)
        t.matrix(p + "self_attn.o_proj.weight", width, width)
        t.matrix(p + "self_attn.v_proj.weight", width, width, extra_backward=t.attention(width))
        t.matrix(p + "self_attn.k_proj.weight", width, width)
        t.matrix(p + "self_attn.q_proj.weight", width, width)
        t.vector(p + "input_layernorm.weight", width)
    t.lookup("model.embed_tokens.weight", vocabulary, width)
    return t


def profile(batch, sequence, tokens_per_second, source, note=None):
    entry = {"batch": batch, "iteration_s": round(batch * sequence / tokens_per_second, 9), "source": source,
             "confidence": "derived"}
    if note:
        entry["note"] = note
    return entry


def model_json(name, description, tensors, optimizer, gpus, sources):
    return {
        "name": name,
        "description": description,
        "sequence_length": tensors.s,
        "optimizer": optimizer,
        "parameters": sum(t["elements"] for t in tensors.list),
        "forward_flops_per_sequence": tensors.forward,
        "gradients": tensors.list,
        "gpus": gpus,
        "sources": sources,
    }


def gpu_entry(gpu, profiles):
    return {"memory": MEMORY[gpu], "profiles": profiles}


FLOPS_SOURCE = ("Narayanan et al., SC'21 (arXiv 2104.04473), section 5.1: 2 FLOPs per weight and token (24·S·h² per layer "
                "with a 4h MLP) + 4·S²·h forward per layer and "
                "2·S·h·V for the output layer; backward twice the forward; per tensor as generate_transformer_models.py says")


LLMC = "karpathy/llm.c, scripts/{script} (commit c6efd90, read)"
LLMC_NOTE = ("an 8-GPU step of llm.c (ZeRO-1, -z 1), so it holds that step's gradient reduce-scatter and parameter "
             "all-gather over NVLink, which a single GPU's iteration would not: an upper bound on the compute")
BERT_DLE = ("NVIDIA/DeepLearningExamples PyTorch/LanguageModeling/BERT/README.md, 'Pre-training NVIDIA DGX A100 (8x A100 80GB)', "
            "the 1-GPU row at sequence length {s}: {rate} sequences/s {precision} at batch {batch} per GPU (read)")
MPT = ("mosaicml/llm-foundry scripts/train/benchmarking/README.md, MPT-7B (6,667,247,616 parameters) at sequence length 4096 on "
       "8 x {gpu}, micro-batch 16, 2 micro-batches per step, amp_bf16, FSDP FULL_SHARD, activation checkpointing on: "
       "{rate} tokens/s per GPU (read)")
MPT_NOTE = ("derived from a sibling model: MPT-7B's measured rate times MPT-7B's forward FLOPs per token over Llama 2 7B's "
            "({ratio:.4f}), both counted as this file's tensors are. That run shards parameters over 8 GPUs and recomputes activations, "
            "so the time holds FSDP's collectives and a second forward: an upper bound on a single GPU's compute without recomputation")


def mpt7b_forward_flops_per_token(sequence, layers=32, width=4096, vocabulary=50432):
    """MPT-7B (llm-foundry's 7b: no biases, 4x GELU MLP, output layer tied to the embedding) as Narayanan et al. count it."""
    return layers * (2 * 12 * width * width + 4 * sequence * width) + 2 * vocabulary * width


def models():
    out = {}
    configurations = "Radford et al. 2019 (Language Models are Unsupervised Multitask Learners), Table 2, and Hugging Face's gpt2 configurations: vocabulary 50,257, 1024 positions"
    for name, layers, width, description in (("gpt2", 12, 768, "GPT-2 small (124M)"), ("gpt2-medium", 24, 1024, "GPT-2 medium (355M)"),
                                             ("gpt2-xl", 48, 1600, "GPT-2 XL (1.5B)")):
        tensors = gpt2(layers, width)
        if name == "gpt2":
            gpus = {"A100": gpu_entry("A100", {"bf16-64": profile(64, 1024, 524288 / 0.300 / 8, LLMC.format(script="run_gpt2_124M.sh") +
                                                                  ": 8 x A100 80GB SXM, -b 64 -t 1024, 524,288 tokens per step in ~300 ms", LLMC_NOTE)})}
        elif name == "gpt2-medium":
            gpus = {"A100": gpu_entry("A100", {"bf16-64": profile(64, 1024, 524288 / 0.820 / 8, LLMC.format(script="run_gpt2_350M.sh") +
                                                                  ": 8 x A100 80GB SXM, -b 64 -t 1024, 524,288 tokens per step in ~820 ms", LLMC_NOTE)})}
        else:
            gpus = {"H100": gpu_entry("H100", {"bf16-16": profile(16, 1024, 1048576 / 2.80 / 8, LLMC.format(script="run_gpt2_1558M.sh") +
                                                                  ": 8 x H100 80GB SXM, -b 16 -t 1024, 1,048,576 tokens per step (8 micro-batches "
                                                                  "of 16 per GPU) in 2.80 s", LLMC_NOTE + "; the optimizer's step, once per 8 micro-batches, "
                                                                  "is spread over them")})}
        out[name] = model_json(name, f"{description}, {layers} layers of width {width}, output layer tied to the token embedding, "
                                     "sequences of 1024 tokens", tensors, "adam", gpus,
                               {"configuration": configurations, "flops": FLOPS_SOURCE,
                                "optimizer": "AdamW, as llm.c trains GPT-2"})
    bert_sources = {"configuration": "Devlin et al. 2019 (BERT), BERT-large: 24 layers, width 1024, 16 heads; Hugging Face's "
                                     "bert-large-uncased configuration: vocabulary 30,522, 512 positions, 2 token types",
                    "flops": FLOPS_SOURCE + "; the masked-LM decoder counted over every position, as Hugging Face computes it",
                    "optimizer": "LAMB, as NVIDIA's BERT pretraining runs it: Adam's two moments and a norm per layer, "
                                 "so the step moves Adam's seven values per parameter"}
    for name, sequence, rows in (("bert-large", 128, (("tf32", 128, 317), ("amp", 256, 580))),
                                 ("bert-large-seq512", 512, (("tf32", 16, 110), ("amp", 32, 210)))):
        profiles = {f"{precision}-{batch}": profile(batch, sequence, rate * sequence,
                                                    BERT_DLE.format(s=sequence, rate=rate, batch=batch,
                                                                    precision={"tf32": "TF32", "amp": "mixed precision"}[precision]),
                                                    "one GPU with gradient accumulation: LAMB steps once per accumulated batch, so its cost is "
                                                    "spread over the micro-batches the rate counts")
                    for precision, batch, rate in rows}
        out[name] = model_json(name, f"BERT-large pretraining (masked LM and next sentence), sequences of {sequence} tokens",
                               bert_large(sequence), "adam", {"A100": gpu_entry("A100", profiles)}, bert_sources)
    llama_tensors = llama(4096)
    ratio = mpt7b_forward_flops_per_token(4096) / (llama_tensors.forward / 4096)
    llama_profiles = {gpu: gpu_entry(gpu, {"bf16-16": profile(16, 4096, rate * ratio, MPT.format(gpu=label, rate=rate),
                                                              MPT_NOTE.format(ratio=ratio))})
                      for gpu, label, rate in (("A100", "A100 80GB", 3684), ("H100", "H100 80GB", 8611))}
    out["llama2-7b"] = model_json(
        "llama2-7b", "Llama 2 7B: 32 layers of width 4096, SwiGLU MLP of 11,008, vocabulary 32,000, untied output layer, "
                     "sequences of 4096 tokens", llama_tensors, "adam", llama_profiles,
        {"configuration": "Touvron et al. 2023 (Llama 2, arXiv 2307.09288) and Hugging Face's Llama-2-7b configuration",
         "flops": FLOPS_SOURCE,
         "optimizer": "AdamW, as Llama 2 was trained",
         "cross-check": "Llama 2's own training: 184,320 A100-80GB GPU-hours for 2.0T tokens (arXiv 2307.09288, Tables 1 and 2), "
                        "3,014 tokens/s per GPU averaged over the whole run at scale (derived), against the A100 profile's rate here"})
    return out


def main(folder):
    for name, document in models().items():
        with open(f"{folder}/{name}.json", "w") as f:
            json.dump(document, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "models")
