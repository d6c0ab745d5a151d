"""Symmetry reduction: fewer states, the same verdicts and shortest trace
lengths, traces that are behaviours of the un-reduced spec, and exactly one
representative per orbit, with one, two and three interacting symmetric
types (checked by brute force on small instances: every reachable state of
the un-reduced spec, grouped into orbits by renaming it every way).  The
reference explorer's own reduction (reference/orbits.py) is the oracle the
compiled engine's is compared with on every spec."""
from __future__ import annotations

import itertools

import pytest

from modelcheck import api
from modelcheck.engines.base import CheckOptions
from modelcheck.engines.symmetry import rename, usable_symmetric_types
from modelcheck.evaluate.evaluator import Evaluator

pytest.importorskip("numba")


def _verdicts(r):
    return {p.name: (p.status, p.steps) for p in r.properties}


def _orbits(model) -> int:
    """The orbits of the reachable states under every renaming of every
    symmetric type together (independent of both engines' reductions)."""
    ev = Evaluator(model)
    seen = set(ev.initial_states())
    todo = list(seen)
    while todo:
        for t in ev.successors(todo.pop()):
            if t.state not in seen:
                seen.add(t.state)
                todo.append(t.state)
    group = list(itertools.product(*([(sym, dict(zip(sym.members, p)))
                                      for p in itertools.permutations(sym.members)]
                                     for sym in model.symmetric_types)))
    orbits = set()
    for s in seen:
        orbit = set()
        for renaming in group:
            state = list(s)
            for sym, pi in renaming:
                state = [rename(v.type, x, sym, pi) for v, x in zip(model.vars, state)]
            orbit.add(tuple(state))
        orbits.add(frozenset(orbit))
    return len(orbits)


SYMMETRIC = [("sym_mutex", {"N": 3}), ("two_phase", {"N": 3}), ("variants", {}),
             ("two_sym", {"NC": 3, "NK": 2}),
             ("three_sym", {"NS": 2, "NK": 2, "NV": 2})]


#: TLC 2.15 with SYMMETRY on the TLA+ twins (bench/tla/symmetry, bench/tlc_symmetry.py):
#: (generated, distinct, depth).
TLC = {"two_sym": (5_308, 1_186, 21), "three_sym": (3_079, 897, 14)}


@pytest.mark.parametrize("name,consts", SYMMETRIC)
def test_symmetry_keeps_verdicts_and_counts_orbits(name, consts, load, kernels):
    model = load(name, **consts)
    kernels(name, **consts)
    on = api.check(model, engine="compiled", options=CheckOptions(symmetry=True))
    off = api.check(model, engine="compiled", options=CheckOptions(symmetry=False))
    ref_on = api.check(model, engine="reference")
    ref = api.check(model, engine="reference", options=CheckOptions(symmetry=False))
    assert _verdicts(on) == _verdicts(off) == _verdicts(ref) == _verdicts(ref_on)
    assert off.stats.distinct_states == ref.stats.distinct_states
    orbits = _orbits(model)
    assert on.stats.distinct_states == ref_on.stats.distinct_states == orbits
    assert orbits < ref.stats.distinct_states
    # One representative per orbit also fixes the other counts.
    assert (on.stats.generated_states, on.stats.depth) == (ref_on.stats.generated_states,
                                                           ref_on.stats.depth)
    assert on.stats.extras["symmetry_inexact"] == 0
    if name in TLC:
        assert (on.stats.generated_states, on.stats.distinct_states, on.stats.depth) == TLC[name]
    for result in (on, ref_on):
        assert any("symmetry reduction" in n for n in result.notes)


def test_reference_reduction_turns_off_past_its_group_limit():
    model = api.load_source("""
module big
symmetric type P = model(7)
var on: map[P, bool] = {p: false for p in P}
action Flip(p: P) { on[p] := not on[p] }
""")
    got = api.check(model, engine="reference")
    assert got.stats.distinct_states == 2 ** 7
    assert any("5,040" in n and "at most 720" in n for n in got.notes)


def test_ties_past_the_limit_are_counted_and_said(monkeypatch, load, tmp_path):
    """A state with more tied orderings than the generated code tries is
    still reduced soundly, and the run says its count may exceed the orbits."""
    from modelcheck.engines.compiled.codegen import symmetry as gen_symmetry
    monkeypatch.setattr(gen_symmetry, "TIE_LIMIT", 2)
    model = load("two_sym", NC=3, NK=2)
    # A cache of its own: the generator is patched, and the kernel cache's
    # plans are keyed by the package's files, not by a patch.
    got = api.check(model, engine="compiled",
                    options=CheckOptions(symmetry=True, cache_dir=str(tmp_path)))
    exact = api.check(model, engine="reference")
    assert got.stats.extras["symmetry_inexact"] > 0
    assert got.stats.distinct_states >= exact.stats.distinct_states
    assert _verdicts(got) == _verdicts(exact)
    assert any("may exceed the number of orbits" in n for n in got.notes)


def test_counterexample_under_symmetry_is_a_concrete_behaviour(load, kernels):
    model = load("sym_mutex", N=3)
    kernels("sym_mutex", N=3)
    got = api.check(model, engine="compiled", options=CheckOptions(symmetry=True))
    trace = got.get_property("Mutex").trace        # replayed by api.check already
    assert len(trace) == 5
    last = trace.steps[-1].state["pc"]
    assert sum(1 for v in last.values() if v == "critical") == 2


def test_constants_naming_members_turn_symmetry_off():
    model = api.load_source("""
module pinned
symmetric type P = model(2)
var leader: P = p1
action Swap(p: P) { leader := p }
invariant First: leader == p1 or leader == p2
""")
    usable, notes = usable_symmetric_types(model)
    assert usable == [] and "names particular members" in notes[0]


def test_whole_type_constants_keep_symmetry(load):
    usable, notes = usable_symmetric_types(load("two_phase", N=3))
    assert [t.name for t in usable] == ["RM"] and notes == []
