"""The Spark engine's checkpoints: every part file's sha256 is in the
manifest and checked on resume; a torn write leaves the previous checkpoint
whole and its leftovers are removed when the checkpoint is next read."""
from __future__ import annotations

import json

import numpy as np
import pytest

from modelcheck.engines.spark.checkpoint import (FORMAT, NPZ, SearchState, part_name,
                                                 read_manifest, write_manifest, write_part)
from modelcheck.engines.spark.partition import Part
from modelcheck.errors import UsageError

U64 = np.uint64


def _part(seed: int) -> Part:
    fps = np.arange(seed, seed + 50, dtype=U64)
    return Part(fps, fps + U64(1), fps[:10], np.arange(20, dtype=U64).reshape(10, 2))


@pytest.fixture
def checkpoint(tmp_path):
    for i in range(2):
        write_part(str(tmp_path), "level-000004", part_name(i), _part(100 * i))
    write_manifest(str(tmp_path), "abc", "level-000004", NPZ, [part_name(i) for i in range(2)],
                   2, SearchState(depth=4))
    return tmp_path


def test_a_whole_checkpoint_reads_back(checkpoint):
    assert read_manifest(str(checkpoint), "abc").folder == "level-000004"


def _flip(path):
    raw = bytearray(path.read_bytes())
    raw[len(raw) // 2] ^= 0x01
    path.write_bytes(bytes(raw))


def _truncate(path):
    path.write_bytes(path.read_bytes()[:100])


@pytest.mark.parametrize("damage,says", [(_flip, "sha256 does not match"),
                                         (_truncate, "sha256 does not match"),
                                         (lambda p: p.unlink(), "is missing")])
def test_a_damaged_part_is_refused(checkpoint, damage, says):
    damage(checkpoint / "level-000004" / "part-00001.npz")
    with pytest.raises(UsageError, match=says):
        read_manifest(str(checkpoint), "abc")


@pytest.mark.parametrize("fmt,says", [("modelcheck-spark-checkpoint/2", "has format"),
                                      ("modelcheck-spark-checkpoint/9", "has format"),
                                      ("other", "not a Spark engine checkpoint")])
def test_other_formats_are_refused(checkpoint, fmt, says):
    assert FORMAT != fmt
    body = json.loads((checkpoint / "manifest.json").read_text())
    body["format"] = fmt
    (checkpoint / "manifest.json").write_text(json.dumps(body))
    with pytest.raises(UsageError, match=says):
        read_manifest(str(checkpoint), "abc")


def test_a_garbled_manifest_is_refused(checkpoint):
    (checkpoint / "manifest.json").write_text('{"format": "%s", "digest": "abc"}' % FORMAT)
    with pytest.raises(UsageError, match="damaged"):
        read_manifest(str(checkpoint), "abc")


def test_a_manifest_nested_too_deep_is_refused(checkpoint):
    (checkpoint / "manifest.json").write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(UsageError, match="manifest"):
        read_manifest(str(checkpoint), "abc")


def test_leftovers_of_a_killed_write_are_removed(checkpoint):
    # What a SIGKILL in the middle of the next checkpoint leaves behind.
    (checkpoint / "level-000008").mkdir()
    (checkpoint / "level-000008" / "part-00000.npz.tmp").write_bytes(b"torn")
    (checkpoint / ".manifest-x1y2.tmp").write_text('{"format"')
    manifest = read_manifest(str(checkpoint), "abc")
    assert manifest.folder == "level-000004"
    assert sorted(p.name for p in checkpoint.iterdir()) == ["level-000004", "manifest.json"]
