"""The IR traversal helpers engines rely on."""
from __future__ import annotations

import dataclasses

from modelcheck.ir import nodes as ir
from modelcheck.ir import types as T
from modelcheck.ir import visit
from modelcheck.ir.ops import Op

INT = T.IntType(0, 3)
BOOL = T.BOOL
X = ir.Var("x", INT)
XP = ir.Var("x", INT, primed=True)
Y = ir.Var("y", T.SetType(INT))
ONE = ir.Const(1, T.IntType(1, 1))


def local(name, t=INT):
    return ir.Local(name, t)


def test_children_in_evaluation_order():
    add = ir.Apply(Op.ADD, (X, ONE), T.IntType(1, 4))
    assert visit.children(add) == (X, ONE)
    comp = ir.SetComp("v", Y, ir.Apply(Op.GT, (local("v"), ONE), BOOL), local("v"),
                      T.SetType(INT))
    assert visit.children(comp) == (Y, comp.cond, local("v"))
    no_cond = dataclasses.replace(comp, cond=None)
    assert visit.children(no_cond) == (Y, local("v"))
    rec = ir.RecordLit((("a", X), ("b", ONE)), T.RecordType(None, (("a", INT), ("b", INT))))
    assert visit.children(rec) == (X, ONE)
    assert visit.children(X) == ()


def test_walk_visits_parents_first():
    inner = ir.Apply(Op.ADD, (X, ONE), T.IntType(1, 4))
    outer = ir.Apply(Op.EQ, (inner, ONE), BOOL)
    assert list(visit.walk(outer)) == [outer, inner, X, ONE, ONE]


def test_map_expr_rebuilds_bottom_up_and_keeps_unchanged_nodes():
    expr = ir.Apply(Op.AND, (ir.Apply(Op.EQ, (X, ONE), BOOL), ir.Const(True, BOOL)), BOOL)

    def prime(e):
        return dataclasses.replace(e, primed=True) if isinstance(e, ir.Var) else e
    out = visit.map_expr(expr, prime)
    assert out.args[0].args[0] == XP
    assert out.args[1] is expr.args[1]
    assert visit.map_expr(expr, lambda e: e) is expr


def test_free_vars_respects_binders():
    body = ir.Apply(Op.EQ, (local("k"), local("n")), BOOL)
    quant = ir.Quant(ir.QuantKind.ANY, "k", ir.Apply(Op.RANGE, (local("lo"), ONE),
                                                      T.SetType(INT)), body)
    assert visit.free_vars(quant) == {"n", "lo"}
    let = ir.LetExpr("n", local("k"), body, BOOL)
    assert visit.free_vars(let) == {"k"}
    comp = ir.MapComp("k", local("k"), T.MapType(INT, INT))
    assert visit.free_vars(comp) == frozenset()


def test_statement_helpers():
    body = (
        ir.Require(ir.Apply(Op.GT, (X, ONE), BOOL)),
        ir.Let("a", X),
        ir.Pick("b", Y),
        ir.If(ir.Const(True, BOOL), (ir.Assign("x", local("a")),),
              (ir.Either(((ir.Assign("z", local("b")),), ()),),)),
    )
    assert [type(s).__name__ for s in visit.walk_stmts(body)] == [
        "Require", "Let", "Pick", "If", "Assign", "Either", "Assign"]
    assert visit.stmts_assigned_vars(body) == {"x", "z"}
    assert visit.state_vars_read(body) == {"x", "y"}
    assert visit.binders(ir.Action("A", (ir.Param("p", INT),), body)) == ("p", "a", "b")
    swapped = visit.map_stmts(body, lambda e: ONE if e == X else e)
    assert visit.state_vars_read(swapped) == {"y"}
    assert visit.stmts_assigned_vars(swapped) == {"x", "z"}


def test_state_vars_read_primed_or_not():
    expr = ir.Apply(Op.GE, (XP, ir.Apply(Op.LEN, (Y,), INT)), BOOL)
    assert visit.state_vars_read(expr) == {"x", "y"}
    assert visit.state_vars_read(expr, primed=True) == {"x"}
    assert visit.state_vars_read(expr, primed=False) == {"y"}
