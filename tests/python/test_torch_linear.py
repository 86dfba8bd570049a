"""lowp.torch.Linear on the CPU backend: forward and gradients byte-equal to the lowp ops they are
made of (written out here, independently of the module), within the stated bounds of an fp64
nn.Linear; the weight quantized once per step; only quantized copies saved; state_dict, .to(),
fallback shapes, fused wgrad accumulation, torch.compile(fullgraph=True) and, on a GPU, CUDA-graph
capture of a training step."""
import warnings

import pytest

torch = pytest.importorskip("torch")
lowp = pytest.importorskip("lowp")
import lowp.recipes as R  # noqa: E402
import lowp.torch  # noqa: E402
import lowp.torch.linear as linear_module  # noqa: E402

HAS_CUDA = torch.cuda.is_available() and lowp.cuda_available()
cuda = pytest.mark.skipif(not HAS_CUDA, reason="needs a CUDA device and lowp's CUDA backend")

# Relative L2 error of y, dx and dW against an fp64 nn.Linear on Gaussian data (docs/training.md
# states them): FP8 E4M3 carries 3 mantissa bits, E5M2 (hybrid dy) 2; NVFP4 1 plus block scales.
BOUNDS = {"fp8": (0.06, 0.12, 0.12), "nvfp4": (0.25, 0.25, 0.25)}
TOKENS_SHAPE, IN, OUT = (2, 24), 64, 48


def reference_knobs(recipe, role):
    """lowp.quantize's arguments for one role, from the recipe's documented meaning."""
    if recipe.family == "fp8":
        dtype = "e5m2" if recipe.fp8_format == "hybrid" and role == "gradient" else "e4m3"
        if recipe.scaling == "fp8_delayed":
            return dict(dtype=dtype)
        return dict(dtype=dtype, amax_epsilon=recipe.amax_epsilon, power_of_two_scale=recipe.power_of_two_scale)
    k = getattr(recipe, role)
    knobs = dict(rht=k.rht, stochastic_rounding=k.stochastic_rounding)
    if k.block_2d:
        knobs["block_2d"] = True
    if k.four_over_six:
        knobs.update(four_over_six=True, four_over_six_error=k.four_over_six_error,
                     four_over_six_scale_max=k.four_over_six_scale_max)
    return knobs


class Composition:
    """One training step of y = x W^T + b as lowp ops, with the module's state cloned."""

    def __init__(self, recipe, module):
        self.recipe = recipe
        self.buffers = {n: b.clone() for n, b in module.named_buffers()}

    def q(self, t, role, rowwise, columnwise):
        r = self.recipe
        kw = reference_knobs(r, role)
        if r.scaling == "fp8_delayed":
            i = {"input": 0, "weight": 1, "gradient": 2}[role]
            kw.update(scale=self.buffers["fp8_scale"][i:i + 1], amax=self.buffers["fp8_amax_history"][i])
        sr = kw.get("stochastic_rounding")
        if sr:
            kw["rng_state"] = self.buffers["sr_rng_state"]
        q = lowp.quantize(t, r.scaling, rowwise=rowwise, columnwise=columnwise, **kw)
        if sr:
            lowp.rng_advance(self.buffers["sr_rng_state"])
        return q

    def update(self, rows, role):
        r = self.recipe
        if r.scaling == "fp8_delayed":
            dtype = "e5m2" if r.fp8_format == "hybrid" and role == "gradient" else "e4m3"
            b = self.buffers
            lowp.fp8_delayed_scaling_update(b["fp8_amax_history"][rows], b["fp8_scale"][rows],
                                            b["fp8_scale_inv"][rows], dtype=dtype, margin=r.margin,
                                            algo=r.amax_compute_algo)

    def step(self, x, w, b, dy):
        gd = "bfloat16" if x.dtype == torch.bfloat16 else "float32"
        qw = self.q(w, "weight", True, True)
        x2 = x.reshape(-1, x.shape[-1])
        qx = self.q(x2, "input", True, True)
        self.update(slice(0, 2), "input")
        bias_in = b.dtype == torch.bfloat16 or (self.recipe.family == "nvfp4" and b.dtype == torch.float32)
        fp8 = self.recipe.family == "fp8"
        fast = (fp8 and self.recipe.fast_accumulation_fprop, fp8 and self.recipe.fast_accumulation_backward)
        y = lowp.gemm(qx, "rowwise", qw, "rowwise", out_dtype=gd if bias_in else "float32",
                      bias=b if bias_in else None, fast_accumulation=fast[0])
        if not bias_in:
            y = y + b.float()
        y = y.to(x.dtype).reshape(*x.shape[:-1], -1)
        dy2 = dy.reshape(-1, dy.shape[-1])
        qdy = self.q(dy2, "gradient", True, True)
        self.update(slice(2, 3), "gradient")
        dx = lowp.gemm(qdy, "rowwise", qw, "columnwise", out_dtype=gd, fast_accumulation=fast[1])
        dx = dx.to(x.dtype).reshape(x.shape)
        dw = lowp.gemm(qdy, "columnwise", qx, "columnwise", out_dtype=gd, fast_accumulation=fast[1]).to(w.dtype)
        db = dy2.sum(0, dtype=torch.float32).to(b.dtype)
        return y, dx, dw, db


