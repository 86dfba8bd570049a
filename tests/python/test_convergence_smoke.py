"""bench/convergence/train.py --smoke on the CPU: each arm trains the tiny model a few dozen steps,
its loss stays finite and falls, and the outputs are written."""
import csv
import importlib.util
import json
import math
import random
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
import lowp.torch  # noqa: E402,F401  (the lowp arms need it: an import error fails here, not skips)

TRAIN = Path(__file__).resolve().parents[2] / "bench" / "convergence" / "train.py"
CASES = [("bf16", False), ("bf16", True), ("fp8_delayed", False), ("fp8_current", False), ("fp8_per_token", False),
         ("nvfp4_per_tensor", False), ("nvfp4_per_token", False), ("nvfp4_last_bf16", False), ("fp8_current", True)]


def corpus(path):
    """~60 KB of word salad over a small vocabulary: enough structure for the loss to fall fast."""
    rng = random.Random(0)
    words = "the quick brown fox jumps over a lazy dog while seven wise kings sing of old times".split()
    lines = (" ".join(rng.choice(words) for _ in range(rng.randint(5, 12))).capitalize() + "." for _ in range(1000))
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("arm,moe", CASES)
def test_smoke(arm, moe, tmp_path):
    out = tmp_path / "out"
    cmd = [sys.executable, str(TRAIN), "--smoke", "--device", "cpu", "--data", str(corpus(tmp_path / "text.txt")),
           "--arms", arm, "--bf16-seeds", "0", "--out", str(out)] + (["--moe"] if moe else [])
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, f"exit {p.returncode}\n{p.stdout[-4000:]}\n{p.stderr[-4000:]}"
    assert "accuracy gates NOT applied" in p.stdout

    with open(out / "curves.csv", newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["arm"] == arm]
    val = [float(r["val_loss"]) for r in rows]
    assert len(val) >= 2 and all(math.isfinite(v) for v in val), val
    assert val[-1] < val[0], f"val loss did not fall: {val}"

    summary = json.loads((out / "summary.json").read_text())
    assert summary["mode"] == "smoke" and summary["all_pass"], summary["arms"]
    assert f"| {arm} |" in (out / "summary.md").read_text()
    if importlib.util.find_spec("matplotlib"):
        assert (out / "curves.png").stat().st_size > 0
