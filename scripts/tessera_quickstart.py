"""The runtime in a few lines (scripts/run_main.sh runs it): a kernel file
loaded with `import tessera`, compiled at each call for the arguments'
dtypes and shapes, checked against NumPy."""

import time

import jax.numpy as jnp
import numpy as np

import tessera

library = tessera.load("examples/matmul.py")
rng = np.random.default_rng(0)
for dtype in (jnp.float32, jnp.bfloat16):
    x = jnp.asarray(rng.standard_normal((256, 384)), dtype)
    y = jnp.asarray(rng.standard_normal((384, 128)), dtype)
    start = time.perf_counter()
    out = library.matmul(x, y)  # the first call at a signature compiles it
    seconds = time.perf_counter() - start
    expected = np.asarray(x, np.float64) @ np.asarray(y, np.float64)
    error = np.max(np.abs(np.asarray(out, np.float64) - expected)) / np.max(np.abs(expected))
    print(f"  matmul {x.dtype}{list(x.shape)} @ {y.dtype}{list(y.shape)} -> "
          f"{out.dtype}{list(out.shape)}: relative error {error:.1e}, "
          f"first call {seconds * 1e3:.0f} ms (compile, trace, interpret)")
    assert out.dtype == dtype and error < (1e-5 if dtype == jnp.float32 else 2e-2)
stats = tessera.cache_stats()
print(f"  compiles {stats.compiles}, disk cache hits {stats.disk_hits} "
      f"({tessera.cache_dir()})")