def module_step(m, x, dy):
    x = x.clone().requires_grad_()
    y = m(x)
    y.backward(dy)
    return y.detach(), x.grad, m.weight.grad, m.bias.grad


def inputs(dtype, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(*TOKENS_SHAPE, IN, generator=g).to(dtype)
    x[0, 3] *= 30.0  # an outlier token
    dy = (torch.randn(*TOKENS_SHAPE, OUT, generator=g) * 0.1).to(dtype)
    return x, dy


RECIPE_NAMES = list(R.NAMES)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16])
@pytest.mark.parametrize("name", RECIPE_NAMES)
def test_linear_equals_its_lowp_ops(name, dtype):
    recipe = R.by_name(name)
    torch.manual_seed(1)
    m = lowp.torch.Linear(IN, OUT, recipe=recipe, dtype=dtype, seed=11)
    for step in range(3):  # delayed scaling's state and the SR offset move on between steps
        x, dy = inputs(dtype, seed=step)
        comp = Composition(recipe, m)
        want = comp.step(x, m.weight.detach(), m.bias.detach(), dy)
        got = module_step(m, x, dy)
        for what, g, w in zip(("y", "dx", "dW", "db"), got, want):
            assert g.dtype == w.dtype and g.shape == w.shape, what
            assert torch.equal(g.view(torch.uint8) if g.dtype != torch.float32 else g, w.view(torch.uint8)
                               if w.dtype != torch.float32 else w), f"{name} step {step}: {what} differs"
        for n, b in m.named_buffers():
            assert torch.equal(b, comp.buffers[n]), f"{name} step {step}: buffer {n} differs"
        with torch.no_grad():
            m.weight.sub_(0.01 * m.weight.grad)  # an optimizer step: the weight is quantized anew
        m.weight.grad = m.bias.grad = None


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=cuda)])
@pytest.mark.parametrize("name", RECIPE_NAMES)
def test_linear_within_bound_of_fp64(name, device):
    recipe = R.by_name(name)
    torch.manual_seed(2)
    m = lowp.torch.Linear(IN, OUT, recipe=recipe, device=device)
    ref = torch.nn.Linear(IN, OUT, dtype=torch.float64)
    ref.load_state_dict({k: getattr(m, k).detach().double().cpu() for k in ("weight", "bias")})
    g = torch.Generator().manual_seed(3)
    x = torch.randn(*TOKENS_SHAPE, IN, generator=g)
    dy = torch.randn(*TOKENS_SHAPE, OUT, generator=g)
    got = [t.cpu() for t in module_step(m, x.to(device), dy.to(device))]
    want = module_step(ref, x.double(), dy.double())
    for what, gv, wv, bound in zip(("y", "dx", "dW"), got, want, BOUNDS[recipe.family]):
        rel = ((gv.double() - wv).norm() / wv.norm()).item()
        assert rel <= bound, f"{name}: {what} relative L2 error {rel:.4f} > {bound}"
    assert torch.allclose(got[3].double(), want[3], rtol=1e-5), "db"


@pytest.mark.parametrize("optimizer", ["sgd", "adamw_fused"])
def test_weight_quantized_once_per_step(monkeypatch, optimizer):
    """Once per step, whatever updates the weight: fused AdamW writes it without bumping its
    version counter."""
    calls = []
    real = linear_module.quantize_weight
    monkeypatch.setattr(linear_module, "quantize_weight", lambda *a: calls.append(1) or real(*a))
    m = lowp.torch.Linear(IN, OUT, recipe=R.Fp8Delayed(amax_history_len=4))
    opt = (torch.optim.SGD(m.parameters(), lr=0.01) if optimizer == "sgd"
           else torch.optim.AdamW(m.parameters(), lr=0.01, fused=True))
    for step in range(3):
        for micro in range(4):
            x, dy = inputs(torch.float32, seed=micro)
            m(x.requires_grad_()).backward(dy)
        opt.step()
        opt.zero_grad()
        assert len(calls) == step + 1, f"step {step}: weight quantized {len(calls)} times"
    m(inputs(torch.float32)[0], is_first_microbatch=True)
    assert len(calls) == 4, "is_first_microbatch=True quantizes"
    m(inputs(torch.float32)[0], is_first_microbatch=False)
    assert len(calls) == 4, "is_first_microbatch=False reuses"


