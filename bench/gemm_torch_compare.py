#!/usr/bin/env python3
"""lowp's GEMMs against PyTorch's on the GPU, at lowp_bench_gemm's five shapes M x N x K (SHAPES
below: 8192^3, 4096^3, 16384 x 4096 x 4096, 16384 x 4096 x 14336, 16384 x 14336 x 4096; fprop
layout: D = x W^T, x: M x K, W: N x K, bf16 out). Needs torch and the lowp package with its CUDA
backend (docs/python.md: LOWP_PYTHON_PREBUILT against a CUDA build).

Rows per shape (one table of ms and ratios):
  matmul_bf16          torch.matmul on the bf16 tensors
  scaled_mm_tensor     torch._scaled_mm, one scale per tensor, on lowp's FP8 current-scaling codes
                       (E4M3 x E4M3) and scale_inv: the same GEMM as lowp_fp8_tensor
  scaled_mm_rowwise    torch._scaled_mm with per-row scales (M x 1, 1 x N) on lowp's FP8 per-token codes
  emu_nvfp4_tensor     NVFP4 emulated in torch under torch.compile: lowp's codes and block scales
                       dequantized to bf16 (the outer scale folded in), then torch.matmul
  emu_nvfp4_token      the same with per-token outer amaxes
  lowp_fp8_tensor      lowp.gemm (cuBLASLt) on the FP8 current-scaling copies
  lowp_fp8_token       lowp.gemm on the FP8 per-token copies
  lowp_nvfp4_tensor    lowp.gemm, NVFP4 per-tensor (x input, W weight role defaults)
  lowp_nvfp4_token     lowp.gemm, NVFP4 per-token
Each op is timed eagerly (CUDA events around a batch of calls, median of --reps after a warm-up)
and as a CUDA-graph replay of the same batch, the ops' graph samples interleaved (sample r of every
op back to back, so they see the same clocks); ratios use the graph time. Two operand sets
alternate, so consecutive calls read different operands. x_bf16 = matmul_bf16's time / the
op's; "vs" compares lowp with the same GEMM in torch (lowp_fp8_tensor over scaled_mm_tensor,
lowp_fp8_token over scaled_mm_rowwise, lowp_nvfp4_* over emu_nvfp4_*: > 1 means lowp is faster).
check: the largest |difference| to the op it is compared with (torch.matmul for the emulation),
over the largest |value|.

usage: python bench/gemm_torch_compare.py [--quick] [--reps N] [--batch N] [--json FILE]
"""
import argparse
import json
import statistics
import sys

import torch

import lowp

SHAPES = [(8192, 8192, 8192), (4096, 4096, 4096), (16384, 4096, 4096), (16384, 4096, 14336), (16384, 14336, 4096)]
E2M1 = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0]


