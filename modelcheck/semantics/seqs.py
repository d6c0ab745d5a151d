"""Sequence lowerings shared by expressions, calls and statements: the IR a
sequence is read through once it is bound to a name (its positions
``0..len(s) - 1``, its last index, the set of its elements), and how a
``for x in s`` clause binds x to ``s[i]`` around what follows it.

Pure IR builders over already-typed nodes: no checker state, so
``semantics.exprs``, ``semantics.calls`` and ``semantics.idioms`` all sit
above this module and none of them needs another for these.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from modelcheck.ir import nodes as ir
from modelcheck.ir import types as T
from modelcheck.ir.ops import Op
from modelcheck.semantics.context import Env

__all__ = ["SeqBinding", "bind_elem", "wrapped", "last_index", "positions", "seq_elems",
           "over_seq"]


def over_seq(s: ir.Expr, env: Env, body: Callable[[ir.Expr], ir.Expr]) -> ir.Expr:
    """``body(q)`` where q reads the sequence s, bound once to a fresh
    name unless it is a variable, a local or a constant already."""
    if isinstance(s, (ir.Var, ir.Local, ir.Const)):
        return body(s)
    name = env.unit.fresh("seq")
    node = body(ir.Local(name, s.type, s.span))
    return ir.LetExpr(name, s, node, node.type, s.span)


class SeqBinding:
    """How ``for x in s`` over a sequence binds x: ``let x = s[i]`` (``get``)
    around what follows the clause, inside ``let pre = seq`` when the
    sequence is not a name (``pre`` None: it is read where it is)."""

    def __init__(self, var: str, get: ir.Expr, pre: str | None, seq: ir.Expr) -> None:
        self.var, self.get, self.pre, self.seq = var, get, pre, seq


def bind_elem(wrap: "SeqBinding | None", e: ir.Expr | None) -> ir.Expr | None:
    if wrap is None or e is None:
        return e
    return ir.LetExpr(wrap.var, wrap.get, e, e.type, e.span)


def wrapped(wrap: "SeqBinding | None", e: ir.Expr) -> ir.Expr:
    if wrap is None or wrap.pre is None:
        return e
    return ir.LetExpr(wrap.pre, wrap.seq, e, e.type, e.span)


def last_index(seq: ir.Expr, span: Any) -> ir.Expr:
    """``len(seq) - 1``."""
    cap = seq.type.capacity
    length = ir.Apply(Op.LEN, (seq,), T.IntType(0, cap), span)
    return ir.Apply(Op.SUB, (length, ir.Const(1, T.IntType(1, 1), span)),
                    T.IntType(-1, cap - 1), span)


def positions(seq: ir.Expr, span: Any) -> ir.Expr:
    """``0..len(seq) - 1``, the positions of a sequence."""
    hi = last_index(seq, span)
    elem = T.IntType(min(0, hi.type.hi), max(0, hi.type.hi))
    return ir.Apply(Op.RANGE, (ir.Const(0, T.IntType(0, 0), span), hi), T.SetType(elem), span)


def seq_elems(seq: ir.Expr, env: Env, span: Any) -> ir.Expr:
    """The set of the elements of ``seq`` (a name): {seq[i] for i in 0..len(seq) - 1}."""
    name = env.unit.fresh("i")
    dom = positions(seq, span)
    get = ir.Apply(Op.SEQ_GET, (seq, ir.Local(name, dom.type.elem, span)), seq.type.elem, span)
    return ir.SetComp(name, dom, None, get, T.SetType(seq.type.elem), span)
