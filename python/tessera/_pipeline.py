"""Which pipeline compiles a kernel: a config file the user names, a
backend and launcher the user names, or the one that suits the device JAX
runs on."""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import pathlib
import tomllib

from ._native_loader import configs_dir

_DEFAULT_LAUNCHER = {"pallas-tpu": "emit_pipeline", "pallas-gpu": "triton"}
_CONFIG_PREFIX = {"pallas-tpu": "pallas_", "pallas-gpu": "pallas_gpu_"}


@dataclasses.dataclass(frozen=True)
class Pipeline:
    """A config file and the backend options set over it."""

    config: str  # path of a pipeline TOML
    options: tuple[tuple[str, str], ...] = ()
    # Tried in order when the first does not compile a kernel (the GPU's
    # default: Mosaic GPU where it compiles, Triton otherwise).
    fallback: "Pipeline | None" = None
    # The caller named the launcher (or a config of its own): blocks chosen
    # at the call keep it; otherwise the cost model may pick another.
    launcher_fixed: bool = False

    def gives_blocks(self, kernel: str) -> bool:
        """Whether the config sets `kernel`'s blocks ([kernels.NAME] or
        [kernels."*"] block_sizes, as `tessera tune` writes them)."""
        kernels = _config_tables(self.config).get("kernels", {})
        return any(isinstance(kernels.get(name), dict) and "block_sizes" in kernels[name]
                   for name in (kernel, "*"))

    def key(self) -> str:
        """Identifies the pipeline in cache keys: the config's text, not its
        path, so that an edited config compiles again."""
        stat = pathlib.Path(self.config).stat()
        return _config_key(self.config, stat.st_mtime_ns, stat.st_size, self.options)

    @property
    def name(self) -> str:
        return pathlib.Path(self.config).stem


@functools.lru_cache(maxsize=64)
def _config_key(path: str, mtime_ns: int, size: int, options) -> str:
    digest = hashlib.sha256(pathlib.Path(path).read_bytes())
    digest.update(repr(options).encode())
    return digest.hexdigest()


def _config_tables(path: str) -> dict:
    stat = pathlib.Path(path).stat()
    return _parsed_config(path, stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=64)
def _parsed_config(path: str, mtime_ns: int, size: int) -> dict:
    try:
        with open(path, "rb") as stream:
            return tomllib.load(stream)
    except (OSError, tomllib.TOMLDecodeError):
        return {}  # the compiler reports the config's errors, located


def _launchers(backend: str) -> list[str]:
    prefix = _CONFIG_PREFIX[backend]
    names = []
    for path in sorted(configs_dir().glob(f"{prefix}*.toml")):
        launcher = path.stem[len(prefix):]
        if backend == "pallas-tpu" and launcher.startswith("gpu_"):
            continue
        names.append(launcher)
    return names


def _named(backend: str, launcher: str | None, options) -> Pipeline:
    if backend not in _CONFIG_PREFIX:
        raise ValueError(f"unknown backend {backend!r}; Tessera has: "
                         f"{', '.join(sorted(_CONFIG_PREFIX))}")
    launcher = launcher or _DEFAULT_LAUNCHER[backend]
    path = configs_dir() / f"{_CONFIG_PREFIX[backend]}{launcher}.toml"
    if not path.is_file():
        raise ValueError(f"unknown launcher {launcher!r} for {backend}; it has: "
                         f"{', '.join(_launchers(backend))}")
    return Pipeline(str(path), options)


def device_platform() -> str:
    import jax

    return jax.default_backend()


def choose(config=None, backend=None, launcher=None, options=()) -> Pipeline:
    options = tuple(sorted((str(k), str(v)) for k, v in dict(options).items()))
    if config is not None:
        if backend is not None or launcher is not None:
            raise ValueError("give either config= or backend=/launcher=, not both")
        path = pathlib.Path(config)
        if not path.is_file():
            raise FileNotFoundError(f"pipeline config {config!r} not found")
        return Pipeline(str(path.resolve()), options, launcher_fixed=True)
    if backend is not None:
        return dataclasses.replace(_named(backend, launcher, options),
                                   launcher_fixed=launcher is not None)
    platform = device_platform()
    if platform in ("gpu", "cuda", "rocm"):
        if launcher is not None:
            return dataclasses.replace(_named("pallas-gpu", launcher, options),
                                       launcher_fixed=True)
        triton = _named("pallas-gpu", "triton", options)
        return dataclasses.replace(_named("pallas-gpu", "mosaic", options), fallback=triton)
    return dataclasses.replace(_named("pallas-tpu", launcher, options),
                               launcher_fixed=launcher is not None)
