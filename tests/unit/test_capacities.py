"""The static capacities pass (engines/capacities.py): every set expression
over a large element type gets a bound on its size from its parts, and
nothing else changes."""
from __future__ import annotations

from modelcheck import api
from modelcheck.engines.capacities import with_capacities
from modelcheck.ir import nodes as ir
from modelcheck.ir.types import SetType
from modelcheck.ir.visit import body_exprs, walk

SPEC = """
module caps
type Rec = record { a: 0..999, b: 0..999 }
var s: set[Rec, 2] = {}
var t: set[Rec, 3] = {}
var u: set[Rec] = {}
var k: 0..3 = 0
action Union(x: 0..1) { s := s | {Rec(a=x, b=x)} }
action Inter() { s := s & u }
action Diff() { t := u - s }
action Comp() { t := {Rec(a=r.b, b=r.a) for r in s if r.a > 0} }
action Branch() { t := if k == 0 then s else t | s }
action Local() {
    let both = s | t
    t := both - s
}
action Unbounded() { u := u | s }
action Small() { k := len({k, 1}) }
"""


def _assigned(model: ir.Model, action: str) -> ir.Expr:
    return next(st.value for st in model.action(action).body if isinstance(st, ir.Assign))


def _cap(model: ir.Model, action: str) -> int | None:
    return _assigned(model, action).type.capacity


def test_bounds_follow_the_operations():
    m = with_capacities(api.load_source(SPEC))
    assert _cap(m, "Union") == 3           # 2 + a literal of 1
    assert _cap(m, "Inter") == 2           # the smaller known one
    assert _cap(m, "Diff") is None         # u has no bound
    assert _cap(m, "Comp") == 2            # one element per element of s
    assert _cap(m, "Branch") == 5          # the larger branch: 3 + 2
    assert _cap(m, "Local") == 5           # both = s | t, and a - b keeps a's
    assert _cap(m, "Unbounded") is None


def test_locals_take_their_values_types():
    m = with_capacities(api.load_source(SPEC))
    locals_ = [e for root in body_exprs(m.action("Local").body) for e in walk(root)
               if isinstance(e, ir.Local) and e.name == "both"]
    assert locals_ and all(e.type.capacity == 5 for e in locals_)


def test_small_element_types_are_left_alone():
    # a bitset holds them; a capacity would change how they are ranked
    before = api.load_source(SPEC)
    after = with_capacities(before)
    assert after.action("Small") == before.action("Small")
    assert all(not isinstance(e.type, SetType) or e.type.capacity is None
               for root in body_exprs(after.action("Small").body) for e in walk(root))
