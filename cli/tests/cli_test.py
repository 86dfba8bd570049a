#!/usr/bin/env python3
"""CLI tests of `lowp` (report's JSON and text output, safetensors input, usage errors), stdlib only.

usage: cli_test.py CASE PATH_TO_LOWP
"""
import json
import math
import os
import struct
import subprocess
import sys
import tempfile

FP8_RECIPES = {"fp8_e4m3_current", "fp8_e4m3_delayed", "fp8_e4m3_per_token", "fp8_e5m2_current"}
# NVFP4 per-tensor (numerics §8 role defaults), per-token and row-scaled, each with its
# columnwise copy, and the 4over6 variants (no RHT).
NVFP4_RHT_PER_TENSOR = {"nvfp4_input": 2.0, "nvfp4_grad": 1.0}  # -> amax estimation factor
NVFP4_PER_TOKEN = {"nvfp4_token_input": "nvfp4_input", "nvfp4_token_grad": "nvfp4_grad",  # -> baseline
                   "nvfp4_rowscaled_input": "nvfp4_input", "nvfp4_rowscaled_grad": "nvfp4_grad"}
NVFP4_FOUR_OVER_SIX = {"nvfp4_4over6": "nvfp4_input", "nvfp4_4over6_weight": "nvfp4_weight",  # -> base
                       "nvfp4_rowscaled_4over6": "nvfp4_rowscaled_input"}
NVFP4_2D = {"nvfp4_weight", "nvfp4_4over6_weight"}  # columnwise = transpose
NVFP4_RECIPES = set(NVFP4_RHT_PER_TENSOR) | NVFP4_2D | set(NVFP4_PER_TOKEN) | set(NVFP4_FOUR_OVER_SIX)


def run(lowp, *args):
    p = subprocess.run([lowp, *args], capture_output=True, text=True, timeout=240)
    if p.returncode < 0:
        sys.exit(f"FAIL: {' '.join(args)} died with signal {-p.returncode}\nstderr:\n{p.stderr}")
    return p


def all_json(lowp, *args):
    """Every record of `report --json`: the tensor records, then the GEMM view's."""
    p = run(lowp, "report", "--backend", "cpu", "--json", "--quiet", *args)
    if p.returncode != 0:
        sys.exit(f"FAIL: report {' '.join(args)} exited {p.returncode}\nstderr:\n{p.stderr}")
    records = json.loads(p.stdout)
    assert isinstance(records, list) and records, "expected a non-empty JSON array"
    kinds = [r["kind"] for r in records]
    assert set(kinds) <= {"tensor", "gemm"} and kinds == sorted(kinds, reverse=True), "tensor records, then gemm"
    return records


def report_json(lowp, *args):
    """The tensor records of `report --json`."""
    return [r for r in all_json(lowp, *args) if r["kind"] == "tensor"]


def snr_of(r, key="snr_db"):
    """An SNR as a float: JSON null with its "nonfinite" flag back to inf/nan."""
    v = r[key]
    if v is None:
        return float(r["nonfinite"][key])
    assert finite(v) and key not in r.get("nonfinite", {}), (key, r)
    return v


def check_numbers_are_numbers(r, path="record"):
    """Every number is a JSON number or null; strings only where text belongs."""
    text_keys = {"kind", "tensor", "source", "dtype", "backend", "status", "recipe", "message", "note", "col_domain",
                 "baseline", "triple"}
    for k, v in r.items():
        where = f"{path}.{k}"
        if isinstance(v, dict):
            if k == "nonfinite":
                assert v and all(x in ("inf", "-inf", "nan") for x in v.values()), where
                for field in v:  # each flagged field is null in the record
                    head, _, tail = field.partition(".")
                    assert (r[head][tail] if tail else r[head]) is None, (where, field)
            else:
                check_numbers_are_numbers(v, where)
        elif isinstance(v, str):
            assert k in text_keys, f"{where} is the string {v!r}"


def check_ok_record(r):
    for key in ("snr_db", "rel_l2", "max_abs_err", "clipped_pct", "time_ms"):
        assert key in r, f"{r['tensor']} x {r['recipe']}: missing {key}"
    check_numbers_are_numbers(r)
    assert snr_of(r) > 10, f"implausible SNR in {r}"


