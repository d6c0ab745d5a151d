"""State constraints in the Spark engine's partitioned search, on the compiled
kernels: the reference's counts, verdicts and trace lengths whatever the
partition count, states outside the model settling properties in levels that
store nothing, and checkpoints holding such verdicts.  (TLC's figures, on
both kernel engines: tests/unit/compiled/test_constraints_compiled.py.)"""
from __future__ import annotations

from pathlib import Path

import pytest

from many_parts import ManyParts
from modelcheck import api
from modelcheck.engines.base import CheckOptions, Status
from modelcheck.engines.spark.engine import SparkEngine, _compiled_kernels
from modelcheck.pipeline import load_source
from modelcheck.trace.replay import replay
from spark_helpers import summary

pytest.importorskip("numba")

ROOT = Path(__file__).resolve().parents[3]
MUTEX = ROOT / "tests" / "unit" / "compiled" / "specs" / "constrained_mutex.mc"
COUNTER = ROOT / "bench" / "tla" / "CounterConstraint.mc"


def engine(partitions: int) -> SparkEngine:
    """The Spark engine on the compiled kernels, its levels on ``partitions``
    parts in this process (the Spark data flow, without Spark)."""
    return SparkEngine(_compiled_kernels, lambda kernels, plan, parts, options:
                       ManyParts(kernels, plan, parts, partitions))


def load(path: Path, edit: tuple[str, str] | None = None):
    text = path.read_text(encoding="utf-8")
    if edit is not None:
        assert edit[0] in text
        text = text.replace(*edit)
    return load_source(text, str(path))


@pytest.mark.parametrize("partitions", [1, 2, 3])
def test_every_level_on_parts_agrees_with_the_reference(partitions):
    model = load(MUTEX)
    options = CheckOptions(symmetry=False, spark_threshold=0)
    ref = api.check(model, "reference", options)
    got = engine(partitions).check(model, options)
    assert got.engine == "spark"
    assert summary(got) == summary(ref)
    for prop in got.properties:
        if prop.trace is not None:
            assert replay(model, prop.trace).ok


def test_a_level_storing_nothing_still_settles_what_it_checked():
    # From 4 (stored), 5 is stored and 6 is not; from 5, 6 and 7 are checked
    # and dropped: the level that finds 7 stores no state.
    model = load(COUNTER, ("constraint Bound: x <= 5", "constraint Bound: x <= 5 and x != 6"))
    options = CheckOptions(spark_threshold=0)
    ref = api.check(model, "reference", options)
    got = engine(2).check(model, options)
    assert summary(got) == summary(ref)
    prop = got.get_property("NotSeven")
    assert prop.status is Status.VIOLATED and prop.trace.states[-1] == {"x": 7}


def test_resume_keeps_a_verdict_settled_outside_the_model(tmp_path):
    model = load(MUTEX)
    options = dict(symmetry=False, spark_threshold=0)
    whole = engine(2).check(model, CheckOptions(**options))
    assert whole.get_property("RoundsBelowFour").status is Status.VIOLATED
    stopped = engine(2).check(model, CheckOptions(max_depth=15, checkpoint_dir=str(tmp_path),
                                                  **options))
    assert stopped.reason is not None
    assert stopped.get_property("RoundsBelowFour").status is Status.VIOLATED
    resumed = engine(3).check(model, CheckOptions(resume_dir=str(tmp_path), **options))
    assert summary(resumed) == summary(whole)


def test_reports_keep_the_smallest_state_outside_the_model():
    # Whatever order the partitions report in, the same state settles a column.
    from modelcheck.engines.spark.partition import LevelReport
    a = LevelReport(outside_hits={0: (9, 1), 1: (3, 3)})
    b = LevelReport(outside_hits={0: (4, 7)})
    a.add(b)
    assert a.outside_hits == {0: (4, 7), 1: (3, 3)}
