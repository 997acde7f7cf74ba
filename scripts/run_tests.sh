#!/usr/bin/env bash
# Sets up the machine, builds Tessera and runs every test (unit, IR-file,
# CLI, SDK and the numerical conformance matrix) with ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
JOBS="${TESSERA_JOBS:-$(nproc)}"
ctest --test-dir "${TESSERA_BUILD_DIR:-build}" --output-on-failure -j "$JOBS"
