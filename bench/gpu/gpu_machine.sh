#!/usr/bin/env bash
# Runs bench_gpu.py on a machine with an NVIDIA GPU and no tessera build:
# the modules were generated elsewhere (bench_gpu.py --compile-only) and
# travel with the checkout, as may the helion wheel and the one it needs
# that such an image lacks (filecheck), in .whl/.
#
#   bash bench/gpu/gpu_machine.sh MODULES OUT [bench_gpu.py options...]
#
# Writes OUT/bench_gpu.{json,md,log}; prints the device and the versions
# first, so that a table always names what it ran on.
set -uo pipefail
modules=${1:?usage: gpu_machine.sh MODULES OUT [options]}
out=${2:?usage: gpu_machine.sh MODULES OUT [options]}
shift 2
mkdir -p "$out"
if compgen -G ".whl/*.whl" >/dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir \
    --upgrade --target /tmp/bench_gpu_site .whl/*.whl || exit 1
  export PYTHONPATH=/tmp/bench_gpu_site${PYTHONPATH:+:$PYTHONPATH}
fi
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total \
  --format=csv,noheader 2>&1 | tee "$out/device.txt"
python3 - <<'PY' 2>&1 | tee -a "$out/device.txt"
import importlib.metadata as metadata
for package in ("jax", "jaxlib", "torch", "triton", "helion"):
    try:
        print(package, metadata.version(package))
    except metadata.PackageNotFoundError:
        print(package, "not installed")
PY
# JAX and PyTorch share the GPU: JAX allocates on demand.
export XLA_PYTHON_CLIENT_PREALLOCATE=false PYTHONUNBUFFERED=1
python3 bench/gpu/bench_gpu.py --modules "$modules" --json "$out/bench_gpu.json" \
  --markdown "$out/bench_gpu.md" "$@" 2>&1 | tee "$out/bench_gpu.log"
