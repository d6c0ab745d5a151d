"""Shared fixtures for the compiled engine's tests.

numba compiles a spec's kernels in tens of seconds; they are cached on disk
(the default cache folder), and within a session each (spec, constants)
is compiled once and shared through ``kernels``.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from modelcheck import api

SPECS = Path(__file__).parent / "specs"
EXAMPLES = Path(__file__).resolve().parents[3] / "specs" / "examples"


def spec_path(name: str) -> str:
    """A test spec (``specs/<name>.mc`` here) or a shipped example."""
    local = SPECS / f"{name}.mc"
    return str(local if local.exists() else EXAMPLES / f"{name}.mc")


@pytest.fixture(scope="session")
def load():
    cache: dict = {}

    def get(name: str, **consts):
        key = (name, tuple(sorted(consts.items())))
        if key not in cache:
            cache[key] = api.load(spec_path(name), consts={k: str(v) for k, v in consts.items()})
        return cache[key]
    return get


@pytest.fixture(scope="session")
def kernels(load):
    pytest.importorskip("numba")
    from modelcheck.engines.compiled.kernels import KernelOptions, compile_model
    cache: dict = {}

    def get(name: str, symmetry: bool = False, **consts):
        key = (name, symmetry, tuple(sorted(consts.items())))
        if key not in cache:
            cache[key] = compile_model(load(name, **consts), KernelOptions(symmetry=symmetry))
        return cache[key]
    return get


@pytest.fixture(autouse=True)
def _tables_start_small(request, monkeypatch):
    """Tables start at the usual size, not at the count an earlier run of
    the configuration left in the cache (compiled/sizes.py): the tests of
    the table's growth, under threads too, need it to grow (test_sizes.py
    tests the sizing itself)."""
    if request.module.__name__.endswith("test_sizes"):
        return
    import modelcheck.engines.compiled.search.serial as search
    monkeypatch.setattr(search, "expected_states", lambda cache_dir, key: None)

