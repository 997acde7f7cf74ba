"""Finds ``tessera._native`` (the compiler, in-process) and its plugins.

Installed (``pip install .``), the module sits in the package with the
plugins under ``lib/tessera/plugins``. In a checkout (``scripts/setup.sh``
puts ``python/`` on the venv's path) it is the build tree's:
``$TESSERA_BUILD_DIR`` or ``build/`` at the repository root, whose plugins
the core finds by itself.
"""

from __future__ import annotations

import atexit
import functools
import importlib.machinery
import importlib.util
import os
import pathlib
import sys
import threading

PACKAGE_DIR = pathlib.Path(__file__).resolve().parent
REPOSITORY = PACKAGE_DIR.parent.parent


def _build_dir() -> pathlib.Path:
    return pathlib.Path(os.environ.get("TESSERA_BUILD_DIR") or REPOSITORY / "build")


def _load_from(path: pathlib.Path):
    spec = importlib.util.spec_from_file_location("tessera._native", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["tessera._native"] = module
    spec.loader.exec_module(module)
    return module


@functools.lru_cache(maxsize=None)
def native():
    """The ``tessera._native`` module."""
    try:
        from tessera import _native  # installed: inside the package
        return _native
    except ImportError:
        pass
    build = _build_dir() / "python" / "tessera"
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        candidate = build / f"_native{suffix}"
        if candidate.exists():
            return _load_from(candidate)
    raise ImportError(
        "tessera's compiler module (_native) is not built: run "
        "`bash scripts/setup.sh && bash scripts/build.sh` in the checkout, "
        f"or `pip install .` (looked in {build})")


def plugin_paths() -> list[str]:
    """Plugin folders to search before the core's own search path."""
    installed = PACKAGE_DIR / "lib" / "tessera" / "plugins"
    return [str(installed)] if installed.is_dir() else []


def loaded_binaries() -> list[pathlib.Path]:
    """The compiler's shared objects as found: the binding, the core and
    the plugins (installed, or in the build folder of a checkout)."""
    module = pathlib.Path(native().__file__)
    folders = [module.parent, module.parent / "lib", module.parent / "lib" / "tessera" / "plugins",
               _build_dir() / "lib", _build_dir() / "lib" / "tessera" / "plugins",
               *map(pathlib.Path, plugin_paths())]
    found = {module}
    for folder in folders:
        if folder.is_dir():
            found.update(folder.glob("*.so*"))
    return sorted(found)


def configs_dir() -> pathlib.Path:
    """The pipeline configs shipped with Tessera."""
    installed = PACKAGE_DIR / "configs"
    return installed if installed.is_dir() else REPOSITORY / "configs"


# Plugins are called from one thread at a time (core/include/tessera/
# plugin.h); the binding releases the GIL while it compiles, so the runtime
# serializes its calls itself.
_COMPILER_LOCK = threading.Lock()


class _SerializedCompiler:
    """The process's compiler, one call at a time."""

    def __init__(self, instance):
        self._instance = instance
        self.load_errors = instance.load_errors

    def compile(self, *args):
        with _COMPILER_LOCK:
            return self._instance.compile(*args)

    def choose_blocks(self, *args):
        with _COMPILER_LOCK:
            return self._instance.choose_blocks(*args)

    def plugin_versions(self):
        with _COMPILER_LOCK:
            return self._instance.plugin_versions()


@functools.lru_cache(maxsize=None)
def compiler():
    """The process's compiler, plugins loaded once."""
    module = native()
    instance = module.Compiler(plugin_paths())
    if instance.load_errors:
        raise ImportError(f"tessera: plugins failed to load:\n{instance.load_errors}")
    # Freed before the interpreter's teardown, which nanobind would
    # otherwise report as a leak of the compiler (and its plugins unloaded
    # after the objects they made).
    atexit.register(compiler.cache_clear)
    return _SerializedCompiler(instance)
