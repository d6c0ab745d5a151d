"""Bags over element types too large for one count per element
(``bag[T, cap]``, ``engines/z3/sparsebags.py``): a count and one slot per
copy in non-decreasing rank; put, take, count, len, ``in``, distinct,
iteration and equality as the reference explorer computes them, in bmc,
prove and pdr, and Raft's bag of messages."""
from __future__ import annotations

import random
from pathlib import Path

import pytest
import z3

from modelcheck import api
from modelcheck.engines.base import DEADLOCK, CheckOptions, Status
from modelcheck.engines.z3.encoding import Encoding
from modelcheck.engines.z3.induction import prove
from modelcheck.engines.z3.pdr import pdr
from modelcheck.engines.z3.proofs import ProofStatus
from modelcheck.engines.z3.ranks import position
from modelcheck.ir.values import FrozenDict, domain
from modelcheck.pipeline import load_source
from modelcheck.trace.replay import replay

from z3_harness import Probe, random_states

ROOT = Path(__file__).resolve().parents[3]

# A record of 10^5 values: far past what one count per element could hold.
BAGS = """
module bag_records

type Rec = record { a: 0..99, b: 0..99, c: 0..9 }
var msgs: bag[Rec, 3] = {}
var sent: 0..4 = 0

action Send(k: 0..1) {
    require sent < 4 and len(msgs) < 3
    msgs := put(msgs, Rec(a=k, b=sent, c=1))
    sent := sent + 1
}

action Dup() {
    pick m in msgs
    require len(msgs) < 3
    msgs := put(msgs, m)
}

action Recv() {
    pick m in msgs
    msgs := take(msgs, m)
}

invariant Bounded: all(m.c == 1 and m.a <= 1 for m in msgs)
invariant NoTriple: all(count(msgs, m) < 3 for m in msgs)
invariant FewKinds: len(distinct(msgs)) <= 2 or Rec(a=0, b=0, c=1) in msgs
"""


def bmc(model, depth, **kw):
    return api.check(model, "bmc", CheckOptions(depth=depth, **kw))


def reference(model):
    return api.check(model, "reference", CheckOptions())


def test_bmc_finds_what_the_reference_finds_at_its_depth():
    model = load_source(BAGS, "bag_records.mc")
    ref = reference(model)
    got = bmc(model, 8)
    for name in ("NoTriple", "FewKinds", DEADLOCK):
        want, have = ref.get_property(name), got.get_property(name)
        assert (have.status, have.steps) == (want.status, want.steps), name
        assert have.status is Status.VIOLATED
        assert replay(model, have.trace).ok
    assert ref.get_property("NoTriple").steps == 3
    assert got.get_property("Bounded").status is Status.HOLDS_UP_TO_BOUND


def test_prove_and_pdr_agree_with_the_reference():
    model = load_source(BAGS, "bag_records.mc")
    assert prove(model, ["Bounded"]).get("Bounded").status is ProofStatus.PROVED
    refuted = pdr(model, ["NoTriple"], timeout=60).get("NoTriple")
    assert refuted.status is ProofStatus.REFUTED
    assert len(refuted.trace) == 3
    assert replay(model, refuted.trace).ok


@pytest.mark.parametrize("change, code", [
    # Dup past the capacity: the write is the reference's MC5001.
    (("require len(msgs) < 3\n    msgs := put(msgs, m)", "msgs := put(msgs, m)"), "MC5001"),
    # Taking what is not there.
    (("msgs := take(msgs, m)", "msgs := take(take(msgs, m), Rec(a=0, b=1, c=1))"), "MC5005"),
])
def test_run_time_errors_are_the_references(change, code):
    model = load_source(BAGS.replace(*change), "bag_errors.mc")
    ref = reference(model)
    got = bmc(model, 6)
    assert got.error.diagnostic.code == ref.error.diagnostic.code == code
    # Other shortest paths may reach other values: the words after the value.
    assert got.error.diagnostic.message.split("}")[-1] == ref.error.diagnostic.message.split("}")[-1]
    assert len(got.error.trace) == len(ref.error.trace)
    assert replay(model, got.error.trace).ok


