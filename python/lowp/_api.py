"""The public functions: names and choices as strings, results as typed records. PyTorch tensors
go through the registered ``torch.ops.lowp`` operators (lowp/_torch_ops.py), so these functions also
run under ``torch.compile`` and CUDA-graph capture; every other array goes straight to
lowp/_core.py. The array ops call nothing of the extension here, so dynamo traces them.
"""
from __future__ import annotations

import functools
import warnings
from typing import Any, Optional

from . import _core, _lowp
from ._arrays import coerce, is_torch
from ._types import (Array, GroupedQuantizedTensor, Nvfp4GroupedTensor, QuantizedLayout, QuantizedPart,
                     QuantizedSizes, QuantizedTensor)

SCALINGS = {
    "fp8_delayed": _lowp.SCALING_DELAYED,
    "fp8_current": _lowp.SCALING_CURRENT,
    "fp8_per_token": _lowp.SCALING_PER_TOKEN,
    "nvfp4_per_tensor": _lowp.SCALING_NVFP4_PER_TENSOR,
    "nvfp4_per_token": _lowp.SCALING_NVFP4_PER_TOKEN,
    "nvfp4_row_scaled": _lowp.SCALING_NVFP4_ROW_SCALED,
}
FOUR_OVER_SIX_ERRORS = {"mae": _lowp.FOUR_OVER_SIX_MAE, "mse": _lowp.FOUR_OVER_SIX_MSE}
_PER_ROW_NVFP4 = ("nvfp4_per_token", "nvfp4_row_scaled")
FP8_DTYPES = {"e4m3": _lowp.DTYPE_E4M3, "e5m2": _lowp.DTYPE_E5M2}
QUANTIZED_DTYPES = {**FP8_DTYPES, "e2m1": _lowp.DTYPE_E2M1}
OUTPUT_DTYPES = {"float32": _lowp.DTYPE_FLOAT32, "float16": _lowp.DTYPE_FLOAT16, "bfloat16": _lowp.DTYPE_BFLOAT16}
GEMM_OUTPUT_DTYPES = {"bfloat16": _lowp.DTYPE_BFLOAT16, "float32": _lowp.DTYPE_FLOAT32}
ROLES = {"input": _lowp.ROLE_INPUT, "weight": _lowp.ROLE_WEIGHT, "gradient": _lowp.ROLE_GRADIENT}
SCALE_LAYOUTS = {"compact": _lowp.SCALE_LAYOUT_COMPACT, "swizzled": _lowp.SCALE_LAYOUT_SWIZZLED}
ORIENTATIONS = {"rowwise": _lowp.ROWWISE, "columnwise": _lowp.COLUMNWISE}
PARTS = {"rowwise": _lowp.PARTS_ROWWISE, "columnwise": _lowp.PARTS_COLUMNWISE, "both": _lowp.PARTS_BOTH}
ACTIVATIONS = {"gelu_tanh": _lowp.ACTIVATION_GELU_TANH, "silu": _lowp.ACTIVATION_SILU,
               "relu": _lowp.ACTIVATION_RELU}
AMAX_ALGOS = {"max": _lowp.AMAX_ALGO_MAX, "most_recent": _lowp.AMAX_ALGO_MOST_RECENT}
_FP8_SCALINGS = ("fp8_delayed", "fp8_current", "fp8_per_token")
# Whether an NVFP4 role's defaults (None: no role) put the columnwise copy in the RHT domain, read
# from the library once here (the functions below call nothing of the extension: dynamo traces them).
_COLUMNWISE_RHT = {role: _lowp.QuantConfig(role=None if role is None else ROLES[role]).rht
                   for role in (None, *ROLES)}
_GROUP_ARRAYS = ("first_dims", "last_dims", "offsets")



def _scaling_keyword(fn):
    """Takes the old keyword ``recipe=`` for ``scaling=`` with a DeprecationWarning: "recipe" is
    what a user trains with (lowp.recipes); these ops take one scaling."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if "recipe" in kwargs:
            if "scaling" in kwargs:
                raise TypeError(f"{fn.__name__}: give scaling= alone (recipe= is its deprecated name)")
            warnings.warn(f"{fn.__name__}(recipe=...) is deprecated; use scaling=...", DeprecationWarning,
                          stacklevel=2)
            kwargs["scaling"] = kwargs.pop("recipe")
        return fn(*args, **kwargs)

    return wrapper


def _choice(arg, value, table):
    code = table.get(value)
    if code is None:
        raise ValueError(f"{arg}: {value!r} is not one of {', '.join(map(repr, table))}")
    return code


def _dtype_choice(arg, value, table):
    """A dtype given as a name or a framework's dtype object (np.float32, torch.bfloat16)."""
    if not isinstance(value, str):
        try:
            import numpy as np

            value = np.dtype(value).name  # np.float32, np.dtype, ml_dtypes.bfloat16
        except TypeError:
            value = str(value).rsplit(".", 1)[-1]  # torch.bfloat16
    return _choice(arg, value, table)


