"""The autograd function of lowp.torch.Linear: y = x W^T (+ b) forward, dgrad and wgrad backward,
each a lowp GEMM on quantized copies.

forward  quantizes x (rowwise for fprop; its columnwise copy is what backward keeps for wgrad),
         runs fprop on W's rowwise copy (W is quantized by the module, once per step);
backward quantizes dy once (rowwise for dgrad, columnwise for wgrad), runs dgrad on W's
         columnwise copy and wgrad on x's columnwise copy (fp32, or accumulated into
         weight.main_grad), and the bias gradient in fp32.
Only quantized copies are kept for backward, through save_for_backward.
"""
from __future__ import annotations

from typing import NamedTuple, Optional

import torch

from .. import _api
from . import _amax_reduce
from ..recipes import Recipe
from ._roles import FLAT_LEN, Meta, State, flatten, quantize, unflatten


class Spec(NamedTuple):
    """Everything of a call that is not a tensor (hashable, so dynamo takes it as a constant)."""

    recipe: Recipe
    weight_meta: Meta
    need_dgrad: bool
    need_wgrad: bool
    fuse_wgrad_accumulation: bool


def gemm_dtype(dtype: torch.dtype) -> str:
    """lowp's GEMMs write bf16 or fp32: bf16 results directly, others through fp32 (a name:
    dynamo traces lowp.gemm's dtype lookup by name)."""
    return "bfloat16" if dtype == torch.bfloat16 else "float32"


def fast_accumulation(recipe: Recipe, product: str) -> bool:
    """Whether an FP8 GEMM of the recipe accumulates fast ("fprop", or "dgrad" / "wgrad")."""
    if recipe.family != "fp8":
        return False
    return recipe.fast_accumulation_fprop if product == "fprop" else recipe.fast_accumulation_backward


def fprop(qx, qw, bias: Optional[torch.Tensor], out_dtype: torch.dtype, recipe: Recipe) -> torch.Tensor:
    """y = x W^T + b. The bias goes into the GEMM's epilogue where lowp takes its dtype (bf16;
    fp32 for NVFP4), else it is added to the fp32 product (one rounding to y's dtype)."""
    in_epilogue = bias is not None and (bias.dtype == torch.bfloat16 or
                                        (recipe.family == "nvfp4" and bias.dtype == torch.float32))
    gdtype = gemm_dtype(out_dtype) if bias is None or in_epilogue else "float32"
    y = _api.gemm(qx, "rowwise", qw, "rowwise", out_dtype=gdtype, bias=bias if in_epilogue else None,
                  fast_accumulation=fast_accumulation(recipe, "fprop"))
    if bias is not None and not in_epilogue:
        y = y + bias.float()
    return y.to(out_dtype)


def _delayed_update(recipe, state, rows, role):
    """Delayed scaling: the next scales from the history rows of this phase (one launch), after
    their latest amaxes are reduced across the recipe's amax_reduction_group."""
    if recipe.amax_reduction_group is not None:
        _amax_reduce.reduce_history(state.amax_history[rows], recipe.amax_reduction_group)
    _api.fp8_delayed_scaling_update(state.amax_history[rows], state.scale[rows], state.scale_inv[rows],
                                    dtype=recipe.dtype(role), margin=recipe.margin, algo=recipe.amax_compute_algo)


class LinearFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias, spec: Spec, *tensors):
        recipe = spec.recipe
        qw = unflatten(tensors[:FLAT_LEN], spec.weight_meta)
        state = State(*tensors[FLAT_LEN:])
        x2d = x.reshape(-1, x.shape[-1])
        qx = quantize(x2d, recipe, "input", True, spec.need_wgrad, state)
        if recipe.scaling == "fp8_delayed":
            _delayed_update(recipe, state, slice(0, 2), "input")
        out_dtype = torch.get_autocast_dtype(x.device.type) if torch.is_autocast_enabled(x.device.type) else x.dtype
        y = fprop(qx, qw, bias, out_dtype, recipe)

        x_saved, x_meta = flatten(qx, rowwise=False, columnwise=spec.need_wgrad)
        w_saved, w_meta = flatten(qw, rowwise=False, columnwise=spec.need_dgrad)
        ctx.save_for_backward(*x_saved, *w_saved, *state)
        ctx.spec, ctx.x_meta, ctx.w_meta = spec, x_meta, w_meta
        ctx.x_dtype, ctx.w_dtype, ctx.x_shape = x.dtype, weight.dtype, x.shape
        ctx.has_bias = bias is not None
        ctx.bias_dtype = None if bias is None else bias.dtype
        # Fused wgrad accumulation writes weight.main_grad, a buffer of the weight, not a saved
        # activation.
        ctx.weight = weight if spec.fuse_wgrad_accumulation else None
        return y.reshape(*x.shape[:-1], y.shape[-1])

    @staticmethod
    def backward(ctx, dy):
        spec = ctx.spec
        recipe = spec.recipe
        saved = ctx.saved_tensors
        qx = unflatten(saved[:FLAT_LEN], ctx.x_meta)
        qw = unflatten(saved[FLAT_LEN:2 * FLAT_LEN], ctx.w_meta)
        state = State(*saved[2 * FLAT_LEN:])
        dy2d = dy.reshape(-1, dy.shape[-1])
        need_dx = ctx.needs_input_grad[0] and spec.need_dgrad
        need_dw = ctx.needs_input_grad[1] and spec.need_wgrad
        dx = dw = db = None
        if need_dx or need_dw:
            qdy = quantize(dy2d, recipe, "gradient", need_dx, need_dw, state)
            if recipe.scaling == "fp8_delayed":
                _delayed_update(recipe, state, slice(2, 3), "gradient")
        if need_dx:
            dx = _api.gemm(qdy, "rowwise", qw, "columnwise", out_dtype=gemm_dtype(ctx.x_dtype),
                           fast_accumulation=fast_accumulation(recipe, "dgrad"))
            dx = dx.to(ctx.x_dtype).reshape(ctx.x_shape)
        if need_dw:
            main_grad = getattr(ctx.weight, "main_grad", None) if spec.fuse_wgrad_accumulation else None
            if main_grad is not None:
                _api.gemm(qdy, "columnwise", qx, "columnwise", accumulate_into=main_grad,
                          fast_accumulation=fast_accumulation(recipe, "wgrad"))
            else:
                dw = _api.gemm(qdy, "columnwise", qx, "columnwise", out_dtype=gemm_dtype(ctx.w_dtype),
                               fast_accumulation=fast_accumulation(recipe, "wgrad"))
                dw = dw.to(ctx.w_dtype)
        if ctx.has_bias and ctx.needs_input_grad[2]:
            db = dy2d.sum(0, dtype=torch.float32).to(ctx.bias_dtype)
        return (dx, dw, db, None) + (None,) * (FLAT_LEN + len(State._fields))
