"""Model reductions for PDR: variables frozen by the configuration (exact),
and the cone of influence of a property (over-approximate)."""
from __future__ import annotations

from modelcheck.evaluate.evaluator import Evaluator
from modelcheck.engines.z3.slicing import cone_of_influence, freeze, frozen_facts, frozen_vars, \
    slice_model
from modelcheck.pipeline import load_source

SPEC = """
module budget
const max_crashes: 0..2 = 0
const feature: bool = false
var crashes_left: 0..2 = max_crashes
var up: bool = true
var x: 0..3 = 0
var y: 0..3 = 0
var noise: 0..3 = 0
var extra: 0..3 = 0
action Crash() { require crashes_left > 0  crashes_left := crashes_left - 1  up := false }
action Step() { require up and x < 3  x := x + 1  noise := y }
action Copy() { require x > y  y := x }
action Feature() { require feature  extra := 1 }
action Noise() { require noise < 3  noise := noise + 1 }
invariant YBelowX: y <= x
"""


def test_frozen_variables_and_disabled_actions():
    model = load_source(SPEC, "budget.mc")
    fixed, disabled = frozen_vars(model)
    assert fixed == {"crashes_left": 0, "up": True, "extra": 0}
    assert disabled == {"Crash", "Feature"}
    # With a crash allowed nothing about crashes or up is frozen.
    fixed, disabled = frozen_vars(load_source(SPEC, "budget.mc", {"max_crashes": "1"}))
    assert "up" not in fixed and "crashes_left" not in fixed and "Crash" not in disabled


def test_freeze_substitutes_values_and_keeps_behaviour():
    model = load_source(SPEC, "budget.mc")
    frozen, values = freeze(model)
    assert values == {"crashes_left": 0, "up": True, "extra": 0}
    assert [v.name for v in frozen.vars] == ["x", "y", "noise"]
    assert [a.name for a in frozen.actions] == ["Step", "Copy", "Noise"]
    # Same reachable behaviour on the remaining variables.
    full, small = Evaluator(model), Evaluator(frozen)
    names = [v.name for v in frozen.vars]

    def reach(ev, project):
        seen, todo = set(), list(ev.initial_states())
        while todo:
            s = todo.pop()
            if s in seen:
                continue
            seen.add(s)
            todo.extend(t.state for t in ev.successors(s))
        return {project(ev, s) for s in seen}

    assert reach(full, lambda ev, s: tuple(ev.state_dict(s)[n] for n in names)) == \
        reach(small, lambda ev, s: s)


def test_cone_of_influence_leaves_out_what_the_property_cannot_see():
    model = load_source(SPEC, "budget.mc")
    assert cone_of_influence(model, frozenset({"y"})) == {"x", "y", "up", "crashes_left"}
    sliced = slice_model(freeze(model)[0], [model.get_property("YBelowX")])
    assert [v.name for v in sliced.vars] == ["x", "y"]
    # Step still runs, without its write to noise.
    assert [a.name for a in sliced.actions] == ["Step", "Copy"]
    facts = frozen_facts(model, model.get_property("YBelowX"))
    assert [(d.name, v) for d, v in facts] == [("crashes_left", 0), ("up", True)]
