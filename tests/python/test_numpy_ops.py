"""Every op on NumPy arrays (CPU backend) byte-equal to the C library's results through lowp_ref."""
import pytest

from conftest import DTYPE_CODES, assert_bytes_equal, make_input, np, quantized_buffers

lowp = pytest.importorskip("lowp")
C = lowp._lowp

SCALING = {"fp8_delayed": 0, "fp8_current": 1, "fp8_per_token": 2, "nvfp4_per_tensor": 3, "nvfp4_per_token": 4,
           "nvfp4_row_scaled": 5}
QDTYPE = {"e4m3": 3, "e5m2": 4, "e2m1": 5}
ROLE = {"input": 0, "weight": 1, "gradient": 2}
SEED_OFFSET = np.array([0x0123456789ABCDEF, 42], dtype=np.uint64)


def compare_quantized(q, want):
    for name, got in quantized_buffers(q).items():
        assert_bytes_equal(got, want[name], name)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("recipe", ["fp8_current", "fp8_delayed", "fp8_per_token"])
@pytest.mark.parametrize("fp8", ["e4m3", "e5m2"])
@pytest.mark.parametrize("shape", [(33, 70), (64, 128), (1, 5)])
def test_fp8_quantize(ref, dtype, recipe, fp8, shape):
    x = make_input(*shape, dtype)
    kwargs, ref_kwargs = {}, {}
    if recipe == "fp8_delayed":
        scale = np.array([3.5], np.float32)
        history = np.array([0.25, 7.0, 1.0], np.float32)
        ref_kwargs = {"scale": scale, "amax": history}
        kwargs = {"scale": scale.copy(), "amax": history.copy()}
    q = lowp.quantize(x, recipe, dtype=fp8, columnwise=True, **kwargs)
    want = ref("quantize", x=x, xdtype=DTYPE_CODES[dtype], rows=shape[0], cols=shape[1], qdtype=QDTYPE[fp8],
               scaling=SCALING[recipe], rowwise=1, columnwise=1, **ref_kwargs)
    compare_quantized(q, want)
    assert q.rowwise.data.shape == shape and q.columnwise.data.shape == shape[::-1]


@pytest.mark.parametrize("eps,pow2", [(0.5, False), (0.0, True), (100.0, True)])
def test_fp8_scale_options(ref, eps, pow2):
    x = make_input(32, 48)
    q = lowp.quantize(x, "fp8_current", amax_epsilon=eps, power_of_two_scale=pow2)
    want = ref("quantize", x=x, rows=32, cols=48, scaling=1, eps=eps, pow2=pow2)
    compare_quantized(q, want)


def test_nd_input_flattens_leading_dims(ref):
    x = make_input(24, 32).reshape(2, 12, 32)
    q = lowp.quantize(x, "fp8_per_token", columnwise=True)
    want = ref("quantize", x=x, rows=24, cols=32, scaling=2, columnwise=1)
    compare_quantized(q, want)
    assert q.rows == 24 and q.cols == 32 and q.dequantize().shape == (2, 12, 32)


NVFP4_CASES = {
    "plain": {},
    "input": {"role": "input"},
    "weight": {"role": "weight"},
    "gradient": {"role": "gradient"},
    "swizzled": {"role": "input", "scale_layout": "swizzled"},
    "estimation": {"role": "input", "amax_estimation": True},
    "estimation_factor": {"role": "gradient", "amax_estimation": True, "amax_estimation_factor": 3.0},
    "mask": {"rht": True, "rht_sign_mask": 0x1234},
    "sr_only": {"stochastic_rounding": True},
    "no_rht_override": {"role": "input", "rht": False},
    "four_over_six": {"four_over_six": True},
    "four_over_six_mse_256_2d": {"role": "weight", "four_over_six": True, "four_over_six_error": "mse",
                                 "four_over_six_scale_max": 256.0},
}


