"""Helion programs on Tessera: ``helion.kernel`` compiles through Tessera.

    import tessera.helion
    tessera.helion.install()        # before the kernel files are imported
    import my_helion_program        # its @helion.kernel functions run on Tessera

or, with no change to the program: ``python -m tessera.helion program.py``.
With the ``helion`` package installed, Tessera takes over its ``kernel``
(and ``jit``) decorator; without it, Tessera provides the ``helion`` and
``helion.language`` names a kernel file imports. docs/runtime.md ("Helion
programs") describes what carries over.
"""

from __future__ import annotations

import sys

from . import _settings, _shim
from ._kernel import BoundKernel, ConfigSpec, Kernel, kernel

_saved: dict | None = None


def _helion_package():
    """The installed ``helion`` package, or None (the shim is not one)."""
    module = sys.modules.get("helion")
    if module is None:
        try:
            import helion as module  # noqa: F401
        except ImportError:
            return None
    # A namespace package (a directory named helion on sys.path, such as
    # a checkout) is not the package.
    if getattr(module, "__tessera_shim__", False) or not hasattr(module, "kernel"):
        if sys.modules.get("helion") is module:
            del sys.modules["helion"]
        return None
    return module


def install(*, backend: str | None = None, launcher: str | None = None,
            config: str | None = None, options: dict | None = None,
            interpret: bool | None = None) -> None:
    """Make ``helion.kernel`` produce Tessera kernels from now on.

    `backend` ("pallas-tpu" | "pallas-gpu"), `launcher` and `config` (a
    pipeline TOML) choose the pipeline as ``tessera.load`` does; by default
    it follows JAX's device, or TESSERA_BACKEND / TESSERA_LAUNCHER /
    TESSERA_CONFIG. Kernel files imported before this call keep the
    decorator they were given.
    """
    global _saved
    environment = _settings.Install.from_environment()
    _settings.set_current(_settings.Install(
        backend=backend if backend is not None else environment.backend,
        launcher=launcher if launcher is not None else environment.launcher,
        config=config if config is not None else environment.config,
        options=tuple(sorted((options or {}).items())),
        interpret=interpret))
    if _saved is not None:
        return  # already installed: only the pipeline changed
    package = _helion_package()
    if package is None:
        _saved = {"shim": _shim.register()}
        return
    import helion.runtime as helion_runtime

    _saved = {"patched": [(package, "kernel", package.kernel),
                          (package, "jit", getattr(package, "jit", package.kernel)),
                          (helion_runtime, "kernel", helion_runtime.kernel)]}
    package.kernel = kernel
    package.jit = kernel
    helion_runtime.kernel = kernel


def uninstall() -> None:
    """Give ``helion.kernel`` back (kernels made meanwhile stay Tessera's)."""
    global _saved
    if _saved is None:
        return
    for owner, name, value in _saved.get("patched", []):
        setattr(owner, name, value)
    for name, module in _saved.get("shim", {}).items():
        if module is None:
            sys.modules.pop(name, None)
        else:
            sys.modules[name] = module
    _saved = None


def installed() -> bool:
    return _saved is not None


__all__ = ["BoundKernel", "ConfigSpec", "Kernel", "install", "installed", "kernel",
           "uninstall"]
