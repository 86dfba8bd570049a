"""lowp.gemm: NumPy (CPU backend) byte-equal to the C library's lowp_gemm through lowp_ref for every
recipe x product x output dtype with bias and accumulate; the result against an independent fp64
product of the dequantized copies; the errors; and with torch: CPU tensors equal to NumPy,
torch.compile, and on CUDA the numerics §8 bound against the CPU and CUDA-graph replay. (Every
operator's opcheck and the exact case on every device run in test_torch_ops.py via op_cases.)"""
import pytest

from conftest import assert_bytes_equal, make_input, md, np

lowp = pytest.importorskip("lowp")

SCALING = {"fp8_delayed": 0, "fp8_current": 1, "fp8_per_token": 2, "nvfp4_per_tensor": 3, "nvfp4_per_token": 4,
           "nvfp4_row_scaled": 5}
QDTYPE = {"e4m3": 3, "e5m2": 4, "e2m1": 5}
SEED_OFFSET = np.array([0x0123456789ABCDEF, 42], dtype=np.uint64)
TOKENS, IN, OUT = 48, 64, 32  # x: tokens x in, W: out x in, dy: tokens x out

# Per recipe: how x, W and dy are quantized (lowp.quantize's recipe and knobs): the shipped
# defaults (FP8 hybrid: dy in E5M2; NVFP4 roles; per-token with RHT on x's and dy's columnwise copy).
LAYER = {
    "fp8_current": [("fp8_current", {}), ("fp8_current", {}), ("fp8_current", {"dtype": "e5m2"})],
    "fp8_delayed": [("fp8_delayed", {}), ("fp8_current", {}), ("fp8_delayed", {"dtype": "e5m2"})],
    "fp8_per_token": [("fp8_per_token", {})] * 3,
    "nvfp4_per_tensor": [("nvfp4_per_tensor", {"role": "input"}), ("nvfp4_per_tensor", {"role": "weight"}),
                         ("nvfp4_per_tensor", {"role": "gradient"})],
    "nvfp4_per_token": [("nvfp4_per_token", {"rht": True}), ("nvfp4_per_token", {}),
                        ("nvfp4_per_token", {"rht": True, "stochastic_rounding": True, "scale_layout": "swizzled"})],
    "nvfp4_row_scaled": [("nvfp4_row_scaled", {"rht": True}), ("nvfp4_row_scaled", {}),
                         ("nvfp4_row_scaled", {"rht": True, "stochastic_rounding": True})],
    # 4over6 with 6E = 1536 on some operands and 2688 on others: the GEMM's denominator per pair.
    "nvfp4_4over6": [("nvfp4_per_tensor", {"four_over_six": True, "four_over_six_scale_max": 256.0}),
                     ("nvfp4_per_tensor", {"role": "weight", "four_over_six": True}),
                     ("nvfp4_per_tensor", {"four_over_six": True, "four_over_six_error": "mse",
                                           "four_over_six_scale_max": 256.0})],
    "nvfp4_row_scaled_4over6": [("nvfp4_row_scaled", {"four_over_six": True, "four_over_six_scale_max": 256.0}),
                                ("nvfp4_row_scaled", {"four_over_six": True}),
                                ("nvfp4_row_scaled", {"four_over_six": True, "four_over_six_scale_max": 256.0})],
}
# product -> (a tensor, a copy, b tensor, b copy)
PRODUCTS = {"fprop": ("x", "rowwise", "w", "rowwise"), "dgrad": ("dy", "rowwise", "w", "columnwise"),
            "wgrad": ("dy", "columnwise", "x", "columnwise")}


def quantize(a, recipe, opts, like=None):
    opts = dict(opts)
    if recipe == "fp8_delayed":
        opts.update(scale=np.array([0.5], np.float32), amax=np.array([0.0, 3.0], np.float32))
    if opts.get("stochastic_rounding") or opts.get("role") == "gradient":
        opts["rng_state"] = SEED_OFFSET.copy() if like is None else like(SEED_OFFSET)
    if like is not None:
        opts = {k: like(v) if isinstance(v, np.ndarray) else v for k, v in opts.items()}
        a = like(a)
    return lowp.quantize(a, recipe, columnwise=True, **opts)


