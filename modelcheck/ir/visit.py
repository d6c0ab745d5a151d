"""Generic traversal of IR expressions and statements.

Engines and the front end use these instead of each writing its own
``isinstance`` ladder: ``children`` and ``walk`` to look, ``map_children`` and ``map_expr``
to rebuild, ``stmt_exprs``/``walk_stmts``/``map_stmts`` for bodies, and
the variable queries ``free_vars``, ``state_vars_read``,
``stmts_assigned_vars`` and ``binders``.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator

from modelcheck.ir.nodes import (Action, Apply, Assign, BagLit, CasePayload, CaseTest, Const,
                                 Either, Expr, FieldGet, FieldSet, If, IfExpr, Let, LetExpr, Local,
                                 MapComp, Pick, Quant, RecordLit, Require, SeqLit, SetComp, SetLit,
                                 Stmt, SumComp, TupleLit, Var, VariantLit)

__all__ = ["substitute", "children", "walk", "map_children", "map_expr", "stmt_exprs", "walk_stmts", "map_stmts",
           "free_vars", "state_vars_read", "stmts_assigned_vars", "binders", "body_exprs"]

# Node type -> names of its fields that hold one expression, and of those that
# hold a tuple of expressions.  Order is evaluation order.
_EXPR_FIELDS: dict[type, tuple[str, ...]] = {
    Const: (), Var: (), Local: (),
    Apply: (),
    IfExpr: ("cond", "then", "else_"),
    LetExpr: ("value", "body"),
    Quant: ("domain", "body"),
    SetComp: ("domain", "cond", "elem"),
    SumComp: ("domain", "cond", "elem"),
    MapComp: ("value",),
    SetLit: (), SeqLit: (), BagLit: (), TupleLit: (),
    RecordLit: (),
    FieldGet: ("record",),
    FieldSet: ("record", "value"),
    VariantLit: ("payload",),
    CaseTest: ("subject",),
    CasePayload: ("subject",),
}
_TUPLE_FIELDS = {Apply: "args", SetLit: "elems", SeqLit: "elems", BagLit: "elems",
                 TupleLit: "elems"}


def children(expr: Expr) -> tuple[Expr, ...]:
    """The direct sub-expressions of ``expr``, in evaluation order."""
    kind = type(expr)
    if kind in _TUPLE_FIELDS:
        return tuple(getattr(expr, _TUPLE_FIELDS[kind]))
    if kind is RecordLit:
        return tuple(value for _, value in expr.fields)
    out = []
    for name in _EXPR_FIELDS[kind]:
        value = getattr(expr, name)
        if value is not None:
            out.append(value)
    return tuple(out)


def walk(expr: Expr) -> Iterator[Expr]:
    """Every sub-expression of ``expr`` (itself included), parents before children."""
    stack = [expr]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(children(node)))


def map_children(expr: Expr, fn: Callable[[Expr], Expr]) -> Expr:
    """``expr`` rebuilt with ``fn`` applied to each direct sub-expression
    (``expr`` itself when none changed).  Binders are the caller's concern."""
    kind = type(expr)
    changes: dict[str, object] = {}
    if kind in _TUPLE_FIELDS:
        name = _TUPLE_FIELDS[kind]
        old = getattr(expr, name)
        new = tuple(fn(e) for e in old)
        if any(a is not b for a, b in zip(old, new)):
            changes[name] = new
    elif kind is RecordLit:
        new_fields = tuple((n, fn(v)) for n, v in expr.fields)
        if any(a[1] is not b[1] for a, b in zip(expr.fields, new_fields)):
            changes["fields"] = new_fields
    else:
        for name in _EXPR_FIELDS[kind]:
            old = getattr(expr, name)
            if old is None:
                continue
            new = fn(old)
            if new is not old:
                changes[name] = new
    return dataclasses.replace(expr, **changes) if changes else expr


def map_expr(expr: Expr, fn: Callable[[Expr], Expr]) -> Expr:
    """Rebuild ``expr`` bottom-up: children first, then ``fn`` on the node
    rebuilt from the new children.  Nodes whose children did not change are
    passed to ``fn`` as they are (no copy)."""
    return fn(map_children(expr, lambda child: map_expr(child, fn)))


def stmt_exprs(stmt: Stmt) -> tuple[Expr, ...]:
    """The expressions held directly by one statement (not by nested statements)."""
    if isinstance(stmt, Require):
        return (stmt.cond,)
    if isinstance(stmt, Let):
        return (stmt.value,)
    if isinstance(stmt, Pick):
        return (stmt.domain,)
    if isinstance(stmt, Assign):
        return (stmt.value,)
    if isinstance(stmt, If):
        return (stmt.cond,)
    if isinstance(stmt, Either):
        return ()
    raise TypeError(f"not an IR statement: {stmt!r}")


