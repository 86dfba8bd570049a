"""lowp.torch with torch.distributed on the CPU backend (gloo): amax reduction (one rank's reduced
path is plain current scaling byte for byte; ranks share the single process's scales and codes;
a DP step equals the single-process step), FSDP2's quantized all-gather (the gathered weight is
the whole weight's quantization byte for byte; the same losses as without it; the bytes sent;
state_dict and distributed checkpoints). The multi-process cases are in dist_cases.py."""
import dataclasses

import pytest

torch = pytest.importorskip("torch")
dist = pytest.importorskip("torch.distributed")
if not dist.is_available() or not dist.is_gloo_available():
    pytest.skip("torch.distributed with gloo is not available", allow_module_level=True)

import lowp  # noqa: E402
import lowp.recipes as R  # noqa: E402
import lowp.torch  # noqa: E402
import lowp.torch.distributed as LD  # noqa: E402
from lowp.torch import _fsdp, _roles  # noqa: E402
from lowp.torch.linear import quantize_weight  # noqa: E402

import dist_cases  # noqa: E402

PER_TENSOR = [R.Fp8Current(), R.Fp8Current(amax_epsilon=1e-3, power_of_two_scale=True),
              R.Fp8Current(fp8_format="e4m3"), dist_cases.RECIPES["nvfp4"], dist_cases.RECIPES["nvfp4_estimated"],
              R.Nvfp4PerTensor(input=R.Nvfp4Role(rht=True, amax_estimation=True, amax_estimation_factor=1.5),
                               gradient=R.Nvfp4Role(rht=True), rht_sign_mask=0x1234),
              R.Nvfp4PerTensor.four_over_six()]


@pytest.fixture(scope="module")
def world1(tmp_path_factory):
    """A process group of this process alone."""
    store = dist.FileStore(str(tmp_path_factory.mktemp("pg") / "store"), 1)
    dist.init_process_group("gloo", store=store, rank=0, world_size=1)
    yield dist.group.WORLD
    dist.destroy_process_group()


def test_recipes_take_a_group_outside_equality(world1):
    for r in (R.Fp8Delayed(), R.Fp8Current(), R.Nvfp4PerTensor()):
        g = r.replace(amax_reduction_group=world1)
        assert g.amax_reduction_group is world1 and r.amax_reduction_group is None
        assert g == r and hash(g) == hash(r)
        assert g.replace().amax_reduction_group is world1
        assert dataclasses.replace(g).amax_reduction_group is world1
    assert R.by_name("nvfp4_four_over_six", amax_reduction_group=world1).amax_reduction_group is world1
    assert R.Fp8PerToken(amax_reduction_group=None) == R.Fp8PerToken()


@pytest.mark.parametrize("cls", [R.Fp8PerToken, R.Nvfp4PerToken, R.Nvfp4RowScaled])
def test_per_row_recipes_refuse_a_group(world1, cls):
    with pytest.raises(ValueError, match=rf"{cls.__name__}\.amax_reduction_group: per-row scalings .* nothing to "
                                         "reduce"):
        cls(amax_reduction_group=world1)


def test_group_must_be_a_process_group():
    with pytest.raises(ValueError, match="Fp8Current.amax_reduction_group: must be a torch.distributed "
                                         "ProcessGroup or None, got int"):
        R.Fp8Current(amax_reduction_group=1)


def _input(rows=64, cols=96, seed=0, dtype=torch.float32):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(rows, cols, generator=g)
    x[:, 3] *= 40.0
    x[rows // 2] = 0.0
    return x.to(dtype)


@pytest.mark.parametrize("recipe", PER_TENSOR, ids=lambda r: r.name)
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=str)
def test_reduced_path_on_one_rank_is_plain_quantize(world1, recipe, dtype):
    """The reduced path (given amaxes; FP8 current: the delayed cast with current scaling's scale
    of the reduced amax) on a group of one gives lowp.quantize's bytes, special values included."""
    reduced = recipe.replace(amax_reduction_group=world1)
    cases = [_input(dtype=dtype)]
    for v in (float("nan"), float("inf")):
        x = _input(dtype=dtype)
        x[1, 1] = v
        cases.append(x)
    cases += [torch.zeros(32, 48, dtype=dtype), torch.full((32, 48), 1e-30, dtype=dtype)]
    for x in cases:
        for role in ("input", "weight", "gradient"):
            if recipe.family == "nvfp4" and recipe.role(role).stochastic_rounding:
                continue
            for rowwise, columnwise in ((True, True), (True, False), (False, True)):
                a = _roles.quantize(x, recipe, role, rowwise, columnwise, _roles.State())
                b = _roles.quantize(x, reduced, role, rowwise, columnwise, _roles.State())
                want, got = dist_cases.snapshot(a), dist_cases.snapshot(b)
                assert want.keys() == got.keys()
                for k in want:
                    ok = want[k] == got[k] if k == "scaling" else dist_cases.same(want[k], got[k])
                    assert ok, f"{role} {rowwise} {columnwise}: {k}"