def layer(recipe, like=None, seed=0):
    """The quantized x, W, dy of a small linear layer, and their unquantized values."""
    values = {"x": make_input(TOKENS, IN, "bfloat16", seed), "w": make_input(OUT, IN, "bfloat16", seed + 1) * 0.1,
              "dy": make_input(TOKENS, OUT, "bfloat16", seed + 2) * 1e-3}
    return {name: quantize(values[name], *LAYER[recipe][i], like=like) for i, name in enumerate(("x", "w", "dy"))}


def operand(prefix, q, which):
    """lowp_ref's keys for one GEMM operand: the tensor, the copy, its buffers."""
    part = q.rowwise if which == "rowwise" else q.columnwise
    per_tensor_fp8 = q.scaling in ("fp8_current", "fp8_delayed")
    return {f"{prefix}qdtype": QDTYPE[q.dtype], f"{prefix}scaling": SCALING[q.scaling],
            f"{prefix}layout": int(q.scale_layout == "swizzled"), f"{prefix}rows": q.rows, f"{prefix}cols": q.cols,
            f"{prefix}which": int(which == "columnwise"), f"{prefix}data": part.data,
            f"{prefix}sinv": q.scale_inv if per_tensor_fp8 else part.scale_inv,
            f"{prefix}amax": part.amax if q.scaling.startswith("nvfp4") else None,
            f"{prefix}outer_max": q.nvfp4_outer_max}


def call(t, product, **kwargs):
    a, ac, b, bc = PRODUCTS[product]
    return lowp.gemm(t[a], ac, t[b], bc, **kwargs)


def ref_call(ref, t, product, out_dtype=2, bias=None, acc=None):
    a, ac, b, bc = PRODUCTS[product]
    bias_dtype = None if bias is None else (0 if bias.dtype == np.float32 else 2)
    return ref("gemm", **operand("a_", t[a], ac), **operand("b_", t[b], bc), out_dtype=out_dtype, bias=bias,
               bias_dtype=bias_dtype, acc=acc, a_rht=int(t[a].columnwise_rht), b_rht=int(t[b].columnwise_rht))["out"]


def n_of(t, product):
    b, bc = PRODUCTS[product][2:]
    return t[b].rows if bc == "rowwise" else t[b].cols


@pytest.mark.parametrize("out_dtype,code", [("bfloat16", 2), ("float32", 0)])
@pytest.mark.parametrize("product", list(PRODUCTS))
@pytest.mark.parametrize("recipe", list(LAYER))
def test_gemm_equals_c_library(ref, recipe, product, out_dtype, code):
    t = layer(recipe)
    d = call(t, product, out_dtype=out_dtype)
    assert_bytes_equal(d, ref_call(ref, t, product, code), "D")
    a, ac = PRODUCTS[product][:2]
    m = t[a].rows if ac == "rowwise" else t[a].cols
    assert d.shape == (m, n_of(t, product)) and d.dtype.name == out_dtype


@pytest.mark.parametrize("recipe", list(LAYER))
def test_bias_and_accumulate_equal_c_library(ref, recipe):
    t = layer(recipe, seed=5)
    for product in PRODUCTS:
        n = n_of(t, product)
        dtypes = (md.bfloat16, np.float32) if recipe.startswith("nvfp4") else (md.bfloat16,)
        for bias_dtype in dtypes:
            bias = np.linspace(-1, 1, n).astype(bias_dtype)
            got = call(t, product, out_dtype="float32", bias=bias)
            assert_bytes_equal(got, ref_call(ref, t, product, 0, bias=bias), f"{product} bias {bias.dtype}")
        old = np.random.default_rng(1).standard_normal(got.shape).astype(np.float32)
        acc = old.copy()
        assert call(t, product, accumulate_into=acc, bias=np.ones(n, md.bfloat16)) is acc
        assert_bytes_equal(acc, ref_call(ref, t, product, bias=np.ones(n, md.bfloat16), acc=old), f"{product} accumulate")


@pytest.mark.parametrize("product", list(PRODUCTS))
@pytest.mark.parametrize("recipe", list(LAYER))
def test_gemm_is_the_product_of_the_dequantized_copies(recipe, product):
    """An oracle apart from lowp_gemm: fp64 products of lowp.dequantize's copies (which carry the
    outer scales; an RHT columnwise pair multiplies back to the plain product)."""
    t = layer(recipe, seed=9)
    a, ac, b, bc = PRODUCTS[product]
    A = t[a].dequantize(ac).astype(np.float64)
    B = t[b].dequantize(bc).astype(np.float64)
    want = A @ B.T
    got = call(t, product, out_dtype="float32").astype(np.float64)
    scale = np.abs(A) @ np.abs(B).T  # sum_k |a_k b_k|: the numerics §8 bound's measure
    assert np.all(np.abs(got - want) <= 1e-6 * scale + 1e-30), np.max(np.abs(got - want) / (scale + 1e-30))