def walk_stmts(body: Iterable[Stmt]) -> Iterator[Stmt]:
    """Every statement of ``body``, nested ones included, in source order."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, If):
            yield from walk_stmts(stmt.then)
            yield from walk_stmts(stmt.else_)
        elif isinstance(stmt, Either):
            for branch in stmt.branches:
                yield from walk_stmts(branch)


def body_exprs(body: Iterable[Stmt]) -> Iterator[Expr]:
    """Every top-level expression held by the statements of ``body``."""
    for stmt in walk_stmts(body):
        yield from stmt_exprs(stmt)


def map_stmts(body: Iterable[Stmt], fn: Callable[[Expr], Expr]) -> tuple[Stmt, ...]:
    """``body`` with ``map_expr(e, fn)`` applied to every expression."""
    out: list[Stmt] = []
    for stmt in body:
        if isinstance(stmt, Require):
            out.append(dataclasses.replace(stmt, cond=map_expr(stmt.cond, fn)))
        elif isinstance(stmt, Let):
            out.append(dataclasses.replace(stmt, value=map_expr(stmt.value, fn)))
        elif isinstance(stmt, Pick):
            out.append(dataclasses.replace(stmt, domain=map_expr(stmt.domain, fn)))
        elif isinstance(stmt, Assign):
            out.append(dataclasses.replace(stmt, value=map_expr(stmt.value, fn)))
        elif isinstance(stmt, If):
            out.append(dataclasses.replace(stmt, cond=map_expr(stmt.cond, fn),
                                           then=map_stmts(stmt.then, fn),
                                           else_=map_stmts(stmt.else_, fn)))
        elif isinstance(stmt, Either):
            out.append(dataclasses.replace(
                stmt, branches=tuple(map_stmts(b, fn) for b in stmt.branches)))
        else:
            raise TypeError(f"not an IR statement: {stmt!r}")
    return tuple(out)


def _bound_here(expr: Expr) -> tuple[str | None, tuple[Expr, ...]]:
    """The name a binder introduces and the sub-expressions that see it."""
    if isinstance(expr, LetExpr):
        return expr.name, (expr.body,)
    if isinstance(expr, Quant):
        return expr.var, (expr.body,)
    if isinstance(expr, (SetComp, SumComp)):
        return expr.var, tuple(e for e in (expr.cond, expr.elem) if e is not None)
    if isinstance(expr, MapComp):
        return expr.var, (expr.value,)
    return None, ()


def free_vars(expr: Expr) -> frozenset[str]:
    """Names of the ``Local`` s that ``expr`` reads but does not bind itself."""
    name, scoped = _bound_here(expr)
    if name is None:
        if isinstance(expr, Local):
            return frozenset({expr.name})
        out: frozenset[str] = frozenset()
        for child in children(expr):
            out |= free_vars(child)
        return out
    out = frozenset()
    for child in children(expr):
        inner = free_vars(child)
        out |= (inner - {name}) if any(child is s for s in scoped) else inner
    return out


def state_vars_read(node: Expr | Iterable[Stmt], primed: bool | None = None) -> frozenset[str]:
    """Names of the state variables read by an expression or a statement body.
    ``primed``: None for both, True for ``x'`` only, False for unprimed only."""
    exprs: Iterable[Expr]
    if isinstance(node, (list, tuple)):
        exprs = body_exprs(node)
    else:
        exprs = (node,)                   # type: ignore[assignment]
    out = set()
    for root in exprs:
        for e in walk(root):
            if isinstance(e, Var) and (primed is None or e.primed == primed):
                out.add(e.name)
    return frozenset(out)


def stmts_assigned_vars(body: Iterable[Stmt]) -> frozenset[str]:
    """Names of the state variables some path through ``body`` may assign."""
    return frozenset(s.var for s in walk_stmts(body) if isinstance(s, Assign))


def binders(node: Action | Expr | Iterable[Stmt]) -> tuple[str, ...]:
    """Every name bound in an action (its parameters first), a body or an
    expression, in source order.  The front end makes them unique per action
    or property; this lets engines and tests rely on it."""
    names: list[str] = []
    if isinstance(node, Action):
        names.extend(p.name for p in node.params)
        node = node.body
    if isinstance(node, (list, tuple)):
        for stmt in walk_stmts(node):
            names.extend(_names_in(stmt_exprs(stmt)))
            if isinstance(stmt, (Let, Pick)):
                names.append(stmt.name)
        return tuple(names)
    names.extend(_names_in((node,)))      # type: ignore[arg-type]
    return tuple(names)


def _names_in(exprs: Iterable[Expr]) -> list[str]:
    out = []
    for root in exprs:
        for e in walk(root):
            name, _ = _bound_here(e)
            if name is not None:
                out.append(name)
    return out


def substitute(expr: Expr, values: dict[str, Expr]) -> Expr:
    """``expr`` with each free ``Local`` named in ``values`` replaced by its
    expression (a binder inside ``expr`` that reuses a name hides it)."""
    if not values:
        return expr
    if isinstance(expr, Local):
        return values.get(expr.name, expr)
    name, scoped = _bound_here(expr)
    if name is None or name not in values:
        return map_children(expr, lambda child: substitute(child, values))
    inner = {k: v for k, v in values.items() if k != name}
    return map_children(expr, lambda child: substitute(
        child, inner if any(child is s for s in scoped) else values))
