"""A GPT-style decoder, small enough to train on a CPU rank: what ddlscale_torch.train and .profile run for
`--model gpt-mini` (and the other sizes below), as ddlsim's transformer models (models/gpt2.json) describe
GPT-2 at full size.

The architecture is GPT-2's (Radford et al. 2019, "Language Models are Unsupervised Multitask Learners",
section 2.3, on GPT-1's decoder of Radford et al. 2018): learned token and position embeddings; pre-norm
blocks of causal multi-head self-attention and a 4x MLP with GELU, each in a residual branch; a final
LayerNorm; a linear head over the vocabulary. Unlike GPT-2 the head is not tied to the token embedding, so
that every parameter is one tensor with one gradient, as ddlsim's gradient tables count them. Sizes are
chosen for this machine, not taken from a paper: a step of gpt-mini at batch 8 and 128 tokens takes about
as long on one core as ResNet-18's at 160x160 and batch 16 (about a second), with 5.3 M parameters (21 MB of
fp32 gradients) to move.
"""
import math

import torch
import torch.nn as nn

# name: (layers, heads, model width, vocabulary, longest sequence)
SIZES = {
    "gpt-nano": (2, 2, 128, 2048, 256),
    "gpt-mini": (4, 4, 256, 4096, 256),
    "gpt-small": (6, 6, 384, 8192, 512),
}


class CausalSelfAttention(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(width, 3 * width)
        self.projection = nn.Linear(width, width)

    def forward(self, x):
        batch, tokens, width = x.shape
        q, k, v = self.qkv(x).split(width, dim=2)
        # (batch, heads, tokens, width per head)
        q, k, v = (t.view(batch, tokens, self.heads, width // self.heads).transpose(1, 2) for t in (q, k, v))
        scores = q @ k.transpose(-2, -1) / math.sqrt(width // self.heads)
        future = torch.ones(tokens, tokens, dtype=torch.bool, device=x.device).triu(1)
        attention = scores.masked_fill(future, float("-inf")).softmax(dim=-1)
        y = (attention @ v).transpose(1, 2).reshape(batch, tokens, width)
        return self.projection(y)


class Block(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.norm1 = nn.LayerNorm(width)
        self.attention = CausalSelfAttention(width, heads)
        self.norm2 = nn.LayerNorm(width)
        self.mlp = nn.Sequential(nn.Linear(width, 4 * width), nn.GELU(), nn.Linear(4 * width, width))

    def forward(self, x):
        x = x + self.attention(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class Gpt(nn.Module):
    def __init__(self, layers, heads, width, vocabulary, longest):
        super().__init__()
        self.vocabulary = vocabulary
        self.longest = longest
        self.token_embedding = nn.Embedding(vocabulary, width)
        self.position_embedding = nn.Embedding(longest, width)
        self.blocks = nn.Sequential(*(Block(width, heads) for _ in range(layers)))
        self.norm = nn.LayerNorm(width)
        self.head = nn.Linear(width, vocabulary, bias=False)

    def forward(self, tokens):
        positions = torch.arange(tokens.shape[1], device=tokens.device)
        x = self.token_embedding(tokens) + self.position_embedding(positions)
        return self.head(self.norm(self.blocks(x)))


def is_gpt(name):
    return name in SIZES


def build(name):
    return Gpt(*SIZES[name])


def loss(network, batch):
    """Next-token cross-entropy of a batch of (tokens, the same shifted by one)."""
    tokens, targets = batch
    logits = network(tokens)
    return nn.functional.cross_entropy(logits.view(-1, logits.shape[-1]), targets.reshape(-1))


def batches(name, batch, sequence, generator, count):
    """`count` batches of `batch` sequences of `sequence` random tokens of model `name`'s vocabulary, each
    with its next-token targets."""
    return batches_of_vocabulary(SIZES[name][3], batch, sequence, generator, count)


def batches_of_vocabulary(vocabulary, batch, sequence, generator, count):
    result = []
    for _ in range(count):
        stream = torch.randint(0, vocabulary, (batch, sequence + 1), generator=generator)
        result.append((stream[:, :-1].contiguous(), stream[:, 1:].contiguous()))
    return result
