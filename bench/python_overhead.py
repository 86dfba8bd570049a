#!/usr/bin/env python3
"""Per-op Python overhead: a small quantize called through lowp's Python API vs the same C call.

"C call" is lowp._lowp.quantize on addresses and buffers prepared once: one nanobind call into
lowp_quantize, no Python-side work (nanobind's argument conversion, a fraction of a microsecond,
is included). "lowp.quantize" is the public function (torch tensors go through the
torch.ops.lowp operator); "torch.ops" calls the operator directly.

Eager: `host` is the time to issue one call (CUDA: enqueue; CPU: the whole call), `wall` includes
the device's work (synchronised once after all calls). Graph: the same calls captured in one CUDA
graph, replayed; µs per call. The overhead is host(Python) - host(C); under a graph it is gone:
replay runs the same kernels either way.

usage: python bench/python_overhead.py [--device cuda|cpu] [--rows 256] [--cols 1024] [--json]
"""
import argparse
import json
import statistics
import time

import torch

import lowp
from lowp import _lowp
import lowp.torch  # noqa: F401  (registers torch.ops.lowp)

RECIPES = {
    "fp8_current": dict(scaling="fp8_current", columnwise=True),
    "nvfp4_per_token": dict(scaling="nvfp4_per_token", columnwise=True),
}


def c_call(x, recipe):
    """A closure calling lowp_quantize on buffers made once (those of a first Python call)."""
    q = lowp.quantize(x, **RECIPES[recipe])
    addr = lambda t: 0 if t is None else t.data_ptr()  # noqa: E731
    rows, cols = x.shape
    parts = []
    for p in (q.rowwise, q.columnwise):
        parts += [addr(p.data), addr(p.scale_inv), addr(p.amax)]
    fp8 = recipe.startswith("fp8")
    desc = (_lowp.DTYPE_E4M3 if fp8 else _lowp.DTYPE_E2M1,
            _lowp.SCALING_CURRENT if fp8 else _lowp.SCALING_NVFP4_PER_TOKEN, _lowp.SCALE_LAYOUT_COMPACT, rows, cols,
            *parts, addr(q.scale), addr(q.scale_inv), addr(q.amax), 0.0)  # nvfp4_outer_max: written by the call
    cfg = _lowp.QuantConfig()
    xp, dtype = x.data_ptr(), _lowp.DTYPE_BFLOAT16
    stream = torch.cuda.current_stream().cuda_stream if x.is_cuda else 0
    keep = q  # the buffers stay alive with the closure

    def call():
        _lowp.quantize(xp, dtype, rows, cols, desc, cfg, stream)
        return keep
    return call


def op_call(x, recipe):
    if recipe == "fp8_current":
        op = torch.ops.lowp.fp8_quantize.default
        return lambda: op(x, None, None, _lowp.DTYPE_E4M3, _lowp.SCALING_CURRENT, True, True, 0.0, False)
    op = torch.ops.lowp.nvfp4_quantize.default
    return lambda: op(x, None, None, None, _lowp.SCALING_NVFP4_PER_TOKEN, True, True, 0, None, None, None, None, None,
                      None, None, None, None, None, 0.0, False)


def sync(device):
    if device == "cuda":
        torch.cuda.synchronize()


def eager(fn, device, calls, repeats):
    host, wall = [], []
    for _ in range(repeats):
        sync(device)
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        t1 = time.perf_counter()
        sync(device)
        t2 = time.perf_counter()
        host.append((t1 - t0) / calls * 1e6)
        wall.append((t2 - t0) / calls * 1e6)
    return statistics.median(host), statistics.median(wall)


def graphed(make, calls, repeats):
    """Captures `calls` calls of make()'s function, made and warmed up on the capture stream."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        fn = make()
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=side):
        for _ in range(calls):
            fn()
    graph.replay()
    times = []
    for _ in range(repeats):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        graph.replay()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - t0) / calls * 1e6)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--rows", type=int, default=256)
    ap.add_argument("--cols", type=int, default=1024)
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    x = torch.randn(args.rows, args.cols, device=args.device).to(torch.bfloat16)
    records = []
    for recipe in RECIPES:
        # Factories: the C closure takes the stream current when it is made.
        routes = {"C call": lambda r=recipe: c_call(x, r), "torch.ops": lambda r=recipe: op_call(x, r),
                  "lowp.quantize": lambda r=recipe: lambda: lowp.quantize(x, **RECIPES[r])}
        for route, make in routes.items():
            host, wall = eager(make(), args.device, args.calls, args.repeats)
            rec = {"recipe": recipe, "route": route, "eager_host_us": host, "eager_wall_us": wall}
            if args.device == "cuda":
                rec["graph_us"] = graphed(make, args.calls, args.repeats)
            records.append(rec)
    base = {r["recipe"]: r for r in records if r["route"] == "C call"}
    for r in records:
        b = base[r["recipe"]]
        r["overhead_eager_us"] = r["eager_host_us"] - b["eager_host_us"]
        if "graph_us" in r:
            r["overhead_graph_us"] = r["graph_us"] - b["graph_us"]
    if args.json:
        print(json.dumps({"device": torch.cuda.get_device_name() if args.device == "cuda" else "cpu",
                          "shape": [args.rows, args.cols], "records": records}, indent=1))
        return
    dev = torch.cuda.get_device_name() if args.device == "cuda" else "CPU backend"
    print(f"lowp Python overhead, {dev}, bf16 {args.rows} x {args.cols}, rowwise + columnwise, "
          f"median of {args.repeats} x {args.calls} calls (µs per call)")
    head = f"{'recipe':<17}{'route':<15}{'eager host':>11}{'eager wall':>11}{'overhead':>10}"
    head += f"{'graph':>9}{'overhead':>10}" if args.device == "cuda" else ""
    print(head)
    for r in records:
        line = (f"{r['recipe']:<17}{r['route']:<15}{r['eager_host_us']:>11.2f}{r['eager_wall_us']:>11.2f}"
                f"{r['overhead_eager_us']:>10.2f}")
        if "graph_us" in r:
            line += f"{r['graph_us']:>9.2f}{r['overhead_graph_us']:>10.2f}"
        print(line)


if __name__ == "__main__":
    main()
