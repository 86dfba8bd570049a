"""lowp/_shapes.py (what the binding allocates and the torch fake implementations return) against
the C library's size queries, and the package's self-documentation."""
import math
import pydoc

import pytest

lowp = pytest.importorskip("lowp")
from lowp import _shapes  # noqa: E402

SHAPES = [(16, 16), (32, 64), (48, 160), (128, 256), (130, 48), (1024, 16), (16, 4096)]


@pytest.mark.parametrize("rows,cols", SHAPES)
@pytest.mark.parametrize("recipe", ["nvfp4_per_tensor", "nvfp4_per_token"])
def test_nvfp4_shapes_match_sizes_query(recipe, rows, cols):
    spec = _shapes.nvfp4_quantize(rows, cols, recipe == "nvfp4_per_token", True, True, False, False)
    got = [math.prod(shape) * (4 if dtype == "float32" else 1) for shape, dtype in spec]
    s = lowp.quantized_sizes("e2m1", recipe, rows, cols)
    want = [s.data_bytes[0], s.scale_inv_bytes[0], s.amax_bytes[0], s.data_bytes[1], s.scale_inv_bytes[1],
            s.amax_bytes[1]]
    copies = 2 if rows % 16 == 0 else 1  # else no columnwise copy exists (its sizes are 0)
    assert got[:3 * copies] == want[:3 * copies]


@pytest.mark.parametrize("rows,cols", SHAPES + [(1, 1), (3, 7)])
def test_fp8_shapes_match_sizes_query(rows, cols):
    s = lowp.quantized_sizes("e4m3", "fp8_per_token", rows, cols)
    spec = _shapes.fp8_quantize_per_token(rows, cols, True, True)
    assert [math.prod(sh) * (4 if dt == "float32" else 1) for sh, dt in spec] == [
        s.data_bytes[0], s.scale_inv_bytes[0], s.amax_bytes[0], s.data_bytes[1], s.scale_inv_bytes[1],
        s.amax_bytes[1]]
    s = lowp.quantized_sizes("e4m3", "fp8_current", rows, cols)
    data, data_t, scale, scale_inv, amax = _shapes.fp8_quantize(rows, cols, True, True, True)
    assert [math.prod(data[0]), math.prod(data_t[0])] == list(s.data_bytes)
    assert [4 * math.prod(a[0]) for a in (scale, scale_inv, amax)] == [s.tensor_scale_bytes] * 3


@pytest.mark.parametrize("n,rows,cols", [(1, 0, 16), (1, 128, 64), (4, 96, 64), (7, 33, 32), (3, 5, 48),
                                         (300, 4096, 256), (64, 64, 16)])
def test_nvfp4_grouped_shapes_match_sizes(n, rows, cols):
    s = lowp.nvfp4_grouped_sizes(n, rows, cols)
    row_bytes, col_bytes = _shapes.nvfp4_grouped_scale_bytes(n, rows, cols)
    assert row_bytes == s.scale_inv_bytes[0]
    if rows % 16 == 0:  # else no columnwise copy exists (its sizes are 0)
        assert col_bytes == s.scale_inv_bytes[1]


def test_workspace_formula_matches_the_call():
    for n in list(range(1, 300)) + [4096, 2**20]:
        assert _shapes.grouped_workspace_bytes(n) == lowp.grouped_workspace_size(n)


def test_help_documents_the_package():
    text = pydoc.render_doc(lowp.quantize, renderer=pydoc.plaintext)
    for word in ("fp8_delayed", "nvfp4_per_token", "role", "rng_state", "ValueError", "NotImplementedError"):
        assert word in text
    assert "ml_dtypes.bfloat16" in (lowp.__doc__ or "")
    for name in lowp.__all__:
        assert getattr(lowp, name).__doc__, f"lowp.{name} has no docstring"
