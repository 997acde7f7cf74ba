#!/usr/bin/env bash
# The main job: set up (JAX and what the build needs only; the tests' tools
# are scripts/run_tests.sh's), build the driver, its plugins and the Python
# package's compiler module (not the tests and benchmarks), compile every
# example kernel with the built-in default pipeline into out/, run one
# generated kernel in JAX interpret mode on the CPU and print its largest
# error against NumPy, then run a kernel through `import tessera`.
set -euo pipefail
cd "$(dirname "$0")/.."
TESSERA_SETUP=main bash scripts/setup.sh
TESSERA_BUILD_TARGETS=tessera_main bash scripts/build.sh
TESSERA="${TESSERA_BUILD_DIR:-build}/bin/tessera"
mkdir -p out
echo "== compiling examples/*.py with the default pipeline"
"$TESSERA" pipeline
for source in examples/*.py; do
  name=$(basename "$source" .py)
  [[ "$name" == references ]] && continue
  start=$(date +%s%N)
  "$TESSERA" compile "$source" -o "out/${name}_pallas.py"
  elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
  printf '  %-18s -> out/%s_pallas.py  (%d lines, %d ms incl. process start)\n' \
    "$name" "$name" "$(wc -l < "out/${name}_pallas.py")" "$elapsed_ms"
done
echo "== running out/matmul_pallas.py"
# The CPU backend only: the venv's libtpu would otherwise be probed for a
# TPU host at start-up (and warn that there is none).
JAX_PLATFORMS=cpu .venv/bin/python scripts/run_example.py out/matmul_pallas.py matmul
echo "== running examples/matmul.py through import tessera (scripts/tessera_quickstart.py)"
JAX_PLATFORMS=cpu .venv/bin/python scripts/tessera_quickstart.py