def _run(name, first, *args):
    """Runs op `name` as a torch operator on tensors, else directly."""
    if is_torch(first):
        op = _core.TORCH_OPS.get(name)
        if op is None:
            from . import _torch_ops  # noqa: F401  (registers the operators, fills _core.TORCH_OPS)

            op = _core.TORCH_OPS[name]
        return op(first, *args)
    return getattr(_core, name)(first, *args)


def _input(x, name="x"):
    """Torch tensors as they are (for the operators), other arrays coerced to a known framework."""
    return x if is_torch(x) else coerce(x, name)


def _layout(x, arrays, names):
    """A group's layout arrays: tensors as they are for torch, else coerced (and kept alive by
    the caller)."""
    return arrays if is_torch(x) else [coerce(a, n) for a, n in zip(arrays, names)]


def _none_or_fp8(scaling, **knobs):
    for name, value in knobs.items():
        if value is not None:
            raise ValueError(f"{name}: an NVFP4 knob; scaling {scaling!r} does not take it")


@_scaling_keyword
def quantize(x: Array, scaling: str = "fp8_current", *, dtype: Optional[str] = None, rowwise: bool = True,
             columnwise: bool = False, scale: Optional[Array] = None, amax: Optional[Array] = None,
             amax_epsilon: float = 0.0, power_of_two_scale: bool = False, role: Optional[str] = None,
             scale_layout: str = "compact", rht: Optional[bool] = None, rht_sign_mask: Optional[int] = None,
             stochastic_rounding: Optional[bool] = None, rng_state: Optional[Array] = None,
             block_2d: Optional[bool] = None, amax_estimation: Optional[bool] = None,
             amax_estimation_factor: Optional[float] = None, rowwise_amax: Optional[Array] = None,
             columnwise_amax: Optional[Array] = None, four_over_six: Optional[bool] = None,
             four_over_six_error: Optional[str] = None,
             four_over_six_scale_max: Optional[float] = None) -> QuantizedTensor:
    """Quantizes x (float32, float16 or bfloat16; rows = all but the last dimension) to FP8 or
    NVFP4 (lowp_quantize): the rowwise copy and/or the columnwise copy (x transposed) in one pass.

    NumPy (bfloat16: ``ml_dtypes.bfloat16``) and PyTorch CPU arrays run lowp's CPU backend;
    PyTorch and CuPy CUDA arrays its CUDA backend on their device and current stream (no host
    sync, CUDA-graph capturable). Outputs are new arrays of x's framework on x's device.

    scaling:
      "fp8_current": amax pass, scale = fp8_max / amax, cast. Returns scale, scale_inv, amax.
      "fp8_delayed": casts with the given ``scale`` (1 float32) and folds max|x| into ``amax``
        (1 float32, or an amax history whose first element is h[0]) in place; then call
        lowp.fp8_delayed_scaling_update.
      "fp8_per_token": one scale per row (rowwise) / per column of x (columnwise copy).
      "nvfp4_per_tensor": E2M1 codes in 16-element blocks with UE4M3 block scales and one
        outer amax per copy. ``role`` ("input", "weight", "gradient") picks lowp's role
        defaults (numerics §4: RHT on the input's and gradient's columnwise copy, 16x16 blocks
        for weights, stochastic rounding for gradients); every knob below overrides them.
      "nvfp4_per_token": as NVFP4 with one outer amax per row of each copy. Its ``role``
        defaults are the same for every role (numerics §5: no RHT, no stochastic rounding,
        1D blocks); ask for rht / stochastic_rounding explicitly.
      "nvfp4_row_scaled": per-token's amaxes with the per-tensor math row by row (TE's
        row-scaled NVFP4; numerics §5b); ``role`` defaults as per-token's.
    dtype: "e4m3" (default) or "e5m2" for FP8; NVFP4 is "e2m1".
    amax_epsilon, power_of_two_scale: FP8 scale-from-amax options.
    NVFP4 knobs (None: the role's default): scale_layout ("compact" or "swizzled", the GEMM
      operand layout), rht, rht_sign_mask (16 bits), stochastic_rounding with rng_state (an
      int64/uint64 array {seed, offset} on x's device; lowp.rng_advance moves it on), block_2d,
      amax_estimation and amax_estimation_factor (per-tensor), rowwise_amax / columnwise_amax
      (amaxes computed elsewhere, e.g. by lowp.nvfp4_amax_per_token or reduced across ranks:
      read instead of computed), four_over_six (per-tensor and row-scaled, not with RHT or SR:
      each block keeps its largest value on 4 or on 6, whichever errs less; numerics §5c) with
      four_over_six_error ("mae", default, or "mse") and four_over_six_scale_max (448, default,
      or 256).

    Shapes: FP8 any rows x cols >= 1; NVFP4 cols % 16 == 0, rows % 16 == 0 for the columnwise
    copy or 16x16 blocks. Errors raise ValueError (a rule broken; lowp's message names it),
    NotImplementedError (a combination lowp does not build) or RuntimeError (CUDA); nothing is
    written then.

    >>> q = lowp.quantize(x, "nvfp4_per_tensor", role="input", columnwise=True)
    >>> q.rowwise.data, q.rowwise.scale_inv, q.rowwise.amax, q.dequantize()
    """
    scaling_code = _choice("scaling", scaling, SCALINGS)
    x = _input(x)
    shape = tuple(x.shape)
    if scaling in _FP8_SCALINGS:
        _none_or_fp8(scaling, role=role, rht=rht, rht_sign_mask=rht_sign_mask,
                     stochastic_rounding=stochastic_rounding, rng_state=rng_state, block_2d=block_2d,
                     amax_estimation=amax_estimation, amax_estimation_factor=amax_estimation_factor,
                     rowwise_amax=rowwise_amax, columnwise_amax=columnwise_amax, four_over_six=four_over_six,
                     four_over_six_error=four_over_six_error, four_over_six_scale_max=four_over_six_scale_max)
        if scale_layout != "compact":
            raise ValueError(f"scale_layout: an NVFP4 knob; scaling {scaling!r} does not take it")
        dtype = dtype or "e4m3"
        code = _choice("dtype", dtype, FP8_DTYPES)
        if scaling == "fp8_per_token":
            if scale is not None or amax is not None:
                raise ValueError("scale, amax: only fp8_delayed takes them")
            r, rs, ra, c, cs, ca = _run("fp8_quantize_per_token", x, code, rowwise, columnwise,
                                        float(amax_epsilon), bool(power_of_two_scale))
            return QuantizedTensor(scaling, dtype, shape, QuantizedPart(r, rs, ra) if rowwise else None,
                                   QuantizedPart(c, cs, ca) if columnwise else None)
        data, data_t, scale_o, scale_inv, amax_o = _run(
            "fp8_quantize", x, scale, amax, code, scaling_code, rowwise, columnwise, float(amax_epsilon),
            bool(power_of_two_scale))
        delayed = scaling == "fp8_delayed"
        return QuantizedTensor(scaling, dtype, shape, QuantizedPart(data) if rowwise else None,
                               QuantizedPart(data_t) if columnwise else None,
                               scale if delayed else scale_o, scale_inv, amax if delayed else amax_o)
    if scale is not None or amax is not None:
        raise ValueError(f"scale, amax: FP8 delayed-scaling state; scaling {scaling!r} does not take it "
                         "(NVFP4 amaxes given: rowwise_amax, columnwise_amax)")
    if dtype not in (None, "e2m1"):
        raise ValueError(f"dtype: NVFP4 codes are 'e2m1'; got {dtype!r}")
    layout = _choice("scale_layout", scale_layout, SCALE_LAYOUTS)
    role_code = None if role is None else _choice("role", role, ROLES)
    error_code = None if four_over_six_error is None else _choice("four_over_six_error", four_over_six_error,
                                                                   FOUR_OVER_SIX_ERRORS)
    r, rs, ra, c, cs, ca = _run(
        "nvfp4_quantize", x, rowwise_amax, columnwise_amax, rng_state, scaling_code, rowwise, columnwise, layout,
        role_code, rht, rht_sign_mask, stochastic_rounding, block_2d, amax_estimation, amax_estimation_factor,
        four_over_six, error_code, four_over_six_scale_max, float(amax_epsilon), bool(power_of_two_scale))
    options = {k: v for k, v in (("role", role), ("rht", rht), ("rht_sign_mask", rht_sign_mask),
                                 ("stochastic_rounding", stochastic_rounding), ("block_2d", block_2d),
                                 ("amax_estimation", amax_estimation),
                                 ("amax_estimation_factor", amax_estimation_factor),
                                 ("four_over_six", four_over_six), ("four_over_six_error", four_over_six_error),
                                 ("four_over_six_scale_max", four_over_six_scale_max)) if v is not None}
    return QuantizedTensor(scaling, "e2m1", shape,
                           QuantizedPart(r, rs, ra if rowwise_amax is None else rowwise_amax) if rowwise else None,
                           QuantizedPart(c, cs, ca if columnwise_amax is None else columnwise_amax)
                           if columnwise else None, scale_layout=scale_layout, options=options,
                           columnwise_rht=bool(rht) if rht is not None else _COLUMNWISE_RHT[role])


