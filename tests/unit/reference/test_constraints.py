"""State constraints (TLC's CONSTRAINT) in the reference explorer and simulator.

The counts below are TLC's (TLC 2.15, ``-workers 1``) on the TLA+ twins in
bench/tla/; ``python bench/tlc_constraints.py`` runs both side by side.  The
suite does not need Java: TLC's figures are recorded here."""
from __future__ import annotations

from pathlib import Path

import pytest

from modelcheck.engines.base import DEADLOCK, CheckOptions, Status
from modelcheck.engines.reference import ReferenceEngine
from modelcheck.errors import EvalError
from modelcheck.pipeline import load_source
from modelcheck.trace.replay import replay

BENCH = Path(__file__).resolve().parents[3] / "bench" / "tla"

#: TLC's (states generated, distinct states, depth) per twin, and its verdicts.
TLC = {
    "CounterConstraint": ((13, 6, 4), {"AtMostSeven": Status.HOLDS, "NotSeven": Status.VIOLATED,
                                       DEADLOCK: Status.HOLDS}),
    "EdgeConstraint": ((4, 3, 3), {"TypeOK": Status.HOLDS, DEADLOCK: Status.HOLDS}),
    "InitConstraint": ((10, 6, 3), {"Small": Status.HOLDS, "NotTen": Status.VIOLATED,
                                    DEADLOCK: Status.HOLDS}),
}


def twin(name: str, edit: tuple[str, str] | None = None):
    path = BENCH / f"{name}.mc"
    text = path.read_text(encoding="utf-8")
    if edit is not None:
        assert edit[0] in text
        text = text.replace(*edit)
    return load_source(text, str(path))


def run(model, **options):
    return ReferenceEngine().check(model, CheckOptions(**options))


def counts(result):
    s = result.stats
    return (s.generated_states, s.distinct_states, s.depth)


@pytest.mark.parametrize("name", sorted(TLC))
def test_counts_and_verdicts_equal_tlcs(name):
    (expected_counts, verdicts) = TLC[name]
    result = run(twin(name))
    assert result.complete
    assert counts(result) == expected_counts
    assert {p.name: p.status for p in result.properties} == verdicts


def test_violation_in_a_successor_outside_the_constraint_has_its_trace():
    model = twin("CounterConstraint")
    prop = run(model).get_property("NotSeven")
    # TLC's trace too: 0, 1, 3, 5 and then 7, which fails the constraint.
    assert [s["x"] for s in prop.trace.states] == [0, 1, 3, 5, 7]
    assert replay(model, prop.trace).ok


def test_stop_on_first_stops_at_a_violation_outside_the_constraint():
    result = run(twin("CounterConstraint"), stop_on_first=True)
    assert result.get_property("NotSeven").status is Status.VIOLATED
    assert result.get_property("AtMostSeven").status is Status.UNKNOWN


def test_initial_state_outside_the_constraint_is_checked_not_stored():
    prop = run(twin("InitConstraint")).get_property("NotTen")
    assert prop.steps == 0 and prop.trace.states[0] == {"x": 10, "y": 0}


def test_every_initial_state_outside_the_constraint():
    # TLC: "4 states generated, 0 distinct states found", depth 1.
    result = run(twin("InitConstraint", ("Bound: x < 3", "Bound: x > 100")))
    assert result.complete
    assert counts(result) == (4, 0, 1)


def test_without_the_constraint_the_counts_differ():
    # The twin's bound is what makes the counts TLC's, not the type of x.
    result = run(twin("EdgeConstraint", ("constraint Bound: x <= 2", "")))
    assert counts(result) == (4, 4, 4)
    assert result.get_property(DEADLOCK).status is Status.VIOLATED


def test_sometimes_is_witnessed_by_a_state_outside_the_constraint():
    model = twin("CounterConstraint", ("invariant NotSeven: x != 7", "sometimes Seven: x == 7"))
    prop = run(model).get_property("Seven")
    assert prop.status is Status.HOLDS and prop.trace.states[-1] == {"x": 7}


def test_several_constraints_all_apply():
    model = twin("CounterConstraint", ("constraint Bound: x <= 5",
                                       "constraint Bound: x <= 5\nconstraint Even: x % 2 == 0"))
    assert [c.name for c in model.constraints] == ["Bound", "Even"]
    assert [p.name for p in model.properties] == ["AtMostSeven", "NotSeven"]
    # 0, 2 and 4 are stored; 1, 3, 5 and 6 are generated and checked.
    result = run(model)
    assert counts(result) == (7, 3, 3)
    assert result.get_property("NotSeven").status is Status.HOLDS


def test_a_run_time_error_in_a_constraint_has_a_trace():
    model = twin("CounterConstraint",
                 ("constraint Bound: x <= 5", "constraint Bound: 10 // (3 - x) > 0"))
    result = run(model)
    assert isinstance(result.error, EvalError)
    assert [s["x"] for s in result.error.trace.states][-1] == 3


def test_simulation_stops_a_run_at_a_state_outside_the_constraint():
    result = run(twin("EdgeConstraint"), simulate=20, sim_depth=50, seed=3)
    assert result.stats.distinct_states == 3   # 3 is reached, never stored
    assert result.get_property(DEADLOCK).status is Status.UNKNOWN


def test_simulation_finds_a_violation_outside_the_constraint():
    result = run(twin("CounterConstraint"), simulate=50, sim_depth=50, seed=1)
    prop = result.get_property("NotSeven")
    assert prop.status is Status.VIOLATED and prop.trace.states[-1] == {"x": 7}
