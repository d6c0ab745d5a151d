"""Breadth-first exploration: counts, verdicts, bounds and interruptions."""
from __future__ import annotations

import pytest

from hand_models import apply, const, die_hard, local, model, two_phase, var
from modelcheck.engines.base import DEADLOCK, CheckOptions, Status
from modelcheck.engines.reference import ReferenceEngine
from modelcheck.errors import UsageError
from modelcheck.ir import nodes as ir
from modelcheck.ir.ops import Op
from modelcheck.ir.types import BOOL, IntType, SetType
from modelcheck.trace.replay import replay


def run(m, **options):
    return ReferenceEngine().check(m, CheckOptions(**options))


class Recorder:
    def __init__(self, raise_at_call=None, exc=None):
        self.ticks = []
        self.raise_at_call = raise_at_call
        self.exc = exc

    def progress(self, progress):
        self.ticks.append(progress)
        if self.raise_at_call is not None and len(self.ticks) >= self.raise_at_call:
            raise self.exc

    def note(self, message):
        pass


def chain(length=5, terminal_at=None, props=()):
    """x counts 0..length and stops: the last state has no successor."""
    t = IntType(0, length)
    x = var("x", t)
    inc = ir.Action("Inc", (), (
        ir.Require(apply(Op.LT, BOOL, x, const(length, t))),
        ir.Assign("x", apply(Op.ADD, IntType(1, length + 1), x, const(1, IntType(1, 1)))),
    ))
    never = ir.Action("Never", (), (ir.Require(const(False, BOOL)),))
    terminals = []
    if terminal_at is not None:
        terminals.append(ir.Property("Done", ir.PropertyKind.TERMINAL,
                                     apply(Op.EQ, BOOL, x, const(terminal_at, t))))
    return model("chain", [ir.VarDecl("x", t, ir.InitKind.EQ, const(0, t))], [inc, never],
                 props, terminals)


def x_is(k, length=5):
    t = IntType(0, length)
    return apply(Op.EQ, BOOL, var("x", t), const(k, t))


def test_die_hard_counts_and_shortest_counterexample():
    result = run(die_hard())
    assert result.complete
    assert (result.stats.distinct_states, result.stats.generated_states, result.stats.depth) == (16, 97, 8)
    not_four = result.get_property("NotFour")
    assert not_four.status is Status.VIOLATED
    assert not_four.steps == 6
    assert not_four.trace.steps[-1].state["big"] == 4
    assert replay(die_hard(), not_four.trace).ok
    assert result.get_property(DEADLOCK).status is Status.HOLDS
    assert result.exit_code == 1


def test_two_phase_three_matches_tlc():
    result = run(two_phase(3), symmetry=False)          # TLC ran it without SYMMETRY
    assert result.complete
    assert (result.stats.distinct_states, result.stats.depth) == (288, 11)
    assert result.get_property("Consistent").status is Status.HOLDS
    # messages are never consumed, so some action is always enabled
    assert result.get_property(DEADLOCK).status is Status.HOLDS
    assert result.exit_code == 0


def test_action_counts_and_never_enabled():
    result = run(chain())
    assert result.stats.action_counts == {"Inc": 5, "Never": 0}
    assert result.stats.never_enabled == ("Never",)
    assert result.stats.generated_states == 1 + 5


def test_deadlock_is_reported_with_its_shortest_trace():
    result = run(chain(5))
    dead = result.get_property(DEADLOCK)
    assert dead.status is Status.VIOLATED and dead.kind is None
    assert dead.steps == 5


def test_terminal_states_are_not_deadlocks():
    assert run(chain(5, terminal_at=5)).get_property(DEADLOCK).status is Status.HOLDS


def test_no_deadlock_option_drops_the_property():
    result = run(chain(5), deadlock=False)
    assert [p.name for p in result.properties] == []
    assert result.exit_code == 0