def case_report_json(lowp):
    info = run(lowp, "info")
    assert info.returncode == 0 and info.stdout.startswith("lowp ") and "backends: cpu" in info.stdout, info.stdout
    records = report_json(lowp, "--quick")
    ok = [r for r in records if r["status"] == "ok"]
    assert {r["recipe"] for r in ok} >= FP8_RECIPES, f"FP8 recipes missing: {sorted({r['recipe'] for r in ok})}"
    assert {r["status"] for r in records} <= {"ok", "unsupported", "skipped"}, records
    for r in records:
        check_numbers_are_numbers(r)
    for r in ok:
        check_ok_record(r)
        assert r["backend"] == "cpu" and r["dtype"] == "bf16"
    by = {(r["tensor"], r["rows"], r["cols"], r["recipe"]): r for r in ok}
    # Delayed scaling used the previous step's amax (0.9x), so it clips where current does not.
    key = ("gaussian", 128, 512)
    assert by[key + ("fp8_e4m3_delayed",)]["clipped_pct"] > 0 == by[key + ("fp8_e4m3_current",)]["clipped_pct"]
    # NVFP4 1D blocks clip only the largest value of a block whose E4M3 scale rounded down.
    assert 0 < by[key + ("nvfp4_input",)]["clipped_pct"] < 100 / 16
    # A small-std weight must quantize as well as unit-scale data (the scale adapts).
    assert by[("weight", 128, 512, "fp8_e4m3_current")]["snr_db"] > 25
    # Same seed, same numbers.
    again = report_json(lowp, "--quick")
    strip = lambda rs: [{k: v for k, v in r.items() if k != "time_ms"} for r in rs]
    assert strip(records) == strip(again), "report is not deterministic for a fixed seed"
    other = report_json(lowp, "--quick", "--seed", "7")
    assert strip(records) != strip(other), "--seed has no effect"


