"""Random simulation: seeded, exact about what it finds, never HOLDS for an invariant."""
from __future__ import annotations

from hand_models import apply, const, die_hard, model, var
from modelcheck.engines.base import DEADLOCK, CheckOptions, Status
from modelcheck.engines.reference import ReferenceEngine
from modelcheck.engines.reference.simulate import SIMULATION_REASON
from modelcheck.ir import nodes as ir
from modelcheck.ir.ops import Op
from modelcheck.ir.types import BOOL, IntType
from modelcheck.trace.replay import replay


def simulate(m, **options):
    return ReferenceEngine().check(m, CheckOptions(**options))


def test_simulation_finds_die_hard_and_the_trace_replays():
    result = simulate(die_hard(), simulate=200, sim_depth=30, seed=1)
    prop = result.get_property("NotFour")
    assert prop.status is Status.VIOLATED
    assert prop.steps >= 6
    assert replay(die_hard(), prop.trace).ok
    assert result.stats.extras["runs"] == 200


def _summary(result):
    trace = result.get_property("NotFour").trace
    labels = None if trace is None else tuple(step.label() for step in trace.steps)
    return result.stats.distinct_states, labels


def test_same_seed_same_runs_other_seed_other_runs():
    a = simulate(die_hard(), simulate=300, sim_depth=20, seed=7)
    b = simulate(die_hard(), simulate=300, sim_depth=20, seed=7)
    assert _summary(a) == _summary(b)
    summaries = {_summary(simulate(die_hard(), simulate=300, sim_depth=20, seed=s)) for s in range(6)}
    assert len(summaries) > 1


def test_simulation_never_says_holds_for_an_invariant():
    t = IntType(0, 3)
    x = var("x", t)
    flip = ir.Action("Flip", (), (ir.Assign("x", apply(Op.SUB, IntType(0, 3), const(3, t), x)),))
    ok = ir.Property("InRange", ir.PropertyKind.INVARIANT, apply(Op.LE, BOOL, x, const(3, t)))
    reach = ir.Property("ReachThree", ir.PropertyKind.SOMETIMES, apply(Op.EQ, BOOL, x, const(3, t)))
    m = model("flip", [ir.VarDecl("x", t, ir.InitKind.EQ, const(0, t))], [flip], [ok, reach])
    result = simulate(m, simulate=5, sim_depth=10)
    assert result.get_property("InRange").status is Status.UNKNOWN
    assert result.get_property("InRange").reason == SIMULATION_REASON
    assert result.get_property(DEADLOCK).status is Status.UNKNOWN
    # a witness found is a real behaviour: that answer is exact
    witness = result.get_property("ReachThree")
    assert witness.status is Status.HOLDS and witness.steps == 1
    assert not result.complete and result.exit_code == 3


def test_simulation_reports_deadlocks():
    t = IntType(0, 2)
    x = var("x", t)
    inc = ir.Action("Inc", (), (ir.Require(apply(Op.LT, BOOL, x, const(2, t))),
                                ir.Assign("x", apply(Op.ADD, IntType(1, 3), x, const(1, IntType(1, 1))))))
    m = model("chain", [ir.VarDecl("x", t, ir.InitKind.EQ, const(0, t))], [inc])
    dead = simulate(m, simulate=3, sim_depth=10).get_property(DEADLOCK)
    assert dead.status is Status.VIOLATED and dead.steps == 2


def test_simulation_run_time_error_has_its_trace():
    t = IntType(0, 2)
    x = var("x", t)
    inc = ir.Action("Inc", (), (ir.Assign("x", apply(Op.ADD, IntType(1, 3), x, const(1, IntType(1, 1)))),))
    m = model("overflow", [ir.VarDecl("x", t, ir.InitKind.EQ, const(0, t))], [inc])
    result = simulate(m, simulate=3, sim_depth=10)
    assert result.error.diagnostic.code == "MC5001"
    assert len(result.error.trace) == 2
