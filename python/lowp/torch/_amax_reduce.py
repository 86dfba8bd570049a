"""Shared amaxes: a role quantized with an amax that every rank of a process group holds (the
MAX of the ranks' amaxes), so that every rank encodes with the scale a single process would take
on the concatenated data. The encode reads the amax instead of computing it: NVFP4 through
lowp.quantize's rowwise_amax / columnwise_amax, FP8 current scaling through the delayed-scaling
cast with the scale derived here exactly as current scaling derives it (numerics §2).
"""
from __future__ import annotations

import dataclasses
from typing import Optional

import torch
import torch.distributed as dist

from .. import _api

_FP8_MAX = {"e4m3": 448.0, "e5m2": 57344.0}
_POW2_MASK = -0x800000  # 0xFF800000 as int32: a power-of-two scale keeps sign and exponent
_CANONICAL_NAN = 0x7FFFFFFF


def all_reduce_max(amax: torch.Tensor, group) -> None:
    """MAX of float32 amaxes across the group, in place, on their bit patterns: lowp folds amaxes
    as unsigned bits (numerics §0), so any NaN ranks above inf; amaxes are >= 0, so the signed
    int32 order is the same."""
    dist.all_reduce(amax.view(torch.int32), op=dist.ReduceOp.MAX, group=group)


def bits_max(a: torch.Tensor) -> torch.Tensor:
    """max of non-negative float32 values as lowp folds them (1 element)."""
    return a.view(torch.int32).max().view(torch.float32).reshape(1)


def local_amaxes(x2d: torch.Tensor, recipe, role: str, columnwise: bool) -> torch.Tensor:
    """This rank's amaxes of a role: [A_row], or [A_row, A_col] where the columnwise copy of an
    NVFP4 role takes RHT with the exact post-RHT amax (numerics §4)."""
    row = _api.amax(x2d).reshape(1)
    if recipe.family == "nvfp4" and columnwise:
        knobs = recipe.role(role)
        if knobs.rht and not knobs.amax_estimation:
            # Row-scaled's RHT column amaxes are those of the bf16-rounded transform (§5b), the
            # values the per-tensor copy folds (§4): their maximum is the per-tensor A_col.
            _, cols = _api.nvfp4_amax_per_token(x2d, rows=False, cols=True, rht=True,
                                                rht_sign_mask=recipe.rht_sign_mask, scaling="nvfp4_row_scaled")
            return torch.cat([row, bits_max(cols)])
    return row


def shared_amaxes(x2d, recipe, role, columnwise, amax: Optional[torch.Tensor]) -> torch.Tensor:
    """amax as given (reduced elsewhere), else this rank's reduced over the recipe's group."""
    if amax is not None:
        return amax
    amax = local_amaxes(x2d, recipe, role, columnwise)
    all_reduce_max(amax, recipe.amax_reduction_group)
    return amax


def _canonical_nan(v: torch.Tensor) -> torch.Tensor:
    nan = torch.tensor(_CANONICAL_NAN, dtype=torch.int32, device=v.device).view(torch.float32)
    return torch.where(torch.isnan(v), nan, v)


def fp8_scale(amax: torch.Tensor, fp8_max: float, eps: float, power_of_two: bool) -> torch.Tensor:
    """fp8_scale_from_amax (src/numerics/fp8_scaling.h) in fp32 on amax's device: eps floors the
    amax (NaN stays NaN), 0 / inf / NaN give 1, an inf quotient FLT_MAX."""
    f32 = dict(dtype=torch.float32, device=amax.device)
    eps_t = torch.tensor(eps, **f32)
    a = torch.where(amax < eps_t, eps_t, amax)
    scale = torch.where(torch.isfinite(a) & (a != 0), torch.tensor(fp8_max, **f32) / a, torch.ones_like(a))
    scale = torch.where(torch.isinf(scale), torch.tensor(torch.finfo(torch.float32).max, **f32), scale)
    if power_of_two:
        scale = (scale.view(torch.int32) & _POW2_MASK).view(torch.float32)
    return scale


def fp8_current(x2d, recipe, role, rowwise, columnwise, amax=None):
    """FP8 current scaling with a shared amax: the delayed-scaling cast with current scaling's
    scale of that amax, so the bytes are those of lowp.quantize(..., "fp8_current") on one rank."""
    amax = shared_amaxes(x2d, recipe, role, columnwise, amax)
    dtype = recipe.dtype(role)
    scale = fp8_scale(amax, _FP8_MAX[dtype], recipe.amax_epsilon, recipe.power_of_two_scale)
    q = _api.quantize(x2d, "fp8_delayed", dtype=dtype, rowwise=rowwise, columnwise=columnwise, scale=scale,
                      amax=torch.zeros_like(amax[:1]))
    return dataclasses.replace(q, scaling="fp8_current", scale=scale, amax=amax)


def nvfp4_amaxes(x2d, recipe, role, rowwise, columnwise, amax=None) -> dict:
    """lowp.quantize's rowwise_amax / columnwise_amax for an NVFP4 per-tensor role from shared
    amaxes (laid out as local_amaxes gives them)."""
    amax = shared_amaxes(x2d, recipe, role, columnwise, amax)
    knobs = recipe.role(role)
    row = amax[0:1]
    if not knobs.rht:
        col = row
    elif knobs.amax_estimation:  # numerics §4: A_col = canonical_nan(A_row * c)
        factor = recipe.estimation_factor(role)
        col = _canonical_nan(row * torch.tensor(factor, dtype=torch.float32, device=row.device))
    else:
        col = amax[1:2]
    given = {}
    if rowwise:
        given["rowwise_amax"] = row
    if columnwise:
        given["columnwise_amax"] = col
    return given


def reduce_history(history_rows: torch.Tensor, group) -> None:
    """Delayed scaling: h[0] of the history rows about to be updated, MAX across the group (the
    rest of each row is the same on every rank, rolled from earlier reduced h[0])."""
    latest = history_rows[:, 0].contiguous()
    all_reduce_max(latest, group)
    history_rows[:, 0].copy_(latest)
