"""Atomic writes (modelcheck.fsutil): the final name holds the old file or the
whole new one, never part of it, and no temporary file is left behind; a new
file never writes over another; a damaged JSON file is a ValueError."""
from __future__ import annotations

import os
import stat

import pytest

from modelcheck.fsutil import atomic_writer, write_atomic


def test_a_write_replaces_the_whole_file_and_leaves_nothing_else(tmp_path):
    target = tmp_path / "page.html"
    target.write_text("old")
    write_atomic(target, "new " * 1000)
    assert target.read_text() == "new " * 1000
    assert os.listdir(tmp_path) == ["page.html"]


@pytest.mark.parametrize("failure", [RuntimeError, KeyboardInterrupt])
def test_a_write_that_fails_half_way_leaves_the_old_file(tmp_path, failure):
    target = tmp_path / "page.html"
    target.write_text("old")
    with pytest.raises(failure):
        with atomic_writer(target) as handle:
            handle.write("half a pa")
            raise failure()
    assert target.read_text() == "old"
    assert os.listdir(tmp_path) == ["page.html"]


def test_a_new_file_gets_the_usual_mode_and_a_replaced_one_keeps_its_own(tmp_path):
    mask = os.umask(0o022)
    try:
        fresh = tmp_path / "fresh.html"
        write_atomic(fresh, b"bytes", durable=True)
        assert stat.S_IMODE(fresh.stat().st_mode) == 0o644
        kept = tmp_path / "kept.html"
        kept.write_text("old")
        kept.chmod(0o600)
        write_atomic(kept, "new")
        assert stat.S_IMODE(kept.stat().st_mode) == 0o600 and kept.read_text() == "new"
    finally:
        os.umask(mask)


@pytest.mark.parametrize("links", [True, False])
def test_a_new_file_takes_the_first_free_name_and_writes_over_none(tmp_path, monkeypatch, links):
    from modelcheck.fsutil import write_new
    if not links:
        # A file system without hard links: the name is taken by an exclusive create.
        def no_link(src, dst):
            raise PermissionError(1, "Operation not permitted")
        monkeypatch.setattr(os, "link", no_link)
    names = [tmp_path / "t.json", tmp_path / "t-2.json", tmp_path / "t-3.json"]
    names[1].write_text("someone else's")
    assert write_new(names, "first") == names[0]
    assert write_new(names, "second") == names[2]
    with pytest.raises(FileExistsError):
        write_new(names, "third")
    assert [n.read_text() for n in names] == ["first", "someone else's", "second"]
    assert sorted(os.listdir(tmp_path)) == ["t-2.json", "t-3.json", "t.json"]


@pytest.mark.parametrize("text", ["[" * 100_000 + "]" * 100_000, '{"a": ', "\xff", ""])
def test_a_damaged_json_file_is_a_value_error(tmp_path, text):
    from modelcheck.fsutil import read_json_file
    path = tmp_path / "manifest.json"
    path.write_bytes(text.encode("latin-1"))
    with pytest.raises(ValueError, match="manifest.json"):
        read_json_file(path)


def test_a_json_file_too_large_is_not_read(tmp_path):
    from modelcheck.fsutil import read_json_file
    path = tmp_path / "manifest.json"
    with open(path, "wb") as f:
        f.truncate(1 << 30)
    with pytest.raises(ValueError, match="bytes"):
        read_json_file(path, limit=1 << 20)