def test_iteration_stops_where_the_reference_stops():
    # any() stops at the first element in the reference's (ascending)
    # order: the division fails only when a Rec with b == 1 comes first.
    model = load_source(BAGS + "invariant Order: any(m.b == 0 or 10 // (m.b - 1) > 0 "
                               "for m in msgs) or len(msgs) == 0\n", "bag_order.mc")
    ref = reference(model)
    got = bmc(model, 6)
    assert got.error.diagnostic.code == ref.error.diagnostic.code == "MC5002"
    assert len(got.error.trace) == len(ref.error.trace)


def test_successors_and_properties_state_by_state():
    # First: an element with a < 50 answers; one with a >= 50 divides by zero.
    model = load_source(BAGS + "invariant First: any(m.a < 50 or 10 // (m.b - m.b) > 0 "
                               "for m in msgs) or len(msgs) == 0\n", "bag_first.mc")
    probe = Probe(model)
    for values in random_states(model, random.Random(11), 12):
        assert probe.z3_successors(values) == probe.ref_successors(values), values
        want = {p.name: probe.ref_prop(p, values) for p in model.properties}
        assert probe.z3_props(values) == want, values


def test_one_bag_one_layout():
    # Copies side by side in rank order, the rest at the default: two states
    # holding the same bag have the same fields.
    model = load_source(BAGS, "bag_records.mc")
    enc = Encoding(model)
    x, y = enc.state("x:"), enc.state("y:")
    sy = enc.sy
    s = z3.Solver()
    s.add(x.wf, y.wf, sy.eq(x.vars["msgs"], y.vars["msgs"]),
          z3.Not(sy.same(x.vars["msgs"], y.vars["msgs"])))
    assert s.check() == z3.unsat
    t = model.var("msgs").type
    one, two = FrozenDict({"a": 7, "b": 3, "c": 0}), FrozenDict({"a": 2, "b": 9, "c": 9})
    value = FrozenDict({one: 2, two: 1})
    s = z3.Solver()
    s.add(x.wf, sy.eq(x.vars["msgs"], sy.const(value, t)))
    assert s.check() == z3.sat
    assert sy.decode(s.model(), x.vars["msgs"]) == value
    # Put in any order, the same bag; one copy fewer, another.
    bags = sy.sparse_bags
    built = bags.put(bags.put(bags.put(sy.const(FrozenDict(), t), sy.const(one, t.elem)),
                              sy.const(two, t.elem)), sy.const(one, t.elem))
    assert z3.is_true(z3.simplify(sy.eq(built, sy.const(value, t))))
    fewer, absent = bags.take(built, sy.const(one, t.elem))
    assert z3.is_false(z3.simplify(absent))
    assert z3.is_false(z3.simplify(sy.eq(fewer, sy.const(value, t))))


def test_raft_messages_agree_with_the_reference_at_a_small_depth():
    source = (ROOT / "specs/examples/raft.mc").read_text()
    model = load_source(source + "\ninvariant NoResponse: all(not (m is RequestVoteResponse) "
                                 "for m in messages)\n", "raft.mc")
    got = bmc(model, 4)
    have = got.get_property("NoResponse")
    assert (have.status, have.steps) == (Status.VIOLATED, 3)
    assert replay(model, have.trace).ok
    for name in ("ElectionSafety", "LogMatching", "StateMachineSafety", DEADLOCK):
        assert got.get_property(name).status is Status.HOLDS_UP_TO_BOUND, name


@pytest.mark.parametrize("text, init", [
    ("seq[0..2, 2]", "[]"), ("map[0..1, option[0..2]]", "{k: none for k in 0..1}"),
    ("set[0..3]", "{}"), ("bag[0..2, 2]", "{}"),
])
def test_ranks_of_sequences_maps_and_small_collections_are_the_domain_order(text, init):
    # Raft's messages hold logs (sequences) and its elections maps and sets:
    # their slots are sorted by this position, and iterated in its order.
    model = load_source(f"module r\nvar v: {text} = {init}\n", "r.mc")
    t = model.var("v").type
    sy = Encoding(model).sy
    for i, v in enumerate(domain(t)):
        wf: list = []
        x = sy.fresh(t, "x", wf)
        valid, rank = position(sy.nums, x, t, sy)
        s = z3.Solver()
        s.add(*wf, sy.eq(x, sy.const(v, t)), z3.Not(z3.And(valid, sy.nums.eq_const(rank, i))))
        assert s.check() == z3.unsat, (v, i)
