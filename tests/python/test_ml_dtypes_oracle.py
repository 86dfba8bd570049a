"""Second, independent oracle for numerics §1: lowp's fp32 -> E4M3/E5M2/E2M1 encoders vs ml_dtypes.

ml_dtypes does not saturate (E4M3 overflow -> NaN, E5M2 -> inf): there the numerics rule ±max
(satfinite) is expected instead. E2M1 NaN inputs are left out (ml_dtypes has no NaN code; the
numerics' NaN -> code 7 is checked against CUDA in numerics_exhaustive_test).

Needs LOWP_ENCODE_DUMP=<path to numerics_encode_dump> (ctest sets it); skipped otherwise.
"""
import os
import subprocess

import pytest

np = pytest.importorskip("numpy")
md = pytest.importorskip("ml_dtypes")

DUMP = os.environ.get("LOWP_ENCODE_DUMP")
pytestmark = pytest.mark.skipif(not DUMP, reason="LOWP_ENCODE_DUMP (numerics_encode_dump path) not set")

# name, ml_dtypes type, code of +max, code of NaN (None: not compared)
FORMATS = [
    ("e4m3", md.float8_e4m3fn, 0x7E, 0x7F),
    ("e5m2", md.float8_e5m2, 0x7B, 0x7F),
    ("e2m1", md.float4_e2m1fn, 0x7, None),
]


def grid_neighbourhood(fmt):
    """Every finite value of fmt, the midpoints between neighbours (the ties), and one fp32 ulp
    either side of each."""
    bits = 4 if fmt is md.float4_e2m1fn else 8
    vals = np.arange(2**bits, dtype=np.uint8).view(fmt).astype(np.float32)
    vals = np.unique(vals[np.isfinite(vals)])
    mids = ((vals[:-1].astype(np.float64) + vals[1:]) / 2).astype(np.float32)  # exact: few bits
    pts = np.concatenate([vals, mids, [vals[-1] * 1.5, vals[-1] * 2]]).astype(np.float32)
    return np.concatenate([pts, np.nextafter(pts, np.float32(np.inf)), np.nextafter(pts, np.float32(-np.inf))])


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    strided = np.arange(0, 2**32, 997, dtype=np.uint64).astype(np.uint32).view(np.float32)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 3.4028235e38], dtype=np.float32)
    grids = [grid_neighbourhood(f) for _, f, _, _ in FORMATS]
    x = np.concatenate([strided, special] + grids + [-g for g in grids]).astype(np.float32)
    d = tmp_path_factory.mktemp("dump")
    x.tofile(d / "in.f32")
    subprocess.run([DUMP, str(d / "in.f32"), str(d / "out.u8")], check=True)
    codes = np.fromfile(d / "out.u8", dtype=np.uint8).reshape(3, x.size)
    return x, {name: codes[i] for i, (name, _, _, _) in enumerate(FORMATS)}


@pytest.mark.parametrize("name,fmt,max_code,nan_code", FORMATS, ids=[f[0] for f in FORMATS])
def test_encode_matches_ml_dtypes(sample, name, fmt, max_code, nan_code):
    x, codes = sample
    got = codes[name]
    with np.errstate(all="ignore"):
        ref = x.astype(fmt)
    want = ref.view(np.uint8).copy()
    overflow = ~np.isnan(x) & ~np.isfinite(ref.astype(np.float32))
    want[overflow] = np.where(np.signbit(x[overflow]), max_code | (0x8 if name == "e2m1" else 0x80), max_code)
    keep = ~np.isnan(x)
    if nan_code is not None:
        want[np.isnan(x)] = nan_code
        keep[:] = True
    bad = np.nonzero(keep & (got != want))[0]
    assert bad.size == 0, (
        f"{name}: {bad.size} of {keep.sum()} differ; first x={x[bad[0]]!r} "
        f"(bits 0x{x[bad[0]:bad[0]+1].view(np.uint32)[0]:08x}): lowp 0x{got[bad[0]]:02x}, want 0x{want[bad[0]]:02x}"
    )
