"""The multi-process halves of test_torch_distributed.py: spawn() runs one case in every process
of a gloo group (lowp's CPU backend), and a case asserts what its test states; an exception in a
worker fails the test with the worker's traceback."""
import datetime
import time

import torch
import torch.distributed as dist

import lowp.recipes as R
import lowp.torch
import lowp.torch.distributed as LD
import lowp.torch.linear as linear_module
from lowp.torch import _fsdp, _function

TOKENS = 32  # per rank: a multiple of 16 (NVFP4's columnwise copy, RHT strips)
RECIPES = {
    "fp8_current": R.Fp8Current(),
    "fp8_delayed": R.Fp8Delayed(amax_history_len=4),
    "nvfp4": R.Nvfp4PerTensor(gradient=R.Nvfp4Role(rht=True)),  # dy without SR: its bytes are comparable
    "nvfp4_sr": R.Nvfp4PerTensor(),
    "nvfp4_estimated": R.Nvfp4PerTensor(input=R.Nvfp4Role(rht=True, amax_estimation=True),
                                        gradient=R.Nvfp4Role(rht=True, amax_estimation=True)),
}


def spawn(case, world, tmp_path, *args, timeout=90):
    """case(rank, world, *args) in `world` new processes of one gloo group. They are forked from
    a fresh server process that imported torch and lowp once (multiprocessing's forkserver):
    importing torch anew in every worker costs more than most cases."""
    import torch.multiprocessing as mp

    mp.set_forkserver_preload(["torch", "torch.distributed.fsdp", "lowp.torch", __name__])
    ctx = mp.start_processes(_entry, args=(case.__name__, world, f"file://{tmp_path}/rendezvous", args),
                             nprocs=world, join=False, start_method="forkserver")
    deadline = time.monotonic() + timeout
    while not ctx.join(timeout=1):
        if time.monotonic() > deadline:
            for p in ctx.processes:
                if p.is_alive():
                    p.kill()
            raise AssertionError(f"{case.__name__}: the workers did not finish within {timeout} s")


def _entry(rank, name, world, init, args):
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=init, rank=rank, world_size=world,
                            timeout=datetime.timedelta(seconds=60))
    try:
        globals()[name](rank, world, *args)
        dist.barrier()  # no rank leaves while another still talks to it
    finally:
        dist.destroy_process_group()


def mlp(recipe, seed=0, hidden=192):
    """64 -> hidden -> GELU -> 96, converted; the SR seeds fixed so that two builds draw alike."""
    torch.manual_seed(seed)
    m = torch.nn.Sequential(torch.nn.Linear(64, hidden), torch.nn.GELU(), torch.nn.Linear(hidden, 96))
    lowp.torch.convert(m, recipe)
    for i, layer in enumerate((m[0], m[2])):
        if "sr_rng_state" in layer._buffers:
            layer.sr_rng_state.copy_(torch.tensor([1000 + i, 0]))
    return m


def batch(world, seed=1):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(TOKENS * world, 64, generator=g)
    x[:, 5] *= 30.0  # an outlier channel
    return x, torch.randn(TOKENS * world, 96, generator=g)


def rows(t, rank):
    return t[rank * TOKENS:(rank + 1) * TOKENS]


class Recorder:
    """Every role quantized by lowp.torch.Linear, as (role, copies), while active."""

    def __init__(self):
        self.log = []

    def __enter__(self):
        self.saved = _function.quantize, linear_module.quantize
        inner = self.saved[0]

        def recording(x2d, recipe, role, rowwise, columnwise, state, amax=None):
            q = inner(x2d, recipe, role, rowwise, columnwise, state, amax)
            self.log.append((role, snapshot(q)))
            return q

        _function.quantize = linear_module.quantize = recording
        return self.log

    def __exit__(self, *exc):
        _function.quantize, linear_module.quantize = self.saved


def snapshot(q):
    out = {"scaling": q.scaling}
    for name in ("rowwise", "columnwise"):
        part = getattr(q, name)
        for f in ("data", "scale_inv", "amax"):
            t = None if part is None else getattr(part, f)
            out[f"{name}.{f}"] = None if t is None else t.detach().clone()
    for f in ("scale", "scale_inv"):
        t = getattr(q, f)
        out[f] = None if t is None else t.detach().clone().reshape(-1)
    if q.scaling != "fp8_delayed":  # delayed's amax is the caller's history, folded locally
        out["amax"] = None if q.amax is None else q.amax.detach().clone().reshape(-1)
    return out


