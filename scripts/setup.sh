#!/usr/bin/env bash
# Installs everything Tessera needs on a fresh Debian machine and creates the
# Python virtual environment used by the conformance tests. Idempotent: when
# everything is already there it only checks, in about a second.
set -euo pipefail
cd "$(dirname "$0")/.."

DEBIAN_PACKAGES=(
  g++ cmake ninja-build pkg-config clang-format
  libfmt-dev libtomlplusplus-dev libabsl-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  # tcmalloc_minimal, the allocator of the tessera executables
  # (cmake/TesseraAllocator.cmake): about 15 % fewer instructions a compile.
  libgoogle-perftools-dev
  python3 python3-venv
)
# scripts/fuzz.sh (TESSERA_FUZZ=1): clang and its libFuzzer runtime.
if [[ "${TESSERA_FUZZ:-0}" == 1 ]]; then
  DEBIAN_PACKAGES+=(clang-14 libclang-rt-14-dev)
fi
# libtpu: the real TPU compiler (the version jax[tpu]==0.10.2 pins); it
# compiles kernels ahead of time for v5e / v6e / v7x with no TPU attached.
# absl-py and flatbuffers: Pallas's Mosaic GPU import and cuda export;
# triton (bundles ptxas / cuobjdump): the sm_90a cubin cells of pallas-gpu.
# matplotlib and rich: `tessera bench` (its PNG plots and progress bar).
PYTHON_PACKAGES=(jax==0.10.2 jaxlib==0.10.2 "libtpu==0.0.42.*" "numpy<3" pyflakes==3.2.0
                 absl-py==2.5.1 flatbuffers==25.12.19 triton==3.9.0
                 matplotlib==3.11.2 rich==15.0.0)
# Ray: optional (`tessera bench --ray`, the test bench_matrix_ray). CI
# (CI=true) and TESSERA_RAY=1 install it: one wheel, about 30 s.
RAY_PACKAGES=(ray==2.60.0)

missing=()
for pkg in "${DEBIAN_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$pkg")
done
if ((${#missing[@]})); then
  echo "setup: installing Debian packages: ${missing[*]}"
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

VENV=.venv
STAMP="$VENV/.tessera-requirements"
wanted="${PYTHON_PACKAGES[*]}"
if [[ ! -x "$VENV/bin/python" ]] || [[ "$(cat "$STAMP" 2>/dev/null)" != "$wanted" ]]; then
  echo "setup: creating Python environment in $VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check "${PYTHON_PACKAGES[@]}"
  echo "$wanted" > "$STAMP"
fi
if [[ "${TESSERA_RAY:-0}" == 1 || "${CI:-}" == true ]] \
    && ! "$VENV/bin/python" -c "import ray" 2>/dev/null; then
  echo "setup: installing ${RAY_PACKAGES[*]} (tessera bench --ray)"
  "$VENV/bin/pip" install -q --disable-pip-version-check "${RAY_PACKAGES[@]}"
fi
echo "setup: ok"
