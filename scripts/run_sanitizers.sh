#!/usr/bin/env bash
# Builds the unit tests under AddressSanitizer + UndefinedBehaviorSanitizer in
# build-asan/ and runs them: every ctest test except those labelled
# conformance, sdk, bench or python (the Python-side matrix and the cost
# model's libtpu checks are not repeated).
set -euo pipefail
cd "$(dirname "$0")/.."
export TESSERA_BUILD_DIR=build-asan
bash scripts/build.sh -DTESSERA_SANITIZE=ON -DTESSERA_BUILD_BENCH=OFF \
  -DCMAKE_BUILD_TYPE=Debug
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir build-asan --output-on-failure -j "${TESSERA_JOBS:-$(nproc)}" \
  -LE "conformance|sdk|bench|python"
