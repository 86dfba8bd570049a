"""One linear layer's full training step (forward + backward, quantization included, the weight
quantized anew every step as after an optimizer step) with lowp.torch.Linear per recipe, against
nn.Linear bf16 (eager and torch.compile) and torchao float8 training (tensorwise and rowwise,
compiled) where torchao imports. Samples are interleaved: each round times every variant once
(a CUDA-event span of --iters steps, the first variant rotating), and a ratio is the median over
rounds of that round's bf16-eager time over the variant's, so it compares times taken under the
same clocks.

Beside each: the bytes forward saves for backward (saved_tensors_hooks; parameters and lowp's
cached weight copies, which outlive the step anyway, left out) per element of x as a fraction of
bf16's (compiled variants save inside their graphs: not seen), and the step's peak memory above
what was allocated before it. --profile prints the CUDA kernels of a few steps of the lowp
variants (torch.profiler) at the first shape.

    python3 bench/linear_bench.py [--shapes 16384x4096x14336,...] [--rounds 7] [--iters 10] [--json F]
                                  [--variants bf16_eager,lowp_fp8_current] [--profile]

Shapes are tokens x in x out. Needs a CUDA device and lowp's CUDA backend.
"""
from __future__ import annotations

import argparse
import json
import statistics

import torch

import lowp
import lowp.recipes as R
import lowp.torch

SHAPES = "16384x4096x4096,16384x4096x14336,16384x14336x4096,8192x8192x8192"
LOWP_RECIPES = ("fp8_delayed", "fp8_current", "fp8_per_token", "nvfp4_per_tensor", "nvfp4_per_token",
                "nvfp4_row_scaled")


def torchao_variants():
    try:
        from torchao.float8 import Float8LinearConfig, convert_to_float8_training
    except Exception as e:  # noqa: BLE001 (any import failure: the column is left out, and said so)
        print(f"torchao not available ({type(e).__name__}: {e}); its columns are left out")
        return {}

    def make(recipe_name):
        def build(n_in, n_out):
            m = torch.nn.Sequential(torch.nn.Linear(n_in, n_out, bias=False, device="cuda", dtype=torch.bfloat16))
            convert_to_float8_training(m, config=Float8LinearConfig.from_recipe_name(recipe_name))
            return torch.compile(m)
        return build

    return {"torchao_tensorwise_compiled": make("tensorwise"), "torchao_rowwise_compiled": make("rowwise")}


def variants():
    v = {
        "bf16_eager": lambda i, o: torch.nn.Linear(i, o, bias=False, device="cuda", dtype=torch.bfloat16),
        "bf16_compiled": lambda i, o: torch.compile(torch.nn.Linear(i, o, bias=False, device="cuda",
                                                                    dtype=torch.bfloat16)),
    }
    v.update(torchao_variants())
    recipes = {f"lowp_{name}": R.by_name(name) for name in LOWP_RECIPES}
    # The per-tensor recipe with the post-RHT amax estimated instead of an exact pass (a knob).
    est = R.Nvfp4Role(rht=True, amax_estimation=True)
    recipes["lowp_nvfp4_per_tensor_amax_est"] = R.Nvfp4PerTensor(
        input=est, gradient=est.replace(stochastic_rounding=True))
    for name, recipe in recipes.items():
        v[name] = (lambda r: lambda i, o: lowp.torch.Linear(i, o, bias=False, device="cuda", dtype=torch.bfloat16,
                                                            recipe=r))(recipe)
    return v


def weight_of(module):
    return next(module.parameters())


class Variant:
    def __init__(self, name, build, tokens, n_in, n_out):
        self.name = name
        self.module = build(n_in, n_out)
        self.x = torch.randn(tokens, n_in, device="cuda", dtype=torch.bfloat16, requires_grad=True)
        self.dy = torch.randn(tokens, n_out, device="cuda", dtype=torch.bfloat16) * 0.01
        self.samples = []

    def run(self, iters):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(iters):
            self.step()
        end.record()
        end.synchronize()
        self.samples.append(start.elapsed_time(end) / iters)

    def step(self):
        with torch.no_grad():
            weight_of(self.module).add_(0.0)
        self.module(self.x).backward(self.dy)
        for p in self.module.parameters():
            p.grad = None
        self.x.grad = None

    def memory(self):
        """(saved activation bytes, peak bytes of one step above what was allocated before)."""
        saved = []
        kept = {p.untyped_storage().data_ptr() for p in self.module.parameters()}
        cache = getattr(self.module, "_weight_cache", None)
        kept |= {t.untyped_storage().data_ptr() for t in (cache[2] if cache else ()) if t is not None}

        def pack(t):
            if t.numel() and t.untyped_storage().data_ptr() not in kept:
                saved.append(t.untyped_storage().nbytes())
            return t

        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            y = self.module(self.x)
        del y
        torch.cuda.synchronize()
        base = torch.cuda.memory_allocated()
        torch.cuda.reset_peak_memory_stats()
        self.step()
        torch.cuda.synchronize()
        return sum(saved), torch.cuda.max_memory_allocated() - base


