"""Sets over element types too large for one bit per element
(``set[T, cap]``, ``engines/z3/sparse.py``): the elements present in
ascending rank, a count; verdicts, shortest traces and run-time errors as
the reference explorer's."""
from __future__ import annotations

import z3

from modelcheck import api
from modelcheck.engines.base import DEADLOCK, CheckOptions, Status
from modelcheck.engines.z3.encoding import Encoding
from modelcheck.engines.z3.induction import prove
from modelcheck.ir.values import FrozenDict
from modelcheck.pipeline import load_source
from modelcheck.trace.replay import replay

# docs/language.md's large_messages: a record of 10^9 values.
MESSAGES = """
module large_messages
type Msg = record { src: 0..999, dst: 0..999, seq: 0..999 }
var inflight: set[Msg, 2] = {}
var next: 0..3 = 0

action Send() {
    require next < 3 and len(inflight) < 2
    inflight := inflight | {Msg(src=1, dst=2, seq=next)}
    next := next + 1
}

action Deliver() {
    pick m in inflight
    inflight := inflight - {m}
}

invariant InOrder: all(m.seq < next for m in inflight)
"""

OPS = """
module sparse_ops

type Big = record { a: 0..99, b: 0..99 }

var s: set[Big, 2] = {}
var t: set[Big, 2] = {}
var k: 0..2 = 0

action Add(x: 0..1) {
    require len(s) < 2 or Big(a=x, b=x) in s
    s := s | {Big(a=x, b=x)}
}

action Copy() {
    t := s & {Big(a=0, b=0), Big(a=1, b=1)}
}

action Drop() {
    pick m in t
    t := t - {m}
    k := if k < 2 then k + 1 else k
}

invariant Sub: t <= s
invariant NotBoth: not (t == s and len(s) == 2 and k == 2)
invariant Count: len({m.a for m in s}) == len(s)
"""


def bmc(model, depth, **kw):
    return api.check(model, "bmc", CheckOptions(depth=depth, **kw))


def test_large_messages_agree_with_the_reference():
    model = load_source(MESSAGES, "large_messages.mc")
    got = bmc(model, 6)
    dead = got.get_property(DEADLOCK)
    # The reference: deadlock in 6 steps, InOrder holds.
    assert (dead.status, dead.steps) == (Status.VIOLATED, 6)
    assert replay(model, dead.trace).ok
    assert got.get_property("InOrder").status is Status.HOLDS_UP_TO_BOUND
    assert prove(model, ["InOrder"]).get("InOrder").status.name == "PROVED"


def test_a_write_past_the_capacity_is_the_references_mc5001():
    model = load_source(MESSAGES.replace("require next < 3 and len(inflight) < 2",
                                         "require next < 3"), "over_capacity.mc")
    ref = api.check(model, "reference", CheckOptions())
    got = bmc(model, 4)
    assert got.error.diagnostic.code == ref.error.diagnostic.code == "MC5001"
    assert got.error.diagnostic.message == ref.error.diagnostic.message
    assert len(got.error.trace) == len(ref.error.trace) == 2


def test_union_intersection_difference_subset_and_equality():
    model = load_source(OPS, "sparse_ops.mc")
    ref = api.check(model, "reference", CheckOptions())
    got = bmc(model, 6, deadlock=False)
    want = ref.get_property("NotBoth")
    have = got.get_property("NotBoth")
    assert (have.status, have.steps) == (want.status, want.steps) == (Status.VIOLATED, 6)
    assert replay(model, have.trace).ok
    assert got.get_property("Sub").status is Status.HOLDS_UP_TO_BOUND
    assert got.get_property("Count").status is Status.HOLDS_UP_TO_BOUND
    assert prove(model, ["Sub"]).get("Sub").status.name == "PROVED"


def test_one_set_one_layout():
    # Slots in strictly ascending rank, the rest at the default: two states
    # holding the same set have the same fields.
    model = load_source(OPS, "sparse_ops.mc")
    enc = Encoding(model)
    x, y = enc.state("x:"), enc.state("y:")
    sy = enc.sy
    s = z3.Solver()
    s.add(x.wf, y.wf, sy.eq(x.vars["s"], y.vars["s"]), z3.Not(sy.same(x.vars["s"], y.vars["s"])))
    assert s.check() == z3.unsat
    big = model.var("s").type
    value = frozenset({FrozenDict({"a": 7, "b": 3}), FrozenDict({"a": 2, "b": 9})})
    s = z3.Solver()
    s.add(x.wf, sy.eq(x.vars["s"], sy.const(value, big)))
    assert s.check() == z3.sat
    assert sy.decode(s.model(), x.vars["s"]) == value
    # A set of two elements, one of them twice, is no set of three.
    lit = sy.sparse.of(big.elem, [(z3.BoolVal(True), sy.const(e, big.elem))
                                  for e in [*value, next(iter(value))]])
    assert z3.is_true(z3.simplify(sy.eq(lit, sy.const(value, big))))
