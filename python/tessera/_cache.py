"""Where compiled kernels are kept: in memory for the process, and on disk
(``$TESSERA_CACHE_DIR``, default ``~/.cache/tessera``) for later processes.

A disk entry is the generated module (``<kernel>_<key>.py``, importable and
readable as it is) beside a JSON file of what the compile reported. The key
hashes everything the module depends on: the source text, the kernel, the
call's signature, the pipeline config's text and options, the block sizes,
the plugins' versions and Tessera's version.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.util
import json
import os
import pathlib
import sys
import tempfile
import threading


@dataclasses.dataclass
class CacheStats:
    compiles: int = 0  # in-process compiles run
    memory_hits: int = 0
    disk_hits: int = 0  # modules loaded from the disk cache, no compile
    block_searches: int = 0  # blocks chosen by the cost model


STATS = CacheStats()
_LOCK = threading.Lock()


def cache_dir() -> pathlib.Path:
    configured = os.environ.get("TESSERA_CACHE_DIR")
    if configured:
        return pathlib.Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return pathlib.Path(base) / "tessera"


def disk_cache_enabled() -> bool:
    return os.environ.get("TESSERA_DISK_CACHE", "1") not in ("0", "false", "off")


def key_of(*parts: str) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode())
        digest.update(b"\0")
    return digest.hexdigest()[:32]


def _directory() -> pathlib.Path:
    if disk_cache_enabled():
        directory = cache_dir()
    else:
        directory = pathlib.Path(tempfile.gettempdir()) / f"tessera-{os.getpid()}"
    directory.mkdir(parents=True, exist_ok=True)
    return directory


def lookup(kernel: str, key: str) -> tuple[pathlib.Path, dict] | None:
    """The cached module of `key`, or None."""
    if not disk_cache_enabled():
        return None
    path = cache_dir() / f"{kernel}_{key}.py"
    meta = path.with_suffix(".json")
    if not (path.is_file() and meta.is_file()):
        return None
    try:
        return path, json.loads(meta.read_text())
    except (OSError, ValueError):
        return None  # a damaged entry compiles again


def store(kernel: str, key: str, code: str, meta: dict) -> pathlib.Path:
    """Writes the module and its report atomically (another process may be
    reading the same entry)."""
    directory = _directory()
    path = directory / f"{kernel}_{key}.py"
    for target, text in ((path.with_suffix(".json"), json.dumps(meta, indent=1)), (path, code)):
        handle, temporary = tempfile.mkstemp(dir=directory, suffix=".tmp")
        with os.fdopen(handle, "w") as stream:
            stream.write(text)
        os.replace(temporary, target)
    return path


def discard(path: pathlib.Path) -> None:
    """Removes a cache entry (a module that cannot be used)."""
    for target in (path, path.with_suffix(".json")):
        try:
            target.unlink()
        except OSError:
            pass


def import_module(path: pathlib.Path):
    """Imports a generated module from its file, so that tracebacks show
    its lines."""
    name = f"tessera_generated.{path.stem}"
    with _LOCK:
        if name in sys.modules:
            return sys.modules[name]
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules[name] = module
        return module
