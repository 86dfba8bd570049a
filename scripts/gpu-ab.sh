#!/usr/bin/env bash
# A/B timing of kernel variants in one command on the GPU machine. Each variant is the working
# tree with a patch applied, built (benchmarks only) in a directory of its own; the benchmarks
# then run variant after variant, pass after pass, so every variant sees the same GPU, clocks and
# copy bandwidth. Timings only: a variant is checked for correctness by scripts/gpu-check.sh on a
# tree with its patch applied.
#
# usage: scripts/gpu-ab.sh OUTDIR "VARIANTS" "SHAPES" [PASSES]
#   VARIANTS  names; "base" is the working tree as sent, any other NAME is the working tree with
#             $LOWP_AB_PATCHES/NAME.patch applied (patch -p1 from the repository root)
#   SHAPES    MxK list, e.g. "8192x2048 16384x8192"
#   PASSES    rounds over the variants (default 2)
#   OUTDIR    gets ab.txt (the table below), ab.json (every row) and build.log; the benchmarks'
#             own JSON stays under $LOWP_AB_WORK/runs (the device returns few files)
#
# Environment:
#   LOWP_AB_BENCHES    benchmarks, without lowp_bench_ (default "nvfp4_per_token"; also nvfp4,
#                      fp8, grouped)
#   LOWP_AB_OPS        --ops for every benchmark (default: each one's full list)
#   LOWP_AB_REPS       --reps (default 15)
#   LOWP_AB_PATCHES    the patches' folder (default scripts/ab)
#   LOWP_AB_WORK       the variants' sources, builds and runs (default /tmp/lowp-ab)
#   LOWP_AB_BUILD_ONLY=1  build the variants and stop (no GPU needed: checks that patches apply
#                      and compile, and leaves the objects for cuobjdump)
#   LOWP_AB_REUSE=1    time the builds an earlier LOWP_AB_BUILD_ONLY run left in $LOWP_AB_WORK
#                      (a rebuild would redo the patched files: patch gives them new times)
#
# ab.txt has one line per benchmark, op and shape: graph median ms of each variant in each pass,
# then each variant's best pass over base's best (below 1: faster than base).
set -u
set -o pipefail

SELF="$(readlink -f "${BASH_SOURCE[0]}")"
ROOT="$(cd "$(dirname "$SELF")/.." && pwd)"
cd "$ROOT" || exit 2