@pytest.mark.parametrize("name", ["fp8_current", "fp8_delayed", "nvfp4", "nvfp4_sr"])
def test_module_with_group_of_one_is_unchanged(world1, name):
    """A lowp.torch.Linear step with a group of one: y, dx, dW, db and delayed scaling's state
    byte-equal to the step without a group."""
    x, target = dist_cases.batch(1)
    plain = dist_cases.mlp(dist_cases.RECIPES[name])
    grouped = dist_cases.mlp(dist_cases.RECIPES[name].replace(amax_reduction_group=world1))
    for _ in range(2):
        got = dist_cases.train_pass(grouped, x, target, 1.0)
        want = dist_cases.train_pass(plain, x, target, 1.0)
        assert all(dist_cases.same(a, b) for a, b in zip(got, want))
    for a, b in zip(grouped.parameters(), plain.parameters()):
        assert dist_cases.same(a.grad, b.grad)
    for a, b in zip(grouped.buffers(), plain.buffers()):
        assert dist_cases.same(a, b)


def test_precomputed_weight_amax_is_used_once_per_step(world1, monkeypatch):
    recipe = R.Fp8Current(amax_reduction_group=world1)
    model = dist_cases.mlp(recipe)
    calls = []
    real = dist.all_reduce
    monkeypatch.setattr(dist, "all_reduce", lambda t, *a, **k: calls.append(t.numel()) or real(t, *a, **k))
    LD.precompute_weight_amaxes(model)
    assert calls == [2], "one all-reduce for both weights"
    calls.clear()
    x, target = dist_cases.batch(1)
    dist_cases.train_pass(model, x, target, 1.0)
    assert calls == [1, 1, 1, 1], "x of each layer, dy of each layer: the weights' amaxes came precomputed"
    with torch.no_grad():
        model[0].weight.mul_(0.5)
    calls.clear()
    dist_cases.train_pass(model, x, target, 1.0)
    assert calls == [1, 1, 1, 1, 1], "the changed weight reduces its own amax again"


@pytest.mark.parametrize("recipe", [R.Fp8Current(), R.Fp8Current(fp8_format="e4m3", power_of_two_scale=True),
                                    R.Nvfp4PerTensor()], ids=lambda r: r.name)