def finite(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def case_nvfp4_report(lowp):
    records = report_json(lowp, "--quick")
    recipes = [r for r in records if r["recipe"] in NVFP4_RECIPES]
    assert {r["recipe"] for r in recipes} == NVFP4_RECIPES, sorted({r["recipe"] for r in records})
    assert all(r["status"] == "ok" for r in recipes), [r for r in recipes if r["status"] != "ok"][:1]
    by = {(r["tensor"], r["rows"], r["cols"], r["recipe"]): r for r in records}
    for r in records:
        name = f"{r['tensor']} {r['rows']}x{r['cols']} x {r['recipe']}"
        # Every record of a quantized tensor carries the tensor's crest factor and the rule's verdict.
        assert finite(r["peak_to_rms"]) and r["peak_to_rms"] > 1, name
        assert r["outlier_heavy"] == (r["peak_to_rms"] > 10), name
        rht = r["recipe"] in NVFP4_RHT_PER_TENSOR or r["recipe"] in NVFP4_PER_TOKEN
        if r["recipe"] == "fp8_e4m3_per_token":  # rowwise copy only
            assert "col_snr_db" not in r, name
            continue
        assert r["col_domain"] == ("rht16" if rht else "transpose"), name
        for key in ("col_snr_db", "col_rel_l2", "col_max_abs_err"):
            assert finite(r[key]), f"{name}: {key} = {r.get(key)}"
        assert r["col_snr_db"] > 10, name
        if r["recipe"] in FP8_RECIPES or r["recipe"] in NVFP4_2D:
            # FP8 per-tensor and NVFP4 2D blocks: the columnwise copy is the exact transpose
            # (the same errors, summed in another order).
            assert abs(r["col_snr_db"] - r["snr_db"]) < 1e-9, name
        if r["recipe"] in NVFP4_RHT_PER_TENSOR:
            assert r["est_factor"] == NVFP4_RHT_PER_TENSOR[r["recipe"]], name
            for key in ("est_amax_ratio", "est_col_snr_db", "est_clip_fraction"):
                assert finite(r[key]), f"{name}: {key} = {r.get(key)}"
            assert r["est_amax_ratio"] > 0 and r["est_col_snr_db"] > 10, name
            clip = r["est_clip_fraction"]
            assert 0 <= clip <= 1, name
            # A block clips when its exact post-RHT amax exceeds the estimate, so none can while
            # the estimate is clearly above the exact amax.
            if r["est_amax_ratio"] > 1.01:
                assert clip == 0, name
            if clip > 0:
                assert r["est_amax_ratio"] < 1, name
        else:
            assert not any(k.startswith("est_") for k in r), name
        if r["recipe"] in NVFP4_PER_TOKEN:
            d = r["per_token_minus_per_tensor"]
            base = by[(r["tensor"], r["rows"], r["cols"], NVFP4_PER_TOKEN[r["recipe"]])]
            assert d["baseline"] == base["recipe"], name
            assert abs(d["snr_db"] - (r["snr_db"] - base["snr_db"])) < 1e-9, name
            assert abs(d["col_snr_db"] - (r["col_snr_db"] - base["col_snr_db"])) < 1e-9, name
        else:
            assert "per_token_minus_per_tensor" not in r, name
        if r["recipe"] in NVFP4_FOUR_OVER_SIX:
            d = r["four_over_six_minus_base"]
            base = by[(r["tensor"], r["rows"], r["cols"], NVFP4_FOUR_OVER_SIX[r["recipe"]])]
            assert d["baseline"] == base["recipe"], name
            assert abs(d["snr_db"] - (r["snr_db"] - base["snr_db"])) < 1e-9, name
            assert 0 <= r["map4_fraction"] <= 1, name
            if r["tensor"] == "gaussian" and r["recipe"] != "nvfp4_4over6_weight":
                # 1D: map-4 wins often on Gaussian blocks, and the rowwise error drops.
                assert r["map4_fraction"] > 0.1 and d["snr_db"] > 0.2, name
        else:
            assert "map4_fraction" not in r and "four_over_six_minus_base" not in r, name
    # The gradient's factor 1.0 leaves some Gaussian blocks above the estimate (seed 1234).
    assert any(r.get("est_clip_fraction", 0) > 0 for r in records if r["recipe"] == "nvfp4_grad")
    heavy = {(r["tensor"], r["rows"], r["cols"]) for r in records if r["outlier_heavy"]}
    for rows, cols in ((128, 512), (512, 128)):
        assert ("outlier_cols", rows, cols) in heavy and ("gaussian", rows, cols) not in heavy, heavy
        # Per-token makes every row's largest value exact; with 4 channels 100x the rest they
        # carry most of the energy, so the rowwise copy gains (round to nearest: no SR noise).
        tok = by[("outlier_cols", rows, cols, "nvfp4_token_input")]
        assert tok["per_token_minus_per_tensor"]["snr_db"] > 0.25, tok
    # The text report's NVFP4 sections.
    p = run(lowp, "report", "--quick", "--backend", "cpu", "--quiet")
    assert p.returncode == 0, p.stderr
    est, _, tok = p.stdout.partition("NVFP4 per-token minus per-tensor SNR on outlier-heavy tensors")
    assert "NVFP4 amax estimation on the RHT columnwise copy" in est and "clip %" in est, p.stdout
    tok_table = tok.split("GEMM view:")[0]
    assert "outlier_cols" in tok_table and "nvfp4_token_input" in tok_table and "gaussian" not in tok_table, tok
    assert "NVFP4 4over6: rowwise blocks that kept map-4" in p.stdout and "map-4 %" in p.stdout, p.stdout
    h = run(lowp, "report", "--help")
    assert "nvfp4_token_grad" in h.stdout and "clip %" in h.stdout and "max|x|/rms(x) > 10" in h.stdout, h.stdout
    assert "nvfp4_rowscaled_4over6" in h.stdout and "map-4 %" in h.stdout, h.stdout


def write_safetensors(path, tensors, metadata=None, header_pad=0):
    """tensors: list of (name, dtype, shape, raw bytes)."""
    header, data = {}, b""
    if metadata is not None:
        header["__metadata__"] = metadata
    for name, dtype, shape, raw in tensors:
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    h = json.dumps(header).encode() + b" " * header_pad
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + data)


def bf16(values):
    return b"".join(struct.pack("<f", v)[2:] for v in values)  # truncation: exact for these values


