"""Bounded model checking: shortest counterexamples and witnesses, bounded
verdicts, deadlock, run-time errors re-derived by the reference evaluator,
and agreement with the reference explorer on every example of
docs/language.md."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from modelcheck import api
from modelcheck.engines.base import CheckOptions, Status
from modelcheck.engines.z3.bmc import CAPABILITIES, DEFAULT_DEPTH, BmcEngine
from modelcheck.errors import CompileError
from modelcheck.ir.nodes import PropertyKind
from modelcheck.pipeline import load_source

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "specs" / "examples"


def bmc(model, **kw):
    return api.check(model, engine="bmc", options=CheckOptions(**kw))


def test_die_hard_is_violated_in_exactly_six_steps():
    model = api.load(str(EXAMPLES / "die_hard.mc"))
    result = bmc(model, depth=10)
    prop = result.get_property("NotFour")
    assert prop.status is Status.VIOLATED
    assert prop.steps == 6
    assert prop.trace.steps[-1].state["big"] == 4
    assert [s.action for s in prop.trace.steps[1:]].count(None) == 0
    assert result.exit_code == 1


def test_die_hard_below_six_steps_holds_only_up_to_the_bound():
    model = api.load(str(EXAMPLES / "die_hard.mc"))
    result = bmc(model, depth=5)
    prop = result.get_property("NotFour")
    assert prop.status is Status.HOLDS_UP_TO_BOUND
    assert prop.reason == "holds up to depth 5"
    assert result.exit_code == 3
    assert not result.complete


def test_two_phase_consistent_holds_up_to_its_diameter():
    model = api.load(str(EXAMPLES / "two_phase.mc"))
    result = bmc(model, depth=10)
    assert result.get_property("Consistent").status is Status.HOLDS_UP_TO_BOUND
    assert result.get_property("deadlock").status is Status.HOLDS_UP_TO_BOUND
    assert result.error is None


def test_default_depth_is_used_and_said():
    model = api.load(str(EXAMPLES / "die_hard.mc"))
    result = bmc(model)
    assert any(str(DEFAULT_DEPTH) in note for note in result.notes)
    assert result.get_property("deadlock").reason == f"holds up to depth {DEFAULT_DEPTH}"


def test_max_depth_in_levels_becomes_steps_when_no_depth_is_given():
    model = api.load(str(EXAMPLES / "die_hard.mc"))
    result = bmc(model, max_depth=4)
    assert result.get_property("NotFour").reason == "holds up to depth 3"


def test_engine_declares_its_capabilities():
    engine = BmcEngine()
    assert engine.name == "bmc"
    assert "shortest_traces" in engine.capabilities
    assert "state_counts" not in CAPABILITIES


SOMETIMES = """
module reach
var n: 0..5 = 0
action Up() { require n < 5  n := n + 1 }
sometimes Three: n == 3
sometimes Never: n == 9 - 3 and n > 6
terminal Top: n == 5
"""


def test_sometimes_gives_the_shortest_witness_or_unknown():
    model = load_source(SOMETIMES, "reach.mc")
    result = bmc(model, depth=6)
    three = result.get_property("Three")
    assert (three.status, three.steps, three.trace.kind) == (Status.HOLDS, 3, "witness")
    never = result.get_property("Never")
    assert never.status is Status.UNKNOWN and never.trace is None
    assert "within 6 steps" in never.reason
    # n == 5 is terminal, so it is no deadlock
    assert result.get_property("deadlock").status is Status.HOLDS_UP_TO_BOUND


DEADLOCK = """
module stuck
var n: 0..3 = 0
action Up() { require n < 2  n := n + 1 }
invariant Small: n < 3
"""


def test_deadlock_is_a_state_without_enabled_action():
    model = load_source(DEADLOCK, "stuck.mc")
    result = bmc(model, depth=5)
    dead = result.get_property("deadlock")
    assert dead.status is Status.VIOLATED and dead.steps == 2
    assert dead.trace.steps[-1].state == {"n": 2}
    no_deadlock = bmc(model, depth=5, deadlock=False)
    assert [p.name for p in no_deadlock.properties] == ["Small"]


STEP = """
module steps
var n: 0..4 = 0
action Up() { require n < 4  n := n + 1 }
action Jump() { require n == 1  n := 3 }
step invariant ByOne: n' == n + 1
"""


def test_step_invariant_counterexample_ends_with_the_bad_step():
    model = load_source(STEP, "steps.mc")
    result = bmc(model, depth=4, deadlock=False)
    prop = result.get_property("ByOne")
    assert prop.status is Status.VIOLATED and prop.steps == 2
    assert prop.trace.steps[-1].action == "Jump"


ERRORS = """
module errors
var n: 0..3 = 0
var d: 0..2 = 2
action Up() { require n < 3  n := n + 1 }
action Down() { require d > 0  d := d - 1 }
action Divide() { require n == 2  n := 6 // d }
"""


def test_run_time_error_is_found_with_its_shortest_trace_and_the_reference_message():
    model = load_source(ERRORS, "errors.mc")
    result = bmc(model, depth=8)
    err = result.error
    assert err is not None
    # Divide needs n == 2 and d == 0: 2 + 2 steps, then the division fails
    # (6 // 1 == 6 is out of range first, at 3 steps: MC5001).
    assert err.diagnostic.code == "MC5001"
    assert len(err.trace) == 3
    assert err.trace.kind == "error"
    assert result.exit_code == 2
    assert all(p.status is Status.UNKNOWN for p in result.properties)


def test_stop_on_first_stops_at_the_first_violation():
    model = load_source(STEP, "steps.mc")
    result = bmc(model, depth=4, stop_on_first=True)
    assert result.get_property("ByOne").status is Status.VIOLATED


def test_unknown_property_name_is_a_usage_error():
    from modelcheck.errors import UsageError
    model = load_source(STEP, "steps.mc")
    with pytest.raises(UsageError):
        bmc(model, invariants=("Nope",))


@pytest.mark.parametrize("solver", ["fresh", "incremental"])
def test_solver_modes_agree(solver):
    model = api.load(str(EXAMPLES / "die_hard.mc"))
    result = api.check(model, engine="bmc", options=CheckOptions(
        depth=7, extra={"z3_encoding": {"solver": solver}}))
    assert result.get_property("NotFour").steps == 6


# ---------------------------------------------------------------- docs/language.md

def _doc_examples():
    text = (ROOT / "docs" / "language.md").read_text()
    blocks = re.findall(r"```mc\n(.*?)```\s*<!-- expect: (.*?) -->", text, re.S)
    out = []
    for i, (source, expect) in enumerate(blocks):
        if expect.startswith("compile-error") or expect == "...":
            continue
        name = re.search(r"^module (\w+)", source, re.M)
        out.append(pytest.param(source, id=name.group(1) if name else f"example{i}"))
    return out


@pytest.mark.parametrize("source", _doc_examples())
def test_language_examples_agree_with_reference(source):
    try:
        model = load_source(source, "example.mc")
    except CompileError:
        pytest.skip("the example uses an import (not loadable from a string)")
    declined = bmc(model, depth=0)
    if "element by element" in (declined.reason or ""):
        # Declared: a set over more elements than the encoding enumerates
        # (docs/engines/z3.md) is declined with the reason, never answered for.
        assert all(p.status is Status.UNKNOWN for p in declined.properties)
        return
    ref = api.check(model, engine="reference")
    if ref.error is not None:
        got = bmc(model, depth=len(ref.error.trace) + 1 if ref.error.trace else 1)
        assert got.error is not None
        assert got.error.diagnostic.code == ref.error.diagnostic.code
        assert (got.error.trace is None) == (ref.error.trace is None)
        if ref.error.trace is not None:
            assert len(got.error.trace) == len(ref.error.trace)
        return
    depth = max([p.steps for p in ref.properties if p.steps is not None] + [ref.stats.depth - 1])
    got = bmc(model, depth=depth)
    for want in ref.properties:
        have = got.get_property(want.name)
        if want.kind is PropertyKind.LIVENESS:
            # bmc does not check liveness: UNKNOWN with the reason, whatever
            # the reference found (docs/engines/liveness.md).
            assert have.status is Status.UNKNOWN and "does not check liveness" in have.reason
        elif want.trace is not None:
            assert (have.status, have.steps) == (want.status, want.steps), want.name
        elif want.kind is PropertyKind.SOMETIMES:
            assert have.trace is None
        else:
            assert have.status is Status.HOLDS_UP_TO_BOUND, want.name


def test_timeout_leaves_every_property_unknown_with_the_reason():
    model = api.load(str(EXAMPLES / "two_phase.mc"))
    result = bmc(model, depth=10, timeout_s=1e-6)
    assert result.reason.startswith("timeout after")
    assert all(p.status is Status.UNKNOWN for p in result.properties)
    assert result.exit_code == 3


def test_the_timeout_bounds_the_encoding_too(monkeypatch):
    # Encoding one depth of a large spec takes minutes of Python; the budget
    # must end it there too.  Here every solver call would succeed at once,
    # so only the encoding's own deadline can stop the run at depth 0.
    import time

    from modelcheck.engines.z3.encoding import Encoding
    from modelcheck.engines.z3.symbolic import EncodingTimeout
    model = api.load(str(EXAMPLES / "two_phase.mc"))
    with pytest.raises(EncodingTimeout):
        Encoding(model, deadline=time.monotonic() - 1.0)
    seen = []
    real = Encoding.__init__

    def spy(self, *args, **kwargs):
        seen.append(kwargs.get("deadline"))
        real(self, *args, **kwargs)
    monkeypatch.setattr(Encoding, "__init__", spy)
    result = bmc(model, depth=10, timeout_s=1e-6)
    assert seen and seen[0] is not None
    assert result.reason.startswith("timeout after") and result.reason.endswith("at depth 0")


def test_a_property_false_in_a_state_is_reported_before_an_error_of_its_next_step():
    # The reference explorer checks a state before it expands it: both the
    # violation (0 steps) and the error (taking A from state 0) are reported.
    model = load_source("""
module both
var x: 0..1 = 1
action A() { x := x + 1 }
invariant Zero: x == 0
""", "both.mc")
    # The reference explorer would stop at level 0 once Zero is settled
    # (stop_when_settled); this test is about what it finds when it goes on.
    ref = api.check(model, engine="reference",
                    options=CheckOptions(deadlock=False, stop_when_settled=False))
    result = bmc(model, depth=3, deadlock=False)
    assert ref.get_property("Zero").status is Status.VIOLATED
    assert result.get_property("Zero").status is Status.VIOLATED
    assert result.get_property("Zero").steps == ref.get_property("Zero").steps == 0
    assert result.error.diagnostic.code == ref.error.diagnostic.code == "MC5001"


def test_a_state_whose_expansion_fails_is_an_error_not_a_deadlock():
    model = load_source("""
module fails
var x: 0..1 = 0
action A() { require 1 // x > 0
  x := 0 }
""", "fails.mc")
    ref = api.check(model, engine="reference", options=CheckOptions())
    result = bmc(model, depth=2)
    assert ref.error.diagnostic.code == result.error.diagnostic.code == "MC5002"
    assert result.get_property("deadlock").status is not Status.VIOLATED
