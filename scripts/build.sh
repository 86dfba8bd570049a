#!/usr/bin/env bash
# Configures and builds lowp into ./build (CUDA backend when nvcc is found). Extra arguments go
# to cmake's configure step.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/cuda/bin:$PATH"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build build -j"$(nproc)"
