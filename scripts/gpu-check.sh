#!/usr/bin/env bash
# One-shot check of lowp on a bare Hopper machine (nvcc, cmake, ninja, python3; no GoogleTest
# installed, no internet): build with CUDA, GPU tests, CPU tests, compute-sanitizer memcheck and
# racecheck over the GPU test binaries, and the FP8, grouped FP8, NVFP4 and NVFP4 per-token
# benchmarks.
#
# usage: scripts/gpu-check.sh OUTDIR [GTEST_SRC]
#   OUTDIR     logs: OUTDIR/<step>.log, OUTDIR/env.log, OUTDIR/bench_fp8.json,
#              OUTDIR/bench_grouped.json, OUTDIR/bench_nvfp4.json,
#              OUTDIR/bench_nvfp4_per_token.json, OUTDIR/summary.txt
#   GTEST_SRC  GoogleTest source tree (default .deps/googletest, relative to the repository root)
#
# Steps (all by default, in this order): build gpu-tests cpu-tests memcheck racecheck bench
# bench-nvfp4 bench-pt. Not in all: bench-gemm (lowp_bench_gemm: lowp_gemm against cuBLAS bf16,
# OUTDIR/bench_gemm.json) and timeline (its own -DLOWP_TIMELINE=ON build, then lowp_timeline's
# per-block stamps of the per-token kernels).
# Every step runs even when an earlier one failed; the exit code is non-zero when any step did
# not pass (failed, timed out, or skipped for lack of time). A summary table is printed last.
#
# Environment:
#   STEPS="build gpu-tests bench"   a subset (aliases: all, tests = gpu-tests cpu-tests,
#                                   sanitizers = memcheck racecheck)
#   LOWP_BUILD_DIR                  build directory (default build-gpu)
#   LOWP_CHECK_BUDGET               seconds for the whole script (default 560, to fit a
#                                   10-minute command limit); a step gets at most what is left
#   LOWP_T_BUILD, LOWP_T_GPU_TESTS, LOWP_T_CPU_TESTS, LOWP_T_MEMCHECK, LOWP_T_RACECHECK,
#   LOWP_T_BENCH                    per-step timeouts in seconds (300 180 120 240 240 180)
#   LOWP_SANITIZER_FILTER           gtest filter for both sanitizers (default '*')
#   LOWP_MEMCHECK_FILTER, LOWP_RACECHECK_FILTER   per-tool filters (default the one above)
#   LOWP_SANITIZER_BIN_TIMEOUT      seconds per test binary under a sanitizer (default 150)
#   LOWP_SANITIZER_EXCLUDE          regex on test binary names to leave out of the sanitizers
#                                   (default 'exhaustive': 2^32-input sweeps; '' runs them all)
#   LOWP_BENCH_ARGS                 arguments of lowp_bench_fp8 (default --quick)
#   LOWP_GBENCH_ARGS                arguments of lowp_bench_grouped (default --quick); it runs
#                                   after lowp_bench_fp8 in the bench step
#   LOWP_NBENCH_ARGS                arguments of lowp_bench_nvfp4 (default --quick; step bench-nvfp4)
#   LOWP_PTBENCH_ARGS               arguments of lowp_bench_nvfp4_per_token (default --quick;
#                                   step bench-pt, timeout LOWP_T_BENCH)
#   LOWP_GEMM_BENCH_ARGS            arguments of lowp_bench_gemm (default --quick; step bench-gemm,
#                                   timeout LOWP_T_BENCH; the full table takes about 3 minutes)
#   LOWP_SHOW_BENCH=0               do not print the benchmark tables before the summary
#   LOWP_TIMELINE_RUNS              step timeline's OP:MxK list (default "grouped8:1024x4096
#                                   grouped8_r128:1024x4096 token:1024x4096 token:8192x2048");
#                                   its build goes to build-timeline (timeout LOWP_T_BUILD)
set -u
set -o pipefail

SELF="$(readlink -f "${BASH_SOURCE[0]}")"
ROOT="$(cd "$(dirname "$SELF")/.." && pwd)"
cd "$ROOT" || exit 2

now() { date +%s; }

