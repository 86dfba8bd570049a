#!/usr/bin/env bash
# Configures and builds one of the README commands' configurations, each in a folder of its own,
# so one command never reuses the other's cache with other options:
#
#   report  library + lowp CLI (no tests, no benchmarks)                 build-report[-cpu]
#   tests   library + CLI + tests + benchmarks, warnings as errors       build-tests[-cpu]
#
# The CUDA backend follows LOWP_CUDA in the environment: OFF builds the CPU backend alone (the
# -cpu folder); ON builds CUDA too; AUTO (the default) builds CUDA for `report` only when a GPU is
# visible (the report runs on it), and for `tests` whenever nvcc is found (the kernels are
# compiled even where they cannot run, which catches build breaks).
#
# usage: scripts/build.sh report|tests [extra cmake configure arguments]
#        scripts/build.sh --folder report|tests     prints the build folder and exits
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/cuda/bin:$PATH"

folder_only=0
if [[ "${1:-}" == --folder ]]; then
  folder_only=1
  shift
fi
purpose="${1:-}"
[[ "$purpose" == report || "$purpose" == tests ]] || {
  echo "usage: scripts/build.sh [--folder] report|tests [cmake arguments]" >&2
  exit 2
}
shift

gpu_visible() { command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; }

case "${LOWP_CUDA:-AUTO}" in
  ON | on | 1) cuda=ON ;;
  OFF | off | 0) cuda=OFF ;;
  AUTO | auto | "")
    if [[ "$purpose" == report ]]; then
      if gpu_visible; then cuda=ON; else cuda=OFF; fi
    else
      if command -v nvcc >/dev/null 2>&1; then cuda=ON; else cuda=OFF; fi
    fi
    ;;
  *) echo "LOWP_CUDA must be ON, OFF or AUTO (got '$LOWP_CUDA')" >&2; exit 2 ;;
esac
dir="build-$purpose"
[[ "$cuda" == OFF ]] && dir+="-cpu"
if ((folder_only)); then
  echo "$dir"
  exit 0
fi
exec 1>&2  # build chatter apart from what the caller prints (run-report.sh --json > file)

# What each configuration builds, and how long that takes from scratch on a 2-core machine
# (docs/build-times.md; the CUDA library's sm_90a kernels are most of a CUDA build).
case "$purpose-$cuda" in
  report-OFF) what="the CPU-only library and the lowp CLI"; fresh="about 1 minute" ;;
  report-ON) what="the library with its CUDA backend and the lowp CLI"; fresh="about 5 minutes" ;;
  tests-OFF) what="the CPU-only library, CLI and tests (warnings as errors)"; fresh="2 to 5 minutes" ;;
  tests-ON) what="the library with its CUDA backend, CLI, tests and benchmarks (warnings as errors)"
            fresh="about 6 minutes" ;;
esac
if [[ -f "$dir/build.ninja" ]]; then
  when="$dir/ exists: only what changed is rebuilt, seconds when nothing did"
else
  when="from scratch: $fresh on 2 cores, less with more"
fi
echo "lowp: building $what in $dir/ ($when)."
[[ "$cuda" == OFF && "$purpose" == report ]] &&
  echo "lowp: no GPU visible, so no CUDA code is built (LOWP_CUDA=ON builds it anyway)."

cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DLOWP_CUDA="$cuda" \
  -DLOWP_BUILD_CLI=ON -DLOWP_BUILD_TESTS="$([[ $purpose == tests ]] && echo ON || echo OFF)" \
  -DLOWP_BUILD_BENCH="$([[ $purpose == tests ]] && echo ON || echo OFF)" \
  -DLOWP_WERROR="$([[ $purpose == tests ]] && echo ON || echo OFF)" "$@" >/dev/null
start=$SECONDS
cmake --build "$dir" -j"$(nproc)"
echo "lowp: built $dir/ in $((SECONDS - start)) s."