@_scaling_keyword
def quantize_dact(grad: Array, act_input: Array, activation: str = "gelu_tanh", scaling: str = "fp8_current", *,
                  dtype: Optional[str] = None, rowwise: bool = True, columnwise: bool = False,
                  scale: Optional[Array] = None, amax: Optional[Array] = None, amax_epsilon: float = 0.0,
                  power_of_two_scale: bool = False) -> QuantizedTensor:
    """Backward cast fused with an activation gradient (lowp_quantize_dact):
    q = fp8(dact(act_input) * grad * scale), amax over dact(act_input) * grad.

    activation: "gelu_tanh", "silu" or "relu". act_input: grad's dtype and shape. scaling:
    "fp8_current" or "fp8_delayed" (scale, amax as in lowp.quantize); other scalings raise
    NotImplementedError. Returns a QuantizedTensor as lowp.quantize does.
    """
    act = _choice("activation", activation, ACTIVATIONS)
    scaling_code = _choice("scaling", scaling, SCALINGS)
    dtype = dtype or ("e4m3" if scaling in _FP8_SCALINGS else "e2m1")
    code = _choice("dtype", dtype, QUANTIZED_DTYPES)
    grad = _input(grad)
    data, data_t, scale_o, scale_inv, amax_o = _run(
        "fp8_quantize_dact", grad, act_input, act, scale, amax, code, scaling_code, rowwise, columnwise,
        float(amax_epsilon), bool(power_of_two_scale))
    delayed = scaling == "fp8_delayed"
    return QuantizedTensor(scaling, dtype, tuple(grad.shape), QuantizedPart(data) if rowwise else None,
                           QuantizedPart(data_t) if columnwise else None, scale if delayed else scale_o,
                           scale_inv, amax if delayed else amax_o)