def _nvfp4_ref_kwargs(opts):
    out = {}
    if "role" in opts:
        out["role"] = ROLE[opts["role"]]
    for key, short in (("rht", "rht"), ("rht_sign_mask", "mask"), ("stochastic_rounding", "sr"),
                       ("block_2d", "block2d"), ("amax_estimation", "est"), ("amax_estimation_factor", "factor"),
                       ("four_over_six", "fos"), ("four_over_six_scale_max", "fos_max")):
        if key in opts:
            out[short] = opts[key]
    if "four_over_six_error" in opts:
        out["fos_error"] = {"mae": 0, "mse": 1}[opts["four_over_six_error"]]
    if "scale_layout" in opts:
        out["layout"] = 1 if opts["scale_layout"] == "swizzled" else 0
    return out


def _needs_rng(opts):
    return opts.get("stochastic_rounding") or opts.get("role") == "gradient"


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
@pytest.mark.parametrize("case", list(NVFP4_CASES))
def test_nvfp4_per_tensor(ref, dtype, case):
    opts = NVFP4_CASES[case]
    x = make_input(48, 160, dtype)
    rng = SEED_OFFSET if _needs_rng(opts) else None
    q = lowp.quantize(x, "nvfp4_per_tensor", columnwise=True, rng_state=rng, **opts)
    want = ref("quantize", x=x, xdtype=DTYPE_CODES[dtype], rows=48, cols=160, qdtype=5, scaling=3, columnwise=1,
               rng=rng, **_nvfp4_ref_kwargs(opts))
    compare_quantized(q, want)
    assert q.rowwise.data.shape == (48, 80) and q.columnwise.data.shape == (160, 24)
    assert q.rowwise.scale_inv.shape == (128, 12) and q.columnwise.scale_inv.shape == (256, 4)


@pytest.mark.parametrize("case", ["plain", "rht", "sr", "rht_sr_swizzled", "rowwise_only"])
def test_nvfp4_per_token(ref, case):
    opts = {"rht": {"rht": True}, "sr": {"stochastic_rounding": True},
            "rht_sr_swizzled": {"rht": True, "stochastic_rounding": True, "scale_layout": "swizzled"}}.get(case, {})
    columnwise = case != "rowwise_only"
    x = make_input(32, 64, "bfloat16")
    rng = SEED_OFFSET if opts.get("stochastic_rounding") else None
    q = lowp.quantize(x, "nvfp4_per_token", columnwise=columnwise, rng_state=rng, **opts)
    want = ref("quantize", x=x, xdtype=2, rows=32, cols=64, qdtype=5, scaling=4, columnwise=columnwise, rng=rng,
               **_nvfp4_ref_kwargs(opts))
    compare_quantized(q, want)
    assert q.rowwise.amax.shape == (32,) and (not columnwise or q.columnwise.amax.shape == (64,))


ROW_SCALED_CASES = {"plain": {}, "rht_sr_swizzled": {"rht": True, "stochastic_rounding": True,
                                                      "scale_layout": "swizzled"},
                    "four_over_six_mse_256": {"four_over_six": True, "four_over_six_error": "mse",
                                              "four_over_six_scale_max": 256.0}}


@pytest.mark.parametrize("case", list(ROW_SCALED_CASES))
def test_nvfp4_row_scaled(ref, case):
    opts = ROW_SCALED_CASES[case]
    x = make_input(32, 64, "bfloat16")
    rng = SEED_OFFSET if opts.get("stochastic_rounding") else None
    q = lowp.quantize(x, "nvfp4_row_scaled", columnwise=True, rng_state=rng, **opts)
    want = ref("quantize", x=x, xdtype=2, rows=32, cols=64, qdtype=5, scaling=5, columnwise=1, rng=rng,
               **_nvfp4_ref_kwargs(opts))
    compare_quantized(q, want)
    assert q.nvfp4_outer_max == (1536.0 if opts.get("four_over_six") else 2688.0)
    for which in ("rowwise", "columnwise"):
        part = getattr(q, which)
        got = q.dequantize(which)
        deq = ref("dequantize", rows=32, cols=64, which=int(which == "columnwise"), qdtype=5, scaling=5,
                  layout=int(q.scale_layout == "swizzled"), data=part.data, scale_inv=part.scale_inv, amax=part.amax,
                  outer_max=q.nvfp4_outer_max)
        assert_bytes_equal(got, deq["out"], f"dequantize {which}")