def profile(vs):
    from torch.profiler import ProfilerActivity
    from torch.profiler import profile as torch_profile

    for v in vs:
        if not v.name.startswith("lowp_"):
            continue
        with torch_profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(3):
                v.step()
            torch.cuda.synchronize()
        print(f"\n{v.name}: CUDA kernels of 3 steps")
        print(prof.key_averages().table(sort_by="cuda_time_total", row_limit=12, max_name_column_width=70))


def bench_shape(tokens, n_in, n_out, rounds, iters, table, only=None, with_profile=False):
    flops = 3 * 2 * tokens * n_in * n_out
    vs = []
    for name, build in variants().items():
        if only and name not in only and name != "bf16_eager":
            continue
        try:
            v = Variant(name, build, tokens, n_in, n_out)
            for _ in range(2):  # compile, cuBLASLt's setup, autotuning
                v.step()
            torch.cuda.synchronize()
            vs.append(v)
        except Exception as e:  # noqa: BLE001 (reported in the table, not hidden)
            print(f"{tokens}x{n_in}x{n_out} {name}: failed to set up: {type(e).__name__}: {e}")
    mem = {v.name: v.memory() for v in vs}
    if with_profile:
        profile(vs)
    for r in range(rounds):
        order = vs[r % len(vs):] + vs[:r % len(vs)]  # rotate who goes first
        for v in order:
            v.run(iters)
    base = next(v for v in vs if v.name == "bf16_eager").samples
    print(f"\n{tokens} tokens x {n_in} in x {n_out} out (fwd + bwd, {flops / 1e12:.2f} TFLOP per step)")
    print(f"{'variant':32} {'ms':>8} {'TFLOP/s':>8} {'x bf16':>7} {'saved/x bf16':>13} {'peak MiB':>9}")
    for v in vs:
        ms = statistics.median(v.samples)
        saved, peak = mem[v.name]
        saved_frac = saved / (tokens * n_in * 2)
        ratio = statistics.median(b / s for b, s in zip(base, v.samples))
        row = dict(shape=[tokens, n_in, n_out], variant=v.name, ms=ms, tflops=flops / ms / 1e9,
                   speedup_vs_bf16_eager=ratio, saved_fraction_of_bf16_x=saved_frac, peak_mib=peak / 2**20,
                   spread_ms=[min(v.samples), max(v.samples)])
        table.append(row)
        print(f"{v.name:32} {ms:8.3f} {row['tflops']:8.1f} {row['speedup_vs_bf16_eager']:7.2f} {saved_frac:13.3f} "
              f"{row['peak_mib']:9.0f}")
    for v in vs:
        del v.module, v.x, v.dy
    torch.cuda.empty_cache()


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--shapes", default=SHAPES)
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--iters", type=int, default=10)
    p.add_argument("--json")
    p.add_argument("--variants", help="comma list (bf16_eager always runs: the ratios' base)")
    p.add_argument("--profile", action="store_true")
    args = p.parse_args()
    torch._dynamo.config.recompile_limit = 64  # one compiled module per variant and shape
    if not (torch.cuda.is_available() and lowp.cuda_available()):
        raise SystemExit("linear_bench: needs a CUDA device and lowp's CUDA backend")
    print(f"torch {torch.__version__}, lowp {lowp.version()}, {torch.cuda.get_device_name()}")
    table = []
    only = set(args.variants.split(",")) if args.variants else None
    for i, shape in enumerate(args.shapes.split(",")):
        tokens, n_in, n_out = (int(s) for s in shape.split("x"))
        bench_shape(tokens, n_in, n_out, args.rounds, args.iters, table, only, args.profile and i == 0)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(table, f, indent=1)


if __name__ == "__main__":
    main()