# Key numbers of a step: its log's last line starting with "KEY: ".
key_of() { grep -a '^KEY: ' "$1" 2>/dev/null | tail -n 1 | cut -c6-; }

# ---------------------------------------------------------------------------------------------
# Steps. Each runs in its own process (this script with __step NAME) under `timeout`, with its
# output in OUTDIR/NAME.log, and prints "KEY: <key numbers>" last.

ctest_key() {  # ctest_key LOG: "passed/total, N failed, S gtest-skipped"
  local line skipped
  line="$(grep -aEo '[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$1" | tail -n 1)"
  if [[ -z "$line" ]]; then  # ctest's all-passed wording: "100% tests passed out of N"
    line="$(grep -aEo '100% tests passed out of [0-9]+' "$1" | tail -n 1 | sed -E 's/ out of/, 0 tests failed out of/')"
  fi
  # gtest prints "[  SKIPPED ] Suite.Test (N ms)" once per skipped test (ctest -V prefixes "N: ").
  skipped="$(grep -acE '\[  SKIPPED \] [A-Za-z_].* \([0-9]+ ms\)' "$1")"
  if [[ -z "$line" ]]; then
    if grep -aq 'No tests were found' "$1"; then echo "no tests found"; else echo "no ctest summary"; fi
    return
  fi
  local total failed
  total="$(sed -E 's/.* out of ([0-9]+)/\1/' <<<"$line")"
  failed="$(sed -E 's/.*passed, ([0-9]+) tests? failed.*/\1/' <<<"$line")"
  echo "$((total - failed))/$total passed, $failed failed, $skipped gtest-skipped"
}

step_build() {
  local gt_arg=()
  if [[ -d "$GTEST_SRC" ]]; then
    gt_arg=(-DLOWP_GTEST_SOURCE="$GTEST_SRC")
  else
    echo "note: GoogleTest source '$GTEST_SRC' not found; relying on an installed GoogleTest"
    gt_arg=(-DLOWP_GTEST_SOURCE=)
  fi
  local cfg=(cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DLOWP_CUDA=ON
             -DLOWP_BUILD_CLI=ON -DLOWP_BUILD_TESTS=ON -DLOWP_BUILD_BENCH=ON "${gt_arg[@]}")
  echo "+ ${cfg[*]}"
  local note="" rc=0
  if ! "${cfg[@]}"; then
    echo "configure FAILED; configuring again without tests so the library and bench still build"
    note="configure with tests FAILED, built without tests; "
    rc=1
    cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DLOWP_CUDA=ON \
      -DLOWP_BUILD_CLI=ON -DLOWP_BUILD_TESTS=OFF -DLOWP_BUILD_BENCH=ON || {
      echo "KEY: configure FAILED (with and without tests)"
      return 1
    }
  fi
  echo "+ cmake --build $BUILD_DIR -j $JOBS -- -k 0"
  local out brc
  out="$(mktemp)"
  cmake --build "$BUILD_DIR" -j "$JOBS" -- -k 0 2>&1 | tee "$out"
  brc=${PIPESTATUS[0]}
  local nfail nwarn
  nfail="$(grep -ac '^FAILED: ' "$out")"
  nwarn="$(grep -aEc 'warning[: #]' "$out")"
  rm -f "$out"
  [[ $brc -ne 0 ]] && rc=1
  local bench="no bench binary"
  [[ -x "$BUILD_DIR/bench/lowp_bench_fp8" ]] && bench="bench built"
  echo "KEY: ${note}$nfail failed targets, $nwarn warning lines, $bench"
  return "$rc"
}

step_gpu_tests() {
  local out rc
  out="$(mktemp)"
  ctest --test-dir "$BUILD_DIR" -L gpu --output-on-failure --no-tests=error -V 2>&1 | tee "$out"
  rc=${PIPESTATUS[0]}
  echo "KEY: $(ctest_key "$out")"
  rm -f "$out"
  return "$rc"
}

step_cpu_tests() {
  local out rc
  out="$(mktemp)"
  ctest --test-dir "$BUILD_DIR" -L cpu -LE slow --output-on-failure --no-tests=error -j "$JOBS" \
    2>&1 | tee "$out"
  rc=${PIPESTATUS[0]}
  echo "KEY: $(ctest_key "$out")"
  rm -f "$out"
  return "$rc"
}

