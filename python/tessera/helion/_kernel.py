"""``helion.Kernel`` and ``BoundKernel`` as Helion's users and tests call
them, compiled by Tessera: the kernel is compiled at each new call
signature by the runtime (``tessera.kernel``); its ``configs`` are read at
the call, so a test that sets ``kernel.configs = [Config(...)]`` gets those
blocks."""

from __future__ import annotations

import functools
import threading
import warnings

from .. import _kernel as runtime
from .._pipeline import Pipeline
from .._source import source_of_function
from . import _settings

# Config keys that mean something to Tessera's pipelines; every other key is
# ignored, with one warning per key per process.
_HONOURED_KEYS = frozenset({"block_sizes", "pallas_loop_type"})
_PALLAS_LOOP_TYPES = {"unroll": "unroll", "emit_pipeline": "emit_pipeline",
                      "fori_loop": "fori_loop", "default": None}
_warned_keys: set[str] = set()
_warned_lock = threading.Lock()


def config_items(config) -> dict:
    """A ``helion.Config``, ``tessera.Config`` or dict as a plain dict."""
    if config is None:
        return {}
    if isinstance(config, dict):
        return dict(config)
    inner = getattr(config, "config", None)
    if isinstance(inner, dict):
        return dict(inner)
    items = {"block_sizes": getattr(config, "block_sizes", None)}
    items.update(getattr(config, "options", {}) or {})
    return {key: value for key, value in items.items() if value is not None}


def _warn_ignored(keys, source) -> None:
    with _warned_lock:
        fresh = sorted(set(keys) - _warned_keys)
        _warned_keys.update(fresh)
    for key in fresh:
        # Located at the kernel, not at the line of Tessera that noticed.
        warnings.warn_explicit(
            f"helion.Config key {key!r} has no meaning for Tessera's pipeline; ignored "
            "(this warning is shown once per key)", UserWarning, source.path, source.line)


class ConfigSpec:
    """What of a ``helion.Config`` Tessera reads (``bound.config_spec``)."""

    def __init__(self, kernel: "Kernel"):
        self._kernel = kernel

    def default_config(self):
        """An empty config: the runtime's cost model chooses the blocks."""
        return _settings.make_config({})

    def unsupported_config_keys(self, config) -> list[str]:
        return sorted(key for key in config_items(config) if key not in _HONOURED_KEYS)


class BoundKernel:
    """A kernel bound to example arguments (``kernel.bind(args)``)."""

    def __init__(self, kernel: "Kernel", args: tuple):
        self.kernel = kernel
        self.args = tuple(args)
        self.config_spec = ConfigSpec(kernel)
        self._config = None

    def _specialization(self, config):
        return self.kernel._runtime_kernel(config).bind(*self.args)

    def to_triton_code(self, config=None, **_options) -> str:
        """The generated Pallas module (Helion's name for "the code")."""
        return self._specialization(config if config is not None else self._config).code

    to_code = to_triton_code

    def compile_config(self, config=None, **_options):
        """A callable that runs the kernel with `config`'s blocks."""
        chosen = config if config is not None else self._config
        runtime_kernel = self.kernel._runtime_kernel(chosen)
        runtime_kernel.bind(*self.args)  # compile now, as Helion does
        return runtime_kernel

    def autotune(self, *_args, **_kwargs):
        """Tessera's blocks come from the cost model at the call; the
        chosen config is the empty one."""
        return self.config_spec.default_config()

    def __call__(self, *args):
        return self.kernel._runtime_kernel(self._config)(*args)


class Kernel:
    """A ``@helion.kernel`` function compiled by Tessera."""

    def __init__(self, fn, *, config=None, configs=None, key=None, settings=None,
                 **setting_values):
        if not callable(fn):
            raise TypeError(f"helion.kernel expects a function, got {type(fn).__name__}")
        self.fn = fn
        self.name = fn.__name__
        self.__name__ = fn.__name__
        self.__qualname__ = getattr(fn, "__qualname__", fn.__name__)
        self.__doc__ = fn.__doc__
        self.__module__ = getattr(fn, "__module__", None)
        self.__wrapped__ = fn
        if config is not None and configs:
            raise ValueError(f"helion.kernel({self.name}): give config= or configs=, not both")
        self.configs = [config] if config is not None else list(configs or [])
        self.key = key
        self.settings = _settings.make_settings(settings, setting_values)
        self._source = source_of_function(fn, "helion.kernel")
        # Helion's name: its tests clear it to force a new compile.
        self._bound_kernels: dict = {}
        self._lock = threading.Lock()
        for value in self.configs:
            self._check_config(value)

    def _check_config(self, config) -> None:
        items = config_items(config)
        ignored = [key for key in items if key not in _HONOURED_KEYS]
        if ignored:
            _warn_ignored(ignored, self._source)

    def _pipeline(self, items: dict) -> Pipeline:
        install = _settings.current()
        launcher = install.launcher
        loop_type = items.get("pallas_loop_type")
        if (loop_type is not None and install.backend_name() == "pallas-tpu"
                and install.config is None and launcher is None):
            launcher = _PALLAS_LOOP_TYPES.get(str(loop_type))
        return install.pipeline(launcher)

    def _runtime_kernel(self, config=None) -> runtime.Kernel:
        """The runtime kernel for `config` (or the kernel's single config),
        one per distinct set of blocks and settings."""
        if config is None and len(self.configs) == 1:
            config = self.configs[0]
        items = config_items(config)
        if config is not None:
            self._check_config(config)
        blocks = items.get("block_sizes") or None
        pipeline = self._pipeline(items)
        static_shapes = bool(getattr(self.settings, "static_shapes", True))
        interpret = _settings.current().interpret
        key = (tuple(blocks) if blocks else None, pipeline, static_shapes, interpret)
        with self._lock:
            found = self._bound_kernels.get(key)
            if found is None:
                found = runtime.Kernel(self._source, pipeline, block_sizes=blocks,
                                       static_shapes=static_shapes, interpret=interpret,
                                       block_sizes_are_hints=True)
                self._bound_kernels[key] = found
            return found

    def __call__(self, *args, **kwargs):
        return self._runtime_kernel()(*args, **kwargs)

    def bind(self, args, kwargs=None) -> BoundKernel:
        if kwargs:
            raise TypeError(f"{self.name}.bind takes positional arguments only, as Helion's")
        return BoundKernel(self, tuple(args))

    def reset(self) -> None:
        """Forgets compiled specializations of this kernel (its disk cache
        entries stay; they are keyed by content)."""
        with self._lock:
            self._bound_kernels.clear()

    def autotune(self, args, *, force=False, **_options):
        return self.bind(args).autotune()

    def __get__(self, instance, owner=None):
        # A kernel stored on a class stays a kernel, as Helion's does.
        if instance is None:
            return self
        return functools.partial(self, instance)

    def __repr__(self) -> str:
        return f"<helion kernel {self.name} compiled by Tessera ({self._source.where})>"


def kernel(fn=None, *, config=None, configs=None, key=None, **settings):
    """``helion.kernel``: a Helion kernel that Tessera compiles at its call."""
    if fn is not None:
        return Kernel(fn, config=config, configs=configs, key=key, **settings)
    return functools.partial(kernel, config=config, configs=configs, key=key, **settings)
