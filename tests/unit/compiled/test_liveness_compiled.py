"""Liveness on the compiled engine: verdicts agree with the reference
explorer's and each counterexample is a real lasso (docs/design.md,
"Liveness").  Tiny specs: each compiles once (seconds), cached on disk."""
from __future__ import annotations

import pytest

from modelcheck import api
from modelcheck.engines.base import CheckOptions, Status
from modelcheck.ir.nodes import PropertyKind
from modelcheck.trace.lasso import lasso_problem

pytest.importorskip("numba")

BLINK = """
module blink
var x: 0..2 = 0
action Up() {
    require x < 2
    x := x + 1
}
action Reset() {
    require x == 2
    x := 0
}
liveness Reaches2: eventually x == 2
liveness Returns: x == 2 leads to x == 0
liveness Often2: always eventually x == 2
liveness Stays2: eventually always x == 2
"""

# Finish is enabled only at x == 1, and Flip keeps leaving it.
FLIP = """
module flip
var x: 0..1 = 0
var done: bool = false
action Flip() {
    x := 1 - x
}
action Finish() {
    require x == 1 and not done
    done := true
}
fair weak Flip
liveness Done: eventually done
"""

SERVED = """
module served
type Id = 0..2
var want: map[Id, bool] = {i: false for i in Id}
action Ask(i: Id) {
    require not want[i]
    want[i] := true
}
action Serve(i: Id) {
    require want[i]
    want[i] := false
}
liveness Served(i: Id): want[i] leads to not want[i]
invariant NotAll: not all(want[i] for i in Id)
"""

# x == 2 is a deadlock; Jump is enabled at x == 1 but its target is outside
# the model, so a fair Jump forbids staying at 1 without ever being taken.
CUT = """
module cut
var x: 0..3 = 0
action Up() {
    require x < 2
    x := x + 1
}
action Jump() {
    require x == 1
    x := 3
}
constraint Low: x <= 2
liveness Reaches3: eventually x == 3
liveness Leaves1: x == 1 leads to x != 1
liveness Settles: eventually always x == 2
"""


def _check(source: str, engine: str, **options):
    model = api.load_source(source)
    return model, api.check(model, engine=engine, options=CheckOptions(**options))


def _liveness(result) -> dict:
    return {p.name: p.status for p in result.properties if p.kind is PropertyKind.LIVENESS}


def _lassos(result) -> dict:
    """Each lasso's shape: its prefix, its states, and whether it stutters."""
    return {p.name: (p.trace.loop, len(p.trace.states), p.trace.loop_back is None)
            for p in result.properties if p.kind is PropertyKind.LIVENESS and p.trace}


def _agree(source: str, **options) -> dict:
    """The compiled verdicts, after checking they are the reference's, with the
    same counts and lassos of the same shape, and that every counterexample
    is a fair lasso violating its property."""
    model, compiled = _check(source, "compiled", **options)
    _, reference = _check(source, "reference", **options)
    assert _liveness(compiled) == _liveness(reference)
    assert _lassos(compiled) == _lassos(reference)
    assert compiled.stats.distinct_states == reference.stats.distinct_states
    assert compiled.stats.generated_states == reference.stats.generated_states
    for p in compiled.properties:
        if p.kind is PropertyKind.LIVENESS and p.status is Status.VIOLATED:
            assert p.trace is not None and p.trace.loop is not None
            assert lasso_problem(model, p.trace) is None, (p.name, p.trace)
    assert compiled.stats.extras["liveness_graph_bytes"] > 0
    return _liveness(compiled)


@pytest.mark.parametrize("fair, expected", [
    ("", {"Reaches2": Status.VIOLATED, "Returns": Status.VIOLATED, "Often2": Status.VIOLATED,
          "Stays2": Status.VIOLATED}),
    ("fair weak Up\n", {"Reaches2": Status.HOLDS, "Returns": Status.VIOLATED,
                        "Often2": Status.HOLDS, "Stays2": Status.VIOLATED}),
    ("fair weak Up\nfair weak Reset\n", {"Reaches2": Status.HOLDS, "Returns": Status.HOLDS,
                                         "Often2": Status.HOLDS, "Stays2": Status.VIOLATED}),
])
def test_fairness_decides_the_verdicts(fair, expected):
    assert _agree(BLINK + fair) == expected


def test_without_fairness_the_initial_state_stutters():
    _, result = _check(BLINK, "compiled")
    trace = result.get_property("Reaches2").trace
    assert len(trace.steps) == 1 and trace.loop == 0 and trace.loop_back is None


def test_a_cycle_takes_the_fair_action_and_closes():
    _, result = _check(BLINK + "fair weak Up\nfair weak Reset\n", "compiled")
    trace = result.get_property("Stays2").trace
    assert trace.loop_back is not None
    assert trace.loop_back.state == trace.steps[trace.loop].state
    taken = {s.action for s in trace.steps[trace.loop + 1:]} | {trace.loop_back.action}
    assert taken == {"Up", "Reset"}


# A ring 0 -> 1 -> ... -> 5 -> 0.  A is the step from 4, B the step from 1;
# the walk to A's step passes B's, so the cycle needs one lap, not two.
RING = """
module ring
var x: 0..5 = 0
var never: bool = false
action Go() {
    require x != 1 and x != 4
    x := (x + 1) % 6
}
action A() {
    require x == 4
    x := 5
}
action B() {
    require x == 1
    x := 2
}
fair weak A
fair weak B
liveness Never: eventually never
liveness Back: x == 3 leads to never
"""


