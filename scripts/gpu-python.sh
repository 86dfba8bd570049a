#!/usr/bin/env bash
# The Python package on a GPU machine with no registry: builds it with the CUDA backend (pip, no
# build isolation, nothing downloaded: scikit-build-core, nanobind and torch must be there; CUTLASS
# from .deps/ or ~/.cache/lowp), installs the wheels carried in .whl/ (torchao for the comparison),
# then runs the torch tests (CUDA cases included) and the training-layer benchmark.
#
# usage: scripts/gpu-python.sh OUTDIR [STEPS]
#   STEPS: any of "tests bench" (default both); OUTDIR gets tests.log, linear_bench.log/.json.
#   LOWP_LINEAR_BENCH_ARGS: arguments of bench/linear_bench.py (default: its shapes, 5 rounds).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/gpu-python.sh OUTDIR [STEPS]}
steps=${2:-"tests bench"}
mkdir -p "$out"
site=/tmp/lowp-gpu-site
export CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)"
start=$SECONDS
if ! python3 -m pip install -q --no-build-isolation --no-deps --no-index --target "$site" --upgrade \
    -C cmake.define.LOWP_CUDA=ON -C build-dir=build-python/gpu . >"$out/build.log" 2>&1; then
  tail -40 "$out/build.log"
  echo "gpu-python.sh: build failed"
  exit 1
fi
echo "gpu-python.sh: built in $((SECONDS - start)) s"
if compgen -G ".whl/*.whl" >/dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --target "$site" .whl/*.whl || exit 1
fi
export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"
python3 -c "import lowp, torch; assert lowp.cuda_available(), 'no CUDA backend'; print('lowp', lowp.version(), 'torch', torch.__version__)" || exit 1
rc=0
if [[ " $steps " == *" tests "* ]]; then
  (cd /tmp && python3 -m pytest -q -p no:cacheprovider -rs "$OLDPWD/tests/python/test_torch_linear.py" \
     "$OLDPWD/tests/python/test_torch_ops.py" "$OLDPWD/tests/python/test_gemm.py") 2>&1 | tee "$out/tests.log" | tail -25
  rc=$((rc | ${PIPESTATUS[0]}))
fi
if [[ " $steps " == *" bench "* ]]; then
  # shellcheck disable=SC2086
  python3 bench/linear_bench.py ${LOWP_LINEAR_BENCH_ARGS:---rounds 5} --json "$out/linear_bench.json" 2>&1 \
    | tee "$out/linear_bench.log"
  rc=$((rc | ${PIPESTATUS[0]}))
fi
echo "gpu-python.sh: done in $((SECONDS - start)) s, rc $rc"
exit "$rc"
