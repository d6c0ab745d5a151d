"""Atomic writes (modelcheck.fsutil): the final name holds the old file or the
whole new one, never part of it, and no temporary file is left behind."""
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
