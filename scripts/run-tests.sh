#!/usr/bin/env bash
# Fresh machine -> dependencies, warnings-as-errors build, the CPU test suite (ctest -L cpu).
# GPU tests (ctest -L gpu) need a CUDA device: see scripts/gpu-check.sh.
# usage: scripts/run-tests.sh [--cpu-only]
# --cpu-only is LOWP_CUDA=OFF: the CUDA sources are not compiled (by default they are whenever
# nvcc is found, GPU or not, so a build break shows here).
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ "${1:-}" == --cpu-only ]]; then
  export LOWP_CUDA=OFF
  shift
fi
bash scripts/install-deps.sh
bash scripts/build.sh tests
build="$(bash scripts/build.sh --folder tests)"
ctest --test-dir "$build" -L cpu --output-on-failure --no-tests=error -j"$(nproc)"
bash scripts/test-python.sh
