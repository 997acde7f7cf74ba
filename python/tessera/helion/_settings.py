"""What ``tessera.helion.install()`` chose (the pipeline, interpret mode),
and Helion's ``Settings`` / ``Config`` objects, made with Helion's own
classes when the ``helion`` package is installed."""

from __future__ import annotations

import dataclasses
import functools
import os
import sys
import types

from .. import _pipeline


@dataclasses.dataclass(frozen=True)
class Install:
    """The pipeline Helion kernels compile through. `backend` / `launcher`
    as in ``tessera.load``; `config` a pipeline TOML."""

    backend: str | None = None
    launcher: str | None = None
    config: str | None = None
    options: tuple = ()
    interpret: bool | None = None

    @staticmethod
    def from_environment() -> "Install":
        """TESSERA_BACKEND, TESSERA_LAUNCHER, TESSERA_CONFIG, as the
        ``python -m tessera.helion`` flags set them."""
        return Install(backend=os.environ.get("TESSERA_BACKEND") or None,
                       launcher=os.environ.get("TESSERA_LAUNCHER") or None,
                       config=os.environ.get("TESSERA_CONFIG") or None)

    def backend_name(self) -> str:
        if self.backend is not None:
            return self.backend
        if self.config is not None:
            return ""
        platform = _pipeline.device_platform()
        return "pallas-gpu" if platform in ("gpu", "cuda", "rocm") else "pallas-tpu"

    def pipeline(self, launcher: str | None = None) -> _pipeline.Pipeline:
        return _chosen_pipeline(self, launcher or self.launcher)


@functools.lru_cache(maxsize=64)
def _chosen_pipeline(install: Install, launcher: str | None) -> _pipeline.Pipeline:
    # Resolved once per install and launcher: every call of a Helion kernel
    # asks (the config files and JAX's device do not change in a process).
    return _pipeline.choose(install.config, install.backend, launcher, dict(install.options))


_current = Install.from_environment()


def current() -> Install:
    return _current


def set_current(install: Install) -> None:
    global _current
    _current = install


def _helion_package():
    """The installed ``helion`` package (not the shim), once imported."""
    module = sys.modules.get("helion")
    if module is None or getattr(module, "__tessera_shim__", False):
        return None
    return module if hasattr(module, "Config") else None


def make_settings(settings, values: dict):
    """Helion's ``Settings`` when Helion is installed (its tests read
    ``kernel.settings.ref_mode`` through Helion's own helpers); otherwise a
    namespace with the settings given and Helion's defaults for the ones
    Tessera reads."""
    package = _helion_package()
    settings_class = getattr(package, "Settings", None) if package is not None else None
    if settings_class is not None and dataclasses.is_dataclass(settings_class):
        if settings is not None:
            return dataclasses.replace(settings, **values) if values else settings
        known = {f.name for f in dataclasses.fields(settings_class)}
        return settings_class(**{k: v for k, v in values.items() if k in known})
    merged = dict(vars(settings)) if settings is not None else {}
    merged.update(values)
    merged.setdefault("static_shapes", True)
    return types.SimpleNamespace(**merged)


def make_config(items: dict):
    """A ``helion.Config`` of the package in use (Helion's or the shim's)."""
    package = _helion_package()
    if package is not None:
        return package.Config(**items)
    from . import _shim

    return _shim.Config(**items)
