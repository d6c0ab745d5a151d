"""A counterexample must prove itself: a trace whose steps execute but whose
end does not show what it claims is an internal error naming the engine,
never a trace shown or written."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from modelcheck import api
from modelcheck.engines.reference import ReferenceEngine
from modelcheck.trace.replay import TraceReplayError
from modelcheck.trace.store import write_trace
from modelcheck.trace.trace import Step, Trace
from modelcheck.trace.verify import VIOLATION_KINDS, check_violation, trace_problem, verify_trace

COUNTER = """module counter
var x: 0..3 = 0
var y: 0..3 = 0
action Inc() {
    require x < 3
    x := x + 1
}
action Jump() {
    require x == 1
    y := 3 // (x - 1)
}
invariant Small: x < 2
step invariant Slow: x' <= x + 1 and y' == y
sometimes Two: x == 2
terminal Done: x == 3 and y == 0
"""


@pytest.fixture(scope="module")
def counter():
    return api.load_source(COUNTER, "counter.mc")


def run(model, *steps, kind="counterexample", prop=None, meta=None):
    """A trace through (action, x, y) triples, the first one initial."""
    out = [Step(a, (), {"x": x, "y": y}) for a, x, y in steps]
    return Trace(model.name, out, kind=kind, property_name=prop, meta=dict(meta or {}))


def test_real_traces_of_every_kind_pass(counter):
    result = ReferenceEngine().check(counter, api.CheckOptions())
    assert result.error is not None and result.error.diagnostic.code == "MC5002"
    verify_trace(counter, result.error.trace, "reference", "MC5002")
    for prop in result.properties:
        if prop.trace is not None:
            verify_trace(counter, prop.trace, "reference")


def test_invariant_true_in_the_last_state_is_refused(counter):
    good = run(counter, (None, 0, 0), ("Inc", 1, 0), ("Inc", 2, 0), prop="Small")
    assert trace_problem(counter, good) is None
    short = run(counter, (None, 0, 0), ("Inc", 1, 0), prop="Small")
    with pytest.raises(TraceReplayError) as info:
        verify_trace(counter, short, "compiled")
    message = str(info.value)
    assert message.startswith("internal error: the compiled engine's trace for property 'Small'")
    assert "Small is true in its last state" in message


def test_step_invariant_true_on_the_last_step_is_refused(counter):
    # Jump keeps x and y; Inc changes x by one: Slow holds on every Inc step.
    holds = run(counter, (None, 0, 0), ("Inc", 1, 0), prop="Slow")
    assert "Slow is true on its last step" in trace_problem(counter, holds)
    no_step = run(counter, (None, 0, 0), prop="Slow")
    assert "takes no step" in trace_problem(counter, no_step)


def test_deadlock_with_an_enabled_action_or_a_terminal_state_is_refused(counter):
    enabled = run(counter, (None, 0, 0), ("Inc", 1, 0), prop="deadlock")
    assert "Inc is enabled in its last state" in trace_problem(counter, enabled)
    terminal = run(counter, (None, 0, 0), ("Inc", 1, 0), ("Inc", 2, 0), ("Inc", 3, 0),
                   prop="deadlock")
    assert "terminal state" in trace_problem(counter, terminal)


def test_witness_must_end_where_its_property_holds(counter):
    early = run(counter, (None, 0, 0), ("Inc", 1, 0), kind="witness", prop="Two")
    assert "Two is false in its last state" in trace_problem(counter, early)
    assert trace_problem(counter, run(counter, (None, 0, 0), ("Inc", 1, 0), ("Inc", 2, 0),
                                      kind="witness", prop="Two")) is None


def test_error_trace_must_raise_its_code_at_the_end(counter):
    # In x == 1, Jump divides by zero (MC5002); in x == 0 nothing fails.
    good = run(counter, (None, 0, 0), ("Inc", 1, 0), kind="error")
    assert trace_problem(counter, good, "MC5002") is None
    assert "raises MC5002, not MC5001" in trace_problem(counter, good, "MC5001")
    early = run(counter, (None, 0, 0), kind="error", meta={"error": "MC5002"})
    with pytest.raises(TraceReplayError, match="nothing evaluated in its last state raises MC5002"):
        verify_trace(counter, early, "spark")


def test_a_trace_that_does_not_replay_is_still_refused_first(counter):
    jumped = run(counter, (None, 0, 0), ("Inc", 2, 0), prop="Small")
    assert "does not replay" in trace_problem(counter, jumped)


def test_unknown_property_and_unknown_kind(counter):
    assert "unknown property 'Big'" in trace_problem(counter, run(counter, (None, 0, 0), prop="Big"))
    with pytest.raises(ValueError, match="cycle"):
        check_violation(counter, run(counter, (None, 0, 0)), "cycle", "Small")
    assert "cycle" not in VIOLATION_KINDS


def test_a_loop_on_a_trace_about_no_liveness_property_is_refused(counter):
    looped = run(counter, (None, 0, 0), ("Inc", 1, 0), prop="Small")
    looped.loop = 1
    assert "not about a liveness property" in trace_problem(counter, looped)


def test_scenarios_claim_nothing_beyond_replaying(counter):
    assert trace_problem(counter, run(counter, (None, 0, 0), ("Inc", 1, 0), kind="scenario")) is None


def test_a_wrong_counterexample_is_never_written(counter, tmp_path):
    short = run(counter, (None, 0, 0), ("Inc", 1, 0), prop="Small")
    with pytest.raises(TraceReplayError, match="refusing to write"):
        write_trace(short, counter, tmp_path)
    assert list(tmp_path.iterdir()) == []


class _WrongEngine:
    """An engine whose counterexample executes but stops one step short."""
    name = "wrong"

    def check(self, model, options, reporter):
        result = ReferenceEngine().check(model, options, reporter)
        prop = result.get_property("NotFour")
        prop.trace = dataclasses.replace(prop.trace, steps=prop.trace.steps[:-1])
        return result


def test_api_check_refuses_an_engines_wrong_counterexample(monkeypatch):
    monkeypatch.setattr(api, "get_engine", lambda name: _WrongEngine())
    with pytest.raises(TraceReplayError, match="the wrong engine's trace for property 'NotFour' "
                                               "does not show a violation of the invariant NotFour"):
        api.check(api.load(str(EXAMPLES_DIR / "die_hard.mc")), engine="wrong")


EXAMPLES_DIR = Path(__file__).resolve().parents[3] / "specs" / "examples"
EXAMPLES = sorted(EXAMPLES_DIR.glob("*.mc"))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_every_counterexample_of_the_example_specs_proves_itself(path):
    model = api.load(str(path))
    result = api.check(model, engine="reference")      # api.check verifies every trace
    for trace in [p.trace for p in result.properties if p.trace is not None]:
        assert trace_problem(model, trace) is None


def test_a_trace_that_goes_on_from_a_state_outside_the_constraints_is_refused():
    # NotSeven is false at x = 7, but the trace reaches it through x = 6, which
    # fails the constraint: no engine would have expanded that state.
    model = api.load_source("""module c
var x: 0..10 = 0
action Step() { either { x := x + 1 } or { x := x + 2 } }
constraint Bound: x <= 5
invariant NotSeven: x != 7
""", "c.mc")
    xs = [0, 2, 4, 6, 7]
    trace = _counter_trace(model, xs)
    with pytest.raises(TraceReplayError, match="state 3, which fails a state constraint"):
        verify_trace(model, trace, "compiled")
    verify_trace(model, _counter_trace(model, [0, 1, 3, 5, 7]), "compiled")


def _counter_trace(model, xs):
    steps = [Step(None if i == 0 else "Step", (), {"x": x}) for i, x in enumerate(xs)]
    return Trace(model.name, steps, kind="counterexample", property_name="NotSeven")
