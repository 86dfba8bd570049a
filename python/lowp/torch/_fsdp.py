"""FSDP2's quantized all-gather of lowp.torch.Linear weights (torch.distributed.fsdp.fully_shard's
fsdp_pre_all_gather / fsdp_post_all_gather extension).

ShardWeight wraps the high-precision weight (FSDP shards it along rows, out_features): every op
runs on the plain tensor, so the optimizer and its state see plain high-precision tensors. Before
the all-gather each rank quantizes its rows with the amax of the whole weight (the MAX over the
shard group), so every shard shares one scale; after it, GatheredWeight holds the quantized
weight, which lowp.torch.Linear's GEMMs read directly.

What travels, for a weight of out x in:
  FP8 current scaling: the rowwise codes, 1 byte per element (the scale is shared, not sent).
  NVFP4 per-tensor with 16x16 tiles (weight.block_2d): the rowwise codes (2 per byte) and the
    rowwise block scales (1 byte per 16 elements), unpadded; the outer amax is shared.
  Anything else (another scaling, 4over6 tiles, shards that are uneven or, for NVFP4, not whole
  16-row tiles): the high-precision shard, cast to the mixed-precision param_dtype if any.
The columnwise copy (dgrad) is made after the gather: FP8's is the transpose of the codes (both
copies share the scale, numerics §2); with 16x16 tiles both NVFP4 copies take the same tile scale
and the same codes (§4), so it is the transpose of the codes and of the tile scales.
"""
from __future__ import annotations

from typing import NamedTuple, Optional

import torch
from torch.utils import _pytree as pytree

from .. import _api
from .._shapes import roundup
from .._types import QuantizedPart, QuantizedTensor
from . import _amax_reduce
from ._roles import State, flatten, quantize

aten = torch.ops.aten
# FSDP pads, slices and copies the shard when it shards and moves it: those keep the wrapper.
_KEEP_SHARD = {aten.detach.default, aten.alias.default, aten.view.default, aten.slice.Tensor, aten.split.Tensor,
               aten.as_strided.default, aten.new_zeros.default, aten.copy_.default, aten.clone.default,
               aten._to_copy.default, aten._pin_memory.default}
_KEEP_GATHERED = {aten.detach.default, aten.alias.default, aten.as_strided.default, aten.view.default}