def dequantize(q: QuantizedTensor, which: str = "rowwise", dtype: Any = "float32") -> Array:
    """One copy of q back in high precision (lowp_dequantize): rowwise -> x's shape, columnwise
    -> cols x rows (x transposed; an NVFP4 copy made with RHT comes back in the RHT domain).

    dtype: "float32", "float16" or "bfloat16" (or the framework's dtype object); round to
    nearest even. The result is in q's framework, on its device.
    """
    args = _copy_args(q, which, "which", "q")
    out_dtype = _dtype_choice("dtype", dtype, OUTPUT_DTYPES)
    out = _run("dequantize", *args, out_dtype)
    return out if args[-1] == _lowp.COLUMNWISE else out.reshape(q.shape)


def _copy_args(q, which, which_arg, name):
    """The operator arguments of one copy of q: (data, scale_inv, amax, dtype, scaling_code,
    scale_layout, rows, cols, nvfp4_outer_max, orientation), scale_inv the tensor's for FP8
    per-tensor."""
    orientation = _choice(which_arg, which, ORIENTATIONS)
    part = q.columnwise if orientation == _lowp.COLUMNWISE else q.rowwise
    if part is None:
        raise ValueError(f"{which_arg}: {name} has no {which} copy")
    scale_inv = q.scale_inv if q.scaling in ("fp8_delayed", "fp8_current") else part.scale_inv
    return (part.data, scale_inv, part.amax, _choice(f"{name}.dtype", q.dtype, QUANTIZED_DTYPES),
            _choice(f"{name}.scaling", q.scaling, SCALINGS),
            _choice(f"{name}.scale_layout", q.scale_layout, SCALE_LAYOUTS), q.rows, q.cols, q.nvfp4_outer_max,
            orientation)


