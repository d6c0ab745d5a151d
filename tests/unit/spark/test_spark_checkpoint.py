"""Durable checkpoints: the file format, the model check, and resuming a
stopped run to the same final result as an uninterrupted one."""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

from modelcheck.engines.base import CheckOptions
from modelcheck.engines.spark.checkpoint import (NPZ, Hit, LevelLog, SearchState, model_digest,
                                                 part_name, read_manifest, read_part,
                                                 write_manifest, write_part)
from modelcheck.engines.spark.partition import Part
from modelcheck.errors import UsageError
from modelcheck.fsutil import is_temp_name
from spark_helpers import spark_engine, summary
from spark_specs import load_example, load_spec

U64 = np.uint64


def _empty_part() -> Part:
    none = np.zeros(0, dtype=U64)
    return Part(none, none, none, np.zeros((0, 1), dtype=U64))


def test_part_round_trip(tmp_path):
    part = Part(np.array([1, 5], dtype=U64), np.array([1, 1], dtype=U64),
                np.array([5], dtype=U64), np.array([[7, 8]], dtype=U64))
    write_part(str(tmp_path), "level-000001", "part-00000.npz", part)
    back = read_part(str(tmp_path / "level-000001" / "part-00000.npz"))
    for name in ("seen_fp", "seen_parent", "frontier_fp", "frontier"):
        assert getattr(back, name).tolist() == getattr(part, name).tolist()
    assert not [n for n in os.listdir(tmp_path / "level-000001") if is_temp_name(n)]


def test_manifest_round_trip_and_old_levels_dropped(tmp_path):
    state = SearchState(3, 40, 90, [1, 2], {"P": Hit("P", "step", (4, 5), 2, 0)},
                        [LevelLog(1, "in-process", 0, 1, 0.0)], 1.5)
    (tmp_path / "level-000002").mkdir()
    names = [part_name(i) for i in range(2)]
    for name in names:
        write_part(str(tmp_path), "level-000003", name, _empty_part())
    write_manifest(str(tmp_path), "abc", "level-000003", NPZ, names, 1, state)
    assert not (tmp_path / "level-000002").exists()
    manifest = read_manifest(str(tmp_path), "abc")
    assert (manifest.folder, manifest.layout, manifest.files, manifest.words) == \
        ("level-000003", NPZ, tuple(names), 1)
    assert manifest.state == state


def test_manifest_for_another_model_is_refused(tmp_path):
    write_part(str(tmp_path), "level-000001", part_name(0), _empty_part())
    write_manifest(str(tmp_path), "abc", "level-000001", NPZ, [part_name(0)], 1, SearchState())
    with pytest.raises(UsageError, match="another model"):
        read_manifest(str(tmp_path), "xyz")
    with pytest.raises(UsageError, match="no checkpoint"):
        read_manifest(str(tmp_path / "nowhere"), "abc")
    data = json.loads((tmp_path / "manifest.json").read_text())
    data["format"] = "something else"
    (tmp_path / "manifest.json").write_text(json.dumps(data))
    with pytest.raises(UsageError, match="not a Spark engine checkpoint"):
        read_manifest(str(tmp_path), "abc")


def test_digest_names_model_and_options():
    two = load_example("two_phase")
    base = model_digest(two, CheckOptions(), 2)
    assert base == model_digest(load_example("two_phase"), CheckOptions(), 2)
    assert base != model_digest(load_example("two_phase", N="4"), CheckOptions(), 2)
    assert base != model_digest(two, CheckOptions(symmetry=False), 2)
    assert base != model_digest(two, CheckOptions(deadlock=False), 2)


@pytest.mark.parametrize("stop", [{"max_depth": 6}, {"max_states": 300}])
@pytest.mark.parametrize("first,second", [(None, None), (3, 3), (2, 5)])
def test_resume_ends_like_an_uninterrupted_run(tmp_path, stop, first, second):
    model = load_example("two_phase", N="4")
    threshold = None if first is None else 0
    whole = spark_engine(first).check(model, CheckOptions(spark_threshold=threshold))
    stopped = spark_engine(first).check(model, CheckOptions(
        spark_threshold=threshold, checkpoint_dir=str(tmp_path), **stop))
    assert stopped.reason is not None and (tmp_path / "manifest.json").exists()
    resumed = spark_engine(second).check(model, CheckOptions(
        spark_threshold=None if second is None else 0, resume_dir=str(tmp_path)))
    assert summary(resumed) == summary(whole)


def test_resume_keeps_what_was_settled(tmp_path):
    model = load_spec("grid")
    whole = spark_engine(2).check(model, CheckOptions(spark_threshold=0))
    spark_engine(2).check(model, CheckOptions(spark_threshold=0, max_depth=4,
                                              checkpoint_dir=str(tmp_path)))
    resumed = spark_engine(2).check(model, CheckOptions(spark_threshold=0,
                                                        resume_dir=str(tmp_path)))
    assert summary(resumed) == summary(whole)


def test_checkpoints_every_few_levels(tmp_path):
    model = load_example("two_phase", N="4")
    notes = []

    class Notes:
        def progress(self, progress):
            pass

        def note(self, message):
            notes.append(message)

    spark_engine(2).check(model, CheckOptions(spark_threshold=0, checkpoint_dir=str(tmp_path),
                                              extra={"checkpoint_levels": 4}), Notes())
    written = [n for n in notes if n.startswith("checkpoint written")]
    assert len(written) == 3                     # at depths 4, 8 and 12 (of 14)
    assert sorted(os.listdir(tmp_path)) == ["level-000012", "manifest.json"]