def test_assigning_the_weight_drops_the_cached_copy():
    """FSDP2 assigns its unsharded weight at each unshard after refilling it in place with the
    version counter kept: the assignment alone must make the module quantize anew."""
    m = lowp.torch.Linear(IN, OUT, recipe=R.Fp8Current())
    x = inputs(torch.float32)[0]
    y = m(x)
    with torch.no_grad(), torch.autograd._unsafe_preserve_version_counter(m.weight):
        m.weight.mul_(2.0)
    assert torch.equal(m(x), y), "the version key alone keeps the stale copy (what FSDP2 hides)"
    setattr(m, "weight", m.weight)
    fresh = lowp.torch.Linear(IN, OUT, recipe=R.Fp8Current())
    fresh.load_state_dict(m.state_dict())
    assert torch.equal(m(x), fresh(x)) and not torch.equal(m(x), y)


def saved_bytes(m, tokens):
    x = torch.randn(tokens, m.in_features, dtype=torch.bfloat16, requires_grad=True)
    total = []

    def pack(t):
        total.append(t.untyped_storage().nbytes() if t.numel() else 0)
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        m(x)
    return sum(total)


@pytest.mark.parametrize("name,limit", [("fp8_delayed", 0.53), ("fp8_current", 0.53), ("fp8_per_token", 0.53),
                                        ("nvfp4_per_tensor", 0.30), ("nvfp4_per_token", 0.30),
                                        ("nvfp4_row_scaled", 0.30)])
def test_saves_only_quantized_copies(name, limit):
    """What forward keeps grows with the tokens by at most `limit` of x's bf16 bytes. (NVFP4's
    block scales are padded to 128 rows: in_features = 256 has no padding.)"""
    m = lowp.torch.Linear(256, OUT, recipe=R.by_name(name), dtype=torch.bfloat16)
    small, large = saved_bytes(m, 64), saved_bytes(m, 1024)
    per_element = (large - small) / ((1024 - 64) * 256 * 2)
    assert per_element <= limit, f"{name}: {per_element:.3f} of bf16's bytes per element of x"


def test_state_dict_interchangeable_with_nn_linear():
    plain = torch.nn.Linear(IN, OUT)
    m = lowp.torch.Linear(IN, OUT, recipe=R.Fp8Delayed(amax_history_len=8))
    m.load_state_dict(plain.state_dict())  # strict: the recipe's state may be absent
    assert torch.equal(m.weight, plain.weight) and torch.equal(m.bias, plain.bias)
    module_step(m, *inputs(torch.float32))
    sd = m.state_dict()
    assert set(sd) == {"weight", "bias", "fp8_amax_history", "fp8_scale", "fp8_scale_inv"}
    m2 = lowp.torch.Linear(IN, OUT, recipe=R.Fp8Delayed(amax_history_len=8))
    m2.load_state_dict(sd)
    assert torch.equal(m2.fp8_amax_history, m.fp8_amax_history) and m2.fp8_amax_history.abs().sum() > 0
    current = lowp.torch.Linear(IN, OUT, recipe=R.Nvfp4PerTensor())
    assert set(current.state_dict()) == {"weight", "bias"}, "no state beyond nn.Linear's without delayed scaling"
    torch.nn.Linear(IN, OUT).load_state_dict(current.state_dict())


def test_to_keeps_recipe_state_float32():
    m = lowp.torch.Linear(IN, OUT, recipe=R.Fp8Delayed(amax_history_len=8)).to(torch.bfloat16)
    assert m.weight.dtype == torch.bfloat16
    assert m.fp8_amax_history.dtype == m.fp8_scale.dtype == torch.float32
    y = m(inputs(torch.bfloat16)[0])
    assert y.dtype == torch.bfloat16


@pytest.mark.parametrize("name", ["fp8_current", "nvfp4_per_token"])
def test_autocast_output_is_the_fp32_result_rounded_once(name):
    """Under autocast (fp32 parameters, bf16 compute) y is the fp32 path's y rounded to bf16."""
    m = lowp.torch.Linear(IN, OUT, recipe=R.by_name(name))
    x = inputs(torch.float32)[0]
    want = m(x).detach()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        got = m(x.clone().requires_grad_())
    assert got.dtype == torch.bfloat16
    assert torch.equal(got.detach(), want.to(torch.bfloat16))
    got.float().sum().backward()
    assert m.weight.grad.dtype == torch.float32 and torch.isfinite(m.weight.grad).all()


