"""Static capacities for set expressions over large element types.

An engine that holds a set over a large element type sparsely (a count and
``cap`` element slots: the compiled engine, Z3) needs a bound on the size of
every set it computes, not only of the declared ones.  The front end types
``s | {x}`` or ``{m.src for m in msgs}`` without a capacity; this pass gives
every such expression ``SetType.capacity`` = a bound derived from its parts:

* a literal: its number of elements; a constant: its size;
* ``a | b``: the sum; ``a & b``: the smaller; ``a - b``: ``a``'s;
* a comprehension: the number of values its domain yields;
* ``if``/``else``: the larger; a ``let`` and a local: their value's;
* ``distinct(b)``: the bag's capacity; anything read from a declared type
  (variables, map values, fields): that type's capacity.

Sets over element types of at most ``LARGE`` values keep their types: a
bitset holds them whole, and a capacity would change how they are ranked as
elements.  The reference explorer never sees the rewritten IR; the bounds are
promises about values it computes, so a wrong bound would show up as a
disagreement in the cross-engine conformance test, not as a wrong verdict
(writing past a bound fails loudly in the engines that use it).
"""
from __future__ import annotations

import dataclasses
from typing import Callable

from modelcheck.ir import nodes as ir
from modelcheck.ir.ops import Op
from modelcheck.ir.types import (BagType, MapType, OptionType, RecordType, SeqType, SetType,
                                 TupleType, Type, join)
from modelcheck.ir.visit import map_children
from modelcheck.semantics.types import bounded_size

__all__ = ["LARGE", "with_capacities", "size_bound"]

#: Element types with more values than this get static capacities.
LARGE = 4096

Env = dict[str, Type]


def _large(t: Type) -> bool:
    return isinstance(t, SetType) and bounded_size(t.elem, LARGE) > LARGE


def with_capacities(model: ir.Model) -> ir.Model:
    """``model`` with a capacity on every large set expression that has a bound."""
    fix = _Rewriter()

    def props(items: tuple[ir.Property, ...]) -> tuple[ir.Property, ...]:
        return tuple(dataclasses.replace(p, expr=fix.expr(p.expr, {})) for p in items)

    return dataclasses.replace(
        model,
        vars=tuple(dataclasses.replace(v, init=fix.expr(v.init, {})) for v in model.vars),
        actions=tuple(dataclasses.replace(a, body=fix.body(a.body, {p.name: p.type
                                                                      for p in a.params}))
                      for a in model.actions),
        properties=props(model.properties), terminals=props(model.terminals),
        constraints=props(model.constraints))


def size_bound(t: Type) -> int | None:
    """How many values iterating over a value of ``t`` yields at most."""
    if isinstance(t, SetType):
        n = bounded_size(t.elem, 1 << 62)
        return n if t.capacity is None else min(t.capacity, n)
    if isinstance(t, BagType):
        return t.capacity
    if isinstance(t, SeqType):
        return t.capacity
    return None


class _Rewriter:
    """One walk that rebuilds expressions with their lets' new types in scope."""

    def body(self, stmts: tuple[ir.Stmt, ...], env: Env) -> tuple[ir.Stmt, ...]:
        out: list[ir.Stmt] = []
        env = dict(env)
        for stmt in stmts:
            if isinstance(stmt, ir.Let):
                value = self.expr(stmt.value, env)
                env[stmt.name] = value.type
                out.append(dataclasses.replace(stmt, value=value))
            elif isinstance(stmt, ir.Pick):
                out.append(dataclasses.replace(stmt, domain=self.expr(stmt.domain, env)))
                env.pop(stmt.name, None)
            elif isinstance(stmt, ir.If):
                out.append(dataclasses.replace(stmt, cond=self.expr(stmt.cond, env),
                                               then=self.body(stmt.then, env),
                                               else_=self.body(stmt.else_, env)))
            elif isinstance(stmt, ir.Either):
                out.append(dataclasses.replace(
                    stmt, branches=tuple(self.body(b, env) for b in stmt.branches)))
            else:
                out.append(_map_one(stmt, lambda e: self.expr(e, env)))
        return tuple(out)

    def expr(self, e: ir.Expr, env: Env) -> ir.Expr:
        if isinstance(e, ir.Local):
            t = env.get(e.name)
            return dataclasses.replace(e, type=t) if t is not None and t != e.type else e
        if isinstance(e, ir.LetExpr):
            value = self.expr(e.value, env)
            body = self.expr(e.body, {**env, e.name: value.type})
            return self._typed(dataclasses.replace(e, value=value, body=body,
                                                   type=_keep(e.type, body.type)))
        if isinstance(e, (ir.Quant, ir.SetComp, ir.SumComp, ir.MapComp)):
            # an element binder keeps its type (only sets' capacities change);
            # it hides a let of the same name
            inner = {k: t for k, t in env.items() if k != e.var}
            return self._typed(map_children(
                e, lambda c: self.expr(c, env if c is getattr(e, "domain", None) else inner)))
        rebuilt = map_children(e, lambda c: self.expr(c, env))
        if isinstance(rebuilt, ir.Apply) and rebuilt.op in _COMPARED:
            rebuilt = _bounded_operands(rebuilt)
        return self._typed(rebuilt)

    def _typed(self, e: ir.Expr) -> ir.Expr:
        t = e.type
        if _unbounded(t) and not isinstance(t, SetType):
            return _updated(e)
        if not _large(t) or t.capacity is not None:
            return e
        bound = _bound(e)
        if bound is None:
            return e
        bound = min(bound, bounded_size(t.elem, 1 << 62))
        return dataclasses.replace(e, type=SetType(t.elem, bound))


