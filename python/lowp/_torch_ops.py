"""lowp's ops as PyTorch operators (``torch.ops.lowp.*``), importable where torch is.

Each op has a schema, one kernel for CPU and CUDA (lowp/_core.py: the C library on the tensor's
device and current stream) and a fake implementation giving the exact output shapes
(lowp/_shapes.py: packed FP4 codes, padded scale arrays), so ``torch.compile(fullgraph=True)``
traces them and CUDA graphs capture them. Ops that update state in place (delayed scaling's amax,
the update, the stochastic-rounding state {seed, offset}) declare it in their schema; the SR state
is a device tensor that lowp.rng_advance moves on inside the graph, never read by the host.

The public functions (lowp.quantize, ...) route torch tensors here on their own; import this
module to use the operators directly. Outputs a call does not produce are empty tensors.
"""
from __future__ import annotations

import torch

from . import _core, _lowp, _shapes

_LIB = torch.library.Library("lowp", "DEF")

_FP8_OUT = "(Tensor data, Tensor data_t, Tensor scale, Tensor scale_inv, Tensor amax)"
_PARTS_OUT = "(Tensor data, Tensor scale_inv, Tensor amax, Tensor data_t, Tensor scale_inv_t, Tensor amax_t)"
_FP8_KNOBS = "float amax_epsilon, bool power_of_two_scale"
_FOUR_OVER_SIX = "bool? four_over_six, int? four_over_six_error, float? four_over_six_scale_max"
_GROUP = "Tensor first_dims, Tensor last_dims, Tensor offsets"
_GROUP_OUT = "(Tensor data, Tensor data_t, Tensor scale, Tensor scale_inv, Tensor amax, Tensor workspace)"
# A GEMM operand: the copy it reads (data, its scales, its amax) and the tensor it belongs to.
_GEMM_A, _GEMM_B = (f"Tensor {p}_data, Tensor? {p}_scale_inv, Tensor? {p}_amax, int {p}_dtype, int {p}_scaling, "
                    f"int {p}_scale_layout, int {p}_rows, int {p}_cols, float {p}_outer_max, int {p}_copy"
                    for p in "ab")
_GEMM_KNOBS = "Tensor? bias, bool fast_accumulation, bool a_columnwise_rht, bool b_columnwise_rht"