def same(a, b):
    return a is None and b is None or a is not None and b is not None and torch.equal(
        a.reshape(-1).view(torch.uint8), b.reshape(-1).view(torch.uint8))


def check_split(what, single, parts, nvfp4, against_single=True):
    """parts (one per rank, rows split) against single (the concatenated rows): the shared
    scale fields equal; the codes and block scales the single copy's slices. Not against_single:
    the ranks' scale fields equal one another."""
    for key in ("rowwise.amax", "columnwise.amax", "scale", "scale_inv", "amax"):
        if key in single:
            want = single[key] if against_single else parts[0][key]
            assert all(same(p[key], want) for p in parts), f"{what}: {key}"
    if not against_single:
        return
    if single["rowwise.data"] is not None:
        assert same(torch.cat([p["rowwise.data"] for p in parts]), single["rowwise.data"]), f"{what}: rowwise codes"
    if single["columnwise.data"] is not None:
        got = torch.cat([p["columnwise.data"] for p in parts], dim=1)
        assert same(got, single["columnwise.data"]), f"{what}: columnwise codes"
    if nvfp4:
        m = single["rowwise.data"].shape[0] if single["rowwise.data"] is not None else None
        k = single["columnwise.data"].shape[0] if single["columnwise.data"] is not None else None
        if m is not None:
            blocks = single["rowwise.data"].shape[1] // 8
            got = torch.cat([p["rowwise.scale_inv"][:m // len(parts), :blocks] for p in parts])
            assert same(got, single["rowwise.scale_inv"][:m, :blocks]), f"{what}: rowwise block scales"
        if k is not None:
            strips = single["columnwise.data"].shape[1] // 8
            got = torch.cat([p["columnwise.scale_inv"][:k, :strips // len(parts)] for p in parts], dim=1)
            assert same(got, single["columnwise.scale_inv"][:k, :strips]), f"{what}: columnwise block scales"


def train_pass(model, x, target, scale):
    """One forward and backward of loss = sum(y * target) / scale; returns (y, dx)."""
    x = x.clone().requires_grad_()
    y = model(x)
    (y * target).sum().div(scale).backward()
    return y.detach(), x.grad


def ranks_agree_bytes(rank, world, names):
    """(a) With amax_reduction_group, every rank's quantized W equals the single process's, and
    every rank's x and dy share the single process's scale fields and hold its codes' rows (byte
    for byte; dy under stochastic rounding: the ranks' scale fields equal). Two passes without an
    optimizer step, so delayed scaling's second pass uses the reduced history."""
    x, target = batch(world)
    for name in names:
        recipe = RECIPES[name]
        dp = mlp(recipe.replace(amax_reduction_group=dist.group.WORLD))
        single = mlp(recipe)
        with Recorder() as mine:
            for _ in range(2):
                train_pass(dp, rows(x, rank), rows(target, rank), x.shape[0])
        with Recorder() as want:
            for _ in range(2):
                train_pass(single, x, target, x.shape[0])
        every = [None] * world
        dist.all_gather_object(every, mine)
        assert [r for r, _ in mine] == [r for r, _ in want], f"{name}: quantize calls differ"
        nvfp4 = recipe.family == "nvfp4"
        for i, (role, ref) in enumerate(want):
            parts = [log[i][1] for log in every]
            what = f"{name} call {i} ({role})"
            if role == "weight":
                assert all(same(p[k], ref[k]) for p in parts for k in ref if k != "scaling"), what
            else:
                # Stochastic rounding draws by block position, which differs between a rank's
                # slice and the whole batch: dy and what follows from it differ from the single
                # process's, so the ranks are compared with one another there.
                sr = nvfp4 and recipe.gradient.stochastic_rounding and role == "gradient"
                check_split(what, ref, parts, nvfp4, against_single=not sr)
        for buf in ("fp8_amax_history", "fp8_scale", "fp8_scale_inv"):
            for a, b in zip((dp[0], dp[2]), (single[0], single[2])):
                if buf in a._buffers:
                    assert same(getattr(a, buf), getattr(b, buf)), f"{name}: {buf}"


# (b)'s bound on the gradients and on the weights after one SGD step, relative to max |g|
# (measured: 1.4e-7 on 2 and 3 ranks): the DP gradient sums the ranks' partial wgrad GEMMs and
# bias sums, fp32 sums split in another order.
GRAD_BOUND = 1e-6


def dp_step_matches(rank, world, names):
    """(b) One DP step (each rank a slice of the batch, amaxes reduced, gradients all-reduced)
    against the single process on the whole batch: y and dx byte-equal on every rank's rows;
    delayed scaling's history and scales byte-equal; gradients and the stepped weights within
    GRAD_BOUND * max |g| (lr 1)."""
    x, target = batch(world)
    for name in names:
        recipe = RECIPES[name]
        dp = mlp(recipe.replace(amax_reduction_group=dist.group.WORLD))
        single = mlp(recipe)
        y, dx = train_pass(dp, rows(x, rank), rows(target, rank), x.shape[0])
        y1, dx1 = train_pass(single, x, target, x.shape[0])
        assert same(y, rows(y1, rank)), f"{name}: y"
        assert same(dx, rows(dx1, rank)), f"{name}: dx"
        for (pname, p), p1 in zip(dp.named_parameters(), single.parameters()):
            dist.all_reduce(p.grad)
            err = (p.grad - p1.grad).abs().max().item()
            assert err <= GRAD_BOUND * p1.grad.abs().max().item(), f"{name}: grad of {pname} off by {err}"
            with torch.no_grad():
                p -= p.grad
                p1 -= p1.grad
            assert (p - p1).abs().max().item() <= GRAD_BOUND * p1.grad.abs().max().item(), f"{name}: {pname}"
        for a, b in zip((dp[0], dp[2]), (single[0], single[2])):
            for buf in ("fp8_amax_history", "fp8_scale", "fp8_scale_inv"):
                if buf in a._buffers:
                    assert same(getattr(a, buf), getattr(b, buf)), f"{name}: {buf}"


def fsdp_model(recipe, quantized, world, seed=0, mp_policy=None, hidden=192):
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard

    mesh = init_device_mesh("cpu", (world,))
    m = mlp(recipe, seed, hidden)
    if quantized:
        LD.enable_fsdp_quantized_all_gather(m)
    policy = mp_policy or MixedPrecisionPolicy()
    for layer in (m[0], m[2]):
        fully_shard(layer, mesh=mesh, mp_policy=policy)
    fully_shard(m, mesh=mesh, mp_policy=policy)
    return m


class Calls:
    """Counts the calls of torch.distributed.<name> (and the bytes of their input tensor)."""

    def __init__(self, name, input_arg=0):
        self.name, self.input_arg, self.calls, self.bytes = name, input_arg, 0, 0

    def __enter__(self):
        self.real = getattr(dist, self.name)

        def counting(*args, **kwargs):
            t = args[self.input_arg]
            self.calls += 1
            self.bytes += t.numel() * t.element_size()
            return self.real(*args, **kwargs)

        setattr(dist, self.name, counting)
        return self

    def __exit__(self, *exc):
        setattr(dist, self.name, self.real)


def fsdp_step(model, opt, g):
    x = torch.randn(TOKENS, 64, generator=g)
    loss = (model(x) * torch.randn(TOKENS, 96, generator=g)).sum() / TOKENS
    loss.backward()
    opt.step()
    opt.zero_grad()
    return loss.detach()


def fsdp_same_loss(rank, world, names, hidden=192, steps=10):
    """(c) AdamW steps of FSDP2 (fully_shard) with and without the quantized all-gather give the
    same losses bit for bit: the gathered codes are the whole weight's (same amax, hence scale);
    a weight whose shards do not fit travels in high precision. With it: precompute_weight_amaxes
    after each step is the only all-reduce (one per step), the weights stay DTensors over
    ShardWeight and the optimizer state is plain."""
    from torch.distributed.tensor import DTensor

    for name in names:
        losses = {}
        gathered = sum(_fsdp.plan(RECIPES[name], shape, world) is not None for shape in ((hidden, 64), (96, hidden)))
        for quantized in (False, True):
            model = fsdp_model(RECIPES[name], quantized, world, hidden=hidden)
            opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
            g = torch.Generator().manual_seed(10 + rank)
            out = []
            for step in range(steps):
                with Calls("all_reduce") as during:
                    out.append(fsdp_step(model, opt, g))
                if quantized:
                    # The first step reduces each quantized weight's amax at its all-gather.
                    want = gathered if step == 0 else 0
                    assert during.calls == want, f"{name} step {step}: {during.calls} all-reduces"
                    with Calls("all_reduce") as pre:
                        LD.precompute_weight_amaxes(model)
                    assert pre.calls == 1
            losses[quantized] = torch.stack(out)
            if quantized:
                w = model[0].weight
                assert isinstance(w, DTensor) and isinstance(w._local_tensor, LD.ShardWeight)
                for state in opt.state.values():
                    for v in state.values():
                        local = v._local_tensor if isinstance(v, DTensor) else v
                        assert type(local) is torch.Tensor, type(local)
        assert same(losses[False], losses[True]), f"{name}: {losses[False]} vs {losses[True]}"


def fsdp_gathered_bytes(rank, world, name, bound):
    """(d) Bytes FSDP2 all-gathers in one step (forward and backward), bf16 params
    (MixedPrecisionPolicy(param_dtype=bfloat16)) against the quantized all-gather: at most
    bound times (biases travel in bf16 in both)."""
    from torch.distributed.fsdp import MixedPrecisionPolicy

    sent = {}
    for quantized in (False, True):
        model = fsdp_model(RECIPES[name], quantized, world, mp_policy=MixedPrecisionPolicy(param_dtype=torch.bfloat16))
        opt = torch.optim.SGD(model.parameters(), lr=1e-2)
        with Calls("all_gather_into_tensor", input_arg=1) as c:
            fsdp_step(model, opt, torch.Generator().manual_seed(3))
        sent[quantized] = c.bytes
    ratio = sent[True] / sent[False]
    assert ratio <= bound, f"{name}: {sent[True]} / {sent[False]} bytes = {ratio:.4f} > {bound}"
    if rank == 0:
        print(f"{name}: all-gathered {sent[True]} / {sent[False]} bytes = {ratio:.4f}", flush=True)


def fsdp_checkpoint(rank, world, path):
    """(e) state_dict holds plain high-precision DTensors; torch.distributed.checkpoint saves them
    and loads them into a fresh model (other init) that keeps its wrapped weights and then trains
    on bit for bit as the saved one."""
    import torch.distributed.checkpoint as dcp
    from torch.distributed.tensor import DTensor

    model = fsdp_model(RECIPES["nvfp4_sr"], True, world)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    g = torch.Generator().manual_seed(20 + rank)
    for _ in range(3):
        fsdp_step(model, opt, g)
    sd = model.state_dict()
    assert all(isinstance(v, DTensor) and type(v._local_tensor) is torch.Tensor for v in sd.values())
    dcp.save(sd, checkpoint_id=path)
    fresh = fsdp_model(RECIPES["nvfp4_sr"], True, world, seed=7)
    sd2 = fresh.state_dict()
    dcp.load(sd2, checkpoint_id=path)
    fresh.load_state_dict(sd2)
    for (n, a), b in zip(model.named_parameters(), fresh.parameters()):
        assert same(a.full_tensor(), b.full_tensor()), n
    assert isinstance(fresh[0].weight._local_tensor, LD.ShardWeight)
    for m in (model, fresh):  # the same SR state, as a restored run would have it
        for i, layer in enumerate((m[0], m[2])):
            layer.sr_rng_state.copy_(torch.tensor([2000 + i, 0]))
    opts = [opt, torch.optim.AdamW(fresh.parameters(), lr=1e-2)]
    opts[1].load_state_dict(opt.state_dict())
    a = fsdp_step(model, opts[0], torch.Generator().manual_seed(5))
    b = fsdp_step(fresh, opts[1], torch.Generator().manual_seed(5))
    assert same(a, b)
