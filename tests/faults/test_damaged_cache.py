"""A damaged entry of the kernel cache costs time, never the run: a table-size
hint (``kernels/sizes/KEY``) that is not a count, or whose table would not fit
in the memory at hand, is ignored and repaired, and the next run uses the
count of the search that just finished."""
from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import CHECK, GRID, run

pytest.importorskip("numba")

SIZE = ("-D", "N=40")
STATES = 41 * 41


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Path:
    """A kernel cache of its own (these tests write into it), with the grid's
    kernel built and its size hint recorded."""
    cache = tmp_path_factory.mktemp("damaged-cache")
    done = run(cache, *CHECK, GRID, *SIZE, "--json", "--no-write")
    assert done.rc == 0, done.stderr
    return cache


def _hint(cache: Path) -> Path:
    (hint,) = (cache / "modelcheck" / "kernels" / "sizes").iterdir()
    return hint


@pytest.mark.parametrize("damage", [
    b"99999999999999999999",             # past int64
    b"1000000000000",                    # a table of terabytes
    b"-5",
    b"12 states",
    b"\xff\xfe\x00",
    b"",
    b"1" * 5000,
])
def test_a_damaged_size_hint_is_ignored_and_repaired(cache, damage):
    _hint(cache).write_bytes(damage)
    done = run(cache, *CHECK, GRID, *SIZE, "--json", "--no-write")
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert done.rc == 0, done.stderr
    assert done.json()["distinct_states"] == STATES
    assert _hint(cache).read_text() == str(STATES)


def test_a_size_hint_past_max_memory_is_not_used(cache):
    _hint(cache).write_text("3000000000")
    done = run(cache, *CHECK, GRID, *SIZE, "--json", "--no-write", "--max-memory", "64")
    assert done.rc == 0, done.stderr
    assert done.json()["distinct_states"] == STATES
    assert _hint(cache).read_text() == str(STATES)