def gemm(a: QuantizedTensor, a_copy: str, b: QuantizedTensor, b_copy: str, *, out_dtype: Any = None,
         bias: Optional[Array] = None, accumulate_into: Optional[Array] = None, fast_accumulation: bool = False,
         a_columnwise_rht: Optional[bool] = None, b_columnwise_rht: Optional[bool] = None) -> Array:
    """D = A . B^T on quantized tensors (lowp_gemm): A is the a_copy copy ("rowwise": a as
    quantized, rows x cols; "columnwise": its transpose) of a, M x K; B likewise of b, N x K;
    D is M x N. A linear layer y = x W^T (x: tokens x in, W: out x in, dy: tokens x out):

      y  = lowp.gemm(qx, "rowwise", qw, "rowwise")             # fprop
      dx = lowp.gemm(qdy, "rowwise", qw, "columnwise")         # dgrad
      lowp.gemm(qdy, "columnwise", qx, "columnwise", accumulate_into=dw)   # wgrad, dw += dy^T x

    Both from one family: FP8 per-tensor (fp8_current / fp8_delayed; e4m3 x e4m3, e4m3 x e5m2,
    e5m2 x e4m3), FP8 per-token, NVFP4 per-tensor, per-token or row-scaled. The outer scales, bias and
    accumulation follow numerics §8 in fp32.

    out_dtype: "bfloat16" (default) or "float32" (or the framework's dtype object).
    bias: N values (bfloat16; float32 for NVFP4 only), added to each column after the scales.
    accumulate_into: a float32 M x N array; D is added to it in place and it is returned.
    fast_accumulation: FP8 only, cuBLASLt's fast accumulation (partial sums below fp32).
    a_columnwise_rht, b_columnwise_rht: whether the columnwise copy was made with RHT; None takes
      the tensor's own record (QuantizedTensor.columnwise_rht). Two columnwise copies a GEMM
      reads must both be in the RHT domain or neither (wgrad with the input and gradient defaults).

    NumPy and PyTorch CPU arrays run lowp's CPU reference (exact products summed in fp64);
    PyTorch and CuPy CUDA arrays its CUDA backend on the current stream, with the workspace
    lowp_gemm_workspace_size asks for allocated in the operands' framework (no host sync,
    capturable in CUDA graphs). Errors as lowp.quantize's; nothing is written then.
    """
    operands = _copy_args(a, a_copy, "a_copy", "a") + _copy_args(b, b_copy, "b_copy", "b")
    a_rht = bool(a.columnwise_rht if a_columnwise_rht is None else a_columnwise_rht)
    b_rht = bool(b.columnwise_rht if b_columnwise_rht is None else b_columnwise_rht)
    knobs = (bias, bool(fast_accumulation), a_rht, b_rht)
    if accumulate_into is not None:
        if out_dtype is not None and _dtype_choice("out_dtype", out_dtype, GEMM_OUTPUT_DTYPES) != _lowp.DTYPE_FLOAT32:
            raise ValueError("out_dtype: accumulate_into is a float32 D; lowp accumulates into float32 only")
        _run("gemm_accumulate", *operands, accumulate_into, *knobs)
        return accumulate_into
    code = _dtype_choice("out_dtype", "bfloat16" if out_dtype is None else out_dtype, GEMM_OUTPUT_DTYPES)
    return _run("gemm", *operands, code, *knobs)


def amax(x: Array) -> Array:
    """max|x| (NaN propagates) as a 1-element float32 array on x's device (lowp_amax)."""
    x = _input(x)
    return _run("amax", x)


def amax_per_token(x: Array, *, rows: bool = True, cols: bool = True) -> tuple:
    """(row_amax, col_amax) in one read of x (lowp_amax_per_token): max|x| of each row (rows
    floats) and of each column (cols floats); one not asked for is None."""
    x = _input(x)
    r, c = _run("amax_per_token", x, rows, cols)
    return (r if rows else None), (c if cols else None)


def _per_row_scaling(scaling):
    scaling_code = _choice("scaling", scaling, SCALINGS)
    if scaling not in _PER_ROW_NVFP4:
        raise ValueError(f"scaling: {scaling!r}; expected one of {', '.join(map(repr, _PER_ROW_NVFP4))}")
    return scaling_code


@_scaling_keyword
def nvfp4_amax_per_token(x: Array, *, rows: bool = True, cols: bool = True, rht: bool = False,
                         rht_sign_mask: Optional[int] = None, scaling: str = "nvfp4_per_token") -> tuple:
    """The amax pass of a per-row NVFP4 scaling alone (lowp_nvfp4_amax_per_row): (row_amax,
    col_amax), with rht the columns' amaxes of the RHT copy (rows % 16 == 0; scaling
    "nvfp4_row_scaled": rounded to bf16). Pass them to lowp.quantize(..., rowwise_amax=,
    columnwise_amax=) of the same scaling to get the composite call's bytes."""
    scaling_code = _per_row_scaling(scaling)
    x = _input(x)
    r, c = _run("nvfp4_amax_per_row", x, scaling_code, rows, cols, rht, rht_sign_mask)
    return (r if rows else None), (c if cols else None)


def fp8_delayed_scaling_update(amax_history: Array, scale: Array, scale_inv: Array, *, dtype: str = "e4m3",
                               margin: int = 0, algo: str = "max") -> None:
    """Delayed-scaling update of N tensors in one call, in place (lowp_fp8_delayed_scaling_update):
    amax_history [N][L] (or [L] for one tensor) float32 is reduced (algo "max" or "most_recent")
    and rolled (h[0] zeroed); scale and scale_inv (N float32 each) get fp8_max * 2^-margin / amax
    where that amax is finite and positive."""
    code = _choice("dtype", dtype, FP8_DTYPES)
    algo_code = _choice("algo", algo, AMAX_ALGOS)
    _run("fp8_delayed_scaling_update", _input(amax_history, "amax_history"), scale, scale_inv, code, int(margin),
         algo_code)


