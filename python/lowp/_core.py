"""One function per op on arrays of any framework: checks what the C API cannot see (dtypes and
element counts of the caller's buffers), allocates the outputs (lowp/_shapes.py) in the first
argument's framework and device, and calls lowp's C entry point on that device's current
stream. Arguments are plain values (lowp's enum codes), in the order of the torch schemas
(lowp/_torch_ops.py), whose CPU and CUDA kernels these functions are.
"""
from __future__ import annotations

import math

from . import _arrays, _lowp, _shapes
from ._arrays import Anchor, Input, address, address_of

DTYPE_NAMES = {_lowp.DTYPE_FLOAT32: "float32", _lowp.DTYPE_FLOAT16: "float16", _lowp.DTYPE_BFLOAT16: "bfloat16"}
_RNG_DTYPES = ("int64", "uint64")
_PER_TENSOR_FP8 = (_lowp.SCALING_DELAYED, _lowp.SCALING_CURRENT)
_NVFP4 = (_lowp.SCALING_NVFP4_PER_TENSOR, _lowp.SCALING_NVFP4_PER_TOKEN, _lowp.SCALING_NVFP4_ROW_SCALED)
_NO_OUTER_MAX = 0.0  # q descriptors' nvfp4_outer_max where it is not read (lowp_quantize writes it)
# Grouped calls return their workspace (lowp.grouped_layout_error reads it) and grouped NVFP4 its
# scale arrays sized for every split; a call writes them only in part, so they start zeroed and
# every output is a function of the inputs (as torch.compile assumes of an operator).
_ZEROED_WORKSPACE = (5,)

# Filled by lowp/_torch_ops.py when it registers the operators: op name ->
# torch.ops.lowp.<name>.default (lowp/_api.py runs torch tensors through them).
TORCH_OPS: dict = {}


def _addr(a, produced=True):
    return address(a) if produced else 0


def _numel(a):
    return math.prod(a.shape)


def _delayed_state(scale, amax, scaling, n=None):
    """Addresses of the caller's scale (read) and amax (folded into) under delayed scaling, and
    the amax stride. One tensor (n None): amax is 1 float32 or an amax history [L] whose first
    element is h[0]. A group of n: amax is n floats, or an [n][L] history folded into column 0."""
    if scaling != _lowp.SCALING_DELAYED:
        if scale is not None or amax is not None:
            raise ValueError("scale, amax: only delayed scaling takes them (current scaling computes and "
                             "returns them)")
        return 0, 0, 0
    count = n or 1
    if scale is None or amax is None:
        raise ValueError(f"scale, amax: delayed scaling reads scale ({count} float32) and folds max|x| into amax "
                         f"({count} float32, or an amax history)")
    shape = tuple(amax.shape)
    if n is None:
        amax_p = address_of(amax, "amax", "float32", min_numel=1, writable=True)
        stride = 1
    elif len(shape) == 2 and shape[0] == n:
        amax_p = address_of(amax, "amax", "float32", writable=True)
        stride = shape[1]
    elif len(shape) == 1:
        amax_p = address_of(amax, "amax", "float32", numel=n, writable=True)
        stride = 1
    else:
        raise ValueError(f"amax: shape {shape}; expected [{n}] or an [{n}][L] history")
    return address_of(scale, "scale", "float32", numel=count), amax_p, stride


def _given_amax(a, name, numel):
    return address_of(a, name, "float32", numel=numel)


def _rng(rng_state):
    return address_of(rng_state, "rng_state", _RNG_DTYPES, numel=2)


def _layout(arrays, names):
    """Addresses of a group's int64 layout arrays (all the same length N) and N."""
    n = _numel(arrays[0])
    return [address_of(a, name, "int64", numel=n) for a, name in zip(arrays, names)], n


def _call(anchor, fn, *args, stream=True):
    """fn(*args, stream) on anchor's device (without the stream argument when stream is False)."""
    extra = (anchor.stream(),) if stream else ()
    device = anchor.device()
    if device is _arrays.NULL_CONTEXT:
        return fn(*args, *extra)
    with device:
        return fn(*args, *extra)


