"""Shared helpers of the binding's tests: inputs, and the C library's own results through
lowp_ref (tests/python/lowp_ref.cpp, a route that does not use the binding; LOWP_REF names it)."""
import os
import subprocess

import pytest

np = pytest.importorskip("numpy")
md = pytest.importorskip("ml_dtypes")

DTYPES = {"float32": np.float32, "float16": np.float16, "bfloat16": md.bfloat16}
DTYPE_CODES = {"float32": 0, "float16": 1, "bfloat16": 2}


def make_input(rows, cols, dtype="float32", seed=0):
    """Gaussian values with an outlier channel, a zero row and a tiny row: every code path of the
    scale rules gets exercised."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((rows, cols)).astype(np.float32)
    x[:, min(3, cols - 1)] *= 40.0
    x[rows // 2] = 0.0
    if rows > 2:
        x[1] *= 1e-6
    return x.astype(DTYPES[dtype])


class Ref:
    """Runs `lowp_ref OP key=value ...`: arrays are written to files, outputs read back as bytes."""

    def __init__(self, path, tmp):
        self.path, self.tmp, self.calls = path, tmp, 0

    def __call__(self, op, **kwargs):
        self.calls += 1
        d = self.tmp / f"call{self.calls}"
        d.mkdir()
        args = [self.path, op, f"out={d}"]
        for key, value in kwargs.items():
            if value is None:
                continue
            if isinstance(value, np.ndarray):
                f = d / f"in_{key}.bin"
                np.ascontiguousarray(value).tofile(f)
                value = f
            elif isinstance(value, bool):
                value = int(value)
            args.append(f"{key}={value}")
        p = subprocess.run([str(a) for a in args], capture_output=True, text=True)
        if p.returncode != 0:
            raise AssertionError(f"lowp_ref {op} failed ({p.returncode}): {p.stderr}")
        return {f.name[:-4]: np.fromfile(f, dtype=np.uint8) for f in d.glob("*.bin") if not f.name.startswith("in_")}


@pytest.fixture
def ref(tmp_path):
    path = os.environ.get("LOWP_REF")
    if not path:
        pytest.skip("LOWP_REF (the lowp_ref binary, scripts/test-python.sh builds it) not set")
    if not os.path.exists(path):
        pytest.fail(f"LOWP_REF={path} does not exist")
    return Ref(path, tmp_path)


def as_bytes(a):
    """An array's bytes (any framework) as a flat uint8 NumPy array."""
    if a is None:
        return np.zeros(0, np.uint8)
    if type(a).__module__.startswith("torch"):
        a = a.detach().cpu().contiguous().view(-1).view(__import__("torch").uint8).numpy()
    return np.ascontiguousarray(a).reshape(-1).view(np.uint8)


def assert_bytes_equal(got, want, what):
    got, want = as_bytes(got), as_bytes(want)
    assert got.size == want.size, f"{what}: {got.size} bytes, expected {want.size}"
    bad = np.nonzero(got != want)[0]
    assert bad.size == 0, (f"{what}: {bad.size} of {got.size} bytes differ; first at byte {bad[0]}: "
                           f"got 0x{got[bad[0]]:02x}, want 0x{want[bad[0]]:02x}")


def quantized_buffers(q):
    """A QuantizedTensor's buffers under lowp_ref's output names."""
    out = {}
    for part, suffix in ((q.rowwise, ""), (q.columnwise, "_t")):
        if part is not None:
            out["data" + suffix] = part.data
            out["scale_inv" + suffix] = part.scale_inv
            out["amax" + suffix] = part.amax
    if getattr(q, "scaling", None) in ("fp8_delayed", "fp8_current"):
        out["scale"], out["tensor_scale_inv"], out["tensor_amax"] = q.scale, q.scale_inv, q.amax
    return out
