"""The parser's tables are built once and kept in the user's cache folder:
a later process loads them (and parses as a freshly built parser does); a
damaged file is rebuilt and rewritten; a cache folder that cannot be
written costs only the time."""
from __future__ import annotations

from pathlib import Path

import pytest

from modelcheck.fsutil import CACHE_ENV
from modelcheck.syntax import lark_tables

SPEC = Path(__file__).resolve().parents[3] / "specs" / "quorum_queue.mc"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    return tmp_path / "parser"


def _build():
    return lark_tables.lark_parser.__wrapped__()     # not the process's own copy


def test_the_tables_are_written_then_loaded_instead_of_built(cache, monkeypatch):
    built = _build()
    [file] = cache.glob("lark-*.pickle")

    def no_build(*args, **kwargs):
        raise AssertionError("the tables were built again")
    monkeypatch.setattr(lark_tables, "Lark", type("NoBuild", (), {
        "__new__": no_build, "load": staticmethod(lark_tables.Lark.load)}))
    loaded = _build()
    text = SPEC.read_text()
    assert loaded.parse(text) == built.parse(text)
    assert list(cache.glob("lark-*.pickle")) == [file]


def test_a_damaged_file_is_rebuilt_and_rewritten(cache):
    _build()
    [file] = cache.glob("lark-*.pickle")
    whole = file.read_bytes()
    file.write_bytes(whole[: len(whole) // 2])
    parser = _build()
    assert parser.parse("module m\nvar x: bool = false\n") is not None
    with open(file, "rb") as f:                       # rewritten whole: it loads
        assert lark_tables.Lark.load(f).parse("module m\nvar x: bool = false\n") is not None


def test_a_cache_folder_that_cannot_be_made_costs_only_the_time(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv(CACHE_ENV, str(blocker))
    assert _build().parse("module m\nvar x: bool = false\n") is not None