@pytest.mark.parametrize("recipe", ["nvfp4_per_token", "nvfp4_row_scaled"])
def test_nvfp4_amax_pass_per_recipe(ref, recipe):
    x = make_input(48, 32)
    r, c = lowp.nvfp4_amax_per_token(x, rht=True, scaling=recipe)
    want = ref("nvfp4_amax_per_token", x=x, rows=48, cols=32, rht=True, scaling=SCALING[recipe])
    assert_bytes_equal(r, want["row_amax"], "row_amax")
    assert_bytes_equal(c, want["col_amax"], "col_amax")
    split = lowp.quantize(x, recipe, columnwise=True, rht=True, rowwise_amax=r, columnwise_amax=c)
    whole = lowp.quantize(x, recipe, columnwise=True, rht=True)
    for a, b in ((split.rowwise, whole.rowwise), (split.columnwise, whole.columnwise)):
        for name in ("data", "scale_inv"):
            assert_bytes_equal(getattr(a, name), getattr(b, name), name)


@pytest.mark.parametrize("recipe", ["nvfp4_per_tensor", "nvfp4_per_token"])
def test_nvfp4_amax_given(ref, recipe):
    x = make_input(32, 64)
    per_token = recipe == "nvfp4_per_token"
    row = np.linspace(1, 9, 32 if per_token else 1).astype(np.float32)
    col = np.linspace(2, 5, 64 if per_token else 1).astype(np.float32)
    q = lowp.quantize(x, recipe, columnwise=True, rowwise_amax=row, columnwise_amax=col)
    want = ref("quantize", x=x, rows=32, cols=64, qdtype=5, scaling=SCALING[recipe], columnwise=1, amax_given=1,
               row_amax=row, col_amax=col)
    compare_quantized(q, want)
    assert q.rowwise.amax is row and q.columnwise.amax is col


def test_nvfp4_amax_pass_then_given_equals_composite():
    x = make_input(32, 64)
    row, col = lowp.nvfp4_amax_per_token(x, rht=True)
    split = lowp.quantize(x, "nvfp4_per_token", columnwise=True, rht=True, rowwise_amax=row, columnwise_amax=col)
    whole = lowp.quantize(x, "nvfp4_per_token", columnwise=True, rht=True)
    for a, b in ((split.rowwise, whole.rowwise), (split.columnwise, whole.columnwise)):
        for name in ("data", "scale_inv", "amax"):
            assert_bytes_equal(getattr(a, name), getattr(b, name), name)


@pytest.mark.parametrize("activation,code", [("gelu_tanh", 0), ("silu", 1), ("relu", 2)])
@pytest.mark.parametrize("recipe", ["fp8_current", "fp8_delayed"])
def test_quantize_dact(ref, activation, code, recipe):
    grad = make_input(40, 24, "bfloat16", seed=1)
    act = make_input(40, 24, "bfloat16", seed=2)
    kwargs, ref_kwargs = {}, {}
    if recipe == "fp8_delayed":
        scale, history = np.array([2.0], np.float32), np.array([1.5, 3.0], np.float32)
        kwargs, ref_kwargs = {"scale": scale.copy(), "amax": history.copy()}, {"scale": scale, "amax": history}
    q = lowp.quantize_dact(grad, act, activation, recipe, columnwise=True, **kwargs)
    want = ref("quantize_dact", x=grad, act=act, xdtype=2, rows=40, cols=24, activation=code,
               scaling=SCALING[recipe], columnwise=1, **ref_kwargs)
    compare_quantized(q, want)


DEQUANT_CASES = [
    ("fp8_current", {}), ("fp8_per_token", {}), ("nvfp4_per_tensor", {"role": "input"}),
    ("nvfp4_per_tensor", {"role": "weight", "scale_layout": "swizzled"}), ("nvfp4_per_token", {"rht": True}),
]