def case_safetensors_roundtrip(lowp):
    rows, cols = 32, 64
    vals = [math.sin(0.1 * i) * (1 + (i % 7)) for i in range(rows * cols)]
    tensors = [
        ("model.layers.0.mlp.up_proj.weight", "F32", [rows, cols], struct.pack(f"<{rows*cols}f", *vals)),
        ("model.layers.0.attn.qkv", "BF16", [2, 16, cols], bf16([float(i % 15 - 7) for i in range(rows * cols)])),
        ("model.embed.f16", "F16", [16, 48], struct.pack(f"<{16*48}e", *[0.5 * (i % 5 - 2) for i in range(16 * 48)])),
        ("model.norm.weight", "F32", [cols], struct.pack(f"<{cols}f", *([1.0] * cols))),
        ("model.step", "I64", [1], struct.pack("<q", 7)),
    ]
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "tiny.safetensors")
        write_safetensors(path, tensors, metadata={"format": "pt"}, header_pad=5)
        records = report_json(lowp, "--input", path)
    names = {r["tensor"] for r in records}
    for name, *_ in tensors:
        assert name in names, f"{name} missing from the report: {sorted(names)}"
    ok = {(r["tensor"], r["recipe"]): r for r in records if r["status"] == "ok"}
    up = ok[("model.layers.0.mlp.up_proj.weight", "fp8_e4m3_current")]
    assert (up["rows"], up["cols"], up["dtype"]) == (rows, cols, "f32"), up
    check_ok_record(up)
    qkv = ok[("model.layers.0.attn.qkv", "fp8_e4m3_current")]
    assert (qkv["rows"], qkv["cols"], qkv["dtype"]) == (32, cols, "bf16"), qkv  # leading dims flattened
    assert snr_of(qkv) == math.inf, qkv  # amax 7: scale 64, k*64 (|k| <= 7) is exact in E4M3
    f16 = ok[("model.embed.f16", "fp8_e4m3_per_token")]
    assert f16["dtype"] == "f16" and snr_of(f16) == math.inf, f16  # row amax 1: scale 448; 0.5*448, 448 exact
    skipped = {r["tensor"]: r for r in records if r["status"] == "skipped" and r["recipe"] is None}
    assert "rank 1" in skipped["model.norm.weight"]["message"]
    assert "I64" in skipped["model.step"]["message"]
    # Default table output works on the same file too.
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "tiny.safetensors")
        write_safetensors(path, tensors)
        p = run(lowp, "report", "--input", path, "--backend", "cpu")
        assert p.returncode == 0 and "model.layers.0.mlp.up_proj.weight" in p.stdout, p.stdout + p.stderr


def case_safetensors_malformed(lowp):
    good_header = json.dumps({"w": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]}}).encode()
    def blob(header, data=b"\0" * 16, length=None):
        return struct.pack("<Q", len(header) if length is None else length) + header + data
    def entry(**kw):
        e = {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]}
        e.update(kw)
        return blob(json.dumps({"w": e}).encode())
    cases = {
        "empty": (b"", "shorter than the 8-byte header length"),
        "short": (b"\x01\x02\x03", "shorter than the 8-byte header length"),
        "header past end": (blob(good_header, length=10**6), "runs past the end of the file"),
        "huge header": (blob(good_header, length=2**63 + 5), "exceeds the 100 MiB limit"),
        "not json": (blob(b"{not json at all}"), "header is not valid JSON"),
        "not object": (blob(b"[1, 2, 3]"), "header is not a JSON object"),
        "missing dtype": (blob(json.dumps({"w": {"shape": [2, 2], "data_offsets": [0, 16]}}).encode()), 'missing "dtype"'),
        "unknown dtype": (entry(dtype="F12"), 'unknown dtype "F12"'),
        "negative dim": (entry(shape=[-2, 2]), "non-negative integer"),
        "offsets out of range": (entry(data_offsets=[0, 4096]), "outside the data section"),
        "offsets reversed": (entry(data_offsets=[16, 0]), "outside the data section"),
        "size mismatch": (entry(shape=[3, 2]), "needs 24"),
        "bad offsets": (entry(data_offsets=[0]), "must be [begin, end]"),
        "huge shape": (entry(shape=[2**62, 2**62]), "too large"),
    }
    with tempfile.TemporaryDirectory() as d:
        for name, (content, expected) in cases.items():
            path = os.path.join(d, name.replace(" ", "_") + ".safetensors")
            with open(path, "wb") as f:
                f.write(content)
            p = run(lowp, "report", "--input", path, "--backend", "cpu", "--json")
            assert p.returncode != 0, f"{name}: expected failure, got exit 0"
            assert "lowp: error:" in p.stderr and path in p.stderr and expected in p.stderr, \
                f"{name}: unclear message (wanted {expected!r}):\n{p.stderr}"
        p = run(lowp, "report", "--input", os.path.join(d, "missing.safetensors"), "--backend", "cpu")
        assert p.returncode != 0 and "no such file" in p.stderr, p.stderr
        p = run(lowp, "report", "--input", d, "--backend", "cpu")
        assert p.returncode != 0 and "is a directory" in p.stderr, p.stderr
        refused = os.path.join(d, "refused.safetensors")
        write_safetensors(refused, [("b", "F32", [4], b"\0" * 16), ("c", "F32", [4], b"\0" * 16),
                                    ("step", "I64", [2, 2], b"\0" * 32)])
        p = run(lowp, "report", "--input", refused, "--backend", "cpu")
        # The message names what the file holds: dtypes, and the rank of the ones with a usable dtype.
        assert p.returncode != 0 and "no tensor to quantize" in p.stderr, p.stderr
        assert "found 3 tensors: 1 x I64, 2 x f32 rank 1" in p.stderr, p.stderr