def test_unquantizable_shape_runs_high_precision_with_one_warning():
    m = lowp.torch.Linear(IN, OUT, recipe=R.Nvfp4PerTensor())
    x = torch.randn(3, 5, IN)  # 15 tokens
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        y = m(x)
        m(x)
    assert torch.equal(y, torch.nn.functional.linear(x, m.weight, m.bias))
    assert len([w for w in caught if "high precision" in str(w.message)]) == 1


def test_fused_wgrad_accumulation_into_main_grad():
    recipe = R.Fp8Current()
    m = lowp.torch.Linear(IN, OUT, recipe=recipe, fuse_wgrad_accumulation=True)
    plain = lowp.torch.Linear(IN, OUT, recipe=recipe)
    plain.load_state_dict(m.state_dict())
    m.weight.main_grad = torch.zeros(OUT, IN)
    total = torch.zeros(OUT, IN)
    for seed in range(2):
        x, dy = inputs(torch.float32, seed)
        module_step(m, x, dy)
        total += module_step(plain, x, dy)[2]
        plain.weight.grad = None
    assert m.weight.grad is None
    assert torch.allclose(m.weight.main_grad, total, rtol=0, atol=1e-6)


@pytest.mark.parametrize("name", ["fp8_current", "fp8_delayed", "nvfp4_per_tensor", "nvfp4_per_token"])
def test_torch_compile_fullgraph_equals_eager(name):
    torch._dynamo.reset()
    recipe = R.by_name(name)
    eager = lowp.torch.Linear(IN, OUT, recipe=recipe, seed=5)
    compiled = lowp.torch.Linear(IN, OUT, recipe=recipe, seed=5)
    compiled.load_state_dict(eager.state_dict())
    fwd = torch.compile(lambda m, x: m(x), backend="aot_eager", fullgraph=True)
    for step in range(2):
        x, dy = inputs(torch.float32, step)
        want = module_step(eager, x, dy)
        xc = x.clone().requires_grad_()
        y = fwd(compiled, xc)
        y.backward(dy)
        got = (y.detach(), xc.grad, compiled.weight.grad, compiled.bias.grad)
        for what, g, w in zip(("y", "dx", "dW", "db"), got, want):
            assert torch.equal(g, w), f"{name} step {step}: {what}"
        for m in (eager, compiled):
            with torch.no_grad():
                m.weight.mul_(0.5)
            m.weight.grad = m.bias.grad = None


def test_amax_estimation_factor_defaults_by_role():
    """None takes 2.0 for the input and 1.0 for the gradient, as lowp's role defaults."""
    est = R.Nvfp4Role(rht=True, amax_estimation=True)
    recipe = R.Nvfp4PerTensor(input=est, gradient=est)
    x = inputs(torch.float32)[0].reshape(-1, IN)
    for role, factor in (("input", 2.0), ("gradient", 1.0)):
        got = lowp.torch._roles.quantize(x, recipe, role, True, True, lowp.torch._roles.State())
        want = lowp.quantize(x, "nvfp4_per_tensor", columnwise=True, rht=True, stochastic_rounding=False,
                             amax_estimation=True, amax_estimation_factor=factor)
        assert torch.equal(got.columnwise.amax, want.columnwise.amax), role
        assert torch.equal(got.columnwise.data, want.columnwise.data), role


def test_bad_recipes_rejected_with_the_field():
    cases = [
        (lambda: R.Fp8Delayed(history=4), "unknown knob 'history'"),
        (lambda: R.Fp8Current(fp8_format="e5m2"), "Fp8Current.fp8_format"),
        (lambda: R.Nvfp4Role(rht=True, four_over_six=True), "four_over_six: not with rht"),
        (lambda: R.Nvfp4PerToken(weight=R.Nvfp4Role(block_2d=True)), "weight.block_2d"),
        (lambda: R.Nvfp4PerTensor(gradient=R.Nvfp4Role()), "gradient.rht: must equal input.rht"),
        (lambda: R.Nvfp4PerTensor(input=R.Nvfp4Role(rht=True, amax_estimation_factor=2.0),
                                  gradient=R.Nvfp4Role(rht=True)), "amax_estimation_factor"),
        (lambda: R.Fp8Delayed(amax_history_len=0), "amax_history_len"),
        (lambda: lowp.torch.Linear(IN, OUT, recipe="fp8_current"), "recipe: expected a lowp.recipes recipe"),
        (lambda: lowp.torch.convert(torch.nn.Linear(IN, OUT), "nvfp4"), "recipe: expected"),
    ]
    for build, message in cases:
        with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
            build()


