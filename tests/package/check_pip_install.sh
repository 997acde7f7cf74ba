#!/usr/bin/env bash
# `pip install .` into a fresh venv gives a working `import tessera` and a
# `tessera` command (the wheel carries the core, plugins, configs and CLI).
# usage: check_pip_install.sh SOURCE_DIR WORK_DIR PYTHON
set -euo pipefail
source_dir=$1
work=$2
python=$3
rm -rf "$work"
"$python" -m venv "$work/venv"
# JAX from the project's pin (the wheel's own dependency is jax>=0.10.2).
"$work/venv/bin/pip" install -q --disable-pip-version-check "jax==0.10.2" "jaxlib==0.10.2" "numpy<3"
"$work/venv/bin/pip" install -q --disable-pip-version-check "$source_dir"
"$work/venv/bin/tessera" --version
cd "$work"  # not the checkout: the installed package must stand alone
JAX_PLATFORMS=cpu TESSERA_CACHE_DIR="$work/cache" "$work/venv/bin/python" - "$source_dir" <<'PY'
import pathlib
import sys

import jax.numpy as jnp
import numpy as np

import tessera

assert "site-packages" in tessera.__file__, tessera.__file__
library = tessera.load(pathlib.Path(sys.argv[1]) / "examples" / "softmax.py")
x = jnp.asarray(np.random.default_rng(0).standard_normal((16, 256)), jnp.float32)
expected = np.exp(x - x.max(-1, keepdims=True))
expected /= expected.sum(-1, keepdims=True)
np.testing.assert_allclose(library.softmax(x), expected, rtol=1e-5)
print("import tessera from the wheel: softmax ok,", library.softmax.bind(x).config["pipeline"])
PY
