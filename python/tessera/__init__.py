"""Tessera: Helion-syntax kernels compiled at their call into JAX Pallas
kernels for TPUs and NVIDIA GPUs.

    import tessera
    lib = tessera.load("examples/matmul.py")
    out = lib.matmul(x, y)          # compiled for x's and y's dtypes and shapes

    @tessera.kernel
    def add(x, y): ...              # a kernel of your own module

docs/runtime.md describes binding, the caches and the guards.
"""

from __future__ import annotations

from ._cache import STATS as _STATS
from ._cache import CacheStats, cache_dir
from ._kernel import Kernel, KernelLibrary, Specialization, kernel, load
from .errors import CompileError, Diagnostic, InternalCompilerError

__version__ = "0.1.0"


class Config:
    """A kernel configuration, as ``helion.Config``: ``block_sizes`` (one
    per ``hl.tile`` dim, outer before inner) apply; other keys are kept for
    the pipeline to read."""

    def __init__(self, block_sizes=None, **options):
        self.block_sizes = list(block_sizes) if block_sizes is not None else None
        self.options = options

    def __repr__(self) -> str:
        return f"tessera.Config(block_sizes={self.block_sizes}, **{self.options})"


def cache_stats() -> CacheStats:
    """Compiles run, memory hits and disk hits of this process so far."""
    return CacheStats(**vars(_STATS))


__all__ = [
    "CacheStats", "CompileError", "Config", "Diagnostic", "InternalCompilerError", "Kernel",
    "KernelLibrary", "Specialization", "cache_dir", "cache_stats", "kernel", "load",
]