# GPU test binaries, one a line: the commands ctest runs for label gpu, else a glob.
gpu_test_binaries() {
  local list=""
  list="$(ctest --test-dir "$BUILD_DIR" -L gpu --show-only=json-v1 2>/dev/null | python3 -c '
import json, sys
try:
    d = json.load(sys.stdin)
except Exception:
    sys.exit(0)
for t in d.get("tests", []):
    cmd = t.get("command") or []
    if cmd:
        print(cmd[0])
' 2>/dev/null)"
  if [[ -z "$list" ]]; then
    list="$(find "$BUILD_DIR/tests/cuda" -type f -executable -name '*_test*' 2>/dev/null | sort)"
  fi
  [[ -n "$list" ]] && printf '%s\n' "$list"
}

step_sanitizer() {  # step_sanitizer TOOL FILTER
  local tool="$1" filter="$2"
  if ! command -v compute-sanitizer >/dev/null 2>&1; then
    echo "compute-sanitizer not on PATH"
    echo "KEY: compute-sanitizer not found"
    return 1
  fi
  local bins=() all=() excluded=() b
  mapfile -t all < <(gpu_test_binaries)
  for b in "${all[@]}"; do
    if [[ -n "$SAN_EXCLUDE" ]] && grep -qE -- "$SAN_EXCLUDE" <<<"$(basename "$b")"; then
      excluded+=("$(basename "$b")")
    else
      bins+=("$b")
    fi
  done
  [[ ${#excluded[@]} -gt 0 ]] && echo "excluded (LOWP_SANITIZER_EXCLUDE='$SAN_EXCLUDE'): ${excluded[*]}"
  if [[ ${#bins[@]} -eq 0 ]]; then
    echo "no GPU test binaries found (ctest -L gpu, $BUILD_DIR/tests/cuda/*_test*)"
    echo "KEY: no GPU test binaries"
    return 1
  fi
  local total_err=0 n_timeout=0 n_notrun=0 n_unknown=0 n_fail=0 rc=0 bin
  local n_hazard_lines=()
  for bin in "${bins[@]}"; do
    local left tb log brc errs
    left=$((STEP_DEADLINE - $(now) - 10))
    if [[ $left -lt 10 ]]; then
      echo "=== $bin: not run (step time used up)"
      n_notrun=$((n_notrun + 1))
      rc=1
      continue
    fi
    tb=$(( left < SAN_BIN_TIMEOUT ? left : SAN_BIN_TIMEOUT ))
    log="$OUTDIR/$tool.$(basename "$bin").log"
    echo "=== $tool: $bin (GTEST_FILTER='$filter', timeout ${tb}s) -> $log"
    local every_report=()
    [[ "$tool" == racecheck ]] && every_report=(--racecheck-report hazard --print-limit 1000000)
    GTEST_FILTER="$filter" timeout --kill-after=10 "$tb" \
      compute-sanitizer --tool "$tool" "${every_report[@]}" --error-exitcode 1 "$bin" >"$log" 2>&1
    brc=$?
    tail -n 15 "$log"
    # "ERROR SUMMARY: N errors"; racecheck also prints
    # "RACECHECK SUMMARY: H hazards displayed (E errors, W warnings)": take the larger error count.
    errs="$(grep -aEo 'ERROR SUMMARY: [0-9]+ error' "$log" | tail -n 1 | grep -Eo '[0-9]+')"
    local race
    race="$(grep -aEo 'RACECHECK SUMMARY: [0-9]+ hazards? displayed \([0-9]+ errors?' "$log" \
            | tail -n 1 | sed -E 's/.*\(([0-9]+) error.*/\1/')"
    if [[ -n "$race" ]] && [[ -z "$errs" || "$race" -gt "$errs" ]]; then errs="$race"; fi
    if grep -aq 'RACECHECK SUMMARY' "$log"; then
      # cuBLASLt's own FP8 GEMM kernels (nvjet_*) report WAR hazards in their shared-memory
      # pipelines: not lowp's code (docs/testing.md). Count the hazards of every other kernel.
      local foreign
      foreign="$(awk '/Potential .* hazard/ {h = 1; next} h && / Thread .* at / {if ($0 ~ / at nvjet_/) n++; h = 0} END {print n + 0}' "$log")"
      if [[ "$foreign" -gt 0 && "$errs" -ge "$foreign" ]]; then
        errs=$((errs - foreign))
        if [[ $errs -eq 0 ]] && ! grep -aq '^\[  FAILED  \]' "$log"; then brc=0; fi
      fi
      n_hazard_lines+=("$(basename "$bin"): $(grep -a 'RACECHECK SUMMARY' "$log" | tail -n 1 | sed 's/.*SUMMARY: //'); $foreign in cuBLASLt's nvjet kernels, $errs in lowp's")
    fi
    if [[ $brc -eq 124 || $brc -eq 137 ]]; then
      echo "--- TIMEOUT after ${tb}s"
      n_timeout=$((n_timeout + 1))
      rc=1
    elif [[ -z "$errs" ]]; then
      echo "--- no ERROR SUMMARY (exit $brc)"
      n_unknown=$((n_unknown + 1))
      rc=1
    else
      total_err=$((total_err + errs))
      if [[ $brc -ne 0 ]]; then
        n_fail=$((n_fail + 1))
        rc=1
      fi
    fi
  done
  local key="${#bins[@]} binaries, $total_err errors"
  [[ $n_fail -gt 0 ]] && key+=", $n_fail binaries exit!=0"
  [[ $n_timeout -gt 0 ]] && key+=", $n_timeout timed out"
  [[ $n_unknown -gt 0 ]] && key+=", $n_unknown without summary"
  [[ $n_notrun -gt 0 ]] && key+=", $n_notrun not run (no time left)"
  [[ "$filter" != "*" ]] && key+=" (filter '$filter')"
  [[ ${#excluded[@]} -gt 0 ]] && key+=" (excluded: ${excluded[*]})"
  [[ ${#n_hazard_lines[@]} -gt 0 ]] && printf 'racecheck: %s\n' "${n_hazard_lines[@]}"
  echo "KEY: $key"
  return "$rc"
}

step_bench() {
  local bin="$BUILD_DIR/bench/lowp_bench_fp8" json="$OUTDIR/bench_fp8.json" rc=0 frc=0 grc=0
  local key="no bench binary"
  if [[ ! -x "$bin" ]]; then
    echo "$bin not built"
    frc=1
  else
    local args=()
    read -r -a args <<<"${LOWP_BENCH_ARGS:---quick}"
    echo "+ $bin ${args[*]} --json $json"
    rm -f "$json"
    "$bin" "${args[@]}" --json "$json" 2>&1
    frc=$?
    key="$(python3 - "$json" <<'EOF' 2>/dev/null
import json, sys
d = json.load(open(sys.argv[1]))
rows = d.get("rows", [])
fails = sum(1 for r in rows if r.get("graph_error"))
big = max(((r["m"] * r["k"], r["m"], r["k"]) for r in rows), default=None)
parts = ["copy %.0f GB/s" % (d["copy"]["gbps"] or 0)]
if big:
    fr = ["%s %.2f%s" % (r["op"], r["fraction_of_copy"] or 0, "*" if r["gbps_from"] == "eager" else "")
          for r in rows if (r["m"], r["k"]) == big[1:]]
    parts.append("frac@%dx%d: %s" % (big[1], big[2], " ".join(fr)))
parts.append("capture failures %d" % fails)
if d.get("warnings"):
    parts.append("%d warnings" % len(d["warnings"]))
if not d.get("complete", True):
    parts.append("INCOMPLETE")
print("; ".join(parts))
EOF
)"
    key="${key:-no JSON written (exit $frc)}"
  fi

  # Grouped FP8, after lowp_bench_fp8: its table (ending in its own KEY line) follows in the log.
  local gbin="$BUILD_DIR/bench/lowp_bench_grouped" gjson="$OUTDIR/bench_grouped.json" gkey
  if [[ ! -x "$gbin" ]]; then
    echo "$gbin not built"
    gkey="no grouped bench binary"
    grc=1
  else
    local gargs=()
    read -r -a gargs <<<"${LOWP_GBENCH_ARGS:---quick}"
    echo "+ $gbin ${gargs[*]} --json $gjson"
    rm -f "$gjson"
    "$gbin" "${gargs[@]}" --json "$gjson" 2>&1
    grc=$?
    # Its KEY line's text (also in the JSON as "key"), plus capture failures and INCOMPLETE.
    gkey="$(python3 - "$gjson" <<'EOF' 2>/dev/null
import json, sys
d = json.load(open(sys.argv[1]))
parts = [d["key"]]
fails = sum(1 for r in d.get("rows", []) for v in ("grouped", "single", "n_launch")
            if r[v].get("graph_error"))
parts.append("capture failures %d" % fails)
if not d.get("complete", True):
    parts.append("INCOMPLETE")
print("; ".join(parts))
EOF
)"
    gkey="${gkey:-no JSON written (exit $grc)}"
  fi
  [[ $frc -ne 0 || $grc -ne 0 ]] && rc=1
  echo "KEY: $key | grouped: $gkey"
  return "$rc"
}

# run_json_bench NAME ARGS: build/bench/NAME ARGS --json OUTDIR/<NAME without lowp_>.json; the
# bench prints its own KEY line last (on an error "KEY: FAILED during <op>: <message>", exit 1).
run_json_bench() {
  local bin="$BUILD_DIR/bench/$1" json="$OUTDIR/${1#lowp_}.json" args=()
  if [[ ! -x "$bin" ]]; then
    echo "KEY: $bin not built"
    return 1
  fi
  read -r -a args <<<"$2"
  echo "+ $bin ${args[*]} --json $json"
  "$bin" "${args[@]}" --json "$json" 2>&1
}

# A build with the per-block stamps compiled in (src/cuda/common/timeline.cuh), then bench/timeline.cpp.
step_timeline() {
  local dir="build-timeline" run op shape n=0 rc=0
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DLOWP_CUDA=ON -DLOWP_TIMELINE=ON \
    -DLOWP_BUILD_TESTS=OFF -DLOWP_BUILD_CLI=OFF || { echo "KEY: configure FAILED"; return 1; }
  cmake --build "$dir" -j "$JOBS" --target lowp_timeline || { echo "KEY: build FAILED"; return 1; }
  for run in ${LOWP_TIMELINE_RUNS:-grouped8:1024x4096 grouped8_r128:1024x4096 token:1024x4096 token:8192x2048}; do
    op="${run%%:*}"
    shape="${run#*:}"
    echo "+ $dir/bench/lowp_timeline --op $op --shape $shape"
    "$dir/bench/lowp_timeline" --op "$op" --shape "$shape" || rc=1
    n=$((n + 1))
  done
  if [[ $rc -eq 0 ]]; then echo "KEY: $n timelines"; else echo "KEY: $n timelines, some FAILED"; fi
  return "$rc"
}

step_bench_nvfp4() { run_json_bench lowp_bench_nvfp4 "${LOWP_NBENCH_ARGS:---quick}"; }
step_bench_pt() { run_json_bench lowp_bench_nvfp4_per_token "${LOWP_PTBENCH_ARGS:---quick}"; }
step_bench_gemm() { run_json_bench lowp_bench_gemm "${LOWP_GEMM_BENCH_ARGS:---quick}"; }

run_step() {  # inside the step process
  case "$1" in
    build) step_build ;;
    gpu-tests) step_gpu_tests ;;
    cpu-tests) step_cpu_tests ;;
    memcheck) step_sanitizer memcheck "${LOWP_MEMCHECK_FILTER:-${LOWP_SANITIZER_FILTER:-*}}" ;;
    racecheck) step_sanitizer racecheck "${LOWP_RACECHECK_FILTER:-${LOWP_SANITIZER_FILTER:-*}}" ;;
    bench) step_bench ;;
    bench-nvfp4) step_bench_nvfp4 ;;
    bench-pt) step_bench_pt ;;
    bench-gemm) step_bench_gemm ;;
    timeline) step_timeline ;;
    *) echo "unknown step '$1'"; return 2 ;;
  esac
}

