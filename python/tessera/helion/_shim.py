"""The ``helion`` and ``helion.language`` names a kernel file imports, for
programs run without the ``helion`` package installed. Only what a kernel
file and its callers use at import and call time is here; Helion's test
helpers (``helion._testing``) are not."""

from __future__ import annotations

import enum
import sys
import types

from .. import Config as _Config
from .. import language as _language
from . import _kernel


class RefMode(enum.Enum):
    OFF = "off"
    EAGER = "eager"


def cdiv(a: int, b: int) -> int:
    return -(a // -b)


def next_power_of_2(n: int) -> int:
    return 1 if n <= 1 else 1 << (int(n) - 1).bit_length()


class Config(_Config):
    """``helion.Config``: a mapping of its keys, as Helion's."""

    def __init__(self, **items):
        super().__init__(block_sizes=items.pop("block_sizes", None), **items)

    @property
    def config(self) -> dict:
        items = dict(self.options)
        if self.block_sizes is not None:
            items["block_sizes"] = self.block_sizes
        return items

    def __getitem__(self, key):
        return self.config[key]

    def __iter__(self):
        return iter(self.config)

    def __len__(self) -> int:
        return len(self.config)

    def get(self, key, default=None):
        return self.config.get(key, default)


class _Exceptions(types.ModuleType):
    """``helion.exc``: any name is an Exception subclass, so that files
    catching Helion's errors import."""

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        error = type(name, (Exception,), {"__module__": "helion.exc"})
        setattr(self, name, error)
        return error


def modules() -> dict[str, types.ModuleType]:
    """Fresh ``helion``, ``helion.language``, ``helion.runtime`` and
    ``helion.exc`` modules."""
    helion = types.ModuleType("helion", "Helion's names, provided by tessera.helion")
    helion.__tessera_shim__ = True
    helion.__path__ = []  # a package, so that `import helion.language` works
    runtime = types.ModuleType("helion.runtime")
    runtime.__tessera_shim__ = True
    runtime.__path__ = []
    exc = _Exceptions("helion.exc")
    for module in (helion, runtime):
        module.kernel = _kernel.kernel
        module.jit = _kernel.kernel
        module.Kernel = _kernel.Kernel
        module.Config = Config
    helion.cdiv = cdiv
    helion.next_power_of_2 = next_power_of_2
    helion.RefMode = RefMode
    helion.language = _language
    helion.runtime = runtime
    helion.exc = exc
    return {"helion": helion, "helion.language": _language, "helion.runtime": runtime,
            "helion.exc": exc}


def register() -> dict:
    """Puts the shim in sys.modules; returns what it replaced (nothing,
    unless an earlier shim was there)."""
    replaced = {}
    for name, module in modules().items():
        replaced[name] = sys.modules.get(name)
        sys.modules[name] = module
    return replaced
