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
# What the main job needs (TESSERA_SETUP=main, scripts/run_main.sh): JAX,
# NumPy and nanobind (the build's python/native module, `import tessera`).
MAIN_PYTHON_PACKAGES=(jax==0.10.2 jaxlib==0.10.2 "numpy<3" nanobind==2.9.2)
# What the tests need besides. libtpu: the real TPU compiler (the version
# jax[tpu]==0.10.2 pins); it compiles kernels ahead of time for v5e / v6e /
# v7x with no TPU attached. absl-py and flatbuffers: Pallas's Mosaic GPU
# import and cuda export; triton (bundles ptxas / cuobjdump): the sm_90a
# cubin cells of pallas-gpu. matplotlib and rich: `tessera bench` (its PNG
# plots and progress bar). pytest: tests/runtime; torch: PyTorch tensors
# through the runtime (DLPack); scikit-build-core: `pip install .`.
TEST_PYTHON_PACKAGES=("libtpu==0.0.42.*" pyflakes==3.2.0
                      absl-py==2.5.1 flatbuffers==25.12.19 triton==3.9.0
                      matplotlib==3.11.2 rich==15.0.0 pytest==9.2.0
                      torch==2.15.0 scikit-build-core==1.1.2)
PYTHON_PACKAGES=("${MAIN_PYTHON_PACKAGES[@]}")
if [[ "${TESSERA_SETUP:-all}" != main ]]; then
  PYTHON_PACKAGES+=("${TEST_PYTHON_PACKAGES[@]}")
fi
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
# The stamp lists what was installed, one package a line: the main job's
# set is part of the tests' set, so either order of the two commands works.
missing_python=()
for pkg in "${PYTHON_PACKAGES[@]}"; do
  grep -qxF -- "$pkg" "$STAMP" 2>/dev/null || missing_python+=("$pkg")
done
if [[ ! -x "$VENV/bin/python" ]]; then
  echo "setup: creating Python environment in $VENV"
  python3 -m venv "$VENV"
  rm -f "$STAMP"
  missing_python=("${PYTHON_PACKAGES[@]}")
fi
if ((${#missing_python[@]})); then
  echo "setup: installing Python packages: ${missing_python[*]}"
  "$VENV/bin/pip" install -q --disable-pip-version-check "${missing_python[@]}"
  printf '%s\n' "${missing_python[@]}" >> "$STAMP"
fi
# The tessera package as a development install: python/ on the venv's path,
# the compiler module from the build tree (python/tessera/_native_loader.py).
# `pip install .` builds a self-contained wheel instead.
site_packages=$("$VENV/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
echo "$PWD/python" > "$site_packages/tessera-dev.pth"
# The current JAX release (tests/jax_current): its own venv, since 0.12
# needs Python >= 3.12 (pyenv's here). Skipped, with a note, where there is
# no Python 3.12; the main job does not need it.
CURRENT_JAX_PACKAGES=(jax==0.12.0.1 jaxlib==0.12.0.1 "numpy<3" pyflakes==3.2.0
                      absl-py==2.5.1 flatbuffers==25.12.19)
CURRENT_VENV=.venv-jax-current
if [[ "${TESSERA_SETUP:-all}" != main ]]; then
  # pyenv's shim answers `command -v` even when 3.12 is not selected, so
  # each candidate must run.
  python312=""
  candidates=(python3.12)
  if command -v pyenv >/dev/null; then
    candidates=("$(pyenv root)"/versions/3.12*/bin/python3.12 "${candidates[@]}")
  fi
  for candidate in "${candidates[@]}"; do
    if "$candidate" --version >/dev/null 2>&1; then
      python312=$candidate
      break
    fi
  done
  current_wanted="${CURRENT_JAX_PACKAGES[*]}"
  if [[ -z "$python312" ]]; then
    echo "setup: no Python 3.12: the current-JAX checks (tests/jax_current) are skipped"
  elif [[ "$(cat "$CURRENT_VENV/.tessera-requirements" 2>/dev/null)" != "$current_wanted" ]]; then
    echo "setup: creating $CURRENT_VENV (${CURRENT_JAX_PACKAGES[*]})"
    "$python312" -m venv "$CURRENT_VENV"
    "$CURRENT_VENV/bin/pip" install -q --disable-pip-version-check "${CURRENT_JAX_PACKAGES[@]}"
    echo "$current_wanted" > "$CURRENT_VENV/.tessera-requirements"
  fi
fi
if [[ "${TESSERA_RAY:-0}" == 1 || "${CI:-}" == true ]] \
    && ! "$VENV/bin/python" -c "import ray" 2>/dev/null; then
  echo "setup: installing ${RAY_PACKAGES[*]} (tessera bench --ray)"
  "$VENV/bin/pip" install -q --disable-pip-version-check "${RAY_PACKAGES[@]}"
fi
echo "setup: ok"
