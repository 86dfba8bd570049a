"""Llama-style decoder (RMSNorm, rotary attention, SwiGLU, untied `lm_head`) and its MoE variant.

Every Linear has both dimensions a multiple of 64, so lowp can quantize all of them; the MoE
router (n_experts outputs) is the exception and is kept in high precision by train.py.
"""
import math
from dataclasses import dataclass, replace

import torch
import torch.nn.functional as F
from torch import nn


@dataclass(frozen=True)
class Config:
    dim: int
    n_layers: int
    n_heads: int
    hidden: int  # SwiGLU width of the dense MLP
    seq: int  # longest sequence the rotary table covers
    vocab: int = 256
    moe: bool = False
    n_experts: int = 8
    top_k: int = 2
    expert_hidden: int = 0  # SwiGLU width of one expert
    aux_coef: float = 0.01  # weight of the load-balancing loss
    dropout: float = 0.0


# ~8/3 * dim SwiGLU widths, rounded to multiples of 64; experts at about half that, so top-2
# routing keeps the active parameters near the dense model's.
PRESETS = {
    "tiny": Config(dim=64, n_layers=2, n_heads=4, hidden=192, seq=64, expert_hidden=64),  # ~0.1M
    "small": Config(dim=512, n_layers=6, n_heads=8, hidden=1344, seq=256, expert_hidden=640),  # ~19M
    "base": Config(dim=768, n_layers=14, n_heads=12, hidden=2048, seq=512, expert_hidden=1024),  # ~99M
}


def config(preset, moe=False, seq=None, dropout=0.0):
    c = PRESETS[preset]
    return replace(c, moe=moe, seq=max(seq or c.seq, c.seq), dropout=dropout)


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        # In fp32 whatever autocast does: the mean of squares is where bf16 would lose bits.
        y = x.float()
        y = y * torch.rsqrt(y.pow(2).mean(-1, keepdim=True) + self.eps)
        return (y * self.weight.float()).to(x.dtype)


def rotary_table(head_dim, seq, base=10000.0):
    inv = 1.0 / base ** (torch.arange(0, head_dim, 2, dtype=torch.float32) / head_dim)
    ang = torch.outer(torch.arange(seq, dtype=torch.float32), inv)
    ang = torch.cat([ang, ang], -1)
    return ang.cos(), ang.sin()


def rotate(x, cos, sin):
    x1, x2 = x.chunk(2, -1)
    return (x.float() * cos + torch.cat([-x2, x1], -1).float() * sin).to(x.dtype)


class Attention(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.n_heads, self.dropout = c.n_heads, c.dropout
        self.qkv = nn.Linear(c.dim, 3 * c.dim, bias=False)
        self.proj = nn.Linear(c.dim, c.dim, bias=False)

    def forward(self, x, cos, sin):
        b, t, d = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.n_heads, d // self.n_heads).permute(2, 0, 3, 1, 4)
        q, k = rotate(q, cos[:t], sin[:t]), rotate(k, cos[:t], sin[:t])
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True, dropout_p=self.dropout if self.training else 0.0)
        return self.proj(y.transpose(1, 2).reshape(b, t, d))


class SwiGLU(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.gate = nn.Linear(dim, hidden, bias=False)
        self.up = nn.Linear(dim, hidden, bias=False)
        self.down = nn.Linear(hidden, dim, bias=False)

    def forward(self, x):
        return self.down(F.silu(self.gate(x)) * self.up(x))


class MoE(nn.Module):
    """Top-k routed SwiGLU experts with a Switch-style load-balancing loss."""

    def __init__(self, c):
        super().__init__()
        self.top_k, self.n_experts = c.top_k, c.n_experts
        self.router = nn.Linear(c.dim, c.n_experts, bias=False)
        self.experts = nn.ModuleList(SwiGLU(c.dim, c.expert_hidden) for _ in range(c.n_experts))

    def forward(self, x):
        shape = x.shape
        x = x.reshape(-1, shape[-1])
        probs = self.router(x).float().softmax(-1)
        w, idx = probs.topk(self.top_k, -1)
        w = w / w.sum(-1, keepdim=True)
        out = torch.zeros_like(x)
        for e, expert in enumerate(self.experts):
            tok, slot = (idx == e).nonzero(as_tuple=True)
            n = tok.numel()
            if n == 0:
                continue
            # lowp wants token counts that are multiples of 16: zero rows pad the group (they
            # leave amaxes alone and get no gradient) and every arm takes the same path.
            xe = F.pad(x.index_select(0, tok), (0, 0, 0, -n % 16))
            ye = expert(xe)[:n] * w[tok, slot, None]
            out.index_add_(0, tok, ye.to(out.dtype))
        frac = F.one_hot(idx, self.n_experts).float().sum((0, 1)) / idx.numel()
        aux = self.n_experts * (frac * probs.mean(0)).sum()
        return out.view(shape), aux


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.attn_norm, self.mlp_norm = RMSNorm(c.dim), RMSNorm(c.dim)
        self.attn = Attention(c)
        self.mlp = MoE(c) if c.moe else SwiGLU(c.dim, c.hidden)
        self.drop = nn.Dropout(c.dropout)

    def forward(self, x, cos, sin):
        x = x + self.drop(self.attn(self.attn_norm(x), cos, sin))
        y = self.mlp(self.mlp_norm(x))
        y, aux = y if isinstance(y, tuple) else (y, None)
        return x + self.drop(y), aux


class Decoder(nn.Module):
    def __init__(self, c):
        super().__init__()
        assert c.dim % c.n_heads == 0 and (c.dim // c.n_heads) % 2 == 0
        self.c = c
        self.embed = nn.Embedding(c.vocab, c.dim)
        self.layers = nn.ModuleList(Block(c) for _ in range(c.n_layers))
        self.norm = RMSNorm(c.dim)
        self.lm_head = nn.Linear(c.dim, c.vocab, bias=False)
        cos, sin = rotary_table(c.dim // c.n_heads, c.seq)
        self.register_buffer("cos", cos, persistent=False)
        self.register_buffer("sin", sin, persistent=False)
        self.apply(self._init)
        # GPT-2's scaling of the residual projections keeps the stream's variance flat with depth.
        for name, p in self.named_parameters():
            if name.endswith(("proj.weight", "down.weight")):
                nn.init.normal_(p, std=0.02 / math.sqrt(2 * c.n_layers))

    @staticmethod
    def _init(m):
        if isinstance(m, (nn.Linear, nn.Embedding)):
            nn.init.normal_(m.weight, std=0.02)

    def forward(self, tokens):
        """Logits, and the mean load-balancing loss over MoE layers (None when dense)."""
        x = self.embed(tokens)
        auxes = []
        for layer in self.layers:
            x, aux = layer(x, self.cos, self.sin)
            if aux is not None:
                auxes.append(aux)
        aux = torch.stack(auxes).mean() if auxes else None
        return self.lm_head(self.norm(x)), aux
