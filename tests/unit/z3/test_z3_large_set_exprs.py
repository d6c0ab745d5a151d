"""Set expressions over a large element type need no capacity in the Z3
encoding: ``s | {x}``, ``s - {m}``, comprehensions and lets are lists of
guarded elements; only what is stored (a declared type) needs one."""
from __future__ import annotations

from modelcheck import api
from modelcheck.engines.base import CheckOptions, Status
from modelcheck.engines.z3.induction import prove
from modelcheck.pipeline import load_source
from modelcheck.trace.replay import replay

SETS = """
module large_set_exprs
type Msg = record { src: 0..999, dst: 0..999, seq: 0..9 }
var s: set[Msg, 3] = {}
var n: 0..4 = 0

action Add(k: 0..1) {
    require n < 4
    let t = s | {Msg(src=k, dst=n, seq=1)}
    require len(t) <= 3
    s := t
    n := n + 1
}

action Swap() {
    pick m in s
    s := (s - {m}) | {Msg(src=m.src, dst=m.dst, seq=2)}
}

invariant Grows: len(s | {Msg(src=5, dst=5, seq=5)}) == len(s) + 1
invariant SeqFew: all(m.seq <= 2 for m in {x for x in s if x.src <= 1} | {Msg(src=0, dst=0, seq=0)})
invariant NoTwo: all(m.seq != 2 for m in s)
"""


def test_expressions_without_a_capacity_agree_with_the_reference():
    model = load_source(SETS, "large_set_exprs.mc")
    ref = api.check(model, "reference", CheckOptions())
    got = api.check(model, "bmc", CheckOptions(depth=2))
    want, have = ref.get_property("NoTwo"), got.get_property("NoTwo")
    assert (have.status, have.steps) == (want.status, want.steps) == (Status.VIOLATED, 2)
    assert replay(model, have.trace).ok
    for name in ("Grows", "SeqFew"):
        assert ref.get_property(name).status is Status.HOLDS
        assert got.get_property(name).status is Status.HOLDS_UP_TO_BOUND, name
    assert prove(model, ["SeqFew"]).get("SeqFew").status.name == "PROVED"
