#!/usr/bin/env bash
# Fresh machine -> dependencies, build, `lowp report` on the built-in synthetic tensors (CUDA
# backend when a GPU is present, else the CPU backend; see scripts/build.sh for what is built).
# usage: scripts/run-report.sh [--cpu-only] [lowp report arguments, e.g. --quick, --input F]
# --cpu-only is LOWP_CUDA=OFF: no CUDA code is built even with a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ "${1:-}" == --cpu-only ]]; then
  export LOWP_CUDA=OFF
  shift
fi
bash scripts/install-deps.sh >&2
bash scripts/build.sh report
echo "lowp: running lowp report $* (on a 2-core CPU the synthetic set takes about 70 s, --quick a few)." >&2
"$(bash scripts/build.sh --folder report)/cli/lowp" report "$@"
