#!/usr/bin/env bash
# Installs the build and test dependencies from Debian's packages when missing (needs root or
# sudo). The CUDA 13 toolkit (nvcc, headers) is a prerequisite and is not installed here.
set -euo pipefail
pkgs=(cmake ninja-build g++ libgtest-dev libcli11-dev nlohmann-json3-dev python3)
missing=()
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo_cmd=()
  [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
  echo "installing: ${missing[*]}" >&2
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
fi
# The second numerics oracle (ml_dtypes, numerics §1) runs under pytest when these import.
if ! python3 -c "import numpy, ml_dtypes, pytest" >/dev/null 2>&1; then
  python3 -m pip install -q numpy ml_dtypes pytest >/dev/null 2>&1 ||
    echo "warning: could not pip install numpy ml_dtypes pytest; the ml_dtypes oracle test will not run" >&2
fi
bash "$(dirname "$0")/fetch-cutlass.sh" >/dev/null || echo "warning: could not fetch the CUTLASS headers; CUDA builds need them (scripts/fetch-cutlass.sh)" >&2
if ! command -v nvcc >/dev/null 2>&1 && [[ ! -x /usr/local/cuda/bin/nvcc ]] && [[ ! -f /usr/local/cuda/include/cuda_fp4.h ]]; then
  echo "error: the CUDA 13 toolkit is required (its headers are the numerics oracle, even for the CPU build)" >&2
  exit 1
fi
