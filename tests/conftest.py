"""Fixtures shared by every test tier.

Golden files: a test compares a text with ``tests/golden/<area>/<name>`` via the
``golden`` fixture; ``pytest --regen-golden`` (or ``make golden``) rewrites the
files from the current output instead, to be reviewed in the diff."""
from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
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