def test_sometimes_gives_the_shortest_witness_or_is_violated():
    props = (ir.Property("ReachThree", ir.PropertyKind.SOMETIMES, x_is(3)),
             ir.Property("ReachNine", ir.PropertyKind.SOMETIMES,
                         apply(Op.GT, BOOL, var("x", IntType(0, 5)), const(7, IntType(0, 9)))))
    result = run(chain(5, terminal_at=5, props=props))
    three = result.get_property("ReachThree")
    assert three.status is Status.HOLDS and three.steps == 3 and three.trace.kind == "witness"
    assert result.get_property("ReachNine").status is Status.VIOLATED
    assert result.get_property("ReachNine").trace is None


def test_step_invariant_violation_ends_with_the_bad_step():
    t = IntType(0, 5)
    x, x2 = var("x", t), var("x", t, primed=True)
    small_steps = ir.Property("NoBigJump", ir.PropertyKind.STEP,
                              apply(Op.LE, BOOL, x2, apply(Op.ADD, IntType(1, 6), x, const(1, IntType(1, 1)))))
    m = chain(5, terminal_at=5, props=(small_steps,))
    jump = ir.Action("Jump", (), (ir.Require(apply(Op.EQ, BOOL, x, const(2, t))),
                                  ir.Assign("x", const(5, t))))
    m = model(m.name, m.vars, m.actions + (jump,), m.properties, m.terminals)
    result = run(m)
    prop = result.get_property("NoBigJump")
    assert prop.status is Status.VIOLATED
    assert [s.label() for s in prop.trace.steps] == ["Init", "Inc", "Inc", "Jump"]
    assert replay(m, prop.trace).ok


def test_search_continues_after_a_violation_unless_stop_on_first():
    props = (ir.Property("NotTwo", ir.PropertyKind.INVARIANT, apply(Op.NOT, BOOL, x_is(2))),
             ir.Property("NotFour", ir.PropertyKind.INVARIANT, apply(Op.NOT, BOOL, x_is(4))))
    m = chain(5, terminal_at=5, props=props)
    full = run(m)
    assert [p.steps for p in full.properties[:2]] == [2, 4]
    assert full.complete and full.stats.distinct_states == 6
    first = run(m, stop_on_first=True)
    assert first.get_property("NotTwo").status is Status.VIOLATED
    assert first.get_property("NotFour").status is Status.UNKNOWN
    assert not first.complete and "first violation" in first.reason


def test_selected_properties_only():
    props = (ir.Property("NotTwo", ir.PropertyKind.INVARIANT, apply(Op.NOT, BOOL, x_is(2))),
             ir.Property("NotFour", ir.PropertyKind.INVARIANT, apply(Op.NOT, BOOL, x_is(4))))
    m = chain(5, terminal_at=5, props=props)
    result = run(m, invariants=("NotFour",))
    assert [p.name for p in result.properties] == ["NotFour", DEADLOCK]
    with pytest.raises(UsageError) as info:
        run(m, invariants=("NotFive",))
    assert "NotFive" in str(info.value) and "NotFour" in info.value.hint


def test_state_bound_gives_unknown_never_holds():
    result = run(two_phase(3), max_states=100, symmetry=False)
    assert not result.complete
    assert result.stats.distinct_states == 100
    assert "max_states" in result.reason
    assert all(p.status is Status.UNKNOWN for p in result.properties)
    assert result.exit_code == 3


def test_state_bound_equal_to_the_state_count_is_complete():
    result = run(two_phase(3), max_states=288, symmetry=False)
    assert result.complete
    assert result.get_property("Consistent").status is Status.HOLDS


def test_depth_bound():
    cut = run(die_hard(), max_depth=4)
    assert not cut.complete and "max_depth" in cut.reason
    assert cut.stats.depth == 4
    assert cut.get_property("NotFour").status is Status.UNKNOWN
    assert run(die_hard(), max_depth=8).complete        # the diameter is 8: nothing is cut
    # a violation found before the bound stands
    shallow = run(die_hard(), max_depth=7)
    assert shallow.get_property("NotFour").status is Status.VIOLATED


def test_timeout_gives_unknown():
    result = run(two_phase(3), timeout_s=0)
    assert not result.complete and "timeout" in result.reason
    assert result.get_property("Consistent").status is Status.UNKNOWN