SCHEMAS = {
    "fp8_quantize": f"fp8_quantize(Tensor x, Tensor? scale, Tensor(a!)? amax, int dtype, int scaling, bool rowwise, "
                    f"bool columnwise, {_FP8_KNOBS}) -> {_FP8_OUT}",
    "fp8_quantize_dact": f"fp8_quantize_dact(Tensor grad, Tensor act_input, int activation, Tensor? scale, "
                         f"Tensor(a!)? amax, int dtype, int scaling, bool rowwise, bool columnwise, {_FP8_KNOBS}) "
                         f"-> {_FP8_OUT}",
    "fp8_quantize_per_token": f"fp8_quantize_per_token(Tensor x, int dtype, bool rowwise, bool columnwise, "
                              f"{_FP8_KNOBS}) -> {_PARTS_OUT}",
    "nvfp4_quantize": "nvfp4_quantize(Tensor x, Tensor? rowwise_amax, Tensor? columnwise_amax, Tensor? rng_state, "
                      "int scaling, bool rowwise, bool columnwise, int scale_layout, int? role, bool? rht, "
                      "int? rht_sign_mask, bool? stochastic_rounding, bool? block_2d, bool? amax_estimation, "
                      f"float? amax_estimation_factor, {_FOUR_OVER_SIX}, {_FP8_KNOBS}) -> {_PARTS_OUT}",
    "dequantize": "dequantize(Tensor data, Tensor? scale_inv, Tensor? amax, int dtype, int scaling, int scale_layout, "
                  "int rows, int cols, float outer_max, int which, int out_dtype) -> Tensor",
    "amax": "amax(Tensor x) -> Tensor",
    "amax_per_token": "amax_per_token(Tensor x, bool rows, bool cols) -> (Tensor row_amax, Tensor col_amax)",
    "nvfp4_amax_per_row": "nvfp4_amax_per_row(Tensor x, int scaling, bool rows, bool cols, bool rht, "
                          "int? rht_sign_mask) -> (Tensor row_amax, Tensor col_amax)",
    "fp8_delayed_scaling_update": "fp8_delayed_scaling_update(Tensor(a!) amax_history, Tensor(b!) scale, "
                                  "Tensor(c!) scale_inv, int dtype, int margin, int algo) -> ()",
    "nvfp4_swizzle_scales": "nvfp4_swizzle_scales(Tensor compact, int rows, int blocks) -> Tensor",
    "rng_advance": "rng_advance(Tensor(a!) rng_state, int increment) -> ()",
    "grouped_quantize": f"grouped_quantize(Tensor x, {_GROUP}, Tensor? scale, Tensor(a!)? amax, int dtype, "
                        f"int scaling, bool rowwise, bool columnwise, {_FP8_KNOBS}) -> {_GROUP_OUT}",
    "grouped_quantize_dact": f"grouped_quantize_dact(Tensor grad, Tensor act_input, int activation, {_GROUP}, "
                             f"Tensor? scale, Tensor(a!)? amax, int dtype, int scaling, bool rowwise, "
                             f"bool columnwise, {_FP8_KNOBS}) -> {_GROUP_OUT}",
    "grouped_amax": f"grouped_amax(Tensor x, {_GROUP}) -> (Tensor amax, Tensor workspace)",
    "grouped_dequantize": f"grouped_dequantize(Tensor data, Tensor scale_inv, {_GROUP}, int dtype, int scaling, "
                          "int which, int out_dtype) -> (Tensor out, Tensor workspace)",
    "nvfp4_grouped_quantize": "nvfp4_grouped_quantize(Tensor x, Tensor member_rows, Tensor? rowwise_amax, "
                              "Tensor? columnwise_amax, Tensor? rng_state, int scaling, bool rowwise, "
                              "bool columnwise, int scale_layout, bool? rht, int? rht_sign_mask, "
                              f"bool? stochastic_rounding, int group_row_multiple, {_FOUR_OVER_SIX}) -> "
                              "(Tensor data, Tensor scale_inv, Tensor amax, Tensor data_t, Tensor scale_inv_t, "
                              "Tensor amax_t, Tensor workspace)",
    "nvfp4_grouped_amax": "nvfp4_grouped_amax(Tensor x, Tensor member_rows, int scaling, bool rows, bool cols, "
                          "bool rht, int? rht_sign_mask, int group_row_multiple) -> (Tensor row_amax, "
                          "Tensor col_amax, Tensor workspace)",
    "gemm": f"gemm({_GEMM_A}, {_GEMM_B}, int out_dtype, {_GEMM_KNOBS}) -> Tensor",
    "gemm_accumulate": f"gemm_accumulate({_GEMM_A}, {_GEMM_B}, Tensor(a!) d, {_GEMM_KNOBS}) -> ()",
}

