#!/usr/bin/env python3
"""How often 4over6's two candidates have nearly equal errors (numerics §5c), on random blocks.

An encoder that decided most blocks from an approximate error would need the exact walk for the
close ones, and a warp runs it when any of its 32 blocks is close. This prints, per relative
tolerance, the fraction of blocks whose candidates' errors lie within it and the fraction of
32-block warps with at least one such block. A float64 model of §5c (per-tensor, 1D blocks of
bf16 values), not the library's encoder: rates, not bytes.

usage: bench/four_over_six_close_calls.py [--blocks N] [--dist gauss|laplace] [--mse] [--scale-max E]
"""
import argparse

import ml_dtypes
import numpy as np

E2M1 = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0])


def candidate_errors(x, amax, scale_max, scale, mse):
    """Errors of every block of x (rows) under the E4M3 block scales `scale` (unrounded)."""
    s_enc = 6.0 * scale_max / amax
    fs = np.minimum(scale, 448.0).astype(ml_dtypes.float8_e4m3fn).astype(np.float64)
    m = s_enc / fs
    y = np.minimum(np.abs(x) * m[:, None], 6.0)
    q = E2M1[np.abs(y[..., None] - E2M1).argmin(-1)]
    d = q * fs[:, None] * amax / (6.0 * scale_max) - np.abs(x)
    return (d * d if mse else np.abs(d)).sum(1), fs


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--blocks", type=int, default=1 << 20)
    p.add_argument("--dist", choices=["gauss", "laplace"], default="gauss")
    p.add_argument("--mse", action="store_true")
    p.add_argument("--scale-max", type=float, default=448.0)
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()

    rng = np.random.default_rng(a.seed)
    draw = rng.standard_normal if a.dist == "gauss" else (lambda shape: rng.laplace(size=shape))
    x = draw((a.blocks, 16)).astype(ml_dtypes.bfloat16).astype(np.float64)
    amax = np.abs(x).max()
    base = np.abs(x).max(1) / 6.0 * (6.0 * a.scale_max / amax)
    err6, fs6 = candidate_errors(x, amax, a.scale_max, base, a.mse)
    err4, fs4 = candidate_errors(x, amax, a.scale_max, 1.5 * base, a.mse)
    two = fs4 != fs6
    rel = np.abs(err4 - err6)[two] / np.maximum(err4, err6)[two]
    print(f"{a.blocks} {a.dist} blocks, {'MSE' if a.mse else 'MAE'}, E {a.scale_max:g}: "
          f"map-4 kept in {np.mean(err4 < err6):.3f}, one candidate in {1 - np.mean(two):.2e}")
    print("tolerance  blocks   warps")
    for t in (1e-4, 1e-3, 4e-3, 1e-2, 3e-2):
        f = np.mean(rel < t) * np.mean(two)
        print(f"{t:9.0e}  {f:.5f}  {1 - (1 - f) ** 32:.3f}")


if __name__ == "__main__":
    main()
