"""State constraints (TLC's CONSTRAINT) in the compiled engine (and the Spark
engine, which runs its kernels): the counts, verdicts and traces of the
reference explorer and TLC (docs/design.md, "State constraints"), with
bounds, symmetry, run-time errors and resume."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from modelcheck import api
from modelcheck.engines.base import DEADLOCK, CheckOptions, Status
from modelcheck.errors import EvalError
from modelcheck.trace.replay import replay

pytest.importorskip("numba")

_FIGURES = Path(__file__).resolve().parents[1] / "reference" / "test_constraints.py"


def _reference_tests():
    # TLC's figures live with the reference's tests; load that module under a
    # name of its own (pytest imports it as ``test_constraints``).
    spec = importlib.util.spec_from_file_location("reference_constraint_tests", _FIGURES)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_REF = _reference_tests()
TLC, twin, counts = _REF.TLC, _REF.twin, _REF.counts


#: The engines that run the compiled kernels (Spark in-process: its levels are narrow).
KERNEL_ENGINES = ["compiled", "spark"]


def check(engine, model, **options):
    result = api.check(model, engine=engine, options=CheckOptions(**options))
    assert result.engine == engine, result.notes        # not declined to the reference
    return result


def compiled(model, **options):
    return check("compiled", model, **options)


def reference(model, **options):
    return api.check(model, engine="reference", options=CheckOptions(**options))


def summary(result):
    return (counts(result), result.reason,
            {p.name: (p.status, p.steps) for p in result.properties})


@pytest.mark.parametrize("engine", KERNEL_ENGINES)
@pytest.mark.parametrize("name", sorted(TLC))
def test_counts_and_verdicts_equal_tlcs(engine, name):
    expected_counts, verdicts = TLC[name]
    result = check(engine, twin(name))
    assert result.complete
    assert counts(result) == expected_counts
    assert {p.name: p.status for p in result.properties} == verdicts


@pytest.mark.parametrize("engine", KERNEL_ENGINES)
def test_violation_in_a_successor_outside_the_constraint_has_its_trace(engine):
    model = twin("CounterConstraint")
    prop = check(engine, model).get_property("NotSeven")
    assert [s["x"] for s in prop.trace.states] == [0, 1, 3, 5, 7]
    assert replay(model, prop.trace).ok


@pytest.mark.parametrize("engine", KERNEL_ENGINES)
def test_initial_state_outside_the_constraint_is_checked_not_stored(engine):
    model = twin("InitConstraint")
    prop = check(engine, model).get_property("NotTen")
    assert prop.steps == 0 and prop.trace.states[0] == {"x": 10, "y": 0}
    assert replay(model, prop.trace).ok


@pytest.mark.parametrize("engine", KERNEL_ENGINES)
def test_every_initial_state_outside_the_constraint(engine):
    result = check(engine, twin("InitConstraint", ("Bound: x < 3", "Bound: x > 100")))
    assert result.complete
    assert counts(result) == (4, 0, 1)


@pytest.mark.parametrize("engine", KERNEL_ENGINES)
def test_stop_on_first_stops_at_a_violation_outside_the_constraint(engine):
    result = check(engine, twin("CounterConstraint"), stop_on_first=True)
    assert result.get_property("NotSeven").status is Status.VIOLATED
    assert result.get_property("AtMostSeven").status is Status.UNKNOWN


@pytest.mark.parametrize("engine", KERNEL_ENGINES)
def test_sometimes_is_witnessed_by_a_state_outside_the_constraint(engine):
    model = twin("CounterConstraint", ("invariant NotSeven: x != 7", "sometimes Seven: x == 7"))
    prop = check(engine, model).get_property("Seven")
    assert prop.status is Status.HOLDS and prop.trace.states[-1] == {"x": 7}
    assert replay(model, prop.trace).ok


@pytest.mark.parametrize("engine", KERNEL_ENGINES)
def test_several_constraints_all_apply(engine):
    model = twin("CounterConstraint", ("constraint Bound: x <= 5",
                                       "constraint Bound: x <= 5\nconstraint Even: x % 2 == 0"))
    result = check(engine, model)
    assert counts(result) == (7, 3, 3)
    assert result.get_property("NotSeven").status is Status.HOLDS


@pytest.mark.parametrize("max_states", [1, 3, 5, 6])
def test_the_state_bound_counts_stored_states_only(max_states):
    model = twin("CounterConstraint")
    assert summary(compiled(model, max_states=max_states)) == \
        summary(reference(model, max_states=max_states))


@pytest.mark.parametrize("max_depth", [1, 2, 3, 4])
def test_the_depth_bound_ignores_successors_outside_the_model(max_depth):
    for name in ("CounterConstraint", "EdgeConstraint"):
        model = twin(name)
        assert summary(compiled(model, max_depth=max_depth)) == \
            summary(reference(model, max_depth=max_depth))


@pytest.mark.parametrize("engine", KERNEL_ENGINES)
def test_a_run_time_error_in_a_constraint_has_the_references_trace(engine):
    model = twin("CounterConstraint",
                 ("constraint Bound: x <= 5", "constraint Bound: 10 // (3 - x) > 0"))
    got, ref = check(engine, model), reference(model)
    assert isinstance(got.error, EvalError)
    assert got.error.diagnostic.code == ref.error.diagnostic.code
    assert got.error.trace.states == ref.error.trace.states
    assert got.error.trace.states[-1] == {"x": 3}


@pytest.mark.parametrize("engine", KERNEL_ENGINES)
def test_a_run_time_error_in_a_constraint_on_an_initial_state(engine):
    model = twin("InitConstraint", ("Bound: x < 3", "Bound: 10 // (10 - x) > 0"))
    got, ref = check(engine, model), reference(model)
    assert isinstance(got.error, EvalError)
    assert got.error.diagnostic.code == ref.error.diagnostic.code
    assert got.error.trace.states == ref.error.trace.states == [{"x": 10, "y": 0}]


@pytest.mark.parametrize("engine", KERNEL_ENGINES)
def test_a_run_time_error_in_an_invariant_of_a_state_outside_the_model(engine):
    # 7 fails the constraint; its invariant divides by zero there.
    model = twin("CounterConstraint", ("invariant NotSeven: x != 7",
                                       "invariant NotSeven: 10 // (7 - x) >= 0"))
    got, ref = check(engine, model), reference(model)
    assert isinstance(got.error, EvalError)
    assert got.error.trace.states == ref.error.trace.states
    assert got.error.trace.states[-1] == {"x": 7}


def test_a_constraint_is_no_deadlock():
    # Without --no-deadlock, 2 has a successor (3, outside the model): no deadlock.
    result = compiled(twin("EdgeConstraint"))
    assert result.get_property(DEADLOCK).status is Status.HOLDS


@pytest.mark.parametrize("engine", KERNEL_ENGINES)
def test_a_spec_with_symmetry_agrees_with_the_reference(engine, load):
    model = load("constrained_mutex")
    ref = reference(model, symmetry=False)
    plain = check(engine, model, symmetry=False)
    assert summary(plain) == summary(ref)
    for p in plain.properties:
        if p.trace is not None:
            assert replay(model, p.trace).ok
    reduced = check(engine, model, symmetry=True)
    assert reduced.stats.distinct_states < ref.stats.distinct_states
    assert counts(reduced) == counts(reference(model))       # the brute-force orbits
    assert {p.name: (p.status, p.steps) for p in reduced.properties} == \
        {p.name: (p.status, p.steps) for p in ref.properties}
    for p in reduced.properties:
        if p.trace is not None:
            assert replay(model, p.trace).ok


class _InterruptAt:
    """A reporter that presses Ctrl-C at its n-th progress tick."""

    def __init__(self, n: int):
        self.n, self.ticks = n, 0

    def progress(self, p) -> None:
        self.ticks += 1
        if self.ticks == self.n:
            raise KeyboardInterrupt

    def note(self, message: str) -> None:
        pass


def test_resume_ends_with_the_uninterrupted_counts_and_traces(load, tmp_path, monkeypatch):
    import modelcheck.engines.compiled.search.serial as search
    monkeypatch.setattr(search, "PROGRESS_EVERY_S", 0.0)     # a tick at every safe point
    model = load("constrained_mutex")

    def result(r):
        return (summary(r), r.stats.action_counts,
                {p.name: p.trace.states if p.trace else None for p in r.properties})
    full = compiled(model, symmetry=False)
    resumed = 0
    for at in (3, 8, 14):
        folder = tmp_path / f"at{at}"
        rep = _InterruptAt(at)
        # one level a call at most: a tick at every level of this small spec
        part = api.check(model, engine="compiled", reporter=rep,
                         options=CheckOptions(symmetry=False, checkpoint_dir=str(folder),
                                              extra={"cross_levels": False}))
        if rep.ticks < at:
            continue
        assert part.reason == "interrupted"
        rest = compiled(model, symmetry=False, resume_dir=str(folder))
        assert result(rest) == result(full)
        resumed += 1
    assert resumed >= 2


def test_a_constraint_naming_members_turns_symmetry_off():
    from modelcheck.engines.symmetry import usable_symmetric_types
    model = api.load_source("""
module pinned_by_constraint
symmetric type P = model(2)
var leader: P = p2
action Swap(p: P) { leader := p }
constraint NotFirst: leader != p1
invariant Someone: leader == leader
""")
    usable, notes = usable_symmetric_types(model)
    assert usable == [] and "names particular members" in notes[0]
    # Reduced by P, p1's orbit would stand for p2 and the search would stop.
    result = compiled(model, symmetry=True)
    assert counts(result) == counts(reference(model)) == (3, 1, 1)


@pytest.mark.parametrize("engine", KERNEL_ENGINES)
def test_a_run_time_error_in_a_constraint_at_the_depth_bound(engine):
    # At depth 2 (the bound) 3 is generated and its constraint divides by zero.
    model = twin("CounterConstraint",
                 ("constraint Bound: x <= 5", "constraint Bound: 10 // (3 - x) > 0"))
    got, ref = check(engine, model, max_depth=2), reference(model, max_depth=2)
    assert isinstance(ref.error, EvalError) and isinstance(got.error, EvalError)
    assert got.error.trace.states == ref.error.trace.states
