"""Liveness on the reference explorer, one classic pitfall per test
(docs/design.md, "Liveness"): each asserts the verdicts and the lasso's
shape (where its cycle starts, the loop-back step, which state stutters).

Every check goes through ``api.check``, which replays each lasso and checks
that it is a fair behaviour violating its property (modelcheck/trace), so a
verdict here also comes with a counterexample that proves itself.
"""
from __future__ import annotations

import pytest

from modelcheck import api
from modelcheck.engines.base import CheckOptions, Status
from modelcheck.ir.nodes import PropertyKind


def check(source: str, **options):
    model = api.load_source(source, path="live.mc")
    result = api.check(model, engine="reference", options=CheckOptions(**options))
    return {p.name: p for p in result.properties}, result


def verdicts(props) -> dict[str, Status]:
    return {name: p.status for name, p in props.items() if p.kind is PropertyKind.LIVENESS}


def shape(trace) -> tuple[list[dict], int | None, str | None]:
    """(states, loop index, loop-back action) of a lasso."""
    back = None if trace.loop_back is None else trace.loop_back.action
    return [s.state for s in trace.steps], trace.loop, back


CYCLE = """module cyc
var x: 0..2 = 0
action Step() {
    x := (x + 1) % 3
}
liveness Reaches2: eventually x == 2
liveness Often: always eventually x == 0
liveness Settles: eventually always x == 0
"""


def test_without_fairness_the_initial_state_stutters_forever():
    props, _ = check(CYCLE)
    assert verdicts(props) == {"Reaches2": Status.VIOLATED, "Often": Status.VIOLATED,
                               "Settles": Status.VIOLATED}
    # Standing still at x = 0 is a behaviour: a lasso of no step.
    trace = props["Reaches2"].trace
    assert shape(trace) == ([{"x": 0}], 0, None)
    assert trace.property_name == "Reaches2" and len(trace) == 0
    # always eventually x == 0 fails by standing still where x != 0
    states, loop, back = shape(props["Often"].trace)
    assert states[-1] != {"x": 0} and loop == len(states) - 1 and back is None


def test_a_property_that_holds_only_under_fairness():
    props, _ = check(CYCLE + "fair weak Step\n")
    assert verdicts(props) == {"Reaches2": Status.HOLDS, "Often": Status.HOLDS,
                               "Settles": Status.VIOLATED}
    # The fair behaviour goes round 0 -> 1 -> 2 -> 0 forever.
    states, loop, back = shape(props["Settles"].trace)
    assert back == "Step" and {"x": 1} in states[loop:] and loop < len(states) - 1


def test_a_deadlock_makes_eventually_fail():
    """A state with no successor can only stutter: fairness cannot move it."""
    props, _ = check("""module stall
var x: 0..2 = 0
action Inc() {
    require x < 1
    x := x + 1
}
liveness Reaches2: eventually x == 2
fair strong Inc
""")
    assert props["deadlock"].status is Status.VIOLATED
    assert verdicts(props) == {"Reaches2": Status.VIOLATED}
    assert shape(props["Reaches2"].trace) == ([{"x": 0}, {"x": 1}], 1, None)


TOGGLE = """module toggle
var x: 0..1 = 0
var done: bool = false
action Flip() {
    require not done
    x := 1 - x
}
action Go() {
    require x == 1
    done := true
}
liveness Done: eventually done
fair weak Flip
"""


def test_weak_fairness_misses_an_action_enabled_and_disabled_in_turn():
    props, _ = check(TOGGLE + "fair weak Go\n")
    assert verdicts(props) == {"Done": Status.VIOLATED}
    states, loop, back = shape(props["Done"].trace)
    # Go is disabled at x == 0, so going round x = 0, 1 is weakly fair.
    assert loop == 0 and back == "Flip"
    assert states == [{"x": 0, "done": False}, {"x": 1, "done": False}]


def test_strong_fairness_takes_an_action_enabled_infinitely_often():
    props, _ = check(TOGGLE + "fair strong Go\n")
    assert verdicts(props) == {"Done": Status.HOLDS}


QUEUE = """module queue
type Node = model(2)
var pending: set[Node] = {}
action Request(n: Node) {
    require n not in pending
    pending := pending | {n}
}
action Serve(n: Node) {
    require n in pending
    pending := pending - {n}
}
liveness Served(n: Node): n in pending leads to n not in pending
"""


def test_fairness_as_a_whole_lets_one_binding_starve():
    """WF(Serve) as a whole is met by serving node2 over and over while
    node1 waits forever (the first binding violated is the one reported)."""
    props, _ = check(QUEUE + "fair weak Serve\n")
    assert verdicts(props) == {"Served": Status.VIOLATED}
    trace = props["Served"].trace
    assert trace.meta["instance"] == "Served(n=node1)"
    states, loop, back = shape(trace)
    # Standing still with node1 pending is unfair (Serve is enabled): the
    # cycle must move, serving node2 and never node1.
    assert back is not None and loop < len(states) - 1
    assert all("node1" in str(s["pending"]) for s in states[loop:])
    assert any(step.action == "Serve" for step in trace.steps[loop + 1:] + [trace.loop_back])