_DTYPES = {"uint8": torch.uint8, "float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}


def _empty(like, specs):
    return tuple(like.new_empty(shape, dtype=_DTYPES[dtype]) for shape, dtype in specs)


def _rows_cols(x):
    rows = 1
    for d in x.shape[:-1]:
        rows *= d
    return rows, x.shape[-1]


# Fake implementations: shapes only, from the same rules lowp/_core.py allocates with.
def _fake_fp8_quantize(x, scale, amax, dtype, scaling, rowwise, columnwise, *knobs):
    return _empty(x, _shapes.fp8_quantize(*_rows_cols(x), rowwise, columnwise, scale is None))


def _fake_fp8_quantize_dact(grad, act_input, activation, scale, amax, dtype, scaling, rowwise, columnwise, *knobs):
    return _empty(grad, _shapes.fp8_quantize(*_rows_cols(grad), rowwise, columnwise, scale is None))


def _fake_fp8_quantize_per_token(x, dtype, rowwise, columnwise, *knobs):
    return _empty(x, _shapes.fp8_quantize_per_token(*_rows_cols(x), rowwise, columnwise))


def _fake_nvfp4_quantize(x, rowwise_amax, columnwise_amax, rng_state, scaling, rowwise, columnwise, *knobs):
    return _empty(x, _shapes.nvfp4_quantize(*_rows_cols(x), scaling != _lowp.SCALING_NVFP4_PER_TENSOR, rowwise,
                                            columnwise, rowwise_amax is not None, columnwise_amax is not None))


def _fake_dequantize(data, scale_inv, amax, dtype, scaling, scale_layout, rows, cols, outer_max, which, out_dtype):
    (spec,) = _shapes.dequantize(rows, cols, which == _lowp.COLUMNWISE, _core.DTYPE_NAMES[out_dtype])
    return data.new_empty(spec[0], dtype=_DTYPES[spec[1]])


def _fake_amax(x):
    return x.new_empty((1,), dtype=torch.float32)


def _fake_amax_per_token(x, rows, cols, *knobs):
    return _empty(x, _shapes.amax_per_token(*_rows_cols(x), rows, cols))


def _fake_nvfp4_amax_per_row(x, scaling, rows, cols, *knobs):
    return _fake_amax_per_token(x, rows, cols)


def _fake_in_place(*args):
    return None


def _fake_nvfp4_swizzle_scales(compact, rows, blocks):
    return _empty(compact, _shapes.swizzled_scales(rows, blocks))[0]


def _fake_grouped_quantize(x, first_dims, last_dims, offsets, scale, amax, dtype, scaling, rowwise, columnwise,
                           *knobs):
    n = first_dims.numel()
    return _empty(x, _shapes.grouped_quantize(x.numel(), n, rowwise, columnwise, scale is None,
                                              _shapes.grouped_workspace_bytes(n)))


def _fake_grouped_quantize_dact(grad, act_input, activation, first_dims, last_dims, offsets, scale, amax, dtype,
                                scaling, rowwise, columnwise, *knobs):
    return _fake_grouped_quantize(grad, first_dims, last_dims, offsets, scale, amax, dtype, scaling, rowwise,
                                  columnwise)


def _fake_grouped_amax(x, first_dims, last_dims, offsets):
    n = first_dims.numel()
    return _empty(x, [((n,), "float32"), ((_shapes.grouped_workspace_bytes(n),), "uint8")])


def _fake_grouped_dequantize(data, scale_inv, first_dims, last_dims, offsets, dtype, scaling, which, out_dtype):
    n = first_dims.numel()
    return _empty(data, [((data.numel(),), _core.DTYPE_NAMES[out_dtype]),
                         ((_shapes.grouped_workspace_bytes(n),), "uint8")])


def _fake_nvfp4_grouped_quantize(x, member_rows, rowwise_amax, columnwise_amax, rng_state, scaling, rowwise,
                                 columnwise, *knobs):
    n = member_rows.numel()
    return _empty(x, _shapes.nvfp4_grouped_quantize(*_rows_cols(x), n, rowwise, columnwise,
                                                    rowwise_amax is not None, columnwise_amax is not None,
                                                    _shapes.grouped_workspace_bytes(n)))


def _fake_nvfp4_grouped_amax(x, member_rows, scaling, rows, cols, *knobs):
    n = member_rows.numel()
    return _empty(x, _shapes.nvfp4_grouped_amax(*_rows_cols(x), n, rows, cols, _shapes.grouped_workspace_bytes(n)))


def _fake_gemm(*args):
    a_rows, a_cols, _, a_copy = args[6:10]
    b_rows, b_cols, _, b_copy = args[16:20]
    columnwise = _lowp.COLUMNWISE
    m = a_cols if a_copy == columnwise else a_rows
    n = b_cols if b_copy == columnwise else b_rows
    return args[0].new_empty((m, n), dtype=_DTYPES[_core.DTYPE_NAMES[args[20]]])


_FAKES = {
    "fp8_quantize": _fake_fp8_quantize,
    "fp8_quantize_dact": _fake_fp8_quantize_dact,
    "fp8_quantize_per_token": _fake_fp8_quantize_per_token,
    "nvfp4_quantize": _fake_nvfp4_quantize,
    "dequantize": _fake_dequantize,
    "amax": _fake_amax,
    "amax_per_token": _fake_amax_per_token,
    "nvfp4_amax_per_row": _fake_nvfp4_amax_per_row,
    "fp8_delayed_scaling_update": _fake_in_place,
    "nvfp4_swizzle_scales": _fake_nvfp4_swizzle_scales,
    "rng_advance": _fake_in_place,
    "grouped_quantize": _fake_grouped_quantize,
    "grouped_quantize_dact": _fake_grouped_quantize_dact,
    "grouped_amax": _fake_grouped_amax,
    "grouped_dequantize": _fake_grouped_dequantize,
    "nvfp4_grouped_quantize": _fake_nvfp4_grouped_quantize,
    "nvfp4_grouped_amax": _fake_nvfp4_grouped_amax,
    "gemm": _fake_gemm,
    "gemm_accumulate": _fake_in_place,
}


def _register():
    for name, schema in SCHEMAS.items():
        _LIB.define(schema)
        kernel = getattr(_core, name)
        _LIB.impl(name, kernel, "CPU")
        _LIB.impl(name, kernel, "CUDA")
        torch.library.register_fake(f"lowp::{name}", _FAKES[name], lib=_LIB)
        _core.TORCH_OPS[name] = getattr(torch.ops.lowp, name).default


_register()