def nvfp4_swizzle_scales(compact: Array, rows: int, blocks: int) -> Array:
    """Compact NVFP4 block scales ([roundup(rows,128)][roundup(blocks,4)] uint8) -> the swizzled
    GEMM-operand layout, same byte count (lowp_nvfp4_swizzle_scales): the bytes lowp.quantize
    gives with scale_layout="swizzled"."""
    return _run("nvfp4_swizzle_scales", _input(compact, "compact"), int(rows), int(blocks))


def rng_state(seed: int, offset: int = 0, like: Optional[Array] = None) -> Array:
    """A stochastic-rounding state {seed, offset} (2 x 64 bits) as an int64 array of like's
    framework and device (NumPy uint64 when like is None)."""
    if not (0 <= seed < 2**64 and 0 <= offset < 2**64):
        raise ValueError("seed, offset: must be in [0, 2^64)")
    if is_torch(like):
        import torch

        as_signed = [v - 2**64 if v >= 2**63 else v for v in (seed, offset)]
        return torch.tensor(as_signed, dtype=torch.int64, device=like.device)
    import numpy as np

    state = np.array([seed, offset], dtype=np.uint64)
    if like is not None and type(like).__module__.split(".")[0] == "cupy":
        import cupy

        with like.device:
            return cupy.asarray(state)
    return state


def rng_advance(rng_state: Array, increment: int = 1) -> None:
    """Adds increment to the offset of an SR state in place (lowp_rng_advance); on CUDA one tiny
    kernel on the current stream, so a captured graph advances it on every replay."""
    _run("rng_advance", _input(rng_state, "rng_state"), int(increment))


def _group_scaling(scaling, dtype):
    scaling_code = _choice("scaling", scaling, SCALINGS)
    if scaling not in ("fp8_delayed", "fp8_current"):
        raise NotImplementedError(f"scaling: grouped FP8 takes 'fp8_delayed' or 'fp8_current'; got {scaling!r} "
                                  "(grouped NVFP4: lowp.nvfp4_grouped_quantize)")
    return scaling_code, _choice("dtype", dtype, FP8_DTYPES)


@_scaling_keyword
def grouped_quantize(x: Array, first_dims: Array, last_dims: Array, offsets: Array, scaling: str = "fp8_current",
                     *, dtype: str = "e4m3", rowwise: bool = True, columnwise: bool = False,
                     scale: Optional[Array] = None, amax: Optional[Array] = None, amax_epsilon: float = 0.0,
                     power_of_two_scale: bool = False) -> GroupedQuantizedTensor:
    """Grouped FP8 (lowp_grouped_quantize): N members in one buffer x, member t a
    first_dims[t] x last_dims[t] matrix at element offsets[t] (three int64 arrays of N, host or
    x's device; device arrays: no host sync, graph-capturable, a bad layout writes nothing and
    shows in .layout_error()). Every member gets the bytes lowp.quantize gives it alone.

    scaling "fp8_current" or "fp8_delayed" (scale: N float32; amax: N float32 or an [N][L]
    history whose column 0 takes the fold)."""
    scaling_code, code = _group_scaling(scaling, dtype)
    x = _input(x)
    first_dims, last_dims, offsets = _layout(x, (first_dims, last_dims, offsets), _GROUP_ARRAYS)
    data, data_t, scale_o, scale_inv, amax_o, ws = _run(
        "grouped_quantize", x, first_dims, last_dims, offsets, scale, amax, code, scaling_code, rowwise, columnwise,
        float(amax_epsilon), bool(power_of_two_scale))
    delayed = scaling == "fp8_delayed"
    return GroupedQuantizedTensor(scaling, dtype, first_dims, last_dims, offsets, data if rowwise else None,
                                  data_t if columnwise else None, scale if delayed else scale_o, scale_inv,
                                  amax if delayed else amax_o, ws)


