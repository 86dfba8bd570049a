#!/usr/bin/env bash
# Fresh machine -> dependencies, build, `lowp report` on the built-in synthetic tensors
# (CUDA backend when a GPU is present, else the CPU backend). Extra arguments go to lowp report.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh -DLOWP_BUILD_TESTS=OFF
./build/cli/lowp report "$@"