def _fp8_per_tensor(X, scale, amax, dtype, scaling, rowwise, columnwise, amax_epsilon, power_of_two_scale):
    """Outputs, C descriptor and config of an FP8 per-tensor (delayed or current) cast of X."""
    scale_p, amax_p, _ = _delayed_state(scale, amax, scaling)
    outs = X.alloc(_shapes.fp8_quantize(X.rows, X.cols, rowwise, columnwise, not scale_p))
    data, data_t, scale_o, scale_inv, amax_o = outs
    q = (dtype, scaling, _lowp.SCALE_LAYOUT_COMPACT, X.rows, X.cols, _addr(data, rowwise), 0, 0,
         _addr(data_t, columnwise), 0, 0, scale_p or address(scale_o), address(scale_inv), amax_p or address(amax_o),
         _NO_OUTER_MAX)
    return outs, q, _lowp.QuantConfig(amax_epsilon=amax_epsilon, power_of_two_scale=power_of_two_scale)


def fp8_quantize(x, scale, amax, dtype, scaling, rowwise, columnwise, amax_epsilon, power_of_two_scale):
    """FP8 per-tensor (delayed or current): (codes, transposed codes, scale, scale_inv, amax)."""
    X = Input(x)
    outs, q, cfg = _fp8_per_tensor(X, scale, amax, dtype, scaling, rowwise, columnwise, amax_epsilon,
                                   power_of_two_scale)
    _call(X, _lowp.quantize, X.address, X.dtype, X.rows, X.cols, q, cfg)
    return outs


def fp8_quantize_dact(grad, act_input, activation, scale, amax, dtype, scaling, rowwise, columnwise,
                      amax_epsilon, power_of_two_scale):
    """Backward cast fused with an activation gradient; outputs as fp8_quantize."""
    G = Input(grad, "grad")
    act, act_p = G.like(act_input, "act_input")
    outs, q, cfg = _fp8_per_tensor(G, scale, amax, dtype, scaling, rowwise, columnwise, amax_epsilon,
                                   power_of_two_scale)
    _call(G, _lowp.quantize_dact, G.address, G.dtype, G.rows, G.cols, act_p, activation, q, cfg)
    return outs


def fp8_quantize_per_token(x, dtype, rowwise, columnwise, amax_epsilon, power_of_two_scale):
    """FP8 per-token: (codes, scale_inv, amax) of the rowwise, then of the columnwise copy."""
    X = Input(x)
    outs = X.alloc(_shapes.fp8_quantize_per_token(X.rows, X.cols, rowwise, columnwise))
    r = [_addr(a, rowwise) for a in outs[:3]]
    c = [_addr(a, columnwise) for a in outs[3:]]
    q = (dtype, _lowp.SCALING_PER_TOKEN, _lowp.SCALE_LAYOUT_COMPACT, X.rows, X.cols, *r, *c, 0, 0, 0, _NO_OUTER_MAX)
    cfg = _lowp.QuantConfig(amax_epsilon=amax_epsilon, power_of_two_scale=power_of_two_scale)
    _call(X, _lowp.quantize, X.address, X.dtype, X.rows, X.cols, q, cfg)
    return outs


