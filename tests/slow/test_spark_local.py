"""The Spark engine on a real embedded Spark (local[2]) with the compiled
kernels, as shipped: results equal the reference explorer's, levels move to
Spark at the threshold, a timeout cancels a running level and the run
resumes from its checkpoint to the same counts; the JVM's part of a level
(duplicate removal, the anti joins, folds, Parquet checkpoints) against the
in-process search; the JVM's settling of new states against the in-process
code it states.  One SparkContext serves the module."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from modelcheck import api
from modelcheck.engines.base import CheckOptions, Status

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "specs" / "examples"

GRID = """
module grid
var x: 0..6 = 0
var y: 0..4 = 0
action Right() { require x < 6  x := x + 1 }
action Up(k: 1..2) { require y + k <= 4  y := y + k }
action Home() { require x == 6 and y == 4  x := 0  y := 0 }
step invariant NoJump: y' <= y + 1 or y' == 0
sometimes Corner: x == 6 and y == 0
invariant Small: x + y < 9
"""

OVERFLOW = """
module overflow
var x: 0..3 = 0
action Inc() { x := x + 1 }
"""


@pytest.fixture(scope="module")
def spark():
    from modelcheck.engines.spark.session import spark_context, stop_spark
    stop_spark()                    # a context for another master would be reused
    sc, _ = spark_context("local[2]")
    yield sc
    stop_spark()


def _summary(result):
    return (result.stats.distinct_states, result.stats.generated_states, result.stats.depth,
            {p.name: (p.status, p.steps) for p in result.properties})


def _options(**kw):
    return CheckOptions(symmetry=False, spark_threshold=0, partitions=2, master="local[2]", **kw)


@pytest.mark.parametrize("source,threshold", [("die_hard", 0), ("two_phase", 30), ("grid", 0)])
def test_spark_levels_agree_with_reference(spark, source, threshold):
    # two_phase (N=3) hands over to Spark at a frontier of 30 states, halfway.
    if source == "grid":
        model = api.load_source(GRID, path="<grid>")
    else:
        model = api.load(str(EXAMPLES / f"{source}.mc"))
    reference = api.check(model, "reference", CheckOptions(symmetry=False))
    options = CheckOptions(symmetry=False, spark_threshold=threshold, partitions=2,
                           master="local[2]")
    result = api.check(model, "spark", options)      # replays every trace
    assert _summary(result) == _summary(reference)
    assert result.stats.action_counts == reference.stats.action_counts
    extras = result.stats.extras
    assert extras["levels_on_spark"]
    if threshold:
        assert extras["levels_in_process"].startswith("1-")
    assert extras["spark_bytes_to_python"] > 0 and extras["spark_bytes_from_python"] > 0


def test_runtime_error_on_spark(spark):
    model = api.load_source(OVERFLOW, path="<overflow>")
    result = api.check(model, "spark", _options())
    assert result.error.diagnostic.code == "MC5001"
    assert len(result.error.trace) == 3


def test_timeout_then_resume(spark, tmp_path):
    from modelcheck.engines.spark.checkpoint import PARQUET
    model = api.load(str(EXAMPLES / "two_phase.mc"), consts={"N": "4"})
    whole = api.check(model, "compiled", CheckOptions(symmetry=False))
    # 14 levels do not fit in 3 s (each costs a Spark job of two stages).
    stopped = api.check(model, "spark", _options(timeout_s=3, checkpoint_dir=str(tmp_path)))
    if stopped.complete:
        pytest.skip("the whole run fitted in the timeout on this machine")
    assert stopped.reason.startswith("timeout")
    assert all(p.status is Status.UNKNOWN for p in stopped.properties)
    # The checkpoint was written by the executors, as Parquet.
    assert json.loads((tmp_path / "manifest.json").read_text())["layout"] == PARQUET
    resumed = api.check(model, "spark", _options(resume_dir=str(tmp_path)))
    assert _summary(resumed) == _summary(whole)


def _seen_rows(frames) -> dict[int, int]:
    from modelcheck.engines.spark.arrowpack import from_long
    rows = frames._seen().collect()
    fps = from_long(np.array([r.fp for r in rows], dtype=np.int64)).tolist()
    parents = from_long(np.array([r.parent for r in rows], dtype=np.int64)).tolist()
    assert len(fps) == len(set(fps)), "a state was admitted twice"
    return dict(zip(fps, parents))


def test_seen_set_in_the_jvm_matches_the_in_process_one(spark, tmp_path, monkeypatch):
    # Level by level against the in-process search: the same new states, so
    # the anti joins never re-admit a seen state; at the end every state once,
    # with the parent the in-process search keeps (the smallest).  Three runs
    # at most, so that folds happen; halfway, a Parquet checkpoint is read
    # back with another partition count and the search goes on from it.
    from pyspark.sql import SparkSession

    from modelcheck.engines.reference.explorer import select_properties
    from modelcheck.engines.spark import frames as frames_module
    from modelcheck.engines.spark.checkpoint import PARQUET
    from modelcheck.engines.spark.compiled_adapter import compiled_kernels
    from modelcheck.engines.spark.frames import SparkFrames
    from modelcheck.engines.spark.inprocess import InProcessLevels
    from modelcheck.engines.spark.kernels import plan_properties
    from modelcheck.engines.spark.partition import initial_candidates

    monkeypatch.setattr(frames_module, "MAX_RUNS", 3)
    model = api.load(str(EXAMPLES / "die_hard.mc"))
    options = CheckOptions(symmetry=False)
    plan = plan_properties(select_properties(model, options))
    kernels = compiled_kernels(model, options, plan)
    local = InProcessLevels(kernels, plan)
    local.seed(initial_candidates(kernels)[0])
    session = SparkSession.builder.getOrCreate()
    frames = SparkFrames.from_parts(session, kernels, plan, local.parts(), 2)
    depth = 0
    try:
        while local.frontier_size():
            ours, theirs = frames.step(True, True, None), local.step(True, True)
            assert ours[1].new_states == theirs[1].new_states
            assert ours[0].generated == theirs[0].generated
            assert ours[1].state_hits == theirs[1].state_hits
            assert frames.frontier_size() == local.frontier_size()
            depth += 1
            if depth == 3:
                layout, files = frames.save(str(tmp_path), "level-000003")
                assert layout == PARQUET and any(f.startswith("seen/") for f in files)
                frames.close()
                frames = SparkFrames.from_checkpoint(session, kernels, plan, str(tmp_path),
                                                     "level-000003", 3)
                assert frames.frontier_size() == local.frontier_size()
        assert len(frames.runs) <= 3
        part = local.part
        assert _seen_rows(frames) == dict(zip(part.seen_fp.tolist(), part.seen_parent.tolist()))
        some = part.seen_fp[::3].tolist()
        assert frames.parents(some) == local.parents(some)
    finally:
        frames.close()


class _TableKernels:
    """state_props read from a table: a state is its row number (word 0)."""

    def __init__(self, values: np.ndarray, failed: np.ndarray):
        self.values, self.failed = values, failed

    def state_props(self, batch):
        from modelcheck.engines.spark.kernels import Checked
        rows = batch[:, 0].astype(np.int64)
        return Checked(self.values[rows], np.flatnonzero(np.isin(rows, self.failed)))


@settings(max_examples=8, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_the_jvm_settles_new_states_as_settle_fresh_does(spark, data):
    # The properties evaluated in the expansion (tasks.property_columns),
    # settled in the JVM by the observation a level's job fills
    # (plans.settle_columns), read back (plans.read_settled): what
    # partition.settle_fresh, the in-process search's own code, reports and
    # keeps.  66 columns put one hit in the sign bit of the first word and
    # two in a second word.
    import types

    import pyarrow as pa
    from pyspark.sql import Observation, SparkSession

    from modelcheck.engines.spark.arrowpack import from_long, to_batch
    from modelcheck.engines.spark.kernels import PropertyPlan
    from modelcheck.engines.spark.partition import LevelReport, settle_fresh
    from modelcheck.engines.spark.plans import kept_column, read_settled, settle_columns
    from modelcheck.engines.spark.tasks import property_columns
    from modelcheck.ir.nodes import PropertyKind

    columns = data.draw(st.sampled_from([1, 3, 66]))
    n = data.draw(st.integers(0, 30))
    fp = np.array(sorted(data.draw(st.sets(st.integers(0, 2**64 - 1), min_size=n, max_size=n))),
                  dtype=np.uint64)
    parent = np.array(data.draw(st.lists(st.integers(0, 2**64 - 1), min_size=n, max_size=n)),
                      dtype=np.uint64)
    inside = np.array(data.draw(st.lists(st.sampled_from([1, 0, -1]), min_size=n, max_size=n)),
                      dtype=np.int8)
    values = np.array(data.draw(st.lists(st.booleans(), min_size=n * columns,
                                         max_size=n * columns)), dtype=bool).reshape(n, columns)
    failed = np.array(sorted(data.draw(st.sets(st.integers(0, n - 1), max_size=3)) if n else []),
                      dtype=np.int64)
    kinds = data.draw(st.lists(st.sampled_from([PropertyKind.INVARIANT, PropertyKind.SOMETIMES]),
                               min_size=columns, max_size=columns))
    commit = data.draw(st.booleans())
    plan = PropertyPlan(tuple(types.SimpleNamespace(name=f"P{c}", kind=k)
                              for c, k in enumerate(kinds)), (), True)
    kernels = _TableKernels(values, failed)
    states = np.arange(n, dtype=np.uint64)[:, None]

    expected = LevelReport()
    keep = settle_fresh(kernels, plan, fp, parent, states, inside, commit, expected)
    pfail, hits = property_columns(kernels, plan, commit, states)
    session = SparkSession.builder.getOrCreate()
    frame = session.createDataFrame(pa.Table.from_batches(
        [to_batch(fp, parent, inside, states, pfail, hits)])).repartition(2, "fp")
    observation = Observation("settle")
    leaf = frame.observe(observation, *settle_columns(columns, kept_column())) \
        .localCheckpoint(eager=True)
    got = read_settled(observation.get, columns)
    assert (got.new_states, got.failed) == (expected.new_states, expected.failed)
    assert got.state_hits == expected.state_hits
    assert got.outside_hits == expected.outside_hits
    kept = from_long(np.array([r.fp for r in leaf.filter(kept_column()).collect()], np.int64))
    assert sorted(kept.tolist()) == sorted(fp[keep].tolist())