@pytest.mark.parametrize("out_dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("which", ["rowwise", "columnwise"])
@pytest.mark.parametrize("recipe,opts", DEQUANT_CASES, ids=[f"{r}-{len(o)}" for r, o in DEQUANT_CASES])
def test_dequantize(ref, recipe, opts, which, out_dtype):
    x = make_input(32, 64)
    q = lowp.quantize(x, recipe, columnwise=True, **opts)
    got = q.dequantize(which, out_dtype)
    part = q.rowwise if which == "rowwise" else q.columnwise
    fp8_tensor = recipe == "fp8_current"
    want = ref("dequantize", rows=32, cols=64, which=int(which == "columnwise"), qdtype=QDTYPE[q.dtype],
               scaling=SCALING[recipe], layout=int(q.scale_layout == "swizzled"), out_dtype=DTYPE_CODES[out_dtype],
               data=part.data, scale_inv=None if fp8_tensor else part.scale_inv,
               amax=None if fp8_tensor else part.amax, tensor_scale_inv=q.scale_inv if fp8_tensor else None)
    assert_bytes_equal(got, want["out"], "out")
    assert got.shape == ((32, 64) if which == "rowwise" else (64, 32)) and got.dtype.name == out_dtype


def test_dequantize_takes_framework_dtypes():
    q = lowp.quantize(make_input(16, 32), "fp8_current")
    assert q.dequantize(dtype=np.float16).dtype == np.float16
    assert q.dequantize(dtype=np.dtype("float32")).dtype == np.float32


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_amax_ops(ref, dtype):
    x = make_input(48, 32, dtype)
    a = lowp.amax(x)
    assert_bytes_equal(a, ref("amax", x=x, xdtype=DTYPE_CODES[dtype], rows=48, cols=32)["amax"], "amax")
    r, c = lowp.amax_per_token(x)
    want = ref("amax_per_token", x=x, xdtype=DTYPE_CODES[dtype], rows=48, cols=32)
    assert_bytes_equal(r, want["row_amax"], "row_amax")
    assert_bytes_equal(c, want["col_amax"], "col_amax")
    r, c = lowp.amax_per_token(x, cols=False)
    assert c is None and r.shape == (48,)
    for rht, mask in ((False, None), (True, None), (True, 0xBEEF)):
        r, c = lowp.nvfp4_amax_per_token(x, rht=rht, rht_sign_mask=mask)
        want = ref("nvfp4_amax_per_token", x=x, xdtype=DTYPE_CODES[dtype], rows=48, cols=32, rht=rht, mask=mask)
        assert_bytes_equal(r, want["row_amax"], "row_amax")
        assert_bytes_equal(c, want["col_amax"], f"col_amax rht={rht}")


@pytest.mark.parametrize("algo,code", [("max", 0), ("most_recent", 1)])
@pytest.mark.parametrize("dtype,margin", [("e4m3", 0), ("e5m2", 2), ("e4m3", -3)])
def test_delayed_scaling_update(ref, algo, code, dtype, margin):
    history = np.abs(np.random.default_rng(3).standard_normal((5, 4))).astype(np.float32)
    history[2] = 0.0  # keeps its scale
    history[3, 1] = np.nan
    scale = np.linspace(0.5, 2, 5).astype(np.float32)
    scale_inv = (1 / scale).astype(np.float32)
    want = ref("update", history=history, scale=scale, scale_inv=scale_inv, n=5, len=4, qdtype=QDTYPE[dtype],
               margin=margin, algo=code)
    lowp.fp8_delayed_scaling_update(history, scale, scale_inv, dtype=dtype, margin=margin, algo=algo)
    for name, got in (("history", history), ("scale", scale), ("scale_inv", scale_inv)):
        assert_bytes_equal(got, want[name], name)


def test_delayed_loop_one_tensor_history():
    """quantize folds into h[0] of a 1-D history, the update rolls it and rescales."""
    x = make_input(16, 16)
    history = np.zeros(4, np.float32)
    scale, scale_inv = np.ones(1, np.float32), np.ones(1, np.float32)
    lowp.quantize(x, "fp8_delayed", scale=scale, amax=history)
    assert history[0] == np.abs(x).max()
    lowp.fp8_delayed_scaling_update(history, scale, scale_inv)
    assert history[0] == 0 and history[3] == np.abs(x).max()
    assert scale[0] == np.float32(448) / np.abs(x).max()


@pytest.mark.parametrize("rows,blocks", [(1, 1), (100, 10), (300, 7)])
def test_swizzle_scales(ref, rows, blocks):
    compact = lowp.quantize(make_input(rows, blocks * 16), "nvfp4_per_tensor").rowwise.scale_inv
    got = lowp.nvfp4_swizzle_scales(compact, rows, blocks)
    assert_bytes_equal(got, ref("swizzle", compact=compact, rows=rows, blocks=blocks)["swizzled"], "swizzled")
    direct = lowp.quantize(make_input(rows, blocks * 16), "nvfp4_per_tensor", scale_layout="swizzled")
    assert_bytes_equal(got, direct.rowwise.scale_inv, "fused swizzle")


@pytest.mark.parametrize("increment", [1, 7, 2**64 - 1])
def test_rng_advance(ref, increment):
    state = lowp.rng_state(2**63 + 5, 2**64 - 3)
    want = ref("rng_advance", state=state, inc=increment)
    lowp.rng_advance(state, increment)
    assert_bytes_equal(state, want["state"], "state")
    assert state[0] == 2**63 + 5 and state[1] == (2**64 - 3 + increment) % 2**64


def test_sr_state_changes_the_draws():
    x = make_input(32, 64)
    state = lowp.rng_state(7)
    a = lowp.quantize(x, "nvfp4_per_tensor", role="gradient", columnwise=True, rng_state=state)
    b = lowp.quantize(x, "nvfp4_per_tensor", role="gradient", columnwise=True, rng_state=state)
    lowp.rng_advance(state)
    c = lowp.quantize(x, "nvfp4_per_tensor", role="gradient", columnwise=True, rng_state=state)
    assert np.array_equal(a.rowwise.data, b.rowwise.data)
    assert not np.array_equal(a.rowwise.data, c.rowwise.data)


@pytest.mark.parametrize("recipe", ["fp8_delayed", "fp8_current", "fp8_per_token", "nvfp4_per_tensor",
                                    "nvfp4_per_token"])
@pytest.mark.parametrize("shape", [(32, 64), (17, 48)])
def test_sizes(ref, recipe, shape):
    qdtype = "e2m1" if recipe.startswith("nvfp4") else "e4m3"
    s = lowp.quantized_sizes(qdtype, recipe, *shape)
    want = ref("sizes", qdtype=QDTYPE[qdtype], scaling=SCALING[recipe], rows=shape[0], cols=shape[1])["sizes"]
    got = np.array([*s.data_bytes, *s.scale_inv_bytes, *s.amax_bytes, s.tensor_scale_bytes], np.uint64)
    assert_bytes_equal(got, want, "sizes")


@pytest.mark.parametrize("recipe", ["fp8_delayed", "fp8_per_token", "nvfp4_per_tensor", "nvfp4_per_token"])
@pytest.mark.parametrize("parts", ["rowwise", "columnwise", "both"])
def test_quantized_layout(recipe, parts):
    """lowp_quantized_layout_query: the size query's buffers of the parts asked for, each at a
    256-byte-aligned offset, disjoint, inside total_bytes."""
    qdtype = "e2m1" if recipe.startswith("nvfp4") else "e5m2"
    rows, cols = (48, 80) if recipe.startswith("nvfp4") else (17, 33)
    layout = lowp.quantized_layout(qdtype, recipe, rows, cols, parts)
    sizes = lowp.quantized_sizes(qdtype, recipe, rows, cols)
    keep = (parts != "columnwise", parts != "rowwise")
    for i in range(2):
        assert layout.sizes.data_bytes[i] == (sizes.data_bytes[i] if keep[i] else 0)
        assert layout.sizes.scale_inv_bytes[i] == (sizes.scale_inv_bytes[i] if keep[i] else 0)
        assert layout.sizes.amax_bytes[i] == (sizes.amax_bytes[i] if keep[i] else 0)
    buffers = [(o, n) for offs, ns in ((layout.data_offset, layout.sizes.data_bytes),
                                       (layout.scale_inv_offset, layout.sizes.scale_inv_bytes),
                                       (layout.amax_offset, layout.sizes.amax_bytes),
                                       (layout.tensor_scale_offsets, (layout.sizes.tensor_scale_bytes,) * 3))
               for o, n in zip(offs, ns) if n]
    assert buffers and layout.total_bytes % 256 == 0
    ends = 0
    for o, n in sorted(buffers):
        assert o % 256 == 0 and o >= ends and o + n <= layout.total_bytes
        ends = o + n


@pytest.mark.parametrize("role", ["input", "weight", "gradient"])
def test_nvfp4_per_token_role_defaults(role):
    """Per-token role defaults (numerics §5): every role, the weight's too, quantizes with the plain
    defaults (no RHT, no SR, 1D blocks)."""
    x = make_input(32, 64)
    q = lowp.quantize(x, "nvfp4_per_token", role=role, columnwise=True)
    plain = lowp.quantize(x, "nvfp4_per_token", columnwise=True)
    for got, want in ((q.rowwise, plain.rowwise), (q.columnwise, plain.columnwise)):
        assert np.array_equal(got.data, want.data) and np.array_equal(got.scale_inv, want.scale_inv)
        assert np.array_equal(got.amax, want.amax)


# Grouped FP8: members 3x16, an empty one, 5x8 after a gap of 4 elements, 2x4.
FIRST = np.array([3, 0, 5, 2], np.int64)
LAST = np.array([16, 7, 8, 4], np.int64)
OFFSETS = np.array([0, 48, 52, 92], np.int64)
TOTAL = 100
MEMBERS = [(int(o), int(f * l)) for o, f, l in zip(OFFSETS, FIRST, LAST)]


def _member_bytes(a, itemsize=1):
    """The members' regions only (bytes in gaps are not written)."""
    b = np.ascontiguousarray(a).reshape(-1).view(np.uint8)
    return np.concatenate([b[o * itemsize:(o + n) * itemsize] for o, n in MEMBERS])


def _group_input(dtype="bfloat16", seed=4):
    return make_input(1, TOTAL, dtype, seed).reshape(TOTAL)


@pytest.mark.parametrize("recipe,history", [("fp8_current", False), ("fp8_delayed", False), ("fp8_delayed", True)])
def test_grouped_quantize(ref, recipe, history):
    x = _group_input()
    kwargs, ref_kwargs, stride = {}, {}, 1
    if recipe == "fp8_delayed":
        scale = np.array([1.0, 2.0, 0.5, 4.0], np.float32)
        amax = np.tile(np.float32([0.5, 1, 2]), (4, 1)) if history else np.full(4, 0.25, np.float32)
        stride = 3 if history else 1
        kwargs, ref_kwargs = {"scale": scale.copy(), "amax": amax.copy()}, {"scale": scale, "amax": amax}
    q = lowp.grouped_quantize(x, FIRST, LAST, OFFSETS, recipe, columnwise=True, **kwargs)
    want = ref("grouped_quantize", x=x, xdtype=2, n=4, total=TOTAL, first=FIRST, last=LAST, offsets=OFFSETS,
               scaling=SCALING[recipe], columnwise=1, stride=stride, **ref_kwargs)
    for name, got in (("data", q.rowwise_data), ("data_t", q.columnwise_data)):
        assert_bytes_equal(_member_bytes(got), _member_bytes(want[name]), name)
    for name in ("scale", "scale_inv", "amax"):
        assert_bytes_equal(getattr(q, name), want[name], name)
    assert q.layout_error() == 0
    for which in ("rowwise", "columnwise"):
        out = q.dequantize(which, "float32")
        data = q.rowwise_data if which == "rowwise" else q.columnwise_data
        w = ref("grouped_dequantize", data=data, scale_inv=q.scale_inv, n=4, total=TOTAL, first=FIRST, last=LAST,
                offsets=OFFSETS, scaling=SCALING[recipe], which=int(which == "columnwise"), out_dtype=0)["out"]
        assert_bytes_equal(_member_bytes(out, 4), _member_bytes(w.view(np.float32), 4), f"dequantize {which}")


@pytest.mark.parametrize("activation,code", [("gelu_tanh", 0), ("relu", 2)])
def test_grouped_dact_and_amax(ref, activation, code):
    grad, act = _group_input(seed=5), _group_input(seed=6)
    q = lowp.grouped_quantize_dact(grad, act, FIRST, LAST, OFFSETS, activation, columnwise=True)
    want = ref("grouped_dact", x=grad, act=act, xdtype=2, n=4, total=TOTAL, first=FIRST, last=LAST, offsets=OFFSETS,
               activation=code, columnwise=1)
    for name, got in (("data", q.rowwise_data), ("data_t", q.columnwise_data)):
        assert_bytes_equal(_member_bytes(got), _member_bytes(want[name]), name)
    assert_bytes_equal(q.scale_inv, want["scale_inv"], "scale_inv")
    assert_bytes_equal(q.amax, want["amax"], "amax")
    a = lowp.grouped_amax(grad, FIRST, LAST, OFFSETS)
    want = ref("grouped_amax", x=grad, xdtype=2, n=4, total=TOTAL, first=FIRST, last=LAST, offsets=OFFSETS)
    assert_bytes_equal(a, want["amax"], "grouped amax")


def test_grouped_members_equal_single_quantize():
    x = _group_input("float32")
    q = lowp.grouped_quantize(x, FIRST, LAST, OFFSETS)
    for t, (o, n) in enumerate(MEMBERS):
        if n == 0:
            continue
        alone = lowp.quantize(x[o:o + n].reshape(int(FIRST[t]), int(LAST[t])), "fp8_current")
        assert_bytes_equal(q.rowwise_data[o:o + n], alone.rowwise.data, f"member {t}")
        assert q.scale_inv[t] == alone.scale_inv[0]


MEMBER_ROWS = np.array([32, 0, 16, 48], np.int64)


@pytest.mark.parametrize("case", ["plain", "rht_sr", "swizzled_mult16", "rowwise_only", "amax_given"])
def test_nvfp4_grouped(ref, case):
    rows, cols = int(MEMBER_ROWS.sum()), 64
    x = make_input(rows, cols, "bfloat16", seed=7)
    opts = {"rht_sr": {"rht": True, "stochastic_rounding": True},
            "swizzled_mult16": {"scale_layout": "swizzled", "group_row_multiple": 16}}.get(case, {})
    rng = SEED_OFFSET if opts.get("stochastic_rounding") else None
    columnwise = case != "rowwise_only"
    given = {}
    if case == "amax_given":
        r, c = lowp.nvfp4_grouped_amax(x, MEMBER_ROWS)
        given = {"rowwise_amax": r * 2, "columnwise_amax": c + 1}
    q = lowp.nvfp4_grouped_quantize(x, MEMBER_ROWS, columnwise=columnwise, rng_state=rng, **opts, **given)
    ref_kwargs = _nvfp4_ref_kwargs(opts)
    ref_kwargs["group_mult"] = opts.get("group_row_multiple")
    if given:
        ref_kwargs.update(amax_given=1, row_amax=given["rowwise_amax"], col_amax=given["columnwise_amax"])
    want = ref("nvfp4_grouped_quantize", x=x, xdtype=2, rows=rows, cols=cols, n=4, member_rows=MEMBER_ROWS,
               qdtype=5, scaling=4, columnwise=columnwise, rng=rng, **ref_kwargs)
    # Scale arrays are sized for every split: this split leaves their tails at 0 (lowp_ref's too).
    compare_quantized(q, want)
    assert q.layout_error() == 0


def test_nvfp4_grouped_amax(ref):
    rows, cols = int(MEMBER_ROWS.sum()), 32
    x = make_input(rows, cols, "float16", seed=8)
    for rht in (False, True):
        r, c = lowp.nvfp4_grouped_amax(x, MEMBER_ROWS, rht=rht)
        want = ref("nvfp4_grouped_amax", x=x, xdtype=1, rows=rows, cols=cols, n=4, member_rows=MEMBER_ROWS, rht=rht)
        assert_bytes_equal(r, want["row_amax"], "row_amax")
        assert_bytes_equal(c, want["col_amax"], "col_amax")
        assert c.shape == (4, cols)


@pytest.mark.parametrize("n,rows,cols", [(1, 0, 16), (4, 128, 64), (7, 33, 32), (300, 4096, 256)])
def test_nvfp4_grouped_sizes(ref, n, rows, cols):
    s = lowp.nvfp4_grouped_sizes(n, rows, cols)
    want = ref("nvfp4_grouped_sizes", n=n, rows=rows, cols=cols)["sizes"]
    got = np.array([*s.data_bytes, *s.scale_inv_bytes, *s.amax_bytes, s.tensor_scale_bytes], np.uint64)
    assert_bytes_equal(got, want, "sizes")
