#!/usr/bin/env bash
# Configures and builds Tessera into build/ (or $TESSERA_BUILD_DIR): every
# target, or only those named in $TESSERA_BUILD_TARGETS (e.g. tessera_main,
# the driver and its plugins). Extra arguments are passed to cmake at
# configure time. The build is a unity build (TESSERA_UNITY_BUILD, about a
# third of the CPU of a file-by-file build from scratch); set
# TESSERA_UNITY_BUILD=OFF for file-by-file incremental work.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR="${TESSERA_BUILD_DIR:-build}"
JOBS="${TESSERA_JOBS:-$(nproc)}"
cmake -S . -B "$BUILD_DIR" -G Ninja \
  -DTESSERA_UNITY_BUILD="${TESSERA_UNITY_BUILD:-ON}" "$@" >/dev/null
read -r -a targets <<< "${TESSERA_BUILD_TARGETS:-all}"
cmake --build "$BUILD_DIR" -j "$JOBS" --target "${targets[@]}"