def nvfp4_quantize(x, rowwise_amax, columnwise_amax, rng_state, scaling, rowwise, columnwise, scale_layout,
                   role, rht, rht_sign_mask, stochastic_rounding, block_2d, amax_estimation,
                   amax_estimation_factor, four_over_six, four_over_six_error, four_over_six_scale_max,
                   amax_epsilon, power_of_two_scale):
    """NVFP4 per-tensor, per-token or row-scaled: (codes, block scales, amax) of each copy; a given
    amax is read (cfg.amax_given) and not returned."""
    X = Input(x)
    per_row = scaling != _lowp.SCALING_NVFP4_PER_TENSOR
    row_given = _given_amax(rowwise_amax, "rowwise_amax", X.rows if per_row else 1) if rowwise_amax is not None else 0
    col_given = (_given_amax(columnwise_amax, "columnwise_amax", X.cols if per_row else 1)
                 if columnwise_amax is not None else 0)
    outs = X.alloc(_shapes.nvfp4_quantize(X.rows, X.cols, per_row, rowwise, columnwise, bool(row_given),
                                          bool(col_given)))
    data, scales, amax, data_t, scales_t, amax_t = outs
    q = (_lowp.DTYPE_E2M1, scaling, scale_layout, X.rows, X.cols,
         _addr(data, rowwise), _addr(scales, rowwise), row_given or _addr(amax, rowwise),
         _addr(data_t, columnwise), _addr(scales_t, columnwise), col_given or _addr(amax_t, columnwise), 0, 0, 0,
         _NO_OUTER_MAX)
    cfg = _lowp.QuantConfig(role=role, per_token=per_row, amax_epsilon=amax_epsilon,
                            power_of_two_scale=power_of_two_scale, rht=rht,
                            rht_sign_mask=rht_sign_mask, stochastic_rounding=stochastic_rounding,
                            rng_state=_rng(rng_state), block_2d=block_2d, amax_estimation=amax_estimation,
                            amax_estimation_factor=amax_estimation_factor,
                            amax_given=True if row_given or col_given else None, four_over_six=four_over_six,
                            four_over_six_error=four_over_six_error, four_over_six_scale_max=four_over_six_scale_max)
    _call(X, _lowp.quantize, X.address, X.dtype, X.rows, X.cols, q, cfg)
    return outs