def test_the_cycle_skips_a_waypoint_the_walk_has_passed():
    assert _agree(RING) == {"Never": Status.VIOLATED, "Back": Status.VIOLATED}
    _, result = _check(RING, "compiled")
    never = result.get_property("Never").trace
    assert never.loop == 0 and len(never.states) == 6      # one lap, back to x == 0
    back = result.get_property("Back").trace
    assert back.loop == 3 and len(back.states) == 9         # to x == 3, then a lap from it


def test_weak_fairness_fails_where_strong_holds():
    assert _agree(FLIP + "fair weak Finish\n") == {"Done": Status.VIOLATED}
    assert _agree(FLIP + "fair strong Finish\n") == {"Done": Status.HOLDS}


def test_leads_to_per_binding():
    assert _agree(SERVED) == {"Served": Status.VIOLATED}
    _, result = _check(SERVED, "compiled")
    assert result.get_property("Served").trace.meta["instance"] == "Served(i=0)"
    assert _agree(SERVED + "fair weak Serve(*)\n") == {"Served": Status.HOLDS}
    # One condition for all bindings: serving 0 forever starves 1.
    assert _agree(SERVED + "fair weak Serve\n") == {"Served": Status.VIOLATED}


def test_safety_traces_in_a_liveness_run():
    """The table's tags hold state ids in a liveness run: invariant traces
    are rebuilt from the graph's parents, as short as the reference's."""
    _, compiled = _check(SERVED, "compiled")
    _, reference = _check(SERVED, "reference")
    mine, theirs = compiled.get_property("NotAll"), reference.get_property("NotAll")
    assert mine.status is theirs.status is Status.VIOLATED
    assert len(mine.trace) == len(theirs.trace) == 3
    assert mine.trace.steps[-1].state == theirs.trace.steps[-1].state
    _, stopped = _check(SERVED, "compiled", stop_on_first=True)
    assert len(stopped.get_property("NotAll").trace) == 3
    assert stopped.get_property("Served").status is not Status.HOLDS


def test_a_deadlock_fails_eventually():
    assert _agree(CUT + "fair weak Up\n") == {
        "Reaches3": Status.VIOLATED, "Leaves1": Status.HOLDS, "Settles": Status.HOLDS}
    _, result = _check(CUT + "fair weak Up\n", "compiled")
    trace = result.get_property("Reaches3").trace
    assert trace.steps[-1].state == {"x": 2} and trace.loop == len(trace.steps) - 1


def test_constraints_cut_the_graph_but_not_enabledness():
    assert _agree(CUT) == {"Reaches3": Status.VIOLATED, "Leaves1": Status.VIOLATED,
                           "Settles": Status.VIOLATED}
    # Only Jump is fair: staying at 1 is unfair although Jump is never taken.
    assert _agree(CUT + "fair weak Jump\n") == {
        "Reaches3": Status.VIOLATED, "Leaves1": Status.HOLDS, "Settles": Status.VIOLATED}


def test_bounds_leave_liveness_unknown():
    _, result = _check(BLINK + "fair weak Up\n", "compiled", max_depth=2)
    assert result.get_property("Reaches2").status is Status.UNKNOWN
    assert result.get_property("Reaches2").reason


def test_checkpoints_are_not_supported(tmp_path):
    _, result = _check(BLINK + "fair weak Up\n", "compiled", checkpoint_dir=str(tmp_path))
    found = result.get_property("Reaches2")
    assert found.status is Status.UNKNOWN and "checkpoint" in found.reason


# BLINK's properties and one more, whose predicate divides by zero at x == 0.
PICKED = BLINK + "fair weak Up\nliveness Broken: eventually 6 // x == 3\n"


def test_one_kernel_serves_every_selection_of_liveness_properties():
    from modelcheck.engines.compiled.engine import plan_run
    from modelcheck.engines.compiled.cache.kcache import kernel_key
    from modelcheck.engines.compiled.kernels import _KernelPlan
    model = api.load_source(PICKED)
    keys = set()
    for selection in (["Reaches2"], ["Broken"], ["Reaches2", "Broken"], ["Returns", "Stays2"]):
        plan = plan_run(model, CheckOptions(invariants=selection))
        keys.add(kernel_key(_KernelPlan.of(model, plan.kernel_options).generated.source))
    assert len(keys) == 1


def test_an_unchecked_property_is_not_evaluated():
    # The reference never evaluates Broken unless asked to; nor may the kernel,
    # which holds Broken's predicate for the runs that do check it.
    model, compiled = _check(PICKED, "compiled", invariants=("Reaches2",))
    _, reference = _check(PICKED, "reference", invariants=("Reaches2",))
    assert compiled.error is None and reference.error is None
    assert _liveness(compiled) == _liveness(reference) == {"Reaches2": Status.HOLDS}
    _, broken = _check(PICKED, "compiled", invariants=("Broken",))
    _, broken_ref = _check(PICKED, "reference", invariants=("Broken",))
    assert broken.error is not None and broken_ref.error is not None
    assert broken.error.diagnostic.code == broken_ref.error.diagnostic.code


def test_ctrl_c_in_the_cycle_analysis_leaves_liveness_unknown(monkeypatch):
    """Ctrl-C during the cycle analysis (after the search): each liveness
    property is UNKNOWN with the reason; the safety verdicts, whose search
    finished, stand."""
    from modelcheck.engines.compiled.liveness import graph, lasso

    def ctrl_c(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(lasso, "_lasso", ctrl_c)
    _, got = _check(SERVED, "compiled")
    live = {p.name: p for p in got.properties if p.kind is PropertyKind.LIVENESS}
    assert live and all(p.status is Status.UNKNOWN and p.reason == graph.CYCLES_CUT
                        for p in live.values())
    safety = {p.name: p.status for p in got.properties if p.kind is not PropertyKind.LIVENESS}
    assert safety["NotAll"] is Status.VIOLATED
    assert any("cycle analysis" in n for n in got.notes)
