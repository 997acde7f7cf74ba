"""The drop-in's tests: the repository's package, JAX on the CPU and a
private disk cache per test session."""

import os
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))
os.environ.setdefault("JAX_PLATFORMS", "cpu")


@pytest.fixture(autouse=True, scope="session")
def private_cache(tmp_path_factory):
    os.environ["TESSERA_CACHE_DIR"] = str(tmp_path_factory.mktemp("tessera-cache"))
    yield
