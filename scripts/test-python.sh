#!/usr/bin/env bash
# The Python package's tests: installs it CPU-only (pip install ., LOWP_CUDA=OFF) into a venv under
# build-python/ and runs pytest on tests/python against the C library's own results (lowp_ref,
# built in ./build when scripts/build.sh made it, else in build-python/ref), with PyTorch
# installed for the torch tests. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/cuda/bin:$PATH"
root=$PWD
venv=$root/build-python/venv

if ! python3 -m venv --system-site-packages "$venv"; then
  echo "error: python3 -m venv failed (Debian: apt-get install python3-venv)" >&2
  exit 1
fi
"$venv/bin/python" -m pip install -q -C cmake.define.LOWP_CUDA=OFF -C build-dir=build-python/wheel ".[test]"
# PyTorch for the torch tests (the training layer among them): the GPU machine's version, from PyPI
# (about a minute). LOWP_SKIP_TORCH=1 runs the NumPy tests alone.
if [[ "${LOWP_SKIP_TORCH:-0}" != 1 ]]; then
  if ! "$venv/bin/python" -c "import torch" 2>/dev/null; then
    echo "test-python.sh: installing torch (PyPI, about a minute)"
    "$venv/bin/python" -m pip install -q "torch==2.11.*"
  fi
  "$venv/bin/python" -c "import torch; print('test-python.sh: torch', torch.__version__)"
fi

if [[ -f build/CMakeCache.txt ]]; then
  ref_build=build
else
  ref_build=build-python/ref
  cmake -S . -B "$ref_build" -G Ninja -DLOWP_CUDA=OFF -DLOWP_BUILD_CLI=OFF -DLOWP_BUILD_BENCH=OFF >/dev/null
fi
cmake --build "$ref_build" --target lowp_ref -j"$(nproc)" >/dev/null
export LOWP_REF="$root/$ref_build/tests/python/lowp_ref"

# From outside the source tree, so `import lowp` is the installed package. The ml_dtypes oracle
# in tests/python is ctest's (it needs a test binary of the C build).
cd build-python
set +e
"$venv/bin/python" -m pytest -q -p no:cacheprovider --ignore="$root/tests/python/test_ml_dtypes_oracle.py" \
  -rs "$root/tests/python" "$@"
rc=$?
set -e
if ((rc == 5)); then
  echo "error: pytest collected no tests from tests/python" >&2
  exit 1
fi
exit "$rc"