def case_usage(lowp):
    p = run(lowp, "frobnicate")
    assert p.returncode != 0 and "unknown command 'frobnicate'" in p.stderr and "report" in p.stderr, p.stderr
    p = run(lowp, "report", "--quick", "--seed", "-5")
    assert p.returncode != 0 and "--seed" in p.stderr and "non-negative integer" in p.stderr, p.stdout + p.stderr
    assert run(lowp, "report", "--quick", "--quiet", "--backend", "cpu", "--seed", "18446744073709551615").returncode == 0
    # lowp info without a GPU says so in plain words, whether CUDA was built or not.
    p = run(lowp, "info")
    assert p.returncode == 0 and "backends: cpu" in p.stdout, p.stdout
    assert "insufficient" not in p.stdout, p.stdout
    if "backends: cpu cuda" not in p.stdout:
        assert ("cuda: not built" in p.stdout or "no GPU can be used" in p.stdout), p.stdout
    h = run(lowp, "report", "--help")
    for words in ("clipped %", "skipped", "unsupported", "Summary"):
        assert words in h.stdout, (words, h.stdout)


def case_report_summary(lowp):
    p = run(lowp, "report", "--quick", "--backend", "cpu", "--quiet")
    assert p.returncode == 0, p.stderr
    summary = p.stdout.split("Summary per recipe over the 10 tensors quantized")[1]
    lines = {l.split()[0]: l.split() for l in summary.splitlines() if l.strip()}
    records = report_json(lowp, "--quick")
    for recipe in FP8_RECIPES | NVFP4_RECIPES:
        cells = lines[recipe]
        snrs = sorted(snr_of(r) for r in records if r["recipe"] == recipe)
        assert int(cells[1]) == len(snrs) == 10, cells
        median = (snrs[4] + snrs[5]) / 2
        assert abs(float(cells[2]) - median) < 0.006 and abs(float(cells[3]) - snrs[0]) < 0.006, (cells, snrs)
        worst = min((r for r in records if r["recipe"] == recipe), key=snr_of)
        assert cells[-2:] == [worst["tensor"], f"{worst['rows']}x{worst['cols']}"], (cells, worst)
    assert "Warning" not in p.stdout, p.stdout


def case_rowwise_only(lowp):
    """NVFP4 makes the rowwise copy alone when rows % 16 != 0, and says so; 16x16 blocks skip."""
    rows, cols = 40, 64
    vals = [math.sin(0.37 * i) * (1 + i % 5) for i in range(rows * cols)]
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "embed.safetensors")
        write_safetensors(path, [("embed", "F32", [rows, cols], struct.pack(f"<{rows*cols}f", *vals))])
        records = report_json(lowp, "--input", path)
        text = run(lowp, "report", "--input", path, "--backend", "cpu", "--quiet")
    by = {r["recipe"]: r for r in records}
    for recipe in NVFP4_RECIPES - NVFP4_2D:
        r = by[recipe]
        assert r["status"] == "ok" and "col_snr_db" not in r and "rows % 16" in r["note"], r
        check_ok_record(r)
        assert not any(k.startswith("est_") for k in r), r
    assert "col_snr_db" not in by["nvfp4_token_input"]["per_token_minus_per_tensor"], by["nvfp4_token_input"]
    for w in (by[r] for r in NVFP4_2D):
        assert w["status"] == "skipped" and "16x16" in w["message"] and "rows % 16" in w["message"], w
    assert by["fp8_e4m3_current"]["status"] == "ok" and "col_snr_db" in by["fp8_e4m3_current"], by
    assert text.returncode == 0, text.stderr
    summary = text.stdout.split("Summary per recipe")[1]
    assert "1 rowwise only" in summary and "1 skipped" in summary and "rows % 16" in summary, summary