def test_fairness_per_binding_serves_every_binding():
    props, _ = check(QUEUE + "fair weak Serve(*)\n")
    assert verdicts(props) == {"Served": Status.HOLDS}


def test_for_binders_with_a_condition_make_one_condition_per_binding():
    """Only node2 is served fairly: node1 may wait forever, and the first
    binding violated is reported."""
    props, _ = check(QUEUE + "fair weak Serve(n) for n in Node if n != node1\n")
    trace = props["Served"].trace
    assert props["Served"].status is Status.VIOLATED
    assert trace.meta["instance"] == "Served(n=node1)"
    states, loop, back = shape(trace)
    assert all("node1" in str(s["pending"]) for s in states[loop:])
    assert all(step.params != (("n", "node1"),) for step in trace.steps[loop + 1:]
               if step.action == "Serve")


def test_for_binders_cover_the_bindings_they_name():
    props, _ = check(QUEUE + "fair weak Serve(n) for n in Node if n != node1\n"
                     "fair strong Serve(node1)\n")
    assert verdicts(props) == {"Served": Status.HOLDS}


SEND = """module send
type Node = model(2)
var got: set[Node] = {}
action Send(a: Node, b: Node) {
    require a not in got
    got := got | {a}
}
liveness Got1: eventually node1 in got
liveness Got2: eventually node2 in got
"""


@pytest.mark.parametrize("fair, expected", [
    ("fair weak Send(node1, _)", (Status.HOLDS, Status.VIOLATED)),
    ("fair weak Send(_, node1)", (Status.HOLDS, Status.HOLDS)),
    ("fair weak Send(node2, node2)", (Status.VIOLATED, Status.HOLDS)),
    ("fair weak Send(*, _)", (Status.HOLDS, Status.HOLDS)),
])
def test_underscore_arguments_match_any_value(fair, expected):
    props, _ = check(SEND + fair + "\n")
    assert (props["Got1"].status, props["Got2"].status) == expected
    for name in ("Got1", "Got2"):
        if props[name].status is Status.VIOLATED:
            # The lasso stands still (with no step there is nothing to go round).
            states, loop, back = shape(props[name].trace)
            assert back is None and loop == len(states) - 1


def test_a_step_outside_the_constraints_still_enables_its_action():
    """Inc leads from x = 1 to x = 2, outside the constraint: Inc is enabled
    at x = 1, so standing still there is unfair, and no fair behaviour is
    left: the property holds (vacuously)."""
    props, result = check("""module cut
var x: 0..3 = 0
action Inc() {
    require x < 3
    x := x + 1
}
constraint Small: x <= 1
liveness Reaches3: eventually x == 3
fair weak Inc
""", deadlock=False)
    assert result.stats.distinct_states == 2
    assert verdicts(props) == {"Reaches3": Status.HOLDS}


def test_an_action_step_to_the_same_state_is_a_stutter():
    """Nop changes nothing: it is never enabled as a fairness condition, so
    WF(Nop) does not stop the initial state from standing still."""
    props, _ = check("""module nop
var x: 0..1 = 0
action Inc() {
    require x == 0
    x := 1
}
action Nop() {
    x := x
}
liveness Reaches1: eventually x == 1
fair weak Nop
""")
    assert verdicts(props) == {"Reaches1": Status.VIOLATED}
    assert shape(props["Reaches1"].trace) == ([{"x": 0}], 0, None)


def test_eventually_always_needs_a_cycle_through_a_false_state():
    props, _ = check("""module settle
var x: 0..2 = 0
action Inc() {
    require x < 2
    x := x + 1
}
liveness Top: eventually always x == 2
liveness Low: eventually always x < 2
fair weak Inc
""", deadlock=False)
    # Under WF(Inc) x reaches 2 and stays there.
    assert verdicts(props) == {"Top": Status.HOLDS, "Low": Status.VIOLATED}
    assert shape(props["Low"].trace) == ([{"x": 0}, {"x": 1}, {"x": 2}], 2, None)


def test_property_selects_one_liveness_property():
    props, _ = check(CYCLE + "fair weak Step\n", invariants=("Settles",))
    assert set(verdicts(props)) == {"Settles"}
    assert props["Settles"].status is Status.VIOLATED


@pytest.mark.parametrize("options", [{"max_states": 2}, {"max_depth": 2}, {"max_depth": 1}])
def test_a_bound_gives_unknown_never_holds(options):
    props, result = check(CYCLE + "fair weak Step\n", **options)
    assert set(verdicts(props).values()) == {Status.UNKNOWN}
    assert all(props[name].reason for name in verdicts(props))
    assert result.reason


def test_a_depth_bound_that_cuts_nothing_gives_the_unbounded_verdicts():
    """max_depth = 3 stores all three states: the last level only steps back
    to x = 0, so the search is complete and the verdicts are the full ones."""
    props, result = check(CYCLE + "fair weak Step\n", max_depth=3)
    assert verdicts(props) == {"Reaches2": Status.HOLDS, "Often": Status.HOLDS,
                               "Settles": Status.VIOLATED}
