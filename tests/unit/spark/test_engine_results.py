"""The Spark engine's results agree with the reference explorer's, in-process
and on the Spark data flow (ManyParts) for several partition counts."""
from __future__ import annotations

import dataclasses

import pytest

from modelcheck.engines.base import CheckOptions, Status
from modelcheck.trace.replay import check_replays
from spark_helpers import check_both, spark_engine, summary
from spark_specs import EXAMPLES, SOURCES, load_example, load_spec


def _models():
    out = [pytest.param(lambda n=n: load_example(n), id=n) for n in EXAMPLES]
    out += [pytest.param(lambda n=n: load_spec(n), id=n) for n in SOURCES if n != "overflow"]
    return out


@pytest.mark.parametrize("load", _models())
@pytest.mark.parametrize("partitions,threshold", [(None, None), (1, 0), (3, 0), (5, 4)])
def test_agrees_with_reference(load, partitions, threshold):
    model = load()
    options = CheckOptions(spark_threshold=threshold)
    reference, result = check_both(model, options, spark_engine(partitions))
    assert summary(result) == summary(reference)


def test_counts_do_not_depend_on_partitions_or_threshold():
    model = load_example("two_phase", N="4")
    results = [spark_engine(p).check(model, CheckOptions(spark_threshold=t))
               for p, t in [(None, None), (2, 0), (7, 30)]]
    assert len({r.stats.distinct_states for r in results}) == 1
    assert results[0].stats.distinct_states == 1568


def test_traces_are_the_same_whatever_the_partitioning():
    # The smallest fingerprint wins every tie, so the trace is one and the same.
    model = load_spec("grid")
    labels = set()
    for partitions, threshold in ((None, None), (2, 0), (6, 0)):
        result = spark_engine(partitions).check(model, CheckOptions(spark_threshold=threshold))
        labels.add(tuple(s.label() for s in result.get_property("Small").trace.steps))
    assert len(labels) == 1


def test_notes_say_where_levels_ran():
    model = load_example("two_phase")
    result = spark_engine(3).check(model, CheckOptions(spark_threshold=20))
    assert result.notes[0].startswith("levels 1-")
    assert "ran on Spark" in result.notes[1]
    assert result.stats.extras["levels_on_spark"]
    assert 0 < result.stats.extras["fp_collision_probability"] < 1e-12


def test_narrow_spec_never_leaves_the_process():
    result = spark_engine(3).check(load_example("die_hard"), CheckOptions())
    assert result.stats.extras["levels_on_spark"] == ""
    assert any("Spark was not started" in note for note in result.notes)


def test_runtime_error_matches_reference():
    model = load_spec("overflow")
    for partitions, threshold in ((None, None), (3, 0)):
        reference, result = check_both(model, CheckOptions(spark_threshold=threshold),
                                       spark_engine(partitions))
        assert result.error is not None
        assert result.error.diagnostic.code == reference.error.diagnostic.code == "MC5001"
        assert len(result.error.trace) == len(reference.error.trace) == 3
        check_replays(model, result.error.trace, "error trace")
        assert [p.status for p in result.properties] == [Status.UNKNOWN]
        assert result.exit_code == 2


def test_deadlock_option_and_selection():
    model = load_spec("stuck")
    for options in (CheckOptions(deadlock=False), CheckOptions(invariants=("Fine",)),
                    CheckOptions(invariants=("deadlock",))):
        reference, result = check_both(model, options, spark_engine(2))
        assert summary(result) == summary(reference)


@pytest.mark.parametrize("bound", [
    {"max_depth": 3}, {"max_depth": 9}, {"max_states": 10}, {"max_states": 28},
    {"stop_on_first": True},
])
def test_bounds_give_unknown_with_reason(bound):
    model = load_spec("tokens")
    options = dataclasses.replace(CheckOptions(spark_threshold=0), **bound)
    reference, result = check_both(model, options, spark_engine(3))
    assert result.complete == reference.complete
    assert (result.reason is None) == (reference.reason is None)
    for ours, theirs in zip(result.properties, reference.properties):
        assert ours.name == theirs.name
        if theirs.status is Status.UNKNOWN:
            assert ours.status in (Status.UNKNOWN, Status.VIOLATED)
            assert ours.status is Status.VIOLATED or ours.reason
        else:
            assert (ours.status, ours.steps) == (theirs.status, theirs.steps)
    if "max_depth" in bound:
        # Generated counts differ: the reference stops inside the level, at
        # its first new state; the level-synchronous search drops the level.
        for key in ("distinct", "depth", "properties"):
            assert summary(result)[key] == summary(reference)[key]


def test_timeout_zero_is_unknown():
    result = spark_engine(2).check(load_example("two_phase"), CheckOptions(timeout_s=0))
    assert result.reason.startswith("timeout")
    assert all(p.status is Status.UNKNOWN for p in result.properties)
    assert result.exit_code == 3


def test_ctrl_c_while_traces_are_rebuilt_gives_unknown(monkeypatch):
    """Ctrl-C (or SIGTERM) after the search, while the traces are walked
    back: the finds are UNKNOWN with the reason, never the finished search's
    HOLDS, and the counts and the other verdicts stand."""
    from modelcheck.engines.reference.explorer import TRACE_CUT
    from modelcheck.engines.spark import engine as spark_engine_module
    model = load_spec("grid")
    whole = spark_engine(2).check(model, CheckOptions(spark_threshold=0))

    def ctrl_c(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(spark_engine_module, "replay_forward", ctrl_c)
    cut = spark_engine(2).check(model, CheckOptions(spark_threshold=0))
    small = cut.get_property("Small")
    assert whole.get_property("Small").status is Status.VIOLATED
    assert small.status is Status.UNKNOWN and small.reason == TRACE_CUT and small.trace is None
    assert cut.stats.distinct_states == whole.stats.distinct_states
    assert any("interrupted while traces were rebuilt" in n for n in cut.notes)