def case_nonfinite(lowp):
    """NaN/Inf inputs: null numbers with their flag, counts per record, and a warning naming the tensor."""
    rows, cols = 16, 32
    vals = [0.25 * (i % 9 - 4) for i in range(rows * cols)]
    vals[3], vals[40], vals[41] = math.nan, math.inf, -math.inf
    clean = [0.5 * (i % 7 - 3) + 0.1 for i in range(rows * cols)]
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "bad.safetensors")
        write_safetensors(path, [("bad", "F32", [rows, cols], struct.pack(f"<{rows*cols}f", *vals)),
                                 ("clean", "F32", [rows, cols], struct.pack(f"<{rows*cols}f", *clean))])
        p = run(lowp, "report", "--input", path, "--backend", "cpu", "--json", "--quiet")
        text = run(lowp, "report", "--input", path, "--backend", "cpu", "--quiet")
    assert p.returncode == 0, p.stderr
    records = json.loads(p.stdout)  # strict JSON: no NaN/Infinity tokens
    for r in records:
        check_numbers_are_numbers(r)
        bad = r["tensor"] == "bad"
        assert (r["input_nan"], r["input_inf"]) == ((1, 2) if bad else (0, 0)), r
        if bad and r["status"] == "ok":
            assert r["snr_db"] is None and r["nonfinite"]["snr_db"] == "nan", r
    assert "warning" in p.stderr and "bad 16x32: 1 NaN, 2 Inf" in p.stderr and "clean" not in p.stderr, p.stderr
    assert text.returncode == 0, text.stderr
    warning = text.stdout.split("Warning: 1 tensor holds NaN or Inf")[1]
    assert "bad 16x32: 1 NaN, 2 Inf" in warning and "clean" not in warning, warning


GEMM_RECIPES = {"fp8_current": None, "fp8_per_token": "fp8_current", "nvfp4_per_tensor": None,
                "nvfp4_per_token": "nvfp4_per_tensor"}  # -> the per-tensor baseline of a per-token recipe
PRODUCTS = ("fprop", "dgrad", "wgrad")


def gemm_json(lowp, *args):
    return [r for r in all_json(lowp, *args) if r["kind"] == "gemm"]


def case_gemm_view(lowp):
    """The built-in triples: every GEMM recipe's three products against the fp64 product."""
    records = gemm_json(lowp, "--quick")
    assert [(r["triple"], r["recipe"]) for r in records] == [(t, g) for t in ("gaussian", "outliers")
                                                              for g in GEMM_RECIPES], records
    by = {(r["triple"], r["recipe"]): r for r in records}
    for r in records:
        check_numbers_are_numbers(r)
        name = f"{r['triple']} x {r['recipe']}"
        assert r["status"] == "ok" and r["source"] == "synthetic" and r["backend"] == "cpu", r
        assert (r["tokens"], r["in"], r["out"]) == (128, 256, 128), r
        floor = 20 if r["recipe"].startswith("fp8") else 12  # FP8 ~25-30 dB, NVFP4 ~15-20 dB here
        for p in PRODUCTS:
            assert finite(r[f"{p}_snr_db"]) and r[f"{p}_snr_db"] > floor, (name, p, r)
        base = GEMM_RECIPES[r["recipe"]]
        if base is None:
            assert "per_token_minus_per_tensor" not in r, name
            continue
        d = r["per_token_minus_per_tensor"]
        assert d["baseline"] == base, name
        for p in PRODUCTS:
            assert abs(d[f"{p}_snr_db"] - (r[f"{p}_snr_db"] - by[(r["triple"], base)][f"{p}_snr_db"])) < 1e-9, name
    # FP8's hybrid recipe quantizes dy in E5M2, so its dgrad and wgrad lose to its fprop.
    for t in ("gaussian", "outliers"):
        fp8 = by[(t, "fp8_current")]
        assert fp8["fprop_snr_db"] > fp8["dgrad_snr_db"] + 2 and fp8["fprop_snr_db"] > fp8["wgrad_snr_db"] + 2, fp8
    # Outlier channels in x: per-token NVFP4 gains on fprop (every row's largest value exact).
    assert by[("outliers", "nvfp4_per_token")]["per_token_minus_per_tensor"]["fprop_snr_db"] > 0.25, by
    assert records == gemm_json(lowp, "--quick"), "the GEMM view is not deterministic"
    p = run(lowp, "report", "--quick", "--backend", "cpu", "--quiet")
    assert p.returncode == 0, p.stderr
    view = p.stdout.split("GEMM view: SNR dB of each product")[1].split("Metrics:")[0]
    assert "outliers" in view and "nvfp4_per_token" in view and "per-token minus per-tensor" in view, view
    assert "Summary per recipe over the 10 tensors quantized" in p.stdout, "the summary is still there"


