#!/usr/bin/env python3
"""Convergence of lowp's recipes against bf16: one model, one init, one data order, trained once
per arm; validation loss compared to bf16's (see README.md for gates and the GPU command).

usage: python bench/convergence/train.py --data FILE [--preset small] [--arms bf16,fp8_current]
       [--steps N --batch B --seq T --lr LR] [--time-budget S] [--out DIR] [--smoke]
"""
import argparse
import contextlib
import copy
import math
import sys
import time
import traceback
from pathlib import Path

import torch
import torch.nn.functional as F

import model as M
import report

# Smoke: a CPU-sized run that only shows every arm trains; explicit flags still win.
SMOKE = dict(preset="tiny", steps=40, batch=8, seq=64, lr=3e-3, warmup=5, eval_every=10, eval_tokens=4096)


def parse(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", required=True, help="text file; bytes are the tokens, the last 10%% is validation")
    p.add_argument("--preset", default="small", choices=sorted(M.PRESETS))
    p.add_argument("--moe", action="store_true", help="top-k routed SwiGLU experts instead of the dense MLP")
    p.add_argument("--arms", default=",".join(report.ARMS), help="comma list of " + ", ".join(report.ARMS))
    p.add_argument("--bf16-seeds", type=int, default=2, help="extra bf16 runs (other seeds) for bf16's own spread")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--steps", type=int, default=1600)
    p.add_argument("--batch", type=int, default=128)
    p.add_argument("--seq", type=int, default=256)
    p.add_argument("--lr", type=float, default=1e-3, help="AdamW peak; linear warmup, cosine to 10%%")
    p.add_argument("--warmup", type=int, default=100)
    p.add_argument("--weight-decay", type=float, default=0.1)
    p.add_argument("--dropout", type=float, default=0.0)
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--compile", action="store_true", help="torch.compile the model (after lowp's convert)")
    p.add_argument("--eval-every", type=int, default=100)
    p.add_argument("--eval-tokens", type=int, default=262144, help="cap on validation tokens per eval")
    p.add_argument("--time-budget", type=float, default=0.0,
                   help="seconds for all runs together; a run past its share stops at an eval (0: none)")
    p.add_argument("--out", default="out/convergence")
    p.add_argument("--smoke", action="store_true", help="tiny preset, %d steps, CPU ok; no accuracy gates" % SMOKE["steps"])
    args, _ = p.parse_known_args(argv)
    if args.smoke:
        p.set_defaults(**SMOKE)
    args = p.parse_args(argv)
    args.arms = [a.strip() for a in args.arms.split(",") if a.strip()]
    bad = [a for a in args.arms if a not in report.ARMS]
    if bad:
        p.error(f"unknown arms {bad}; known: {', '.join(report.ARMS)}")
    if args.seq % 16:
        p.error("--seq must be a multiple of 16 (lowp quantizes token rows in groups of 16)")
    return args


def load(path, seq, device):
    raw = torch.frombuffer(bytearray(Path(path).read_bytes()), dtype=torch.uint8).long()
    n = int(len(raw) * 0.9)
    train, val = raw[:n], raw[n:]
    if len(val) < seq + 1:
        sys.exit(f"error: {path}: {len(raw)} bytes; the validation 10% needs at least seq+1 = {seq + 1}")
    return train.to(device), val.to(device)


def batches(train, batch, seq, seed):
    """Random windows; the generator is on the CPU, so the order is the same on every device."""
    g = torch.Generator().manual_seed(seed)
    offs = torch.arange(seq + 1, device=train.device)
    while True:
        starts = torch.randint(0, len(train) - seq, (batch,), generator=g).to(train.device)
        w = train[starts[:, None] + offs]
        yield w[:, :-1], w[:, 1:]


def autocast(device):
    # Mixed precision: fp32 master weights and optimizer, bf16 matmuls under autocast on CUDA.
    # CPU runs plain fp32 (smoke only).
    if device.type == "cuda":
        return torch.autocast("cuda", dtype=torch.bfloat16)
    return contextlib.nullcontext()


@torch.no_grad()
def evaluate(net, val, args, device):
    net.eval()
    starts = torch.arange(0, len(val) - args.seq, args.seq, device=val.device)[: max(1, args.eval_tokens // args.seq)]
    offs = torch.arange(args.seq + 1, device=val.device)
    total, count = torch.zeros((), device=device), 0
    for i in range(0, len(starts), args.batch):
        w = val[starts[i:i + args.batch, None] + offs]
        with autocast(device):
            logits, _ = net(w[:, :-1])
        total += F.cross_entropy(logits.float().flatten(0, 1), w[:, 1:].flatten(), reduction="sum")
        count += w[:, 1:].numel()
    net.train()
    return (total / count).item()


def quantize(net, arm):
    """Swaps the arm's Linears for lowp's; lowp is imported here so bf16 runs without it."""
    import lowp.recipes
    import lowp.torch
    recipe = lowp.recipes.by_name("nvfp4_per_tensor" if arm == "nvfp4_last_bf16" else arm)
    last = f"layers.{len(net.layers) - 1}."

    def keep(name, module):
        # Routers have n_experts outputs (not a multiple of 16) and decide routing: high precision.
        if name.endswith("router"):
            return False
        # The paper's recipe: the last block and the LM head stay in bf16.
        return not (arm == "nvfp4_last_bf16" and (name == "lm_head" or name.startswith(last)))

    lowp.torch.convert(net, recipe, module_filter_fn=keep)


def lr_at(step, args):
    if step < args.warmup:
        return args.lr * (step + 1) / args.warmup
    t = (step - args.warmup) / max(1, args.steps - args.warmup)
    return args.lr * (0.1 + 0.45 * (1 + math.cos(math.pi * t)))


def sync(device):
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def run(arm, seed, net, data, args, budget_s):
    """One training run; returns its eval rows and how it ended. A run stops at an eval when the
    next interval would overrun budget_s, so every run's stopping point is an eval step."""
    device = torch.device(args.device)
    res = dict(arm=arm, seed=seed, rows=[], finite=True, error=None, stopped_early=False, peak_mem=None)
    if device.type == "cuda":
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats(device)
    try:
        torch.manual_seed(seed)  # dropout masks: the same in every arm of one seed
        net = net.to(device)
        if arm != "bf16":
            quantize(net, arm)
        fwd = torch.compile(net) if args.compile else net
        decay = [p for p in net.parameters() if p.dim() >= 2]
        rest = [p for p in net.parameters() if p.dim() < 2]
        opt = torch.optim.AdamW([dict(params=decay, weight_decay=args.weight_decay), dict(params=rest, weight_decay=0.0)],
                                lr=args.lr, betas=(0.9, 0.95), fused=device.type == "cuda")
        data_it = batches(data[0], args.batch, args.seq, seed)
        tokens_per_step = args.batch * args.seq
        t_run = t_mark = time.perf_counter()
        loss_sum, n_loss = torch.zeros((), device=device), 0
        for step in range(args.steps + 1):
            if step % args.eval_every == 0 or step == args.steps:
                sync(device)
                t_eval = time.perf_counter()
                train_s = t_eval - t_mark
                train_loss = loss_sum.item() / n_loss if n_loss else None  # none before the first step
                tps = n_loss * tokens_per_step / train_s if n_loss else None
                val_loss = evaluate(fwd, data[1], args, device)
                res["rows"].append(dict(arm=arm, seed=seed, step=step, tokens=step * tokens_per_step,
                                        train_loss=train_loss, val_loss=val_loss, tokens_per_s=tps))
                print(f"{arm:>16} seed {seed} step {step:>6} train {train_loss or math.nan:.4f} val {val_loss:.4f} "
                      f"{tps or 0:,.0f} tok/s", flush=True)
                if not math.isfinite(val_loss) or (n_loss and not math.isfinite(train_loss)):
                    res["finite"] = False
                    break
                # The next interval should cost what this one did (train + eval).
                interval_s = train_s + time.perf_counter() - t_eval
                if budget_s and n_loss and step < args.steps and time.perf_counter() - t_run + interval_s > budget_s:
                    res["stopped_early"] = True
                    print(f"{arm} seed {seed}: time share {budget_s:.0f} s spent, stopping at step {step}", flush=True)
                    break
                loss_sum.zero_()
                n_loss = 0
                t_mark = time.perf_counter()
            if step == args.steps:
                break
            for g in opt.param_groups:
                g["lr"] = lr_at(step, args)
            x, y = next(data_it)
            with autocast(device):
                logits, aux = fwd(x)
                loss = F.cross_entropy(logits.float().flatten(0, 1), y.flatten())
            total = loss + net.c.aux_coef * aux if aux is not None else loss
            total.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
            opt.step()
            opt.zero_grad(set_to_none=True)
            loss_sum += loss.detach()
            n_loss += 1
    except Exception as e:  # an arm that breaks fails; the others still run
        traceback.print_exc()
        res["error"] = f"{type(e).__name__}: {e}"
    if device.type == "cuda":
        res["peak_mem"] = torch.cuda.max_memory_allocated(device)
    return res


def main(argv=None):
    args = parse(argv)
    device = torch.device(args.device)
    if device.type == "cpu" and args.preset == "tiny":
        # Tiny matmuls gain nothing from threads, and OpenMP's spinning collapses on a busy machine.
        torch.set_num_threads(1)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    data = load(args.data, args.seq, device)
    cfg = M.config(args.preset, args.moe, args.seq, args.dropout)
    torch.manual_seed(args.seed)
    base = M.Decoder(cfg)
    print(f"{args.preset}{' moe' if args.moe else ''}: {sum(p.numel() for p in base.parameters()) / 1e6:.2f}M params, "
          f"{args.steps} steps x {args.batch * args.seq} tokens = {args.steps * args.batch * args.seq / 1e6:.1f}M "
          f"tokens per run, {len(data[0]) / 1e6:.2f}M train bytes, device {device}", flush=True)

    # bf16 first: the reference, then its extra seeds (own init and data order), then the arms.
    plan = [("bf16", args.seed + i) for i in range(args.bf16_seeds + 1)] if "bf16" in args.arms else []
    plan += [(a, args.seed) for a in args.arms if a != "bf16"]
    runs, t0 = [], time.perf_counter()
    for i, (arm, seed) in enumerate(plan):
        if seed == args.seed:
            net = copy.deepcopy(base)  # the same initial weights in every arm
        else:
            torch.manual_seed(seed)
            net = M.Decoder(cfg)
        # Each run gets an even share of what is left, so time a fast run leaves goes to later ones.
        share = max((args.time_budget - (time.perf_counter() - t0)) / (len(plan) - i), 1e-9) if args.time_budget else 0.0
        runs.append(run(arm, seed, net, data, args, share))
        del net
        report.write_csv(runs, out / "curves.csv")  # after every run: a killed command keeps what ran

    summary = report.summarize(runs, args)
    report.write_all(runs, summary, out)
    return 0 if summary["all_pass"] else 1


if __name__ == "__main__":
    sys.exit(main())
