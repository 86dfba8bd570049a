"""lowp.torch with torch.distributed (docs/distributed.md).

Amax reduction: a per-tensor recipe built with ``amax_reduction_group=group`` makes every rank
quantize x, W and dy with the scale a single process would take on the concatenated batch (the
amax MAX-reduced across the group before the encode; delayed scaling reduces its history).
``precompute_weight_amaxes(model)`` reduces every weight's amax in one collective per step.

FSDP2: ``enable_fsdp_quantized_all_gather(model)`` (after lowp.torch.convert, before
fully_shard) makes FSDP all-gather the weights quantized (FP8 current scaling, NVFP4 per-tensor
with 16x16 tiles); optimizer state and master weights stay in high precision.

    lowp.torch.convert(model, lowp.recipes.Fp8Current())
    lowp.torch.distributed.enable_fsdp_quantized_all_gather(model)
    for layer in model.layers: fully_shard(layer)
    fully_shard(model)
    for batch in data:
        loss(model(batch)).backward(); opt.step(); opt.zero_grad()
        lowp.torch.distributed.precompute_weight_amaxes(model)  # optional: one all-reduce
"""
from __future__ import annotations

from typing import List

import torch
from torch import nn

from . import _amax_reduce
from ._fsdp import GatheredWeight, ShardWeight, plan
from .linear import Linear, weight_key

_GIVEN = ("fp8_current", "nvfp4_per_tensor")  # scalings that encode with an amax given


def enable_fsdp_quantized_all_gather(model: nn.Module) -> List[str]:
    """Wraps the weight of every lowp.torch.Linear of model so that FSDP2's fully_shard
    all-gathers it quantized (lowp/torch/_fsdp.py says what travels). Call it after
    lowp.torch.convert and before fully_shard. Returns the names of the wrapped weights.

    Every lowp.torch.Linear must use FP8 current scaling or NVFP4 per-tensor with weight.block_2d
    and without 4over6 (ValueError otherwise: their columnwise copy is not a transpose of the
    gathered rowwise one, or delayed scaling's state lives in the module). A weight whose shards
    do not fit (out_features not split evenly; NVFP4: shards not whole 16-row tiles) is
    gathered in high precision. state_dict holds the plain high-precision weights.
    """
    wrapped = []
    for name, module in model.named_modules():
        if not isinstance(module, Linear) or isinstance(module.weight, ShardWeight):
            continue
        if plan(module.recipe, (module.out_features, module.in_features), 1) is None:
            raise ValueError(f"{name or 'model'}: recipe {module.recipe.name!r} has no quantized all-gather; it "
                             "takes fp8_current, or nvfp4_per_tensor with weight.block_2d and without "
                             "four_over_six (and in_features, out_features multiples of 16)")
        w = module.weight
        module.weight = nn.Parameter(ShardWeight(w.data), requires_grad=w.requires_grad)
        module.register_state_dict_post_hook(_plain_state_dict)
        wrapped.append(f"{name}.weight" if name else "weight")
    return wrapped


def _plain(t):
    """The plain high-precision tensor of a wrapped weight (a DTensor keeps its placement)."""
    if isinstance(t, ShardWeight):
        return t._hp
    local = getattr(t, "_local_tensor", None)
    if isinstance(local, ShardWeight):
        from torch.distributed.tensor import DTensor

        return DTensor.from_local(local._hp, t.device_mesh, t.placements, run_check=False, shape=t.shape,
                                  stride=t.stride())
    return t


def _plain_state_dict(module, state_dict, prefix, local_metadata):
    key = prefix + "weight"
    if key in state_dict:
        state_dict[key] = _plain(state_dict[key])


@torch.no_grad()
def precompute_weight_amaxes(model: nn.Module) -> None:
    """Reduces the amax of every lowp.torch.Linear weight that the next forward quantizes with a
    shared amax, in one all-reduce (MAX) per process group, and stores it for that forward:
    weights FSDP all-gathers quantized (over the shard group) and, for recipes with an
    amax_reduction_group, weights the module quantizes itself. Call it after optimizer.step()
    (and after anything else that changes the weights), as torchao's
    precompute_float8_dynamic_scale_for_fsdp; a weight changed after it is reduced again, on its
    own, when quantized. Without it each weight is reduced when it is quantized (one collective
    per layer)."""
    pending = {}  # id(group) -> (group, [(store, amax)])
    for module in model.modules():
        if not isinstance(module, Linear) or module.recipe.scaling not in _GIVEN:
            continue
        w, recipe = module.weight, module.recipe
        shard = getattr(w, "_local_tensor", w)
        if isinstance(shard, ShardWeight):
            if shard._group is None or plan(recipe, tuple(w.shape), shard._group.size()) is None:
                continue  # never gathered yet (its first all-gather reduces it), or gathered unquantized
            group, hp = shard._group, shard._hp

            def store(a, shard=shard, version=hp._version):
                shard._amax = (version, a)
        elif recipe.amax_reduction_group is not None and not isinstance(w, GatheredWeight):
            if w is not shard:
                continue  # FSDP without the quantized all-gather: forward sees the whole weight
            group, hp = recipe.amax_reduction_group, w

            def store(a, module=module, key=weight_key(w)):
                module._weight_amax = (key, a)
        else:
            continue
        amax = _amax_reduce.local_amaxes(hp, recipe, "weight", False)
        pending.setdefault(id(group), (group, []))[1].append((store, amax))
    for group, items in pending.values():
        flat = torch.cat([a for _, a in items])
        _amax_reduce.all_reduce_max(flat, group)
        for (store, _), a in zip(items, flat.split([a.numel() for _, a in items])):
            store(a.clone())


__all__ = ["enable_fsdp_quantized_all_gather", "precompute_weight_amaxes", "ShardWeight", "GatheredWeight"]