def case_gemm_triple(lowp):
    """--gemm-triple on a file's tensors: names, shapes, an exact triple, the rules."""
    tokens, din, dout = 32, 64, 48
    signs = lambda n, k: [float((i * 7 + k) % 3 - 1) for i in range(n)]  # {-1, 0, 1}: FP8 codes exact
    tensors = [("x", "F32", [tokens, din], struct.pack(f"<{tokens * din}f", *signs(tokens * din, 1))),
               ("w", "BF16", [dout, din], bf16(signs(dout * din, 2))),
               ("dy", "F16", [tokens, dout], struct.pack(f"<{tokens * dout}e", *signs(tokens * dout, 3))),
               ("odd", "F32", [tokens, 40], b"\0" * (tokens * 40 * 4)),
               ("w40", "F32", [24, 40], b"\0" * (24 * 40 * 4)),
               ("dy24", "F32", [tokens, 24], b"\0" * (tokens * 24 * 4))]
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "layer.safetensors")
        write_safetensors(path, tensors)
        spec = "dy=dy,x=x,w=w"
        records = gemm_json(lowp, "--input", path, "--gemm-triple", spec)
        assert [r["recipe"] for r in records] == list(GEMM_RECIPES), records
        for r in records:
            assert r["triple"] == spec and r["source"] == path and r["status"] == "ok", r
            assert (r["tokens"], r["in"], r["out"]) == (tokens, din, dout), r
        # Every FP8 code and scale is exact, so only the fp32 epilogue's rounding is left.
        fp8 = next(r for r in records if r["recipe"] == "fp8_current")
        assert all(fp8[f"{p}_snr_db"] > 100 for p in PRODUCTS), fp8
        assert not gemm_json(lowp, "--input", path), "no triple named: no GEMM records"
        text = run(lowp, "report", "--input", path, "--backend", "cpu", "--quiet")
        assert "--gemm-triple x=NAME,w=NAME,dy=NAME" in text.stdout, text.stdout
        skipped = gemm_json(lowp, "--input", path, "--gemm-triple", "x=odd,w=w40,dy=dy24")
        assert {r["status"] for r in skipped} == {"skipped"} and "multiples of 16" in skipped[0]["message"], skipped
        for bad, words in ((["--gemm-triple", "x=x,w=w"], "names x, w and dy are all needed"),
                           (["--gemm-triple", "x=x,w=w,dy=dy,b=w"], "'b=w' is not one of them"),
                           (["--gemm-triple", "x=x,w=w,x=dy"], "x given twice"),
                           (["--gemm-triple", "x=x,w=nope,dy=dy"], "has no tensor named 'nope'"),
                           (["--gemm-triple", "x=x,w=dy,dy=w"], "needs x tokens x in, w out x in, dy tokens x out")):
            p = run(lowp, "report", "--input", path, "--backend", "cpu", "--quiet", *bad)
            assert p.returncode != 0 and words in p.stderr and "lowp: error:" in p.stderr, (bad, p.stderr)
    p = run(lowp, "report", "--quick", "--backend", "cpu", "--gemm-triple", "x=a,w=b,dy=c")
    assert p.returncode != 0 and "give it with --input" in p.stderr, p.stderr


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    case, lowp = sys.argv[1], sys.argv[2]
    {"report_json": case_report_json,
     "nvfp4_report": case_nvfp4_report,
     "safetensors_roundtrip": case_safetensors_roundtrip,
     "safetensors_malformed": case_safetensors_malformed,
     "usage": case_usage,
     "report_summary": case_report_summary,
     "rowwise_only": case_rowwise_only,
     "nonfinite": case_nonfinite,
     "gemm_view": case_gemm_view,
     "gemm_triple": case_gemm_triple}[case](lowp)
    print(f"{case}: ok")


if __name__ == "__main__":
    main()
