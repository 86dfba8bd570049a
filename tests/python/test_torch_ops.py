"""PyTorch: every op on CPU tensors byte-equal to the NumPy path, on CUDA tensors byte-equal to the
CPU results; torch.library.opcheck of every operator (schema, fake shapes, dynamic shapes);
torch.compile(fullgraph=True); CUDA-graph capture and replay equal to eager, with the
stochastic-rounding state advanced inside the graph."""
import pytest

from conftest import assert_bytes_equal, md, np

torch = pytest.importorskip("torch")
lowp = pytest.importorskip("lowp")
import lowp.torch as lowp_torch  # noqa: E402
from lowp import _core  # noqa: E402
from op_cases import CASES, SEED_OFFSET, make_input  # noqa: E402

HAS_CUDA = torch.cuda.is_available() and lowp.cuda_available()
cuda = pytest.mark.skipif(not HAS_CUDA, reason="needs a CUDA device and lowp's CUDA backend")
DEVICES = ["cpu", pytest.param("cuda", marks=cuda)]


def to_torch(device):
    def T(a):
        if a.dtype == md.bfloat16:
            t = torch.from_numpy(a.view(np.uint16).copy()).view(torch.bfloat16)
        elif a.dtype == np.uint64:
            t = torch.from_numpy(a.view(np.int64).copy())
        else:
            t = torch.from_numpy(a.copy())
        return t.to(device)
    return T


def numpy_copy(a):
    return a.copy()


def assert_outputs_equal(got, want, case):
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        assert_bytes_equal(g, w, f"{case.__name__} output {i}")


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", CASES, ids=[c.__name__ for c in CASES])
def test_tensors_equal_numpy(case, device):
    want = case(numpy_copy)
    got = case(to_torch(device))
    for g in got:
        assert g is None or g.device.type == device
    assert_outputs_equal(got, want, case)


def record_calls(device):
    """Runs every case on `device` and records each operator call's arguments (cloned first)."""
    calls = {}
    ops = dict(_core.TORCH_OPS)

    def recorder(name, op):
        def call(*args):
            calls.setdefault(name, []).append(tuple(a.clone() if isinstance(a, torch.Tensor) else a for a in args))
            return op(*args)
        return call

    _core.TORCH_OPS.update({name: recorder(name, op) for name, op in ops.items()})
    try:
        for case in CASES:
            case(to_torch(device))
    finally:
        _core.TORCH_OPS.update(ops)
    return calls


@pytest.mark.parametrize("device", DEVICES)
def test_opcheck_every_op(device):
    calls = record_calls(device)
    assert set(calls) == set(lowp_torch.SCHEMAS), "every registered op has a case"
    for name, arg_lists in sorted(calls.items()):
        for args in arg_lists[:3]:
            torch.library.opcheck(getattr(torch.ops.lowp, name).default, args)


def test_fake_shapes_on_meta():
    x = torch.empty(96, 64, dtype=torch.bfloat16, device="meta")
    q = lowp.quantize(x, "nvfp4_per_tensor", columnwise=True, scale_layout="swizzled")
    assert q.rowwise.data.shape == (96, 32) and q.rowwise.scale_inv.shape == (128, 4)
    assert q.columnwise.data.shape == (64, 48) and q.columnwise.scale_inv.shape == (128, 8)
    g = lowp.nvfp4_grouped_quantize(x, torch.empty(3, dtype=torch.int64, device="meta"), columnwise=True)
    sizes = lowp.nvfp4_grouped_sizes(3, 96, 64)
    assert g.rowwise.scale_inv.numel() == sizes.scale_inv_bytes[0]
    assert g.columnwise.scale_inv.numel() == sizes.scale_inv_bytes[1]
    assert g.workspace.numel() == lowp.grouped_workspace_size(3)


def _training_step(x, state, scale, history):
    q = lowp.quantize(x, "nvfp4_per_tensor", role="gradient", columnwise=True, rng_state=state)
    lowp.rng_advance(state)
    t = lowp.quantize(x, "nvfp4_per_token", columnwise=True)
    f = lowp.quantize(x, "fp8_delayed", scale=scale, amax=history, columnwise=True)
    return (q.rowwise.data, q.columnwise.scale_inv, q.dequantize(), t.columnwise.amax, t.dequantize("columnwise"),
            f.rowwise.data, f.scale_inv, lowp.amax(x))


def _state(device):
    x = make_input(64, 128, "bfloat16", seed=11)
    x = torch.from_numpy(x.view(np.uint16).copy()).view(torch.bfloat16).to(device)
    return (x, lowp.rng_state(9, like=x), torch.tensor([2.0], device=device),
            torch.tensor([0.5, 1.0, 3.0], device=device))


@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize("device", DEVICES)
def test_compile_fullgraph_equals_eager(device, dynamic):
    torch._dynamo.reset()
    eager_args, compiled_args = _state(device), _state(device)
    want = _training_step(*eager_args)
    got = torch.compile(_training_step, fullgraph=True, dynamic=dynamic)(*compiled_args)
    for i, (g, w) in enumerate(zip(got, want)):
        assert_bytes_equal(g, w, f"output {i}")
    for i, (g, w) in enumerate(zip(compiled_args[1:], eager_args[1:])):
        assert_bytes_equal(g, w, f"state {i} (rng, scale, amax history)")


@cuda
def test_cuda_graph_replay_equals_eager_and_advances_sr_state():
    x, state, scale, history = _state("cuda")
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        _training_step(x, state, scale, history)  # warm-up: the state's offset becomes 1
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        outs = _training_step(x, state, scale, history)
    for replay in range(3):
        graph.replay()
        torch.cuda.synchronize()
        # Eager on the CPU with the offset this replay read.
        cpu = [t.cpu() for t in (x, state, scale, history)]
        cpu[1][1] = 1 + replay
        want = _training_step(*cpu)
        for i, (g, w) in enumerate(zip(outs, want)):
            assert_bytes_equal(g, w, f"replay {replay} output {i}")
        assert state[1].item() == 2 + replay, "the captured rng_advance moved the state on the device"
    assert state[0].item() == 9


@cuda
def test_runs_on_the_current_stream():
    """The input is written on a side stream after a long sleep; a call that launched anywhere but
    that stream would read it before it is written."""
    x = to_torch("cuda")(make_input(256, 512, "bfloat16"))
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        late = torch.zeros_like(x)
        torch.cuda._sleep(100_000_000)
        late.copy_(x)
        q = lowp.quantize(late, "nvfp4_per_token", columnwise=True)
    stream.synchronize()
    want = lowp.quantize(x.cpu(), "nvfp4_per_token", columnwise=True)
    for name in ("data", "scale_inv", "amax"):
        assert_bytes_equal(getattr(q.rowwise, name), getattr(want.rowwise, name), name)


def test_rng_state_helper():
    s = lowp.rng_state(2**64 - 1, 5, like=torch.empty(1))
    assert s.dtype == torch.int64 and s.tolist() == [-1, 5]
    np.testing.assert_array_equal(lowp.rng_state(2**64 - 1, 5), np.array([2**64 - 1, 5], np.uint64))
