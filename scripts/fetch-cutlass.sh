#!/usr/bin/env bash
# Fetches CUTLASS's C++ headers (cutlass/ and cute/, what the CUDA backend's NVFP4 GEMM compiles
# against) from PyPI's nvidia-cutlass wheel into a cache folder outside the tree; CMake finds them
# there (or pass -DLOWP_CUTLASS_DIR=<the printed folder>). Does nothing when they are present.
#
# usage: scripts/fetch-cutlass.sh [CACHE_DIR]
#   CACHE_DIR  default $LOWP_CACHE_DIR, else $HOME/.cache/lowp. `scripts/fetch-cutlass.sh .deps`
#              puts them in the tree's ignored .deps/, which CMake also searches (a copy to carry
#              to a machine without a registry).
# Prints the include folder: CACHE_DIR/cutlass-<version>/cutlass_library/source/include.
set -euo pipefail
version=4.2.0.0
cache="${1:-${LOWP_CACHE_DIR:-$HOME/.cache/lowp}}"
dest="$cache/cutlass-$version"
include="$dest/cutlass_library/source/include"
if [[ -f "$include/cutlass/cutlass.h" && -f "$include/cute/tensor.hpp" ]]; then
  echo "$include"
  exit 0
fi
mkdir -p "$cache"
tmp="$(mktemp -d "$cache/.fetch-cutlass.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
python3 -m pip download -q --no-deps --only-binary=:all: --dest "$tmp" "nvidia-cutlass==$version" >&2
wheels=("$tmp"/nvidia_cutlass-"$version"-*.whl)
# Only the headers: the wheel's Python packages are not needed.
python3 - "${wheels[0]}" "$tmp/unpacked" <<'PY'
import sys, zipfile
prefix = "cutlass_library/source/include/"
with zipfile.ZipFile(sys.argv[1]) as z:
    z.extractall(sys.argv[2], [n for n in z.namelist() if n.startswith(prefix)])
PY
if [[ ! -f "$tmp/unpacked/cutlass_library/source/include/cutlass/cutlass.h" ]]; then
  echo "error: nvidia-cutlass==$version has no cutlass_library/source/include/cutlass/cutlass.h" >&2
  exit 1
fi
rm -rf "$dest"
mv "$tmp/unpacked" "$dest"
echo "$include"
