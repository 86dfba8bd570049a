"""One role of a linear layer quantized as its recipe says (lowp.quantize with the role's
scaling, dtype and knobs), and a quantized tensor flattened to tensors + hashable metadata and
back, so autograd can keep it through save_for_backward."""
from __future__ import annotations

from typing import NamedTuple, Optional

import torch

from .. import _api
from . import _amax_reduce
from .._types import QuantizedPart, QuantizedTensor
from ..recipes import Recipe

# Where a role's delayed-scaling state sits in the module's [3][L] history and [3] scales.
ROLE_INDEX = {"input": 0, "weight": 1, "gradient": 2}


class State(NamedTuple):
    """A module's recipe state: delayed scaling's amax history [3][L], scale [3] and
    scale_inv [3] (float32), and the stochastic-rounding state {seed, offset} (int64 [2])."""

    amax_history: Optional[torch.Tensor] = None
    scale: Optional[torch.Tensor] = None
    scale_inv: Optional[torch.Tensor] = None
    rng_state: Optional[torch.Tensor] = None


def quantize(x2d: torch.Tensor, recipe: Recipe, role: str, rowwise: bool, columnwise: bool,
             state: State, amax: Optional[torch.Tensor] = None) -> QuantizedTensor:
    """x2d (rows x cols) quantized for `role` ("input", "weight", "gradient"); delayed scaling
    folds this amax into the role's history row, stochastic rounding advances the rng state.
    Shared amaxes (_amax_reduce.py): ``amax`` given (reduced elsewhere), or the recipe's
    amax_reduction_group set (reduced here); delayed scaling reduces its history instead."""
    shared = amax is not None or getattr(recipe, "amax_reduction_group", None) is not None
    if recipe.family == "fp8":
        if recipe.scaling == "fp8_delayed":
            i = ROLE_INDEX[role]
            return _api.quantize(x2d, "fp8_delayed", dtype=recipe.dtype(role), rowwise=rowwise,
                                 columnwise=columnwise, scale=state.scale[i:i + 1], amax=state.amax_history[i])
        if shared:
            return _amax_reduce.fp8_current(x2d, recipe, role, rowwise, columnwise, amax)
        return _api.quantize(x2d, recipe.scaling, dtype=recipe.dtype(role), rowwise=rowwise, columnwise=columnwise,
                             amax_epsilon=recipe.amax_epsilon, power_of_two_scale=recipe.power_of_two_scale)
    knobs = recipe.role(role)
    extra = {}
    # Only what differs from lowp's defaults: per-row scalings reject the per-tensor knobs.
    if knobs.block_2d:
        extra["block_2d"] = True
    if knobs.amax_estimation:
        extra["amax_estimation"] = True
        extra["amax_estimation_factor"] = recipe.estimation_factor(role)
    if knobs.four_over_six:
        extra.update(four_over_six=True, four_over_six_error=knobs.four_over_six_error,
                     four_over_six_scale_max=knobs.four_over_six_scale_max)
    if knobs.rht and recipe.rht_sign_mask is not None:
        extra["rht_sign_mask"] = recipe.rht_sign_mask
    if shared:
        extra.update(_amax_reduce.nvfp4_amaxes(x2d, recipe, role, rowwise, columnwise, amax))
    q = _api.quantize(x2d, recipe.scaling, rowwise=rowwise, columnwise=columnwise, rht=knobs.rht,
                      stochastic_rounding=knobs.stochastic_rounding,
                      rng_state=state.rng_state if knobs.stochastic_rounding else None, **extra)
    if knobs.stochastic_rounding:
        _api.rng_advance(state.rng_state)
    return q


class Meta(NamedTuple):
    """What a flattened QuantizedTensor needs besides its tensors (hashable)."""

    scaling: str
    dtype: str
    shape: tuple
    has_rowwise: bool
    has_columnwise: bool
    scale_layout: str
    options: tuple
    columnwise_rht: bool


def flatten(q: QuantizedTensor, rowwise: bool = True, columnwise: bool = True) -> tuple:
    """(tensors, meta): the kept copies' data, scale_inv, amax and the tensor's scale_inv
    (FP8 per-tensor), None where absent. The tensor-level scale and amax (delayed scaling's
    caller state) are not kept: no GEMM reads them."""
    rowwise = rowwise and q.rowwise is not None
    columnwise = columnwise and q.columnwise is not None
    tensors = []
    for keep, part in ((rowwise, q.rowwise), (columnwise, q.columnwise)):
        tensors += [part.data, part.scale_inv, part.amax] if keep else [None, None, None]
    tensors.append(q.scale_inv)
    meta = Meta(q.scaling, q.dtype, tuple(q.shape), rowwise, columnwise, q.scale_layout,
                tuple(sorted(q.options.items())), q.columnwise_rht)
    return tuple(tensors), meta


def unflatten(tensors, meta: Meta) -> QuantizedTensor:
    r = QuantizedPart(*tensors[0:3]) if meta.has_rowwise else None
    c = QuantizedPart(*tensors[3:6]) if meta.has_columnwise else None
    return QuantizedTensor(meta.scaling, meta.dtype, meta.shape, r, c, scale_inv=tensors[6],
                           scale_layout=meta.scale_layout, options=dict(meta.options),
                           columnwise_rht=meta.columnwise_rht)


FLAT_LEN = 7