def _copy_desc(data, scale_inv, amax, dtype, scaling, scale_layout, rows, cols, outer_max, which, prefix=""):
    """The C descriptor of a quantized tensor x (rows x cols) holding only its `which` copy, after
    checking that copy's buffers: (descriptor, the copy's rows, its cols). outer_max: NVFP4's
    recorded 6E (0: 2688). prefix names the operand in messages ("a." -> "a.data")."""
    if rows < 0 or cols < 0:
        raise ValueError(f"{prefix}shape: {rows} x {cols}; must be >= 0")
    col = which == _lowp.COLUMNWISE
    orient_rows, orient_cols = (cols, rows) if col else (rows, cols)
    if scaling in _PER_TENSOR_FP8:
        data_p = address_of(data, prefix + "data", "uint8", numel=rows * cols)
        part = (data_p, 0, 0)
        tensor = (0, address_of(scale_inv, prefix + "scale_inv", "float32", numel=1), 0)
    elif scaling == _lowp.SCALING_PER_TOKEN:
        data_p = address_of(data, prefix + "data", "uint8", numel=rows * cols)
        amax_p = address_of(amax, prefix + "amax", "float32", numel=orient_rows)
        part = (data_p, address_of(scale_inv, prefix + "scale_inv", "float32", numel=orient_rows), amax_p)
        tensor = (0, 0, 0)
    elif scaling in _NVFP4:
        data_p = address_of(data, prefix + "data", "uint8", numel=rows * cols // 2)
        scales = math.prod(_shapes._scales(orient_rows, orient_cols // 16))
        amaxes = 1 if scaling == _lowp.SCALING_NVFP4_PER_TENSOR else orient_rows
        part = (data_p, address_of(scale_inv, prefix + "scale_inv", "uint8", numel=scales),
                address_of(amax, prefix + "amax", "float32", numel=amaxes))
        tensor = (0, 0, 0)
    else:
        raise ValueError(f"{prefix}scaling: {scaling} is not a lowp scaling")
    none = (0, 0, 0)
    q = (dtype, scaling, scale_layout, rows, cols, *(none if col else part), *(part if col else none), *tensor,
         float(outer_max))
    return q, orient_rows, orient_cols


def dequantize(data, scale_inv, amax, dtype, scaling, scale_layout, rows, cols, outer_max, which, out_dtype):
    """One copy of a quantized tensor (x's rows x cols) back to out_dtype: rows x cols
    (rowwise) or cols x rows (columnwise). outer_max: NVFP4's recorded 6E (0: 2688)."""
    if out_dtype not in DTYPE_NAMES:
        raise ValueError(f"dtype: {out_dtype} is not float32, float16 or bfloat16")
    D = Anchor(data, "data")
    q, orient_rows, orient_cols = _copy_desc(data, scale_inv, amax, dtype, scaling, scale_layout, rows, cols, outer_max,
                                             which)
    (out,) = D.alloc(_shapes.dequantize(rows, cols, which == _lowp.COLUMNWISE, DTYPE_NAMES[out_dtype]))
    _call(D, _lowp.dequantize, q, which, address(out), out_dtype, orient_rows, orient_cols)
    return out


_GEMM_OUTPUTS = {_lowp.DTYPE_BFLOAT16: "bfloat16", _lowp.DTYPE_FLOAT32: "float32"}


def _gemm(a, b, d, out_dtype, bias, fast_accumulation, a_columnwise_rht, b_columnwise_rht):
    """D = A . B^T, a and b each the 10 operand values of the torch schema (lowp/_torch_ops.py, the
    order of _copy_desc's arguments). d None: a new M x N array of out_dtype; else d (float32,
    M x N) is accumulated into. The workspace lowp_gemm asks for is allocated in a's framework."""
    A = Anchor(a[0], "a.data")
    qa, m, _ = _copy_desc(*a, prefix="a.")
    qb, n, _ = _copy_desc(*b, prefix="b.")
    accumulate = d is not None
    if accumulate:
        d_p = address_of(d, "accumulate_into", "float32", writable=True)
        if tuple(d.shape) != (m, n):
            raise ValueError(f"accumulate_into: shape {tuple(d.shape)}; D is M x N = ({m}, {n})")
        out_dtype = _lowp.DTYPE_FLOAT32
    else:
        if out_dtype not in _GEMM_OUTPUTS:
            raise ValueError(f"out_dtype: {out_dtype} is not bfloat16 or float32")
        (d,) = A.alloc([((m, n), _GEMM_OUTPUTS[out_dtype])])
        d_p = address(d)
    bias_p, bias_dtype = 0, None
    if bias is not None:
        bias_p = address_of(bias, "bias", ("bfloat16", "float32"), numel=n)
        bias_dtype = _arrays.INPUT_DTYPES[_arrays.framework(bias).dtype_name(bias)]
    cfg = _lowp.GemmConfig(bias=bias_p, bias_dtype=bias_dtype, accumulate=accumulate,
                           fast_accumulation=fast_accumulation, a_columnwise_rht=a_columnwise_rht,
                           b_columnwise_rht=b_columnwise_rht)
    problem = (qa, a[9], qb, b[9], d_p, out_dtype, m, n, cfg)
    ws = _call(A, _lowp.gemm_workspace_size, *problem, stream=False)
    (workspace,) = A.alloc([((ws,), "uint8")]) if ws else (None,)
    _call(A, _lowp.gemm, *problem, address(workspace) if ws else 0, ws)
    return d


def gemm(a_data, a_scale_inv, a_amax, a_dtype, a_scaling, a_scale_layout, a_rows, a_cols, a_outer_max, a_copy,
         b_data, b_scale_inv, b_amax, b_dtype, b_scaling, b_scale_layout, b_rows, b_cols, b_outer_max, b_copy,
         out_dtype, bias, fast_accumulation, a_columnwise_rht, b_columnwise_rht):
    """D = A . B^T (M x N, out_dtype bfloat16 or float32), A the a_copy copy of tensor a
    (a_rows x a_cols), B likewise."""
    a = (a_data, a_scale_inv, a_amax, a_dtype, a_scaling, a_scale_layout, a_rows, a_cols, a_outer_max, a_copy)
    b = (b_data, b_scale_inv, b_amax, b_dtype, b_scaling, b_scale_layout, b_rows, b_cols, b_outer_max, b_copy)
    return _gemm(a, b, None, out_dtype, bias, fast_accumulation, a_columnwise_rht, b_columnwise_rht)


def gemm_accumulate(a_data, a_scale_inv, a_amax, a_dtype, a_scaling, a_scale_layout, a_rows, a_cols, a_outer_max,
                    a_copy, b_data, b_scale_inv, b_amax, b_dtype, b_scaling, b_scale_layout, b_rows, b_cols,
                    b_outer_max, b_copy, d, bias, fast_accumulation, a_columnwise_rht, b_columnwise_rht):
    """d (float32, M x N) += A . B^T in place, operands as gemm's."""
    a = (a_data, a_scale_inv, a_amax, a_dtype, a_scaling, a_scale_layout, a_rows, a_cols, a_outer_max, a_copy)
    b = (b_data, b_scale_inv, b_amax, b_dtype, b_scaling, b_scale_layout, b_rows, b_cols, b_outer_max, b_copy)
    _gemm(a, b, d, None, bias, fast_accumulation, a_columnwise_rht, b_columnwise_rht)


def amax(x):
    """max|x| as one float32."""
    X = Input(x)
    (out,) = X.alloc([((1,), "float32")])
    _call(X, _lowp.amax, X.address, X.dtype, X.rows, X.cols, address(out))
    return out


def amax_per_token(x, rows, cols):
    """(row amaxes, column amaxes) in one read; an output not asked for is empty."""
    X = Input(x)
    r, c = X.alloc(_shapes.amax_per_token(X.rows, X.cols, rows, cols))
    _call(X, _lowp.amax_per_token, X.address, X.dtype, X.rows, X.cols, _addr(r, rows), _addr(c, cols))
    return r, c


def nvfp4_amax_per_row(x, scaling, rows, cols, rht, rht_sign_mask):
    """K1 of a per-row NVFP4 recipe (per-token, row-scaled): (row amaxes, column amaxes, with rht
    those of the RHT copy)."""
    X = Input(x)
    r, c = X.alloc(_shapes.amax_per_token(X.rows, X.cols, rows, cols))
    cfg = _lowp.QuantConfig(rht=rht, rht_sign_mask=rht_sign_mask)
    _call(X, _lowp.nvfp4_amax_per_row, X.address, X.dtype, X.rows, X.cols, scaling, _addr(r, rows), _addr(c, cols),
          cfg)
    return r, c


def fp8_delayed_scaling_update(amax_history, scale, scale_inv, dtype, margin, algo):
    """Delayed-scaling update of N tensors in place: history [N][L] (or [L]), scale, scale_inv [N]."""
    H = Anchor(amax_history, "amax_history")
    shape = tuple(amax_history.shape)
    if len(shape) not in (1, 2):
        raise ValueError(f"amax_history: shape {shape}; expected [N][L] or [L]")
    n, length = shape if len(shape) == 2 else (1, shape[0])
    h = address_of(amax_history, "amax_history", "float32", writable=True)
    s = address_of(scale, "scale", "float32", numel=n, writable=True)
    si = address_of(scale_inv, "scale_inv", "float32", numel=n, writable=True)
    _call(H, _lowp.fp8_delayed_scaling_update, n, length, h, s, si, dtype, margin, algo)


def nvfp4_swizzle_scales(compact, rows, blocks):
    """Compact NVFP4 block scales of rows x blocks -> the swizzled layout (same byte count)."""
    if rows < 0 or blocks < 0:
        raise ValueError(f"rows, blocks: {rows}, {blocks}; must be >= 0")
    C = Anchor(compact, "compact")
    spec = _shapes.swizzled_scales(rows, blocks)
    src = address_of(compact, "compact", "uint8", numel=math.prod(spec[0][0]))
    (out,) = C.alloc(spec)
    _call(C, _lowp.nvfp4_swizzle_scales, src, address(out), rows, blocks)
    return out


def rng_advance(rng_state, increment):
    """Adds increment to the offset of a stochastic-rounding state {seed, offset}, in place."""
    if not 0 <= increment < 2**64:
        raise ValueError(f"increment: {increment}; must be in [0, 2^64)")
    R = Anchor(rng_state, "rng_state")
    p = address_of(rng_state, "rng_state", _RNG_DTYPES, numel=2, writable=True)
    _call(R, _lowp.rng_advance, p, increment)


def _grouped_fp8(X, layout, scale, amax, dtype, scaling, rowwise, columnwise):
    """Outputs and the C descriptors of a grouped FP8 call on input X."""
    (fd, ld, off), n = _layout(layout, ("first_dims", "last_dims", "offsets"))
    scale_p, amax_p, stride = _delayed_state(scale, amax, scaling, n)
    total = X.rows * X.cols
    ws = _lowp.grouped_workspace_size(n)
    outs = X.alloc(_shapes.grouped_quantize(total, n, rowwise, columnwise, not scale_p, ws), _ZEROED_WORKSPACE)
    data, data_t, scale_o, scale_inv, amax_o, workspace = outs
    x_desc = (X.address, X.dtype, n, total, fd, ld, off)
    q = (dtype, scaling, n, _addr(data, rowwise), _addr(data_t, columnwise), scale_p or address(scale_o),
         address(scale_inv), amax_p or address(amax_o), stride)
    return outs, x_desc, q, (address(workspace), ws)


def grouped_quantize(x, first_dims, last_dims, offsets, scale, amax, dtype, scaling, rowwise, columnwise,
                     amax_epsilon, power_of_two_scale):
    """Grouped FP8: (codes, transposed codes, scale, scale_inv, amax, workspace); member t's
    codes and transpose at element offsets[t]."""
    X = Input(x)
    outs, x_desc, q, ws = _grouped_fp8(X, (first_dims, last_dims, offsets), scale, amax, dtype, scaling,
                                       rowwise, columnwise)
    cfg = _lowp.QuantConfig(amax_epsilon=amax_epsilon, power_of_two_scale=power_of_two_scale)
    _call(X, _lowp.grouped_quantize, x_desc, q, cfg, *ws)
    return outs


def grouped_quantize_dact(grad, act_input, activation, first_dims, last_dims, offsets, scale, amax, dtype,
                          scaling, rowwise, columnwise, amax_epsilon, power_of_two_scale):
    """Grouped backward cast with an activation gradient; outputs as grouped_quantize."""
    G = Input(grad, "grad")
    act, act_p = G.like(act_input, "act_input")
    outs, g_desc, q, ws = _grouped_fp8(G, (first_dims, last_dims, offsets), scale, amax, dtype, scaling,
                                       rowwise, columnwise)
    cfg = _lowp.QuantConfig(amax_epsilon=amax_epsilon, power_of_two_scale=power_of_two_scale)
    _call(G, _lowp.grouped_quantize_dact, g_desc, act_p, activation, q, cfg, *ws)
    return outs


def grouped_amax(x, first_dims, last_dims, offsets):
    """(per-member amax [N], workspace)."""
    X = Input(x)
    (fd, ld, off), n = _layout((first_dims, last_dims, offsets), ("first_dims", "last_dims", "offsets"))
    ws = _lowp.grouped_workspace_size(n)
    amax_o, workspace = X.alloc([((n,), "float32"), ((ws,), "uint8")], (1,))
    x_desc = (X.address, X.dtype, n, X.rows * X.cols, fd, ld, off)
    _call(X, _lowp.grouped_amax, x_desc, address(amax_o), 1, address(workspace), ws)
    return amax_o, workspace


def grouped_dequantize(data, scale_inv, first_dims, last_dims, offsets, dtype, scaling, which, out_dtype):
    """One copy of a grouped FP8 tensor back to out_dtype, in the group's layout: (out, workspace)."""
    if out_dtype not in DTYPE_NAMES:
        raise ValueError(f"dtype: {out_dtype} is not float32, float16 or bfloat16")
    D = Anchor(data, "data")
    (fd, ld, off), n = _layout((first_dims, last_dims, offsets), ("first_dims", "last_dims", "offsets"))
    total = _numel(data)
    data_p = address_of(data, "data", "uint8")
    si = address_of(scale_inv, "scale_inv", "float32", numel=n)
    ws = _lowp.grouped_workspace_size(n)
    out, workspace = D.alloc([((total,), DTYPE_NAMES[out_dtype]), ((ws,), "uint8")], (1,))
    col = which == _lowp.COLUMNWISE
    q = (dtype, scaling, n, 0 if col else data_p, data_p if col else 0, 0, si, 0, 0)
    out_desc = (address(out), out_dtype, n, total, fd, ld, off)
    _call(D, _lowp.grouped_dequantize, q, which, out_desc, address(workspace), ws)
    return out, workspace


def grouped_layout_error(workspace):
    """0, or index + 1 of the first member whose device-side layout broke a rule (synchronises)."""
    W = Anchor(workspace, "workspace")
    return _call(W, _lowp.grouped_layout_error, address_of(workspace, "workspace", "uint8"))


def nvfp4_grouped_quantize(x, member_rows, rowwise_amax, columnwise_amax, rng_state, scaling, rowwise, columnwise,
                           scale_layout, rht, rht_sign_mask, stochastic_rounding, group_row_multiple, four_over_six,
                           four_over_six_error, four_over_six_scale_max):
    """Grouped per-row NVFP4 (per-token or row-scaled; members split along rows): (codes, scales,
    amax) of each copy in lowp.h's layout, then the workspace."""
    X = Input(x)
    (rows_p,), n = _layout((member_rows,), ("member_rows",))
    row_given = _given_amax(rowwise_amax, "rowwise_amax", X.rows) if rowwise_amax is not None else 0
    col_given = _given_amax(columnwise_amax, "columnwise_amax", n * X.cols) if columnwise_amax is not None else 0
    ws = _lowp.grouped_workspace_size(n)
    outs = X.alloc(_shapes.nvfp4_grouped_quantize(X.rows, X.cols, n, rowwise, columnwise, bool(row_given),
                                                  bool(col_given), ws), (1, 4, 6))
    data, scales, amax, data_t, scales_t, amax_t, workspace = outs
    q = (_lowp.DTYPE_E2M1, scaling, scale_layout, X.rows, X.cols,
         _addr(data, rowwise), _addr(scales, rowwise), row_given or _addr(amax, rowwise),
         _addr(data_t, columnwise), _addr(scales_t, columnwise), col_given or _addr(amax_t, columnwise), 0, 0, 0,
         _NO_OUTER_MAX)
    cfg = _lowp.QuantConfig(rht=rht, rht_sign_mask=rht_sign_mask, stochastic_rounding=stochastic_rounding,
                            rng_state=_rng(rng_state), group_row_multiple=group_row_multiple,
                            amax_given=True if row_given or col_given else None, four_over_six=four_over_six,
                            four_over_six_error=four_over_six_error, four_over_six_scale_max=four_over_six_scale_max)
    _call(X, _lowp.nvfp4_grouped_quantize, X.address, X.dtype, X.rows, X.cols, n, rows_p, q, cfg,
          address(workspace), ws)
    return outs


def nvfp4_grouped_amax(x, member_rows, scaling, rows, cols, rht, rht_sign_mask, group_row_multiple):
    """Grouped K1 of a per-row NVFP4 recipe: (row amaxes [R], column amaxes [N][K], workspace)."""
    X = Input(x)
    (rows_p,), n = _layout((member_rows,), ("member_rows",))
    ws = _lowp.grouped_workspace_size(n)
    r, c, workspace = X.alloc(_shapes.nvfp4_grouped_amax(X.rows, X.cols, n, rows, cols, ws), (2,))
    cfg = _lowp.QuantConfig(rht=rht, rht_sign_mask=rht_sign_mask, group_row_multiple=group_row_multiple)
    _call(X, _lowp.nvfp4_grouped_amax_per_row, X.address, X.dtype, X.rows, X.cols, scaling, n, rows_p,
          _addr(r, rows), _addr(c, cols), cfg, address(workspace), ws)
    return r, c, workspace
