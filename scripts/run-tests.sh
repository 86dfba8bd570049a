#!/usr/bin/env bash
# Fresh machine -> dependencies, warnings-as-errors build, the CPU test suite (ctest -L cpu).
# GPU tests (ctest -L gpu) need a CUDA device: see scripts/gpu-check.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh -DLOWP_WERROR=ON
ctest --test-dir build -L cpu --output-on-failure --no-tests=error -j"$(nproc)"
bash scripts/test-python.sh