@_scaling_keyword
def grouped_quantize_dact(grad: Array, act_input: Array, first_dims: Array, last_dims: Array, offsets: Array,
                          activation: str = "gelu_tanh", scaling: str = "fp8_current", *, dtype: str = "e4m3",
                          rowwise: bool = True, columnwise: bool = False, scale: Optional[Array] = None,
                          amax: Optional[Array] = None, amax_epsilon: float = 0.0,
                          power_of_two_scale: bool = False) -> GroupedQuantizedTensor:
    """Grouped backward cast with an activation gradient (lowp_grouped_quantize_dact): shapes
    and offsets from the gradient's group, act_input read with grad's layout and dtype."""
    act = _choice("activation", activation, ACTIVATIONS)
    scaling_code, code = _group_scaling(scaling, dtype)
    grad = _input(grad)
    first_dims, last_dims, offsets = _layout(grad, (first_dims, last_dims, offsets), _GROUP_ARRAYS)
    data, data_t, scale_o, scale_inv, amax_o, ws = _run(
        "grouped_quantize_dact", grad, act_input, act, first_dims, last_dims, offsets, scale, amax, code, scaling_code,
        rowwise, columnwise, float(amax_epsilon), bool(power_of_two_scale))
    delayed = scaling == "fp8_delayed"
    return GroupedQuantizedTensor(scaling, dtype, first_dims, last_dims, offsets, data if rowwise else None,
                                  data_t if columnwise else None, scale if delayed else scale_o, scale_inv,
                                  amax if delayed else amax_o, ws)


def grouped_amax(x: Array, first_dims: Array, last_dims: Array, offsets: Array) -> Array:
    """max|member t| for each member of a group (0 for empty members): N float32
    (lowp_grouped_amax)."""
    x = _input(x)
    first_dims, last_dims, offsets = _layout(x, (first_dims, last_dims, offsets), _GROUP_ARRAYS)
    amax_o, _ = _run("grouped_amax", x, first_dims, last_dims, offsets)
    return amax_o


def grouped_dequantize(q: GroupedQuantizedTensor, which: str = "rowwise", dtype: Any = "float32") -> Array:
    """One copy of a grouped FP8 tensor back in high precision, in the group's layout (member t
    at offsets[t]; columnwise members are last x first) (lowp_grouped_dequantize)."""
    orientation = _choice("which", which, ORIENTATIONS)
    out_dtype = _dtype_choice("dtype", dtype, OUTPUT_DTYPES)
    data = q.columnwise_data if orientation == _lowp.COLUMNWISE else q.rowwise_data
    if data is None:
        raise ValueError(f"which: q has no {which} copy")
    out, _ = _run("grouped_dequantize", data, q.scale_inv, q.first_dims, q.last_dims, q.offsets,
                  _choice("q.dtype", q.dtype, FP8_DTYPES), _choice("q.scaling", q.scaling, SCALINGS), orientation,
                  out_dtype)
    return out


def grouped_layout_error(workspace: Array) -> int:
    """After a grouped call with device-side layout arrays: 0 when the layout was valid, else the
    index + 1 of the first member that broke a rule (lowp_grouped_layout_error; synchronises)."""
    return _core.grouped_layout_error(workspace)


@_scaling_keyword
def nvfp4_grouped_quantize(x: Array, member_rows: Array, *, rowwise: bool = True, columnwise: bool = False,
                           scale_layout: str = "compact", rht: Optional[bool] = None,
                           rht_sign_mask: Optional[int] = None, stochastic_rounding: Optional[bool] = None,
                           rng_state: Optional[Array] = None, group_row_multiple: int = 0,
                           rowwise_amax: Optional[Array] = None, columnwise_amax: Optional[Array] = None,
                           scaling: str = "nvfp4_per_token", four_over_six: Optional[bool] = None,
                           four_over_six_error: Optional[str] = None,
                           four_over_six_scale_max: Optional[float] = None) -> Nvfp4GroupedTensor:
    """Grouped per-row NVFP4 (lowp_nvfp4_grouped_quantize): N members split along the rows of
    x (R x K), member t the next member_rows[t] rows (int64 array of N, host or x's device).
    Every member's bytes equal lowp.quantize(member, scaling) alone (SR blocks numbered member
    after member). scaling: "nvfp4_per_token" or "nvfp4_row_scaled"; knobs as lowp.quantize's for
    it; group_row_multiple (0, 16, 32, 64, 128) promises every member's rows are a multiple of it.
    rowwise_amax (R floats) / columnwise_amax ([N][K]) given: read instead of computed. Layout of
    the result: Nvfp4GroupedTensor."""
    scaling_code = _per_row_scaling(scaling)
    layout = _choice("scale_layout", scale_layout, SCALE_LAYOUTS)
    error_code = None if four_over_six_error is None else _choice("four_over_six_error", four_over_six_error,
                                                                   FOUR_OVER_SIX_ERRORS)
    x = _input(x)
    (member_rows,) = _layout(x, (member_rows,), ("member_rows",))
    r, rs, ra, c, cs, ca, ws = _run(
        "nvfp4_grouped_quantize", x, member_rows, rowwise_amax, columnwise_amax, rng_state, scaling_code, rowwise,
        columnwise, layout, rht, rht_sign_mask, stochastic_rounding, int(group_row_multiple), four_over_six,
        error_code, four_over_six_scale_max)
    options = {k: v for k, v in (("scaling", scaling), ("rht", rht), ("rht_sign_mask", rht_sign_mask),
                                 ("stochastic_rounding", stochastic_rounding),
                                 ("group_row_multiple", group_row_multiple), ("four_over_six", four_over_six),
                                 ("four_over_six_error", four_over_six_error),
                                 ("four_over_six_scale_max", four_over_six_scale_max)) if v}
    return Nvfp4GroupedTensor(member_rows, tuple(x.shape),
                              QuantizedPart(r, rs, ra if rowwise_amax is None else rowwise_amax) if rowwise else None,
                              QuantizedPart(c, cs, ca if columnwise_amax is None else columnwise_amax)
                              if columnwise else None, ws, scale_layout, options)


