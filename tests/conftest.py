"""Fixtures shared by every test tier.

Golden files: a test compares a text with ``tests/golden/<area>/<name>`` via the
``golden`` fixture; ``pytest --regen-golden`` (or ``make golden``) rewrites the
files from the current output instead, to be reviewed in the diff."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# `modelcheck verdicts` compiles, after a run, the kernels its rows wanted:
# in the suite, each run's rows would leave a compile behind on the cores
# the next tests want.  The test of that behaviour turns it on for itself.
os.environ.setdefault("MODELCHECK_COMPILE_AFTER", "0")
GOLDEN_DIR = ROOT / "tests" / "golden"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--regen-golden", action="store_true", default=False,
                     help="rewrite golden files under tests/golden from the current output")


class Golden:
    """Compares texts with golden files (or rewrites them under --regen-golden)."""

    def __init__(self, regen: bool) -> None:
        self.regen = regen

    def check(self, relpath: str, actual: str) -> None:
        path = GOLDEN_DIR / relpath
        if self.regen:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(actual, encoding="utf-8")
            return
        if not path.exists():
            pytest.fail(f"no golden file {path.relative_to(ROOT)}; "
                        "create it with: pytest --regen-golden (then review it)")
        expected = path.read_text(encoding="utf-8")
        assert actual == expected, (
            f"output differs from {path.relative_to(ROOT)} "
            "(if the change is intended: pytest --regen-golden, then review the diff)")


@pytest.fixture
def golden(request: pytest.FixtureRequest) -> Golden:
    return Golden(bool(request.config.getoption("--regen-golden")))


@pytest.fixture
def repo_root() -> Path:
    return ROOT


#: Directories whose tests share session fixtures that are costly to build
#: twice (the fault tests' own kernel cache): one xdist worker runs them all.
_ONE_WORKER_DIRS = ("tests/faults/",)


def _conformance_group(params: dict) -> str:
    """The rows of one spec with the same integer constants share a kernel
    (flags are read at run time): one worker compiles it while the other
    goes on with other rows, instead of waiting on the kernel's lock."""
    spec, consts = params.get("spec"), params.get("consts") or {}
    ints = sorted((k, v) for k, v in consts.items() if str(v).lstrip("-").isdigit())
    return f"conformance-{Path(str(spec)).name}-{ints}"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under ``pytest -n N --dist loadgroup`` (``make test``), say which tests
    must share a worker: a module's tests, so that a module-scoped fixture (a
    Spark cluster, a browser) is built once; the conformance rows that share
    a kernel, so that each row's reference result (a session fixture) is
    computed once and each kernel compiled by one worker."""
    for item in items:
        fspath = Path(str(item.fspath)).resolve()
        path = fspath.relative_to(ROOT).as_posix() if fspath.is_relative_to(ROOT) else str(fspath)
        group = next((d for d in _ONE_WORKER_DIRS if path.startswith(d)), path)
        callspec = getattr(item, "callspec", None)
        if path == "tests/conformance/test_conformance.py" and callspec is not None:
            group = _conformance_group(callspec.params)
        item.add_marker(pytest.mark.xdist_group(group))