def dequantize_nvfp4(codes, scales, amax, rows, cols, table):
    """NVFP4 -> bf16 in torch: e2m1(q) * float(s) * A / 2688 (A: one amax, or one per row)."""
    q = torch.stack((codes & 0xF, codes >> 4), dim=-1).reshape(rows, cols).long()
    s = scales[:rows, : cols // 16].view(torch.float8_e4m3fn).float()
    outer = amax.reshape(-1, 1) / 2688.0
    return (table[q].reshape(rows, cols // 16, 16) * (s * outer).unsqueeze(-1)).reshape(rows, cols).to(torch.bfloat16)


def emulated_gemm(a_codes, a_scales, a_amax, b_codes, b_scales, b_amax, m, n, k, table):
    a = dequantize_nvfp4(a_codes, a_scales, a_amax, m, k, table)
    b = dequantize_nvfp4(b_codes, b_scales, b_amax, n, k, table)
    return a @ b.t()


def eager_ms(fn, reps, batch):
    """Eager median ms per call over reps samples of `batch` calls; fn(i) runs call i (operand
    set i % 2)."""
    for i in range(3):
        fn(i)
    torch.cuda.synchronize()
    events = [torch.cuda.Event(enable_timing=True) for _ in range(reps + 1)]
    events[0].record()
    for r in range(reps):
        for i in range(batch):
            fn(i)
        events[r + 1].record()
    torch.cuda.synchronize()
    return statistics.median(events[r].elapsed_time(events[r + 1]) / batch for r in range(reps))


def captured(fn, batch):
    """A CUDA graph of `batch` calls of fn, replayed once (warm-up)."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for i in range(batch):
            fn(i)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for i in range(batch):
            fn(i)
    graph.replay()
    return graph


def time_ms(ops, reps, batch):
    """{name: (eager median, graph median)} ms per call. Eager: each op in turn. Graph: sample r
    of every op replays back to back, so the ops compared see the same clocks, which move under a
    sustained load (docs/perf/nvfp4-gemm.md); the order rotates from sample to sample, so no op
    always follows the same neighbour."""
    eager = {name: eager_ms(fn, reps, batch) for name, fn in ops.items()}
    graphs = {name: captured(fn, batch) for name, fn in ops.items()}
    torch.cuda.synchronize()
    events = {name: [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
                     for _ in range(reps)] for name in ops}
    names = list(graphs)
    for r in range(reps):
        for j in range(len(names)):
            name = names[(j + r) % len(names)]  # each op leads in turn
            graph = graphs[name]
            start, end = events[name][r]
            start.record()
            graph.replay()
            end.record()
    torch.cuda.synchronize()
    return {name: (eager[name], statistics.median(s.elapsed_time(e) / batch for s, e in events[name]))
            for name in ops}


def rel_diff(got, want):
    return ((got.float() - want.float()).abs().max() / want.float().abs().max()).item()


def bench_shape(m, n, k, reps, batch, table):
    sets = []
    for s in range(2):
        g = torch.Generator(device="cuda").manual_seed(1000 * s + m + n + k)
        x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=g)
        w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16, generator=g) * 0.02
        sets.append({
            "x": x, "w": w,
            "fx": lowp.quantize(x, "fp8_current"), "fw": lowp.quantize(w, "fp8_current"),
            "tx": lowp.quantize(x, "fp8_per_token"), "tw": lowp.quantize(w, "fp8_per_token"),
            "nx": lowp.quantize(x, "nvfp4_per_tensor", role="input"),
            "nw": lowp.quantize(w, "nvfp4_per_tensor", role="weight"),
            "px": lowp.quantize(x, "nvfp4_per_token"), "pw": lowp.quantize(w, "nvfp4_per_token"),
        })
    f8 = torch.float8_e4m3fn
    emulate = torch.compile(emulated_gemm)

    def emu(key_a, key_b):
        def run(i):
            a, b = sets[i % 2][key_a].rowwise, sets[i % 2][key_b].rowwise
            return emulate(a.data, a.scale_inv, a.amax, b.data, b.scale_inv, b.amax, m, n, k, table)
        return run

    def lowp_gemm(key_a, key_b):
        return lambda i: lowp.gemm(sets[i % 2][key_a], "rowwise", sets[i % 2][key_b], "rowwise")

    ops = {
        "matmul_bf16": lambda i: sets[i % 2]["x"] @ sets[i % 2]["w"].t(),
        "scaled_mm_tensor": lambda i: torch._scaled_mm(
            sets[i % 2]["fx"].rowwise.data.view(f8), sets[i % 2]["fw"].rowwise.data.view(f8).t(),
            sets[i % 2]["fx"].scale_inv, sets[i % 2]["fw"].scale_inv, out_dtype=torch.bfloat16),
        "scaled_mm_rowwise": lambda i: torch._scaled_mm(
            sets[i % 2]["tx"].rowwise.data.view(f8), sets[i % 2]["tw"].rowwise.data.view(f8).t(),
            sets[i % 2]["tx"].rowwise.scale_inv.reshape(m, 1), sets[i % 2]["tw"].rowwise.scale_inv.reshape(1, n),
            out_dtype=torch.bfloat16),
        "emu_nvfp4_tensor": emu("nx", "nw"),
        "emu_nvfp4_token": emu("px", "pw"),
        "lowp_fp8_tensor": lowp_gemm("fx", "fw"),
        "lowp_fp8_token": lowp_gemm("tx", "tw"),
        "lowp_nvfp4_tensor": lowp_gemm("nx", "nw"),
        "lowp_nvfp4_token": lowp_gemm("px", "pw"),
    }
    versus = {"lowp_fp8_tensor": "scaled_mm_tensor", "lowp_fp8_token": "scaled_mm_rowwise",
              "lowp_nvfp4_tensor": "emu_nvfp4_tensor", "lowp_nvfp4_token": "emu_nvfp4_token",
              "emu_nvfp4_tensor": "matmul_bf16", "emu_nvfp4_token": "matmul_bf16"}
    rows = {}
    for name, (eager, graph) in time_ms(ops, reps, batch).items():
        rows[name] = {"op": name, "m": m, "n": n, "k": k, "eager_ms": eager, "graph_ms": graph,
                      "tflops": 2.0 * m * n * k / (graph * 1e-3) / 1e12}
        print(f"  {name:18s} {m}x{n}x{k}: {graph:.4f} ms", file=sys.stderr, flush=True)
    outputs = {name: fn(0) for name, fn in ops.items()}
    for name, row in rows.items():
        row["x_bf16"] = rows["matmul_bf16"]["graph_ms"] / row["graph_ms"]
        other = versus.get(name)
        row["vs"] = other
        row["vs_ratio"] = rows[other]["graph_ms"] / row["graph_ms"] if other else None
        row["check"] = rel_diff(outputs[name], outputs[other]) if other else None
    return list(rows.values())


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="8192^3 and 4096^3 only")
    p.add_argument("--reps", type=int, default=20)
    p.add_argument("--batch", type=int, default=4, help="calls per sample (and per captured graph)")
    p.add_argument("--json", help="write the rows here")
    a = p.parse_args()
    if not (torch.cuda.is_available() and lowp.cuda_available()):
        sys.exit("gemm_torch_compare: needs a CUDA device and lowp's CUDA backend")
    table = torch.tensor(E2M1, device="cuda")
    for limit in ("recompile_limit", "cache_size_limit"):  # one compile per shape and recipe
        if hasattr(torch._dynamo.config, limit):
            setattr(torch._dynamo.config, limit, 64)
    rows = []
    for m, n, k in SHAPES[:2] if a.quick else SHAPES:
        rows += bench_shape(m, n, k, a.reps, a.batch, table)
    print(f"\n== lowp {lowp.version()} vs torch {torch.__version__} on {torch.cuda.get_device_name()}: "
          f"D = x W^T, bf16 out; median of {a.reps} samples of {a.batch} calls ==")
    print("x_bf16 = matmul_bf16 ms / ms; vs_ratio = the compared op's ms / ms (> 1: faster); check = max|diff| / max|value|")
    print(f"{'M x N x K':19s} {'op':18s} {'eager_ms':>9s} {'graph_ms':>9s} {'TFLOP/s':>8s} {'x_bf16':>7s} "
          f"{'vs':18s} {'vs_ratio':>8s} {'check':>8s}")
    for r in rows:
        dims = f"{r['m']}x{r['n']}x{r['k']}"
        vs_ratio = f"{r['vs_ratio']:.3f}" if r["vs_ratio"] is not None else "-"
        check = f"{r['check']:.2e}" if r["check"] is not None else "-"
        print(f"{dims:19s} {r['op']:18s} {r['eager_ms']:9.4f} {r['graph_ms']:9.4f} {r['tflops']:8.1f} "
              f"{r['x_bf16']:7.3f} {r['vs'] or '-':18s} {vs_ratio:>8s} {check:>8s}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"lowp": lowp.version(), "torch": torch.__version__, "device": torch.cuda.get_device_name(),
                       "reps": a.reps, "batch": a.batch, "rows": rows}, f, indent=2)


if __name__ == "__main__":
    main()