def _unbounded(t: Type) -> bool:
    """Whether ``t`` holds a set over a large type without a capacity."""
    if isinstance(t, SetType):
        return (_large(t) and t.capacity is None) or _unbounded(t.elem)
    if isinstance(t, (BagType, SeqType, OptionType)):
        return _unbounded(t.elem)
    if isinstance(t, MapType):
        return _unbounded(t.value)
    if isinstance(t, (RecordType, TupleType)):
        return any(_unbounded(f) for f in (t.elems if isinstance(t, TupleType)
                                           else [ft for _, ft in t.fields]))
    return False


def _updated(e: ir.Expr) -> ir.Expr:
    """A part update (``m with [k] = v``, ``r with .f = v``) typed from its
    container and its new part, now that the part has a capacity: the front
    end's type joined the container with the part before it had one."""
    t: Type | None = None
    if isinstance(e, ir.Apply) and e.op is Op.MAP_SET:
        m, _, v = e.args
        value = join(m.type.value, _bounded_type(v))
        t = None if value is None else MapType(m.type.key, value)
    elif isinstance(e, ir.Apply) and e.op is Op.SEQ_SET:
        s, _, v = e.args
        elem = join(s.type.elem, _bounded_type(v))
        t = None if elem is None else SeqType(elem, s.type.capacity)
    elif isinstance(e, ir.FieldSet) and isinstance(e.record.type, RecordType):
        rt = e.record.type
        field_t = join(dict(rt.fields)[e.field], _bounded_type(e.value))
        if field_t is not None:
            t = RecordType(rt.name, tuple((n, field_t if n == e.field else ft)
                                          for n, ft in rt.fields))
    if t is None or _unbounded(t):
        return e
    return dataclasses.replace(e, type=t)


def _bounded_type(e: ir.Expr) -> Type:
    """``e``'s type, with a capacity if it is a set with a known bound."""
    t = e.type
    if isinstance(t, SetType) and t.capacity is None:
        cap = _cap(e)
        if cap is not None:
            return SetType(t.elem, cap)
    return t


#: Operations whose set operands meet in one representation (their join).
_COMPARED = (Op.EQ, Op.NE, Op.SUBSET)


def _bounded_operands(e: ir.Apply) -> ir.Apply:
    """``e`` with a capacity on each set operand that has a bound but no
    capacity, where the operands join into a set over a large type: a literal
    of a narrow record type compared with a set of the full type would
    otherwise join into a set with no bound (the join takes no capacity from
    a side without one)."""
    if not all(isinstance(a.type, SetType) for a in e.args):
        return e
    elems = [a.type.elem for a in e.args]
    if not any(_large(SetType(t)) for t in elems):
        return e
    return dataclasses.replace(e, args=tuple(dataclasses.replace(a, type=_bounded_type(a))
                                             for a in e.args))


def _keep(old: Type, new: Type) -> Type:
    return new if isinstance(old, SetType) and isinstance(new, SetType) else old


def _cap(e: ir.Expr) -> int | None:
    """A bound on the size of the set or bag ``e`` (None: none known).  A set
    over a small type is bounded by that type, however its literal is typed
    (``{Rec(a=x, b=x)}`` with ``x: 0..1`` is a set of a narrow record type)."""
    t = e.type
    if isinstance(t, BagType):
        return t.capacity
    if not isinstance(t, SetType):
        return None
    if t.capacity is not None:
        return t.capacity
    if isinstance(e, (ir.SetLit, ir.Const)):
        return _bound(e)
    n = bounded_size(t.elem, LARGE)
    return n if n <= LARGE else None


def _bound(e: ir.Expr) -> int | None:
    """A bound on the size of the set ``e`` from its (rewritten) parts."""
    if isinstance(e, ir.Const):
        return len(e.value)
    if isinstance(e, ir.SetLit):
        return len(e.elems)
    if isinstance(e, ir.SetComp):
        return size_bound(e.domain.type)
    if isinstance(e, ir.IfExpr):
        a, b = _cap(e.then), _cap(e.else_)
        return None if a is None or b is None else max(a, b)
    if isinstance(e, ir.LetExpr):
        return _cap(e.body)
    if isinstance(e, ir.Apply):
        caps = [_cap(a) for a in e.args]
        if e.op is Op.UNION:
            return None if None in caps else sum(caps)
        if e.op is Op.INTER:
            known = [c for c in caps if c is not None]
            return min(known) if known else None
        if e.op is Op.DIFF:
            return caps[0]
        if e.op is Op.BAG_DISTINCT:
            return caps[0]
    return None


def _map_one(stmt: ir.Stmt, fn: Callable[[ir.Expr], ir.Expr]) -> ir.Stmt:
    if isinstance(stmt, ir.Require):
        return dataclasses.replace(stmt, cond=fn(stmt.cond))
    if isinstance(stmt, ir.Assign):
        return dataclasses.replace(stmt, value=fn(stmt.value))
    raise TypeError(f"not an IR statement: {stmt!r}")