def test_progress_is_reported_at_every_level():
    rec = Recorder()
    ReferenceEngine().check(die_hard(), CheckOptions(), rec)
    depths = [t.depth for t in rec.ticks]
    assert set(range(2, 9)) <= set(depths)
    assert rec.ticks[-1].distinct_states == 16


def test_interrupt_returns_cleanly_with_what_was_found():
    rec = Recorder(raise_at_call=7, exc=KeyboardInterrupt())
    result = ReferenceEngine().check(die_hard(), CheckOptions(), rec)
    assert result.reason == "interrupted"
    assert result.get_property("NotFour").status is Status.VIOLATED
    assert result.get_property(DEADLOCK).status is Status.UNKNOWN
    assert result.exit_code == 1


def test_memory_error_gives_unknown():
    rec = Recorder(raise_at_call=3, exc=MemoryError())
    result = ReferenceEngine().check(two_phase(3), CheckOptions(), rec)
    assert result.reason.startswith("out of memory at ")
    assert result.get_property("Consistent").status is Status.UNKNOWN


def test_run_time_error_stops_with_the_trace_to_the_failing_step():
    t = IntType(0, 3)
    x = var("x", t)
    inc = ir.Action("Inc", (), (ir.Assign("x", apply(Op.ADD, IntType(1, 4), x, const(1, IntType(1, 1)))),))
    m = model("overflow", [ir.VarDecl("x", t, ir.InitKind.EQ, const(0, t))], [inc])
    result = run(m)
    assert result.error is not None
    assert result.error.diagnostic.code == "MC5001"
    trace = result.error.trace
    assert trace.kind == "error"
    assert [s.state["x"] for s in trace.steps] == [0, 1, 2, 3]
    assert replay(m, trace).ok
    assert result.exit_code == 2


def test_error_in_an_invariant_carries_the_trace_to_its_state():
    t = IntType(0, 3)
    x = var("x", t)
    inc = ir.Action("Inc", (), (ir.Require(apply(Op.LT, BOOL, x, const(3, t))),
                                ir.Assign("x", apply(Op.ADD, IntType(1, 4), x, const(1, IntType(1, 1))))))
    bad = ir.Property("Bad", ir.PropertyKind.INVARIANT, apply(
        Op.NE, BOOL, apply(Op.DIV, IntType(-3, 3), const(6, IntType(6, 6)), apply(Op.SUB, IntType(-3, 3), const(2, t), x)),
        const(0, IntType(0, 0))))
    m = model("m", [ir.VarDecl("x", t, ir.InitKind.EQ, const(0, t))], [inc], [bad])
    result = run(m)
    assert result.error.diagnostic.code == "MC5002"
    assert len(result.error.trace) == 2


def test_exploration_is_deterministic():
    a, b = run(two_phase(2)), run(two_phase(2))
    assert a.stats.action_counts == b.stats.action_counts
    assert (a.stats.distinct_states, a.stats.generated_states) == (b.stats.distinct_states, b.stats.generated_states)


def test_pick_outcomes_count_as_generated_states():
    t = IntType(0, 3)
    y = local("y", t)
    choose = ir.Action("Choose", (), (ir.Pick("y", const(frozenset({0, 1, 2}), SetType(t))),
                                      ir.Assign("x", y)))
    m = model("m", [ir.VarDecl("x", t, ir.InitKind.EQ, const(0, t))], [choose])
    result = run(m)
    assert result.stats.distinct_states == 3
    assert result.stats.generated_states == 1 + 3 * 3
    assert result.stats.depth == 2


def test_a_stop_signal_ends_the_search_with_nothing_decided():
    import threading
    from modelcheck.engines.base import NullReporter
    from modelcheck.engines.reference.explorer import STOPPED, explore
    stop = threading.Event()
    stop.set()
    result = explore(two_phase(2), CheckOptions(), NullReporter(), stop)
    assert result.reason == STOPPED and not result.complete
    assert all(p.status is Status.UNKNOWN for p in result.properties)