def test_wgrad_with_rht_copies_approximates_the_plain_product():
    """Both columnwise copies in the RHT domain: the transform cancels, so wgrad is close to dy^T x."""
    t = layer("nvfp4_per_tensor", seed=3)
    assert t["dy"].columnwise_rht and t["x"].columnwise_rht and not t["w"].columnwise_rht
    x = make_input(TOKENS, IN, "bfloat16", 3).astype(np.float64)
    dy = make_input(TOKENS, OUT, "bfloat16", 5).astype(np.float64) * 1e-3
    want = dy.T @ x
    got = call(t, "wgrad", out_dtype="float32").astype(np.float64)
    assert np.linalg.norm(got - want) / np.linalg.norm(want) < 0.3


def test_errors_name_the_rule_and_write_nothing():
    t = layer("nvfp4_per_tensor")
    with pytest.raises(ValueError, match="K"):  # x's K (in) against dy's K (out)
        lowp.gemm(t["x"], "rowwise", t["dy"], "rowwise")
    plain = lowp.quantize(make_input(TOKENS, 16), "nvfp4_per_tensor", columnwise=True)
    with pytest.raises(ValueError, match="RHT"):  # dy's RHT columnwise copy against a plain one
        lowp.gemm(t["dy"], "columnwise", plain, "columnwise")
    with pytest.raises(ValueError, match="a_copy"):
        lowp.gemm(t["x"], "sideways", t["w"], "rowwise")
    rowwise_only = lowp.quantize(make_input(32, 64), "nvfp4_per_tensor")
    with pytest.raises(ValueError, match="b_copy: b has no columnwise copy"):
        lowp.gemm(t["x"], "rowwise", rowwise_only, "columnwise")
    f = layer("fp8_current")
    with pytest.raises(ValueError, match="family|one family|recipe"):
        lowp.gemm(t["x"], "rowwise", f["w"], "rowwise")
    with pytest.raises(ValueError, match="out_dtype"):
        lowp.gemm(t["x"], "rowwise", t["w"], "rowwise", out_dtype="float16")
    with pytest.raises(ValueError, match="bias: holds 7 elements; expected 32"):
        lowp.gemm(t["x"], "rowwise", t["w"], "rowwise", bias=np.zeros(7, np.float32))
    with pytest.raises(ValueError, match="bias"):  # a float32 bias: NVFP4 only
        lowp.gemm(f["x"], "rowwise", f["w"], "rowwise", bias=np.zeros(OUT, np.float32))
    acc = np.full((TOKENS, OUT), 7.0, np.float32)
    with pytest.raises(ValueError, match="accumulate_into: shape"):
        lowp.gemm(t["x"], "rowwise", t["w"], "rowwise", accumulate_into=np.zeros((TOKENS, 16), np.float32))
    with pytest.raises(ValueError, match="accumulate_into: dtype"):
        lowp.gemm(t["x"], "rowwise", t["w"], "rowwise", accumulate_into=acc.astype(md.bfloat16))
    with pytest.raises(ValueError, match="out_dtype: accumulate_into"):
        lowp.gemm(t["x"], "rowwise", t["w"], "rowwise", accumulate_into=acc, out_dtype="bfloat16")
    with pytest.raises(ValueError, match="fast_accumulation"):
        lowp.gemm(t["x"], "rowwise", t["w"], "rowwise", accumulate_into=acc, fast_accumulation=True)
    assert np.all(acc == 7.0), "a refused call wrote D"


def test_rht_flags_override_the_tensors_record():
    t = layer("nvfp4_per_tensor")
    with pytest.raises(ValueError, match="RHT"):
        lowp.gemm(t["dy"], "columnwise", t["x"], "columnwise", b_columnwise_rht=False)
    plain = lowp.gemm(t["dy"], "columnwise", t["x"], "columnwise", a_columnwise_rht=False, b_columnwise_rht=False)
    assert_bytes_equal(plain, lowp.gemm(t["dy"], "columnwise", t["x"], "columnwise"), "flags only describe")


# ---- torch

def _torch():
    return pytest.importorskip("torch")