@_scaling_keyword
def nvfp4_grouped_amax(x: Array, member_rows: Array, *, rows: bool = True, cols: bool = True, rht: bool = False,
                       rht_sign_mask: Optional[int] = None, group_row_multiple: int = 0,
                       scaling: str = "nvfp4_per_token") -> tuple:
    """The grouped amax pass of a per-row NVFP4 scaling alone (lowp_nvfp4_grouped_amax_per_row):
    (row_amax [R], col_amax [N][K]) laid out as lowp.nvfp4_grouped_quantize's; one not asked for
    is None."""
    scaling_code = _per_row_scaling(scaling)
    x = _input(x)
    (member_rows,) = _layout(x, (member_rows,), ("member_rows",))
    r, c, _ = _run("nvfp4_grouped_amax", x, member_rows, scaling_code, rows, cols, rht, rht_sign_mask,
                   int(group_row_multiple))
    return (r if rows else None), (c if cols else None)


@_scaling_keyword
def quantized_sizes(dtype: str, scaling: str, rows: int, cols: int) -> QuantizedSizes:
    """Bytes of every buffer of a quantized tensor (lowp_quantized_sizes_query)."""
    return QuantizedSizes(*_lowp.quantized_sizes(_choice("dtype", dtype, QUANTIZED_DTYPES),
                                                 _choice("scaling", scaling, SCALINGS), int(rows), int(cols)))


@_scaling_keyword
def quantized_layout(dtype: str, scaling: str, rows: int, cols: int, parts: str = "both") -> QuantizedLayout:
    """Every buffer of a quantized tensor laid out in one allocation (lowp_quantized_layout_query):
    the sizes of lowp.quantized_sizes for the copies ``parts`` ("rowwise", "columnwise" or
    "both"), each at an offset aligned to 256 bytes, and the total to allocate."""
    total, sizes, data, scale_inv, amax, tensor = _lowp.quantized_layout(
        _choice("dtype", dtype, QUANTIZED_DTYPES), _choice("scaling", scaling, SCALINGS), int(rows), int(cols),
        _choice("parts", parts, PARTS))
    return QuantizedLayout(total, QuantizedSizes(*sizes), data, scale_inv, amax, tensor)


def nvfp4_grouped_sizes(num_tensors: int, total_rows: int, cols: int) -> QuantizedSizes:
    """Buffer bytes of lowp.nvfp4_grouped_quantize that fit every split of total_rows into
    num_tensors members (lowp_nvfp4_grouped_sizes)."""
    return QuantizedSizes(*_lowp.nvfp4_grouped_sizes(int(num_tensors), int(total_rows), int(cols)))


def grouped_workspace_size(num_tensors: int) -> int:
    """Workspace bytes of a grouped call of N members (lowp_grouped_workspace_size); the
    functions here allocate it themselves."""
    return _lowp.grouped_workspace_size(int(num_tensors))


def version() -> str:
    """lowp's version, "major.minor.patch"."""
    return _lowp.version()


def cuda_available() -> bool:
    """True when lowp was built with its CUDA backend and a CUDA device is visible."""
    return _lowp.cuda_available()



# The records' convenience methods (lowp/_types.py holds data only and imports nothing above it).
def _dequantize_method(self, which: str = "rowwise", dtype: Any = "float32") -> Array:
    """lowp.dequantize(self, which, dtype): the copy back in high precision."""
    return dequantize(self, which, dtype)


def _grouped_dequantize_method(self, which: str = "rowwise", dtype: Any = "float32") -> Array:
    """lowp.grouped_dequantize(self, which, dtype)."""
    return grouped_dequantize(self, which, dtype)


def _layout_error_method(self) -> int:
    """lowp.grouped_layout_error(self.workspace): 0, or index + 1 of the first bad member."""
    return grouped_layout_error(self.workspace)


QuantizedTensor.dequantize = _dequantize_method
GroupedQuantizedTensor.dequantize = _grouped_dequantize_method
GroupedQuantizedTensor.layout_error = _layout_error_method
Nvfp4GroupedTensor.layout_error = _layout_error_method
