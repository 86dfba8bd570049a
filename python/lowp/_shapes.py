"""Shapes and dtypes of every op's outputs, from its arguments alone: what lowp/_core.py
allocates and what the torch fake implementations return. Plain integer arithmetic, so it also
runs on torch's symbolic sizes. The sizes are lowp.h's (lowp_quantized_sizes_query,
lowp_nvfp4_grouped_sizes); tests/python/test_shapes.py checks them against those calls.

Each function returns a list of (shape, dtype name); (0,) marks an output not produced.
"""
from __future__ import annotations

from . import _lowp

NONE = (0,)
# lowp_grouped_workspace_size is affine in N; its two coefficients, read from the library.
_WS_PER_MEMBER = _lowp.grouped_workspace_size(2) - _lowp.grouped_workspace_size(1)
_WS_BASE = _lowp.grouped_workspace_size(1) - _WS_PER_MEMBER


def grouped_workspace_bytes(n):
    """lowp_grouped_workspace_size(n) for n >= 1, on symbolic sizes too (the fake
    implementations; tests check it against the call)."""
    return _WS_BASE + _WS_PER_MEMBER * n


def roundup(x, m):
    return (x + m - 1) // m * m


def _scales(rows, blocks):
    """NVFP4 block scales of `rows` orientation rows of `blocks` blocks: padded compact array
    [roundup(rows, 128)][roundup(blocks, 4)] (the swizzled layout has the same byte count)."""
    return (roundup(rows, 128), roundup(blocks, 4))


def fp8_quantize(rows, cols, rowwise, columnwise, current):
    """(codes, transposed codes, scale, scale_inv, amax); scale and amax are the caller's
    arrays under delayed scaling, so produced only by current scaling."""
    one_if_current = (1,) if current else NONE
    return [((rows, cols) if rowwise else NONE, "uint8"), ((cols, rows) if columnwise else NONE, "uint8"),
            (one_if_current, "float32"), ((1,), "float32"), (one_if_current, "float32")]


def fp8_quantize_per_token(rows, cols, rowwise, columnwise):
    """(codes, scale_inv, amax) of each copy: one scale per orientation row."""
    row = [((rows, cols), "uint8"), ((rows,), "float32"), ((rows,), "float32")]
    col = [((cols, rows), "uint8"), ((cols,), "float32"), ((cols,), "float32")]
    return _parts(row, rowwise) + _parts(col, columnwise)


def nvfp4_quantize(rows, cols, per_row, rowwise, columnwise, rowwise_amax_given, columnwise_amax_given):
    """(codes, block scales, amax) of each copy; E2M1 codes two per byte. Given amaxes are the
    caller's arrays, so not produced."""
    row = [((rows, cols // 2), "uint8"), (_scales(rows, cols // 16), "uint8"),
           (NONE if rowwise_amax_given else (rows if per_row else 1,), "float32")]
    col = [((cols, rows // 2), "uint8"), (_scales(cols, rows // 16), "uint8"),
           (NONE if columnwise_amax_given else (cols if per_row else 1,), "float32")]
    return _parts(row, rowwise) + _parts(col, columnwise)


def dequantize(rows, cols, which_columnwise, out_dtype):
    return [((cols, rows) if which_columnwise else (rows, cols), out_dtype)]


def amax_per_token(rows, cols, want_rows, want_cols):
    return [((rows,) if want_rows else NONE, "float32"), ((cols,) if want_cols else NONE, "float32")]


def swizzled_scales(rows, blocks):
    return [(_scales(rows, blocks), "uint8")]


def grouped_quantize(total, n, rowwise, columnwise, current, workspace_bytes):
    """(codes, transposed codes, scale, scale_inv, amax, workspace) of a group of n members
    in `total` elements; the transposes lie at the members' offsets too."""
    n_if_current = (n,) if current else NONE
    return [((total,) if rowwise else NONE, "uint8"), ((total,) if columnwise else NONE, "uint8"),
            (n_if_current, "float32"), ((n,), "float32"), (n_if_current, "float32"),
            ((workspace_bytes,), "uint8")]


def nvfp4_grouped_quantize(rows, cols, n, rowwise, columnwise, rowwise_amax_given, columnwise_amax_given,
                           workspace_bytes):
    """(codes, scales, amax) of each copy of n members split along rows, then the workspace:
    scale arrays sized for every split (lowp_nvfp4_grouped_sizes), columnwise codes the members'
    transposes back to back, columnwise amax [n][cols]."""
    rows_bytes, cols_bytes = nvfp4_grouped_scale_bytes(n, rows, cols)
    row = [((rows, cols // 2), "uint8"), ((rows_bytes,), "uint8"),
           (NONE if rowwise_amax_given else (rows,), "float32")]
    col = [((rows * cols // 2,), "uint8"), ((cols_bytes,), "uint8"),
           (NONE if columnwise_amax_given else (n, cols), "float32")]
    return _parts(row, rowwise) + _parts(col, columnwise) + [((workspace_bytes,), "uint8")]


def nvfp4_grouped_amax(rows, cols, n, want_rows, want_cols, workspace_bytes):
    return [((rows,) if want_rows else NONE, "float32"), ((n, cols) if want_cols else NONE, "float32"),
            ((workspace_bytes,), "uint8")]


def nvfp4_grouped_scale_bytes(n, rows, cols):
    """Scale bytes of each copy that bound every split of `rows` into n members (lowp.h)."""
    c = roundup(cols // 16, 4)
    nonempty = min(n, rows)
    row_bytes = 128 * ((rows - nonempty) // 128 + nonempty) * c
    strips = rows // 16
    nonempty = min(n, strips)
    col_bytes = roundup(cols, 128) * 4 * ((strips - nonempty) // 4 + nonempty)
    return row_bytes, col_bytes


def _parts(outputs, produced):
    return outputs if produced else [(NONE, dtype) for _, dtype in outputs]
