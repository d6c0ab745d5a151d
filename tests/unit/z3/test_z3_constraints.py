"""State constraints (TLC's CONSTRAINT) in BMC, k-induction and PDR: the
states checked are those the reference explorer checks (reached through
states in the model), so the verdicts and shortest trace lengths on the
TLA+ twins in bench/tla/ are the reference's (and TLC's)."""
from __future__ import annotations

from pathlib import Path

import pytest

from modelcheck import api
from modelcheck.engines.base import DEADLOCK, CheckOptions, Status
from modelcheck.engines.z3.induction import prove
from modelcheck.engines.z3.pdr import pdr
from modelcheck.errors import EvalError
from modelcheck.pipeline import load_source
from modelcheck.trace.replay import replay

BENCH = Path(__file__).resolve().parents[3] / "bench" / "tla"
TWINS = ["CounterConstraint", "EdgeConstraint", "InitConstraint"]


def twin(name: str, edit: tuple[str, str] | None = None):
    path = BENCH / f"{name}.mc"
    text = path.read_text(encoding="utf-8")
    if edit is not None:
        assert edit[0] in text
        text = text.replace(*edit)
    return load_source(text, str(path))


def bmc(model, depth=6, **kw):
    return api.check(model, "bmc", CheckOptions(depth=depth, **kw))


def reference(model):
    return api.check(model, "reference", CheckOptions())


@pytest.mark.parametrize("name", TWINS)
def test_bmc_agrees_with_the_reference(name):
    model = twin(name)
    ref, got = reference(model), bmc(model)
    for p in ref.properties:
        mine = got.get_property(p.name)
        if p.status is Status.VIOLATED:
            assert (mine.status, mine.steps) == (Status.VIOLATED, p.steps), p.name
            assert replay(model, mine.trace).ok
        else:
            assert mine.status is Status.HOLDS_UP_TO_BOUND, p.name


@pytest.mark.parametrize("name", TWINS)
def test_proofs_agree_with_the_reference(name):
    model = twin(name)
    ref = {p.name: p for p in reference(model).properties}
    by_induction = {p.name: p for p in prove(model).invariants}
    by_pdr = {p.name: p for p in pdr(model, timeout=30).invariants}
    for inv, proof in by_pdr.items():
        if ref[inv].status is Status.HOLDS:
            assert proof.status.name == "PROVED", inv
            assert by_induction[inv].status.name == "PROVED", inv
        else:
            assert proof.status.name == "REFUTED" and len(proof.trace) == ref[inv].steps, inv
            assert by_induction[inv].status.name != "PROVED", inv


def test_a_violation_in_a_successor_outside_the_constraint_is_found():
    # Every state before the last is in the model (x <= 5); 7 is not, and is
    # still checked.  Several shortest paths exist (0,1,3,5,7 is TLC's; the
    # solver may give 0,2,3,5,7): any of them, each step +1 or +2.
    prop = bmc(twin("CounterConstraint")).get_property("NotSeven")
    xs = [s["x"] for s in prop.trace.states]
    assert len(xs) == 5 and xs[0] == 0 and xs[-1] == 7
    assert all(x <= 5 for x in xs[:-1])
    assert all(b - a in (1, 2) for a, b in zip(xs, xs[1:]))


def test_the_steps_of_a_cti_leave_states_in_the_model():
    proof = prove(twin("CounterConstraint"), ["NotSeven"]).get("NotSeven")
    assert proof.status.name == "CTI"
    states = [s["x"] for s in proof.trace.states]
    assert states[0] <= 5 and states[-1] == 7


def test_without_the_constraint_the_answers_differ():
    assert bmc(twin("CounterConstraint", ("constraint Bound: x <= 5", ""))
               ).get_property("AtMostSeven").status is Status.VIOLATED
    assert prove(twin("CounterConstraint", ("constraint Bound: x <= 5", "")),
                 ["AtMostSeven"]).get("AtMostSeven").status.name != "PROVED"
    # A state whose only successor is outside the model is no deadlock.
    assert bmc(twin("EdgeConstraint")).get_property(DEADLOCK).status is Status.HOLDS_UP_TO_BOUND
    edge = bmc(twin("EdgeConstraint", ("constraint Bound: x <= 2", ""))).get_property(DEADLOCK)
    assert (edge.status, edge.steps) == (Status.VIOLATED, 3)


def test_a_sometimes_is_witnessed_outside_the_constraint():
    model = twin("CounterConstraint", ("invariant NotSeven: x != 7", "sometimes Seven: x == 7"))
    prop = bmc(model).get_property("Seven")
    assert prop.status is Status.HOLDS and prop.trace.states[-1] == {"x": 7}


def test_every_initial_state_outside_the_constraint():
    model = twin("InitConstraint", ("Bound: x < 3", "Bound: x > 100"))
    got = bmc(model, depth=3)
    assert got.get_property("NotTen").steps == 0
    # Nothing is expanded: the invariants hold, and nothing deadlocks.
    assert got.get_property("Small").status is Status.HOLDS_UP_TO_BOUND
    assert got.get_property(DEADLOCK).status is Status.HOLDS_UP_TO_BOUND
    assert prove(model, ["Small"]).get("Small").status.name == "PROVED"


def test_a_run_time_error_in_a_constraint_is_the_references():
    model = twin("CounterConstraint",
                 ("constraint Bound: x <= 5", "constraint Bound: 10 // (3 - x) > 0"))
    got = bmc(model)
    ref = reference(model)
    assert isinstance(got.error, EvalError)
    assert got.error.diagnostic.code == ref.error.diagnostic.code == "MC5002"
    assert [s["x"] for s in got.error.trace.states][-1] == 3
    assert len(got.error.trace) == len(ref.error.trace)
