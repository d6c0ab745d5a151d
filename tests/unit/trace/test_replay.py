"""Replay: a trace is a behaviour of the model, or the reason says which step
is not, in plain words."""
from __future__ import annotations

import dataclasses

from hand_models import apply, const, die_hard, model, two_phase, var
from modelcheck.diagnostics import Span
from modelcheck.engines.base import CheckOptions
from modelcheck.engines.reference import ReferenceEngine
from modelcheck.ir import nodes as ir
from modelcheck.ir.ops import Op
from modelcheck.ir.types import BOOL, IntType
from modelcheck.ir.values import FrozenDict
from modelcheck.trace.replay import replay
from modelcheck.trace.trace import Step, Trace


def die_hard_trace():
    return ReferenceEngine().check(die_hard(), CheckOptions()).get_property("NotFour").trace


def with_step(trace, i, **changes):
    steps = list(trace.steps)
    steps[i] = dataclasses.replace(steps[i], **changes)
    return Trace(trace.model_name, steps, trace.kind, trace.property_name)


def test_a_trace_from_the_explorer_replays():
    result = replay(die_hard(), die_hard_trace())
    assert result.ok and result.step is None and result.reason is None


def test_first_state_must_be_initial():
    trace = with_step(die_hard_trace(), 0, state={"small": 1, "big": 0})
    result = replay(die_hard(), trace)
    assert not result.ok and result.step == 0
    assert "initial state" in result.reason and "'small'" in result.reason


def test_a_step_that_leads_elsewhere_names_the_variable():
    trace = die_hard_trace()
    trace = with_step(trace, 2, state={"small": 3, "big": 1})
    result = replay(die_hard(), trace)
    assert not result.ok and result.step == 2
    assert "step 2" in result.reason and "BigToSmall" in result.reason
    assert "'big' is 1 in the trace but the action gives 2" in result.reason


def test_a_disabled_step_names_the_guard_that_is_false():
    source = "module m\nvar x: 0..3 = 0\naction Up() {\n    require x < 2\n    x := x + 1\n}\n"
    t = IntType(0, 3)
    cond = ir.Apply(Op.LT, (var("x", t), const(2, t)), BOOL, span=Span("m.mc", 4, 13, 4, 18))
    up = ir.Action("Up", (), (ir.Require(cond, span=Span("m.mc", 4, 5, 4, 18)),
                              ir.Assign("x", apply(Op.ADD, IntType(1, 4), var("x", t), const(1, t)))))
    m = dataclasses.replace(model("m", [ir.VarDecl("x", t, ir.InitKind.EQ, const(0, t))], [up]),
                            sources=(("m.mc", source),))
    steps = [Step(None, (), {"x": 0}), Step("Up", (), {"x": 1}), Step("Up", (), {"x": 2}),
             Step("Up", (), {"x": 3})]
    result = replay(m, Trace("m", steps))
    assert not result.ok and result.step == 3
    assert result.reason == ("step 3 (Up) is not enabled in the state before it: "
                             "the guard 'require x < 2' at m.mc:4:5 is false")


def test_missing_action_names_are_filled_in():
    trace = die_hard_trace()
    bare = Trace(trace.model_name, [Step(None, (), s.state) for s in trace.steps])
    result = replay(die_hard(), bare)
    assert result.ok
    assert [s.action for s in bare.steps] == [s.action for s in trace.steps]
    assert result.trace is bare


def test_parameters_are_checked():
    m = two_phase(2)
    trace = ReferenceEngine().check(m, CheckOptions(max_depth=3)).properties[0].trace
    assert trace is None     # nothing violated; build a trace by hand
    init = {"rmState": FrozenDict({"rm1": "working", "rm2": "working"}), "tmState": "init",
            "tmPrepared": frozenset(), "msgs": frozenset()}
    after = dict(init, rmState=FrozenDict({"rm1": "aborted", "rm2": "working"}))
    good = Trace("two_phase", [Step(None, (), init), Step("RMChooseToAbort", (("r", "rm1"),), after)])
    assert replay(m, good).ok
    wrong_param = with_step(good, 1, params=(("r", "rm2"),))
    assert "'rmState'" in replay(m, wrong_param).reason
    unknown_value = with_step(good, 1, params=(("r", "rm9"),))
    assert "r='rm9' is not a value of RM" in replay(m, unknown_value).reason
    missing = with_step(good, 1, params=())
    assert "parameter 'r' is not given" in replay(m, missing).reason
    unknown_action = with_step(good, 1, action="Explode")
    assert "no action named 'Explode'" in replay(m, unknown_action).reason


def test_states_must_name_exactly_the_state_variables():
    trace = die_hard_trace()
    missing = with_step(trace, 1, state={"small": 0})
    assert "no value for the state variable 'big'" in replay(die_hard(), missing).reason
    extra = with_step(trace, 1, state={"small": 0, "big": 5, "jug": 1})
    assert "'jug', which is not a state variable" in replay(die_hard(), extra).reason
    out_of_type = with_step(trace, 1, state={"small": 0, "big": 9})
    assert "not a value of its type 0..5" in replay(die_hard(), out_of_type).reason


def test_empty_trace_does_not_replay():
    assert not replay(die_hard(), Trace("die_hard", [])).ok
