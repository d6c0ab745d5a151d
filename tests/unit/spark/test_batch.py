"""Levels in batches (batch.py): the rule every task of a batch applies to
the notes of a level, and the notes and runs files they share."""
import numpy as np
import pytest

from modelcheck.engines.spark import exchange
from modelcheck.engines.spark.batch import BatchRule, Note
from modelcheck.engines.spark.partition import LevelReport


def _rule(**kw):
    base = dict(max_levels=10, states_left=None, rows=1000, seconds=5.0,
                state_cols=frozenset({0}), step_cols=frozenset({1}), deadlock=True)
    base.update(kw)
    return BatchRule(**base)


def _notes(*new, eventful=False, elapsed=0.1, stop=False):
    return [Note(n, eventful, elapsed, stop) for n in new]


def test_a_quiet_level_goes_on():
    assert _rule().go_on(1, 20, _notes(10, 10))


@pytest.mark.parametrize("done,found,notes,why", [
    (1, 20, _notes(10, 10, eventful=True), "a partition settles something open"),
    (1, 20, _notes(10, 10, stop=True), "a partition missed"),
    (1, 0, _notes(0, 0), "the frontier is empty"),
    (10, 20, _notes(10, 10), "the level count"),
    (1, 1000, _notes(500, 500), "the rows a batch holds"),
    (1, 20, _notes(10, 10, elapsed=5.0), "the seconds"),
])
def test_the_batch_stops(done, found, notes, why):
    assert not _rule().go_on(done, found, notes), why


def test_the_state_bound_stops_the_batch_only_once_crossed():
    rule = _rule(states_left=20)
    assert rule.go_on(1, 20, _notes(10, 10))
    assert not rule.go_on(2, 21, _notes(1, 0))


def test_only_what_is_still_open_makes_a_level_eventful():
    rule = _rule()
    assert not rule.eventful(LevelReport(state_hits={3: 7}), LevelReport(step_hits={0: (1, 2)}))
    assert rule.eventful(LevelReport(state_hits={0: 7}), LevelReport())
    assert rule.eventful(LevelReport(outside_hits={0: (7, 8)}), LevelReport())
    assert rule.eventful(LevelReport(), LevelReport(step_hits={1: (1, 2)}))
    assert rule.eventful(LevelReport(), LevelReport(deadlock=5))
    assert not _rule(deadlock=False).eventful(LevelReport(), LevelReport(deadlock=5))
    assert rule.eventful(LevelReport(failed=9), LevelReport())
    assert rule.eventful(LevelReport(), LevelReport(failed=9))


def test_notes_are_read_once_all_are_written(tmp_path):
    root = str(tmp_path)
    for i in range(3):
        exchange.write_note(root, 4, "b1", i, Note(i, False, 0.5).to_json())
    exchange.write_note(root, 4, "other", 0, Note(99, True, 0.0).to_json())
    notes = [Note.from_json(n) for n in exchange.read_notes(root, 4, "b1", 3, 1.0)]
    assert [n.new for n in notes] == [0, 1, 2] and not any(n.eventful for n in notes)


def test_a_missing_note_times_out(tmp_path):
    exchange.write_note(str(tmp_path), 2, "b", 0, Note(1, False, 0.0).to_json())
    with pytest.raises(TimeoutError, match=r"partitions \[1\]"):
        exchange.read_notes(str(tmp_path), 2, "b", 2, 0.05)


def test_runs_round_trip_and_clear(tmp_path):
    root = str(tmp_path)
    fp = np.array([3, 5], dtype=np.uint64)
    runs = [(fp, fp + 1), (fp * 7, fp * 7 + 1, np.arange(6, dtype=np.uint64).reshape(2, 3))]
    exchange.write_runs(root, "b", 1, runs)
    back = exchange.read_runs(root, "b", 1)
    assert len(back) == 2 and len(back[0]) == 2 and len(back[1]) == 3
    for want, got in zip(runs, back):
        for a, b in zip(want, got):
            assert np.array_equal(a, b) and a.dtype == b.dtype
    exchange.clear_batch(root, "b")
    with pytest.raises(FileNotFoundError):
        exchange.read_runs(root, "b", 1)
