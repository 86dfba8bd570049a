"""train.py's results: curves.csv, the comparison with bf16 and its gates, summary.md/.json and
curves.png. `python report.py OUTDIR` redraws OUTDIR/curves.png from its curves.csv (for a run
made where matplotlib was missing)."""
import csv
import json
import math
import statistics
import sys
from pathlib import Path

FP8 = ("fp8_delayed", "fp8_current", "fp8_per_token")
NVFP4 = ("nvfp4_per_tensor", "nvfp4_per_token", "nvfp4_last_bf16")
ARMS = ("bf16",) + FP8 + NVFP4
# Relative val-loss gap to bf16 an arm may have; twice bf16's own seed spread when that is larger.
TOLERANCE = {**dict.fromkeys(FP8, 0.005), **dict.fromkeys(NVFP4, 0.02)}
FIELDS = ("arm", "seed", "step", "tokens", "train_loss", "val_loss", "tokens_per_s")


def write_csv(runs, path):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, FIELDS)
        w.writeheader()
        for r in runs:
            w.writerows({k: row[k] for k in FIELDS} for row in r["rows"])


def _throughput(rows):
    # The first interval holds warm-up (allocator, autotuning, compile): left out when others exist.
    tps = [row["tokens_per_s"] for row in rows if row["tokens_per_s"]]
    return statistics.median(tps[1:] or tps) if tps else None


def summarize(runs, args):
    """Per arm: val loss at the last step every healthy run reached, gap to bf16, verdict."""
    healthy = [r for r in runs if r["error"] is None and r["finite"] and r["rows"]]
    step = min(r["rows"][-1]["step"] for r in healthy) if healthy else None

    def val_at(r):
        return next((row["val_loss"] for row in r["rows"] if row["step"] == step), None) if r in healthy else None

    bf = [val_at(r) for r in runs if r["arm"] == "bf16" and r in healthy]
    ref = statistics.mean(bf) if bf else None
    spread = (max(bf) - min(bf)) / ref if len(bf) >= 2 else None
    arms = []
    for arm in dict.fromkeys(r["arm"] for r in runs):
        rs = [r for r in runs if r["arm"] == arm]
        vals = [val_at(r) for r in rs]
        final = statistics.mean(vals) if None not in vals else None
        gap = (final - ref) / ref if final is not None and ref else None
        limit = max(TOLERANCE[arm], 2 * (spread or 0.0)) if arm in TOLERANCE else None
        errors = [r["error"] for r in rs if r["error"]]
        if errors:
            why = errors[0]
        elif not all(r["finite"] for r in rs):
            why = "NaN/Inf loss"
        elif args.smoke:
            falls = all(len(r["rows"]) >= 2 and r["rows"][-1]["val_loss"] < r["rows"][0]["val_loss"] for r in rs)
            why = None if falls else "val loss did not fall"
        elif arm == "bf16":
            why = None
        elif ref is None:
            why = "no bf16 reference"
        else:
            why = None if gap <= limit else f"gap {gap:+.2%} > {limit:.2%}"
        peaks = [r["peak_mem"] for r in rs if r["peak_mem"] is not None]
        tps = [t for t in (_throughput(r["rows"]) for r in rs) if t]
        arms.append(dict(arm=arm, seeds=[r["seed"] for r in rs], final_val_loss=final, gap=gap, limit=limit,
                         tokens_per_s=statistics.mean(tps) if tps else None, peak_mem=max(peaks) if peaks else None,
                         stopped_early=any(r["stopped_early"] for r in rs), passed=why is None, reason=why))
    tokens = step * args.batch * args.seq if step is not None else None
    return dict(mode="smoke" if args.smoke else "full", preset=args.preset, moe=args.moe, device=args.device,
                compared_step=step, compared_tokens=tokens, planned_steps=args.steps, bf16_val_loss=ref,
                bf16_seeds=len(bf), bf16_spread=spread, arms=arms, all_pass=all(a["passed"] for a in arms),
                args=vars(args))


def _pct(x, sign=False):
    return "n/a" if x is None else (f"{x:+.2%}" if sign else f"{x:.2%}")


