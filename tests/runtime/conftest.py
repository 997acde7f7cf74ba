"""Shared set-up of the runtime tests: the repository's examples and the
conformance harness's shapes, inputs and tolerances, and a private disk
cache per test session."""

import os
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "tests" / "conformance"))
os.environ.setdefault("JAX_PLATFORMS", "cpu")


@pytest.fixture(autouse=True, scope="session")
def private_cache(tmp_path_factory):
    os.environ["TESSERA_CACHE_DIR"] = str(tmp_path_factory.mktemp("tessera-cache"))
    yield


@pytest.fixture
def root():
    return ROOT