@pytest.mark.parametrize("shards", [1, 2, 3])
def test_gathered_weight_is_the_whole_weight_quantized(recipe, shards):
    """Shards quantized with the whole weight's amax, their codes (and NVFP4 block scales)
    concatenated as FSDP gathers them, give the whole weight's rowwise copy, and the columnwise
    copy made from it (a transpose; NVFP4 16x16 tiles: of codes and tile scales) is lowp's."""
    w = _input(96 * 2, 80, seed=shards)
    amax = lowp.amax(w)
    assert _fsdp.plan(recipe, tuple(w.shape), shards) is not None
    qs = [_roles.quantize(part, recipe, "weight", True, False, _roles.State(), amax) for part in w.chunk(shards)]
    outputs = [torch.cat([q.rowwise.data for q in qs])]
    if recipe.family == "nvfp4":
        outputs.append(torch.cat([q.rowwise.scale_inv[:w.shape[0] // shards, :w.shape[1] // 16] for q in qs]))
    kind = _fsdp.plan(recipe, tuple(w.shape), shards)
    got = _fsdp._Payload(outputs, _fsdp._Gathered(kind, qs[0])).quantized(True)
    want = quantize_weight(w, recipe, True, _roles.State())
    a, b = dist_cases.snapshot(got), dist_cases.snapshot(want)
    for k in b:
        assert (a[k] == b[k]) if k == "scaling" else dist_cases.same(a[k], b[k]), k


def test_gathered_weight_feeds_the_module():
    """A Linear holding a GatheredWeight runs its GEMMs on the gathered codes (the bytes of
    quantizing the weight itself), and a shape lowp cannot take runs on the dequantized weight;
    both give the weight a plain gradient."""
    recipe = R.Nvfp4PerTensor()
    ref = dist_cases.mlp(recipe)[0]
    w = ref.weight.detach()
    q = _roles.quantize(w, recipe, "weight", True, False, _roles.State(), lowp.amax(w))
    payload = _fsdp._Payload([q.rowwise.data, q.rowwise.scale_inv[:w.shape[0], :w.shape[1] // 16]],
                             _fsdp._Gathered("nvfp4", q))
    layer = dist_cases.mlp(recipe)[0]
    layer.weight = torch.nn.Parameter(_fsdp.GatheredWeight(payload, torch.float32))
    x, target = dist_cases.batch(1)
    x, target = x[:, :64], target[:, :1].expand(-1, 192)
    want = dist_cases.train_pass(ref, x, target, 1.0)
    got = dist_cases.train_pass(layer, x, target, 1.0)
    assert all(dist_cases.same(a, b) for a, b in zip(got, want))
    assert type(layer.weight.grad) is torch.Tensor and dist_cases.same(layer.weight.grad, ref.weight.grad)
    layer.weight.grad = None
    with pytest.warns(UserWarning, match="runs in high precision"):
        y = layer(x[:8])
    y.sum().backward()
    deq = lowp.dequantize(q)
    assert torch.equal(y, torch.nn.functional.linear(x[:8], deq, layer.bias))
    assert torch.equal(layer.weight.grad, torch.ones(8, 192).t() @ x[:8])


def test_plan_falls_back_where_shards_do_not_fit():
    assert _fsdp.plan(R.Nvfp4PerTensor(), (96, 64), 3) == "nvfp4"  # 32-row shards: whole tiles
    assert _fsdp.plan(R.Nvfp4PerTensor(), (48, 64), 2) is None  # 24 rows: not whole tiles
    assert _fsdp.plan(R.Fp8Current(), (48, 64), 2) == "fp8"
    assert _fsdp.plan(R.Fp8Current(), (80, 64), 3) is None  # uneven
    assert _fsdp.plan(R.Nvfp4PerTensor.four_over_six(), (96, 64), 2) is None
    assert _fsdp.plan(R.Fp8Delayed(), (96, 64), 2) is None


def test_enable_refuses_recipes_without_a_quantized_gather():
    for recipe in (R.Fp8Delayed(), R.Fp8PerToken(), R.Nvfp4PerToken(), R.Nvfp4PerTensor.four_over_six()):
        with pytest.raises(ValueError, match="has no quantized all-gather"):
            LD.enable_fsdp_quantized_all_gather(dist_cases.mlp(recipe))


def test_wrapped_weight_without_fsdp_trains_and_saves_plain():
    """Enabled but not sharded: the module trains as before (byte for byte), the optimizer state
    is plain, and state_dict holds plain tensors that load into an unwrapped model."""
    x, target = dist_cases.batch(1)
    plain, wrapped = dist_cases.mlp(R.Fp8Current()), dist_cases.mlp(R.Fp8Current())
    assert LD.enable_fsdp_quantized_all_gather(wrapped) == ["0.weight", "2.weight"]
    opts = [torch.optim.AdamW(m.parameters(), lr=1e-2) for m in (plain, wrapped)]
    for _ in range(3):
        for m, opt in zip((plain, wrapped), opts):
            y, dx = dist_cases.train_pass(m, x, target, 1.0)
            opt.step()
            opt.zero_grad()
            m.y = y
        assert dist_cases.same(plain.y, wrapped.y)
    assert isinstance(wrapped[0].weight, _fsdp.ShardWeight)
    assert all(type(s) is torch.Tensor for st in opts[1].state.values() for s in st.values())
    sd = wrapped.state_dict()
    assert all(type(v) is torch.Tensor for v in sd.values())
    fresh = dist_cases.mlp(R.Fp8Current(), seed=5)
    fresh.load_state_dict(sd)
    assert all(dist_cases.same(a, b) for a, b in zip(fresh.parameters(), plain.parameters()))


@pytest.mark.parametrize("world", [2, 3])
def test_ranks_agree_byte_for_byte(tmp_path, world):
    names = ["fp8_current", "fp8_delayed", "nvfp4", "nvfp4_sr", "nvfp4_estimated"]
    dist_cases.spawn(dist_cases.ranks_agree_bytes, world, tmp_path, names)


def test_dp_step_equals_single_process_step(tmp_path):
    dist_cases.spawn(dist_cases.dp_step_matches, 2, tmp_path, ["fp8_current", "fp8_delayed", "nvfp4"])


def test_fsdp_quantized_all_gather_same_losses(tmp_path):
    dist_cases.spawn(dist_cases.fsdp_same_loss, 2, tmp_path, ["fp8_current", "nvfp4_sr"])


def test_fsdp_quantized_all_gather_three_ranks_uneven(tmp_path):
    """80 hidden units over 3 ranks: the first weight's shards are uneven (27, 27, 26 rows) and
    travel in high precision, padded as FSDP pads them; the second is gathered quantized."""
    dist_cases.spawn(dist_cases.fsdp_same_loss, 3, tmp_path, ["fp8_current", "nvfp4_sr"], 80)


@pytest.mark.parametrize("name,bound", [("fp8_current", 0.52), ("nvfp4_sr", 0.30)])
def test_fsdp_quantized_all_gather_bytes(tmp_path, name, bound):
    dist_cases.spawn(dist_cases.fsdp_gathered_bytes, 2, tmp_path, name, bound)


def test_fsdp_distributed_checkpoint_round_trip(tmp_path):
    dist_cases.spawn(dist_cases.fsdp_checkpoint, 2, tmp_path, str(tmp_path / "checkpoint"))