def markdown(s):
    what = f"{s['preset']}{' MoE' if s['moe'] else ''} on {s['device']}"
    at = ("no run finished" if s["compared_step"] is None else
          f"val loss at step {s['compared_step']} of {s['planned_steps']} ({s['compared_tokens'] / 1e6:.2f}M tokens)")
    lines = [f"Convergence ({s['mode']}): {what}; {at}; bf16 = mean of {s['bf16_seeds']} seed(s).", "",
             "| arm | final val loss | gap to bf16 | bf16 seed spread | limit | tokens/s | peak memory | result |",
             "|---|---|---|---|---|---|---|---|"]
    for a in s["arms"]:
        loss = "n/a" if a["final_val_loss"] is None else f"{a['final_val_loss']:.4f}"
        tps = "n/a" if a["tokens_per_s"] is None else f"{a['tokens_per_s']:,.0f}"
        mem = "n/a" if a["peak_mem"] is None else f"{a['peak_mem'] / 2**30:.2f} GiB"
        limit = "-" if s["mode"] == "smoke" or a["limit"] is None else f"+{a['limit']:.2%}"
        result = "pass" if a["passed"] else f"FAIL ({a['reason']})"
        lines.append(f"| {a['arm']} | {loss} | {_pct(a['gap'], True)} | {_pct(s['bf16_spread'])} | {limit} | {tps} | "
                     f"{mem} | {result} |")
    lines.append("")
    if s["mode"] == "smoke":
        lines.append("Smoke: accuracy gates NOT applied. Checked: every run finished, its losses are finite and "
                     "its last val loss is below its first.")
    else:
        lines.append("Gates: FP8 arms at most 0.5% above bf16's val loss, NVFP4 arms at most 2% (either limit "
                     "widened to twice bf16's seed spread when that is larger); lower than bf16 passes; "
                     "NaN/Inf or an error fails.")
    if any(a["stopped_early"] for a in s["arms"]):
        lines.append("Some runs hit their --time-budget share: compared at the last step all runs reached, "
                     "before the learning rate had decayed.")
    failed = [a["arm"] for a in s["arms"] if not a["passed"]]
    lines.append("Result: PASS" if not failed else f"Result: FAIL ({', '.join(failed)})")
    return "\n".join(lines) + "\n"


def plot(runs, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("note: matplotlib is not installed; no curves.png (pip install matplotlib)")
        return
    color = {arm: f"C{i}" for i, arm in enumerate(ARMS)}
    fig, (ax, gx) = plt.subplots(1, 2, figsize=(13, 5))
    firsts = {}
    for r in runs:
        first = firsts.setdefault(r["arm"], r["seed"]) == r["seed"]
        ax.plot([row["tokens"] / 1e6 for row in r["rows"]], [row["val_loss"] for row in r["rows"]],
                color=color[r["arm"]], lw=1.5 if first else 0.8, alpha=1.0 if first else 0.5,
                label=r["arm"] if first else None)
    bf = [r for r in runs if r["arm"] == "bf16" and r["rows"]]
    if bf:
        steps = set.intersection(*({row["step"] for row in r["rows"]} for r in bf))
        ref = {s: statistics.mean(row["val_loss"] for r in bf for row in r["rows"] if row["step"] == s) for s in steps}
        for r in runs:  # bf16's own seeds too, thin: their band is the noise the arms sit in
            pts = [(row["tokens"] / 1e6, 100 * (row["val_loss"] - ref[row["step"]]) / ref[row["step"]])
                   for row in r["rows"] if row["step"] in ref and math.isfinite(row["val_loss"])]
            if pts:
                bf16 = r["arm"] == "bf16"
                gx.plot(*zip(*pts), color=color[r["arm"]], lw=0.8 if bf16 else 1.5, alpha=0.5 if bf16 else 1.0,
                        label=None if bf16 else r["arm"])
        gx.axhline(0, color="k", lw=0.6)
        gx.axhline(0.5, color="grey", ls="--", lw=0.8, label="FP8 gate +0.5%")
        gx.axhline(2.0, color="grey", ls=":", lw=0.8, label="NVFP4 gate +2%")
    ax.set(xlabel="tokens (M)", ylabel="validation loss (nats/byte)", title="validation loss")
    gx.set(xlabel="tokens (M)", ylabel="gap to bf16 mean (%)", title="relative gap to bf16")
    for a in (ax, gx):
        a.grid(alpha=0.3)
        if a.get_legend_handles_labels()[0]:
            a.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def write_all(runs, summary, out):
    write_csv(runs, out / "curves.csv")
    (out / "summary.json").write_text(json.dumps(summary, indent=2, default=str) + "\n")
    md = markdown(summary)
    (out / "summary.md").write_text(md)
    plot(runs, out / "curves.png")
    print("\n" + md, end="")
    print(f"outputs in {out}/: curves.csv, curves.png, summary.md, summary.json")


def read_csv(path):
    runs = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            key = (row["arm"], int(row["seed"]))
            r = runs.setdefault(key, dict(arm=key[0], seed=key[1], rows=[]))
            r["rows"].append(dict(step=int(row["step"]), tokens=int(row["tokens"]), val_loss=float(row["val_loss"])))
    return list(runs.values())


if __name__ == "__main__":
    out = Path(sys.argv[1])
    plot(read_csv(out / "curves.csv"), out / "curves.png")
