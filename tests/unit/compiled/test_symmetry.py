"""Symmetry reduction: fewer states, the same verdicts and shortest trace
lengths, traces that are behaviours of the un-reduced spec, and exactly one
representative per orbit (checked by brute force on small instances)."""
from __future__ import annotations

import itertools

import pytest

from modelcheck import api
from modelcheck.engines.base import CheckOptions
from modelcheck.engines.compiled.symmetry import rename, usable_symmetric_types
from modelcheck.engines.reference.evaluator import Evaluator

pytest.importorskip("numba")


def _verdicts(r):
    return {p.name: (p.status, p.steps) for p in r.properties}


def _orbits(model) -> int:
    ev = Evaluator(model)
    sym = model.symmetric_types[0]
    seen = set(ev.initial_states())
    todo = list(seen)
    while todo:
        for t in ev.successors(todo.pop()):
            if t.state not in seen:
                seen.add(t.state)
                todo.append(t.state)
    orbits = set()
    for s in seen:
        orbit = frozenset(tuple(rename(v.type, x, sym, dict(zip(sym.members, p)))
                                for v, x in zip(model.vars, s))
                          for p in itertools.permutations(sym.members))
        orbits.add(orbit)
    return len(orbits)


@pytest.mark.parametrize("name,consts", [("sym_mutex", {"N": 3}), ("two_phase", {"N": 3}),
                                         ("variants", {})])
def test_symmetry_keeps_verdicts_and_counts_orbits(name, consts, load, kernels):
    model = load(name, **consts)
    kernels(name, **consts)
    on = api.check(model, engine="compiled", options=CheckOptions(symmetry=True))
    off = api.check(model, engine="compiled", options=CheckOptions(symmetry=False))
    ref = api.check(model, engine="reference")
    assert _verdicts(on) == _verdicts(off) == _verdicts(ref)
    assert off.stats.distinct_states == ref.stats.distinct_states
    assert on.stats.distinct_states == _orbits(model) < ref.stats.distinct_states
    assert any("symmetry reduction" in n for n in on.notes)


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