def _to_torch(device):
    torch = _torch()

    def T(a):
        if a.dtype == md.bfloat16:
            return torch.from_numpy(a.view(np.uint16).copy()).view(torch.bfloat16).to(device)
        if a.dtype == np.uint64:
            return torch.from_numpy(a.view(np.int64).copy()).to(device)
        return torch.from_numpy(a.copy()).to(device)
    return T


@pytest.mark.parametrize("recipe", list(LAYER))
def test_torch_cpu_equals_numpy(recipe):
    _torch()
    want, got = layer(recipe), layer(recipe, like=_to_torch("cpu"))
    for product in PRODUCTS:
        assert_bytes_equal(call(got, product), call(want, product), product)


def _step(qx, qw, qdy, dw):
    y = lowp.gemm(qx, "rowwise", qw, "rowwise")
    dx = lowp.gemm(qdy, "rowwise", qw, "columnwise", out_dtype="float32")
    lowp.gemm(qdy, "columnwise", qx, "columnwise", accumulate_into=dw)
    return y, dx


@pytest.mark.parametrize("dynamic", [False, True])
def test_torch_compile_fullgraph_equals_eager(dynamic):
    torch = _torch()
    torch._dynamo.reset()
    t = layer("nvfp4_per_tensor", like=_to_torch("cpu"))
    want_dw, got_dw = torch.zeros(OUT, IN), torch.zeros(OUT, IN)
    want = _step(t["x"], t["w"], t["dy"], want_dw)
    got = torch.compile(_step, fullgraph=True, dynamic=dynamic)(t["x"], t["w"], t["dy"], got_dw)
    for i, (g, w) in enumerate(zip(got, want)):
        assert_bytes_equal(g, w, f"output {i}")
    assert_bytes_equal(got_dw, want_dw, "dw accumulated in place")


def _cuda():
    torch = _torch()
    if not (torch.cuda.is_available() and lowp.cuda_available()):
        pytest.skip("needs a CUDA device and lowp's CUDA backend")
    return torch


@pytest.mark.parametrize("recipe", list(LAYER))
def test_cuda_within_the_bound_of_the_cpu_reference(recipe):
    """numerics §8: |d - r| <= e sum_k |a_k b_k| |scales| + one ulp of D, r the CPU result (fp32 D
    here, so the ulp is fp32's), e = 2^-22 K, plus 2^-8 for FP8 (Hopper's FP8 tensor cores keep
    partial sums at reduced precision between cuBLASLt's promotions to fp32; docs/gemm.md)."""
    torch = _cuda()
    cpu = layer(recipe, seed=21)
    gpu = layer(recipe, like=_to_torch("cuda"), seed=21)
    for product, (a, ac, b, bc) in PRODUCTS.items():
        for name in ("x", "w", "dy"):  # the CUDA quantization is byte-exact, so the operands are the same
            assert_bytes_equal(gpu[name].dequantize("rowwise"), cpu[name].dequantize("rowwise"), name)
        r = call(cpu, product, out_dtype="float32").astype(np.float64)
        d = call(gpu, product, out_dtype="float32").cpu().numpy().astype(np.float64)
        A, B = cpu[a].dequantize(ac).astype(np.float64), cpu[b].dequantize(bc).astype(np.float64)
        k = A.shape[1]
        e = 2.0 ** -22 * k + (0.0 if recipe.startswith("nvfp4") else 2.0 ** -8)
        bound = e * (np.abs(A) @ np.abs(B).T) + np.abs(r) * 2.0 ** -23
        bad = np.abs(d - r) > bound
        assert not bad.any(), f"{product}: {bad.sum()} of {bad.size} outside the bound"
    torch.cuda.synchronize()


def test_cuda_graph_replay_equals_eager():
    torch = _cuda()
    t = layer("nvfp4_per_token", like=_to_torch("cuda"))
    dw = torch.zeros(OUT, IN, device="cuda")
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        _step(t["x"], t["w"], t["dy"], torch.zeros(OUT, IN, device="cuda"))  # warm-up: plans, workspaces
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        outs = _step(t["x"], t["w"], t["dy"], dw)
    eager_dw = torch.zeros(OUT, IN, device="cuda")
    want = _step(t["x"], t["w"], t["dy"], eager_dw)
    for replay in range(2):
        graph.replay()
        torch.cuda.synchronize()
        for i, (g, w) in enumerate(zip(outs, want)):
            assert_bytes_equal(g, w, f"replay {replay} output {i}")
    assert_bytes_equal(dw, eager_dw * 2, "two replays accumulated twice")
