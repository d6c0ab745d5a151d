"""The Spark engine on a real embedded Spark (local[2]) with the compiled
kernels, as shipped: results equal the reference explorer's, levels move to
Spark at the threshold, a timeout cancels a running level and the run
resumes from its checkpoint to the same counts."""
from __future__ import annotations

from pathlib import Path

import pytest

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


@pytest.mark.parametrize("source", ["die_hard", "two_phase", "grid"])
def test_spark_levels_agree_with_reference(spark, source):
    if source == "grid":
        model = api.load_source(GRID, path="<grid>")
    else:
        model = api.load(str(EXAMPLES / f"{source}.mc"))
    reference = api.check(model, "reference", CheckOptions(symmetry=False))
    result = api.check(model, "spark", _options())      # replays every trace
    assert _summary(result) == _summary(reference)
    assert result.stats.extras["levels_on_spark"]
    assert result.stats.action_counts == reference.stats.action_counts


def test_runtime_error_on_spark(spark):
    model = api.load_source(OVERFLOW, path="<overflow>")
    result = api.check(model, "spark", _options())
    assert result.error.diagnostic.code == "MC5001"
    assert len(result.error.trace) == 3


def test_hand_over_at_the_threshold(spark):
    model = api.load(str(EXAMPLES / "two_phase.mc"), consts={"N": "4"})
    result = api.check(model, "spark", CheckOptions(symmetry=False, spark_threshold=100,
                                                    partitions=2, master="local[2]"))
    assert result.stats.distinct_states == 1568
    extras = result.stats.extras
    assert extras["levels_in_process"].startswith("1-") and extras["levels_on_spark"]


def test_timeout_then_resume(spark, tmp_path):
    model = api.load(str(EXAMPLES / "two_phase.mc"), consts={"N": "6"})
    whole = api.check(model, "compiled", CheckOptions(symmetry=False))
    # 20 levels do not fit in 4 s (each costs a Spark job of two stages).
    stopped = api.check(model, "spark", _options(timeout_s=4, checkpoint_dir=str(tmp_path)))
    if stopped.complete:
        pytest.skip("the whole run fitted in the timeout on this machine")
    assert stopped.reason.startswith("timeout")
    assert all(p.status is Status.UNKNOWN for p in stopped.properties)
    resumed = api.check(model, "spark", _options(resume_dir=str(tmp_path)))
    assert _summary(resumed) == _summary(whole)
