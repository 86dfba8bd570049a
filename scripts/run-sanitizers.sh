#!/usr/bin/env bash
# The adversarial suite of docs/testing.md, CPU only, each sanitizer in a build folder of its own:
#   asan  the CPU test suite (ctest -L cpu, the bounded fuzz run and the regression corpus among
#         it) built with AddressSanitizer + UBSan, every report fatal        build-asan/
#   tsan  the thread test (concurrent calls, per-thread messages) under ThreadSanitizer
#                                                                            build-tsan/
# CI's second step (.ci/run); docs/testing.md has its measured times.
# usage: scripts/run-sanitizers.sh [asan] [tsan]      (default: both)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/cuda/bin:$PATH"
steps=("$@")
((${#steps[@]})) || steps=(asan tsan)
jobs="$(nproc)"

configure() {  # configure FOLDER SANITIZERS
  cmake -S . -B "$1" -G Ninja -DCMAKE_BUILD_TYPE=Release -DLOWP_CUDA=OFF -DLOWP_SANITIZE="$2" \
    -DLOWP_BUILD_CLI=ON -DLOWP_BUILD_TESTS=ON -DLOWP_BUILD_BENCH=OFF >/dev/null
}

for step in "${steps[@]}"; do
  start=$SECONDS
  case "$step" in
    asan)
      echo "sanitizers: AddressSanitizer + UBSan build of the CPU tests in build-asan/"
      configure build-asan address,undefined
      cmake --build build-asan -j"$jobs"
      echo "sanitizers: build-asan built after $((SECONDS - start)) s"
      export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1
      ctest --test-dir build-asan -L cpu --output-on-failure --no-tests=error -j"$jobs"
      ;;
    tsan)
      echo "sanitizers: ThreadSanitizer build of the thread test in build-tsan/"
      configure build-tsan thread
      cmake --build build-tsan -j"$jobs" --target fuzz_threads_test
      echo "sanitizers: build-tsan built after $((SECONDS - start)) s"
      TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 build-tsan/tests/fuzz/fuzz_threads_test
      ;;
    *) echo "usage: scripts/run-sanitizers.sh [asan] [tsan]" >&2; exit 2 ;;
  esac
  echo "sanitizers: $step done in $((SECONDS - start)) s"
done