def plan(recipe, shape, shards: int) -> Optional[str]:
    """"fp8", "nvfp4", or None (the weight travels in high precision) for a weight of `shape`
    split into `shards` row blocks."""
    out, cols = shape
    if out % shards or cols % 16:
        return None
    if recipe.scaling == "fp8_current":
        return "fp8"
    if recipe.scaling == "nvfp4_per_tensor" and recipe.weight.block_2d and not recipe.weight.four_over_six:
        return "nvfp4" if (out // shards) % 16 == 0 else None
    return None


class _Gathered(NamedTuple):
    """The all-gather metadata: the kind, and this rank's quantized shard, whose scale fields
    (amax, scale, scale_inv) are every rank's and whose codes and block scales went out as the
    all-gather inputs."""

    kind: str
    shard: QuantizedTensor


class ShardWeight(torch.Tensor):
    """A lowp.torch.Linear's high-precision weight (FSDP's shard of it after fully_shard) that
    FSDP2 all-gathers quantized. Ops run on the plain tensor and return plain tensors, except the
    ones FSDP shards and moves it with."""

    @staticmethod
    def __new__(cls, hp: torch.Tensor):
        return torch.Tensor._make_wrapper_subclass(cls, hp.shape, strides=hp.stride(),
                                                   storage_offset=hp.storage_offset(), dtype=hp.dtype,
                                                   device=hp.device, requires_grad=hp.requires_grad)

    def __init__(self, hp: torch.Tensor):
        self._hp = hp
        self._amax = None   # (version, amax): precompute_weight_amaxes's, while the shard is unchanged
        self._group = None  # the shard group, seen at the first all-gather
        self._cached = None  # (version, recipe, inputs, metadata): forward's shard, for backward's gather

    __torch_function__ = torch._C._disabled_torch_function_impl

    @classmethod
    def __torch_dispatch__(cls, func, types, args, kwargs=None):
        hps = []

        def unwrap(t):
            hps.append(t._hp)
            return t._hp

        args, kwargs = pytree.tree_map_only(ShardWeight, unwrap, (args, kwargs or {}))
        out = func(*args, **kwargs)
        if func._schema.is_mutable:
            # Below autograd nothing bumps the plain tensor's version, which says when the
            # quantized shard and a precomputed amax go stale (an optimizer step).
            torch.autograd.graph.increment_version(hps)
        return pytree.tree_map_only(torch.Tensor, ShardWeight, out) if func in _KEEP_SHARD else out

    def data_ptr(self) -> int:
        return self._hp.data_ptr()

    def __repr__(self):
        return f"ShardWeight({self._hp!r})"

    def given_amax(self) -> Optional[torch.Tensor]:
        a = self._amax
        return a[1] if a is not None and a[0] == self._hp._version else None

    def fsdp_pre_all_gather(self, mesh, outer_size, outer_stride, module, mp_policy):
        self._group = mesh.get_group()
        recipe, shards = module.recipe, mesh.size()
        kind = plan(recipe, tuple(outer_size), shards)
        if kind is None:
            return self._high_precision(outer_size[0], shards, mp_policy.param_dtype), None
        version = self._hp._version
        if self._cached is not None and self._cached[0] == version and self._cached[1] is recipe:
            return self._cached[2], self._cached[3]
        amax = self.given_amax()
        if amax is None:
            amax = _amax_reduce.local_amaxes(self._hp, recipe, "weight", False)
            _amax_reduce.all_reduce_max(amax, self._group)
        with torch.no_grad():
            q = quantize(self._hp, recipe, "weight", True, False, State(), amax)
        data = q.rowwise.data
        if kind == "fp8":
            inputs = (data,)
        else:
            inputs = (data, q.rowwise.scale_inv[:data.shape[0], :q.cols // 16].contiguous())
        meta = _Gathered(kind, q)
        self._cached = (version, recipe, inputs, meta)
        return inputs, meta

    def _high_precision(self, out_rows, shards, param_dtype):
        hp = self._hp if param_dtype is None else self._hp.to(param_dtype)
        rows = -(-out_rows // shards)  # FSDP's padded shard
        if hp.shape[0] != rows:
            hp = torch.cat([hp, hp.new_zeros(rows - hp.shape[0], *hp.shape[1:])])
        return (hp,)

    def fsdp_post_all_gather(self, outputs, metadata, param_dtype, *, out=None):
        if metadata is None:  # high precision: the all-gather output is the weight (out aliases it)
            return None if out is not None else (outputs[0], ())
        if out is not None:
            out._payload.refill(outputs, metadata)
            return None
        payload = _Payload(outputs, metadata)
        return GatheredWeight(payload, param_dtype), payload.inner_tensors()


class _Payload:
    """The gathered quantized weight, shared by every alias FSDP makes of it (FSDP refills it in
    place at each later all-gather)."""

    def __init__(self, outputs, metadata: _Gathered):
        self.scales = None
        self.refill(outputs, metadata)

    def refill(self, outputs, metadata: _Gathered):
        self.kind, self.shard = metadata
        self.codes = outputs[0]
        rows = self.codes.shape[0]
        self.shape = (rows, self.shard.cols)
        if self.kind == "nvfp4":
            # lowp's compact scales are padded to [roundup(rows,128)][roundup(blocks,4)], zeros in
            # the padding (what lowp writes): only the valid rows and blocks travel.
            padded = (roundup(rows, 128), roundup(self.shard.cols // 16, 4))
            if self.scales is None or tuple(self.scales.shape) != padded:
                self.scales = torch.zeros(padded, dtype=torch.uint8, device=self.codes.device)
            else:
                self.scales.zero_()
            self.scales[:rows, :outputs[1].shape[1]].copy_(outputs[1])

    def inner_tensors(self):
        return (self.codes,) if self.scales is None else (self.codes, self.scales)

    def quantized(self, columnwise: bool) -> QuantizedTensor:
        s = self.shard
        if self.kind == "fp8":
            col = QuantizedPart(self.codes.t().contiguous()) if columnwise else None
            return QuantizedTensor(s.scaling, s.dtype, self.shape, QuantizedPart(self.codes), col, s.scale,
                                   s.scale_inv, s.amax)
        amax = s.rowwise.amax
        col = QuantizedPart(*nvfp4_tile_transpose(self.codes, self.scales, *self.shape), amax) if columnwise else None
        return QuantizedTensor(s.scaling, s.dtype, self.shape, QuantizedPart(self.codes, self.scales, amax), col,
                               scale_layout=s.scale_layout, options=s.options, columnwise_rht=False)


def nvfp4_tile_transpose(codes: torch.Tensor, scales: torch.Tensor, rows: int, cols: int):
    """The columnwise copy of an NVFP4 tensor quantized in 16x16 tiles, from its rowwise copy
    (codes rows x cols/2, compact scales): (codes cols x rows/2, compact scales)."""
    values = torch.stack([codes & 15, codes >> 4], dim=-1).reshape(rows, cols)  # element 2j in bits 3:0
    t = values.t().contiguous()
    col_codes = t[:, 0::2] | (t[:, 1::2] << 4)
    tiles = scales[0:rows:16, :cols // 16]  # a tile's scale is repeated on its 16 rows
    col_scales = torch.zeros((roundup(cols, 128), roundup(rows // 16, 4)), dtype=torch.uint8, device=codes.device)
    col_scales[:cols, :rows // 16] = tiles.t().repeat_interleave(16, dim=0)
    return col_codes.contiguous(), col_scales


class GatheredWeight(torch.Tensor):
    """W (out x in) after FSDP's quantized all-gather: lowp.torch.Linear reads its quantized
    copies (``lowp_quantized``); any other op sees the dequantized weight, in the param dtype."""

    @staticmethod
    def __new__(cls, payload: _Payload, dtype: torch.dtype):
        return torch.Tensor._make_wrapper_subclass(cls, payload.shape, dtype=dtype, device=payload.codes.device)

    def __init__(self, payload: _Payload, dtype: torch.dtype):
        self._payload = payload

    __torch_function__ = torch._C._disabled_torch_function_impl

    def lowp_quantized(self, columnwise: bool):
        """(tensors, meta) of the quantized weight as lowp/torch/_roles.py flattens it: the rowwise
        copy and, when asked, the columnwise copy."""
        return flatten(self._payload.quantized(columnwise))

    def dequantized(self) -> torch.Tensor:
        return _api.dequantize(self._payload.quantized(False), "rowwise", self.dtype)

    def __repr__(self):
        return f"GatheredWeight({self._payload.kind}, shape={tuple(self.shape)}, dtype={self.dtype})"

    @classmethod
    def __torch_dispatch__(cls, func, types, args, kwargs=None):
        if func in _KEEP_GATHERED and _whole(func, args):
            return GatheredWeight(args[0]._payload, args[0].dtype)
        args, kwargs = pytree.tree_map_only(GatheredWeight, lambda t: t.dequantized(), (args, kwargs or {}))
        return func(*args, **kwargs)


def _whole(func, args) -> bool:
    """Whether a view op gives the whole weight as it is (FSDP's as_strided, nn.Parameter's detach)."""
    if len(args) == 1:
        return True
    size_ok = tuple(args[1]) == tuple(args[0].shape)
    return size_ok if func is not aten.as_strided.default else size_ok and (len(args) < 4 or args[3] in (0, None))