if [[ "${1:-}" == "__step" ]]; then
  run_step "$2"
  exit $?
fi

# ---------------------------------------------------------------------------------------------
# Driver.

if [[ $# -lt 1 || "${1:-}" == "-h" || "${1:-}" == "--help" ]]; then
  sed -n '2,/^set -u/p' "$SELF" | sed '$d' | sed 's/^# \{0,1\}//'
  exit 2
fi

mkdir -p "$1" || exit 2
OUTDIR="$(cd "$1" && pwd)"
GTEST_SRC="${2:-.deps/googletest}"
[[ "$GTEST_SRC" = /* ]] || GTEST_SRC="$ROOT/$GTEST_SRC"
BUILD_DIR="${LOWP_BUILD_DIR:-build-gpu}"
JOBS="$(nproc 2>/dev/null || echo 8)"
SAN_BIN_TIMEOUT="${LOWP_SANITIZER_BIN_TIMEOUT:-150}"
SAN_EXCLUDE="${LOWP_SANITIZER_EXCLUDE-exhaustive}"
BUDGET="${LOWP_CHECK_BUDGET:-560}"
export OUTDIR GTEST_SRC BUILD_DIR JOBS SAN_BIN_TIMEOUT SAN_EXCLUDE

declare -A TIMEOUT=(
  [build]="${LOWP_T_BUILD:-300}" [gpu-tests]="${LOWP_T_GPU_TESTS:-180}"
  [cpu-tests]="${LOWP_T_CPU_TESTS:-120}" [memcheck]="${LOWP_T_MEMCHECK:-240}"
  [racecheck]="${LOWP_T_RACECHECK:-240}" [bench]="${LOWP_T_BENCH:-180}" [bench-nvfp4]="${LOWP_T_BENCH:-180}"
  [bench-pt]="${LOWP_T_BENCH:-180}" [bench-gemm]="${LOWP_T_BENCH:-180}" [timeline]="${LOWP_T_BUILD:-300}")

steps=()
for s in ${STEPS:-all}; do
  case "$s" in
    all) steps+=(build gpu-tests cpu-tests memcheck racecheck bench bench-nvfp4 bench-pt) ;;
    tests) steps+=(gpu-tests cpu-tests) ;;
    sanitizers) steps+=(memcheck racecheck) ;;
    build | gpu-tests | cpu-tests | memcheck | racecheck | bench | bench-nvfp4 | bench-pt | bench-gemm | timeline)
      steps+=("$s") ;;
    *) echo "gpu-check: unknown step '$s' (build gpu-tests cpu-tests memcheck racecheck bench bench-nvfp4 bench-pt" \
            "bench-gemm timeline)" >&2
       exit 2 ;;
  esac
done

T0="$(now)"
DEADLINE=$((T0 + BUDGET))

# Environment record (not a step).
{
  echo "date: $(date -u '+%Y-%m-%dT%H:%M:%SZ')"
  echo "git: $(git rev-parse HEAD 2>/dev/null) ($(git status --short 2>/dev/null | wc -l) changed paths)"
  echo "steps: ${steps[*]}; budget ${BUDGET}s; build dir $BUILD_DIR; gtest source $GTEST_SRC"
  for c in "nvidia-smi" "nvcc --version" "cmake --version" "ninja --version" \
           "compute-sanitizer --version" "python3 --version"; do
    echo "+ $c"
    # shellcheck disable=SC2086
    timeout 30 $c 2>&1
  done
} >"$OUTDIR/env.log" 2>&1

names=() statuses=() secs=() keys=()
overall=0
for s in "${steps[@]}"; do
  left=$((DEADLINE - $(now) - 10))
  t="${TIMEOUT[$s]}"
  [[ $left -lt $t ]] && t=$left
  log="$OUTDIR/$s.log"
  names+=("$s")
  if [[ $t -lt 20 ]]; then
    statuses+=("SKIP")
    secs+=(0)
    keys+=("not run: ${left}s of the ${BUDGET}s budget left")
    echo "skip: $s (budget)" >"$log"
    overall=1
    continue
  fi
  echo "gpu-check: $s (timeout ${t}s) -> $log"
  start="$(now)"
  STEP_DEADLINE=$((start + t)) timeout --kill-after=15 "$t" bash "$SELF" __step "$s" >"$log" 2>&1
  rc=$?
  el=$(($(now) - start))
  key="$(key_of "$log")"
  if [[ $rc -eq 0 ]]; then
    st="ok"
  elif [[ $rc -eq 124 || $rc -eq 137 ]]; then
    st="TIMEOUT"
    key="killed after ${t}s${key:+; $key}"
  else
    st="FAIL($rc)"
  fi
  [[ $rc -ne 0 ]] && overall=1
  statuses+=("$st")
  secs+=("$el")
  keys+=("${key:--}")
done

# Tails of the steps that did not pass, then the benchmark table, then the summary (last).
for i in "${!names[@]}"; do
  if [[ "${statuses[$i]}" != "ok" && "${statuses[$i]}" != "SKIP" ]]; then
    echo
    echo "----- tail of ${names[$i]}.log (${statuses[$i]}) -----"
    tail -n "${LOWP_TAIL_LINES:-25}" "$OUTDIR/${names[$i]}.log" | cut -c1-300
  fi
done
if [[ "${LOWP_SHOW_BENCH:-1}" != "0" && -f "$OUTDIR/bench.log" ]]; then
  # Each benchmark's table: lowp_bench_fp8's from its "== " title to the command line of
  # lowp_bench_grouped, lowp_bench_grouped's from its title to its KEY line.
  if grep -q '^== lowp_bench_fp8' "$OUTDIR/bench.log"; then
    echo
    awk '/^== lowp_bench_fp8/ { on = 1 } on && /^\+ .*lowp_bench_grouped/ { exit } on' \
      "$OUTDIR/bench.log" | cut -c1-200
  fi
  if grep -q '^== lowp_bench_grouped' "$OUTDIR/bench.log"; then
    echo
    awk '/^== lowp_bench_grouped/ { on = 1 } on { print } on && /^KEY: / { exit }' \
      "$OUTDIR/bench.log" | cut -c1-200
  fi
fi

if [[ "${LOWP_SHOW_BENCH:-1}" != "0" && -f "$OUTDIR/bench-nvfp4.log" ]]; then
  echo
  awk '/^== lowp_bench_nvfp4/ { on = 1 } on { print } on && /^KEY: / { exit }' "$OUTDIR/bench-nvfp4.log" | cut -c1-200
fi

if [[ "${LOWP_SHOW_BENCH:-1}" != "0" && -f "$OUTDIR/bench-pt.log" ]]; then
  echo
  awk '/^== lowp_bench_nvfp4_per_token/ { on = 1 } on { print } on && /^KEY: / { exit }' "$OUTDIR/bench-pt.log" \
    | cut -c1-200
fi

if [[ "${LOWP_SHOW_BENCH:-1}" != "0" && -f "$OUTDIR/bench-gemm.log" ]]; then
  echo
  awk '/^== lowp_bench_gemm/ { on = 1 } on { print } on && /^KEY: / { exit }' "$OUTDIR/bench-gemm.log" | cut -c1-200
fi

{
  echo
  echo "==================== lowp gpu-check summary ===================="
  if command -v nvidia-smi >/dev/null 2>&1; then
    timeout 20 nvidia-smi -L 2>&1
    gpu="$(timeout 20 nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total \
           --format=csv,noheader 2>/dev/null | head -n 1)"
    echo "GPU: ${gpu:-unknown}"
    cc="$(cut -d, -f2 <<<"$gpu" | tr -d ' ')"
    [[ -n "$cc" && "$cc" != "9.0" ]] && echo "WARNING: compute capability $cc; lowp is built for sm_90a (Hopper)"
  else
    echo "GPU: nvidia-smi not found"
  fi
  echo "git: $(git rev-parse --short HEAD 2>/dev/null) ($(git status --short 2>/dev/null | wc -l) changed paths); logs: $OUTDIR"
  printf '%-10s %-9s %5s  %s\n' "step" "status" "secs" "key numbers"
  for i in "${!names[@]}"; do
    printf '%-10s %-9s %5s  %s\n' "${names[$i]}" "${statuses[$i]}" "${secs[$i]}" "${keys[$i]}"
  done
  total=$(($(now) - T0))
  if [[ $overall -eq 0 ]]; then
    echo "overall: PASS (${#names[@]} steps, ${total}s)"
  else
    echo "overall: FAIL (${total}s)"
  fi
} | tee "$OUTDIR/summary.txt"
exit "$overall"