if [[ $# -lt 3 || "$1" == "-h" || "$1" == "--help" ]]; then
  sed -n '2,/^set -u/p' "$SELF" | sed '$d' | sed 's/^# \{0,1\}//'
  exit 2
fi

mkdir -p "$1" || exit 2
OUTDIR="$(cd "$1" && pwd)"
read -r -a VARIANTS <<<"$2"
read -r -a SHAPES <<<"$3"
PASSES="${4:-2}"
read -r -a BENCHES <<<"${LOWP_AB_BENCHES:-nvfp4_per_token}"
PATCHES="${LOWP_AB_PATCHES:-scripts/ab}"
WORK="${LOWP_AB_WORK:-/tmp/lowp-ab}"
JOBS="$(nproc 2>/dev/null || echo 8)"
# What a build needs (the device's .git may be stale, so no git archive).
SOURCES=(CMakeLists.txt bench cli cmake include src tests)

for s in "${SHAPES[@]}"; do
  [[ "$s" =~ ^[0-9]+x[0-9]+$ ]] || { echo "gpu-ab: shape '$s' is not MxK" >&2; exit 2; }
done
for v in "${VARIANTS[@]}"; do
  [[ "$v" =~ ^[A-Za-z0-9_-]+$ ]] || { echo "gpu-ab: variant name '$v' has odd characters" >&2; exit 2; }
  [[ "$v" == base || -f "$PATCHES/$v.patch" ]] || { echo "gpu-ab: no $PATCHES/$v.patch" >&2; exit 2; }
done

# Sources and build of variant $1 in $WORK/$1.
build_variant() {
  local v="$1" dir="$WORK/$1"
  rm -rf "$dir/src" && mkdir -p "$dir/src" || return 1
  tar -c "${SOURCES[@]}" | tar -x -C "$dir/src" || return 1
  if [[ "$v" != base ]]; then
    echo "+ patch -p1 < $PATCHES/$v.patch"
    patch -p1 -d "$dir/src" --no-backup-if-mismatch <"$PATCHES/$v.patch" || return 1
  fi
  cmake -S "$dir/src" -B "$dir/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DLOWP_CUDA=ON \
    -DLOWP_BUILD_TESTS=OFF -DLOWP_BUILD_CLI=OFF -DLOWP_BUILD_BENCH=ON >/dev/null || return 1
  local targets=() b
  for b in "${BENCHES[@]}"; do targets+=("lowp_bench_$b"); done
  cmake --build "$dir/build" -j "$JOBS" --target "${targets[@]}"
}

mkdir -p "$WORK/runs" || exit 2
rm -f "$WORK"/runs/*.json
fail=0
# All variants at once: each build's long pole is a few large translation units, so side by side
# they take little more than one.
pids=()
for v in "${VARIANTS[@]}"; do
  if [[ "${LOWP_AB_REUSE:-0}" == 1 && -d "$WORK/$v/build" ]]; then
    echo "reused $WORK/$v/build" >"$WORK/build.$v.log"
    true &
  else
    build_variant "$v" >"$WORK/build.$v.log" 2>&1 &
  fi
  pids+=($!)
done
for i in "${!VARIANTS[@]}"; do
  v="${VARIANTS[$i]}"
  wait "${pids[$i]}"
  rc=$?
  { echo "== build $v"; cat "$WORK/build.$v.log"; } >>"$OUTDIR/build.log"
  if [[ $rc -ne 0 ]]; then
    echo "gpu-ab: variant $v did not build; tail of its log:" >&2
    tail -n 30 "$WORK/build.$v.log" >&2
    fail=1
  fi
done
[[ $fail -ne 0 ]] && exit 1
[[ "${LOWP_AB_BUILD_ONLY:-0}" == 1 ]] && { echo "gpu-ab: built ${VARIANTS[*]} in $WORK"; exit 0; }

ops=()
[[ -n "${LOWP_AB_OPS:-}" ]] && ops=(--ops "$LOWP_AB_OPS")
for ((p = 1; p <= PASSES; ++p)); do
  for v in "${VARIANTS[@]}"; do
    for b in "${BENCHES[@]}"; do
      for s in "${SHAPES[@]}"; do
        json="$WORK/runs/$v.$p.$b.$s.json"
        echo "== pass $p, $v, $b, $s"
        "$WORK/$v/build/bench/lowp_bench_$b" --shape "$s" --reps "${LOWP_AB_REPS:-15}" "${ops[@]}" --json "$json" \
          >"$WORK/runs/$v.$p.$b.$s.log" 2>&1 || { echo "   failed: tail of its log"; tail -n 5 "$WORK/runs/$v.$p.$b.$s.log"; fail=1; }
      done
    done
  done
done

python3 - "$WORK/runs" "$OUTDIR" "$PASSES" "${VARIANTS[@]}" <<'EOF'
import glob, json, os, sys

runs, outdir, passes, variants = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
table, copy = {}, []  # (bench, op, m, k) -> {(variant, pass): (ms, fraction)}
for path in sorted(glob.glob(os.path.join(runs, "*.json"))):
    v, p, bench = os.path.basename(path).split(".")[:3]
    d = json.load(open(path))
    copy.append(d["copy"]["gbps"] or 0)
    for r in d.get("rows", []):
        g = r.get("graph")
        if not isinstance(g, dict) or "median_ms" not in g:  # benchmarks with nested rows: skip
            continue
        key = (bench, r["op"], r["m"], r["k"])
        table.setdefault(key, {})[(v, int(p))] = (g["median_ms"], r.get("fraction_of_copy"))

cols = [(v, p) for p in range(1, passes + 1) for v in variants]
lines = ["copy %.0f-%.0f GB/s over %d runs; graph median ms (fraction of copy) per variant.pass;"
         " best/base: each variant's best pass over base's" % (min(copy or [0]), max(copy or [0]), len(copy))]
head = "%-16s %-16s %-12s" % ("bench", "op", "shape") + "".join("%18s" % ("%s.%d" % c) for c in cols)
head += "".join("%12s" % (v + "/base") for v in variants if v != "base")
lines.append(head)
rows = []
for (bench, op, m, k), cells in table.items():
    line = "%-16s %-16s %-12s" % (bench, op, "%dx%d" % (m, k))
    for c in cols:
        ms, fr = cells.get(c, (None, None))
        line += "%18s" % ("-" if ms is None else "%.4f (%.3f)" % (ms, fr or 0))
    best = {}
    for v in variants:
        t = [cells[c][0] for c in cells if c[0] == v and cells[c][0]]
        best[v] = min(t) if t else float("nan")
    for v in variants:
        if v != "base":
            line += "%12.3f" % (best[v] / best["base"]) if "base" in best else "%12s" % "-"
    lines.append(line)
    rows.append({"bench": bench, "op": op, "m": m, "k": k,
                 "cells": {"%s.%d" % c: cells[c][0] for c in cells}, "best_ms": best})
open(os.path.join(outdir, "ab.txt"), "w").write("\n".join(lines) + "\n")
json.dump({"copy_gbps": copy, "rows": rows}, open(os.path.join(outdir, "ab.json"), "w"), indent=1)
print("\n".join(lines))
EOF
[[ $? -ne 0 ]] && fail=1
exit "$fail"