class TinyLM(torch.nn.Module):
    def __init__(self, vocab=64, dim=64, blocks=2):
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, dim)
        self.blocks = torch.nn.ModuleList(torch.nn.Sequential(torch.nn.LayerNorm(dim), torch.nn.Linear(dim, 4 * dim),
                                                              torch.nn.GELU(), torch.nn.Linear(4 * dim, dim))
                                          for _ in range(blocks))
        self.lm_head = torch.nn.Linear(dim, vocab)

    def forward(self, tokens):
        h = self.embed(tokens)
        for block in self.blocks:
            h = h + block(h)
        return self.lm_head(h)


@pytest.mark.parametrize("fused", [False, True])
@pytest.mark.parametrize("name", RECIPE_NAMES)
def test_convert_trains_a_small_model(name, fused):
    torch.manual_seed(0)
    model = TinyLM()
    weights = [p for p in model.parameters()]
    lowp.torch.convert(model, R.by_name(name), module_filter_fn=lambda n, m: n != "lm_head")
    assert type(model.lm_head) is torch.nn.Linear
    assert all(type(b[1]) is lowp.torch.Linear and type(b[3]) is lowp.torch.Linear for b in model.blocks)
    assert all(a is b for a, b in zip(weights, model.parameters())), "parameters kept, not copied"
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, fused=fused)
    data = torch.randint(0, 64, (8, 33), generator=torch.Generator().manual_seed(0))
    data[:, 1::2] = (data[:, 0::2][:, :16] * 3) % 64  # learnable: odd tokens follow even ones
    losses = []
    for _ in range(20):
        logits = model(data[:, :-1])
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, 64), data[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert all(torch.isfinite(torch.tensor(losses)))
    assert losses[-1] < 0.8 * losses[0], f"{name}: loss {losses[0]:.3f} -> {losses[-1]:.3f}"
    lowp.torch.unconvert(model)
    assert all(type(b[1]) is torch.nn.Linear for b in model.blocks)
    assert all(a is b for a, b in zip(weights, model.parameters()))


def test_recipe_per_module():
    model = TinyLM()
    lowp.torch.convert(model, lambda n, m: R.Fp8Current() if n.endswith(".1") else R.Nvfp4PerToken())
    assert model.blocks[0][1].recipe == R.Fp8Current() and model.blocks[0][3].recipe == R.Nvfp4PerToken()
    model.blocks[0][1].recipe = R.Fp8Delayed(amax_history_len=2)
    assert model.blocks[0][1].fp8_amax_history.shape == (3, 2)


def test_old_recipe_keyword_warns():
    x = torch.randn(16, 32)
    with pytest.warns(DeprecationWarning, match="scaling="):
        q = lowp.quantize(x, recipe="fp8_current")
    assert q.scaling == "fp8_current"


@cuda
@pytest.mark.parametrize("name", ["fp8_delayed", "fp8_current", "nvfp4_per_tensor"])
def test_cuda_graph_of_a_training_step(name):
    """A whole step (forward, backward, optimizer) captured once and replayed equals eager."""
    recipe = R.by_name(name)
    torch.manual_seed(0)
    models = [lowp.torch.Linear(256, 128, recipe=recipe, device="cuda", dtype=torch.bfloat16, seed=3)
              for _ in range(2)]
    models[1].load_state_dict(models[0].state_dict())
    opts = [torch.optim.SGD(m.parameters(), lr=0.1) for m in models]
    xs = [torch.randn(128, 256, device="cuda", dtype=torch.bfloat16) for _ in range(3)]
    static_x = xs[0].clone()

    def step(m, opt, x):
        y = m(x)
        (y.float() ** 2).mean().backward()
        opt.step()
        opt.zero_grad(set_to_none=False)

    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        step(models[1], opts[1], static_x)  # warm-up: cuBLASLt's setup, optimizer state
    torch.cuda.current_stream().wait_stream(stream)
    step(models[0], opts[0], xs[0])
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        step(models[1], opts[1], static_x)
    for x in xs[1:]:
        step(models[0], opts[0], x)
        static_x.copy_(x)
        graph.replay()
    torch.cuda.synchronize()
    assert torch.equal(models[0].weight, models[1].weight)
    for (n, a), b in zip(models[0].named_buffers(), models[1].buffers()):
        assert torch.equal(a, b), n
