"""Helion's kernel language names (``import tessera.language as hl``) for
kernels written against Tessera. A kernel's body is compiled, never run by
Python: these names only need to exist for the file to import."""

from __future__ import annotations

_NAMES = (
    "tile", "grid", "zeros", "full", "arange", "specialize", "register_block_size",
    "register_tunable", "atomic_add", "atomic_max", "atomic_min", "load", "store",
    "dot", "rand", "jagged_tile", "barrier", "constexpr", "Tile",
)


class _Marker:
    def __init__(self, name: str):
        self._name = name

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"hl.{self._name} runs only inside a kernel that Tessera compiles")

    def __getitem__(self, item):  # annotations such as hl.constexpr[int]
        return self

    def __repr__(self) -> str:
        return f"<tessera.language.{self._name}>"


def __getattr__(name: str):
    if name.startswith("__"):
        raise AttributeError(name)
    return _Marker(name)


__all__ = list(_NAMES)
