"""Which symmetric types the compiled engine may reduce by.

``symmetric type`` is the user's promise that the members of a model type are
interchangeable.  The reduction is only sound if the spec keeps that promise,
so a type is left out (with a note saying why) when a constant anywhere in
the spec names particular members: ``leader == node1`` breaks the symmetry,
``all(... for n in Node)`` does not.  A constant keeps the promise when
renaming members (a transposition and a rotation generate every
permutation) leaves it unchanged.
"""
from __future__ import annotations

from typing import Any, Iterator

from modelcheck.ir import nodes as ir
from modelcheck.ir.types import (BagType, BoolType, EnumType, IntType, MapType, ModelType,
                                 OptionType, RecordType, SeqType,
                                 SetType, TupleType, Type, VariantType)
from modelcheck.ir.values import FrozenDict, Variant
from modelcheck.ir.visit import body_exprs, walk

__all__ = ["usable_symmetric_types", "rename", "involves"]


def involves(t: Type, sym: ModelType) -> bool:
    """Whether values of ``t`` can hold members of ``sym``."""
    if t == sym:
        return True
    if isinstance(t, (BoolType, IntType, EnumType, ModelType)):
        return False
    if isinstance(t, (OptionType, SetType, BagType, SeqType)):
        return involves(t.elem, sym)
    if isinstance(t, MapType):
        return involves(t.key, sym) or involves(t.value, sym)
    if isinstance(t, (RecordType, TupleType)):
        fields = t.elems if isinstance(t, TupleType) else [ft for _, ft in t.fields]
        return any(involves(f, sym) for f in fields)
    if isinstance(t, VariantType):
        return any(involves(p, sym) for _, p in t.cases)
    return False


def rename(t: Type, v: Any, sym: ModelType, pi: dict[str, str]) -> Any:
    """``v`` (a value of ``t``) with members of ``sym`` renamed by ``pi``."""
    if t == sym:
        return pi[v]
    if isinstance(t, OptionType):
        return None if v is None else rename(t.elem, v, sym, pi)
    if isinstance(t, SetType):
        return frozenset(rename(t.elem, e, sym, pi) for e in v)
    if isinstance(t, SeqType):
        return tuple(rename(t.elem, e, sym, pi) for e in v)
    if isinstance(t, BagType):
        return FrozenDict({rename(t.elem, e, sym, pi): c for e, c in v.items()})
    if isinstance(t, MapType):
        return FrozenDict({rename(t.key, k, sym, pi): rename(t.value, x, sym, pi)
                           for k, x in v.items()})
    if isinstance(t, TupleType):
        return tuple(rename(et, e, sym, pi) for et, e in zip(t.elems, v))
    if isinstance(t, RecordType):
        return FrozenDict({n: rename(ft, v[n], sym, pi) for n, ft in t.fields})
    if isinstance(t, VariantType):
        return Variant(v.tag, rename(t.case_type(v.tag), v.value, sym, pi))
    return v


def _generators(sym: ModelType) -> list[dict[str, str]]:
    m = sym.members
    if len(m) < 2:
        return []
    swap = {a: a for a in m}
    swap[m[0]], swap[m[1]] = m[1], m[0]
    rotate = {a: m[(i + 1) % len(m)] for i, a in enumerate(m)}
    return [swap, rotate]


def _model_exprs(model: ir.Model) -> Iterator[ir.Expr]:
    for v in model.vars:
        yield from walk(v.init)
    for a in model.actions:
        for e in body_exprs(a.body):
            yield from walk(e)
    for p in model.properties + model.terminals + model.constraints:
        yield from walk(p.expr)


def usable_symmetric_types(model: ir.Model) -> tuple[list[ModelType], list[str]]:
    """(the symmetric types that are safe to reduce by, notes on those that are not)."""
    candidates = list(dict.fromkeys(model.symmetric_types))
    if not candidates:
        return [], []
    broken: dict[str, str] = {}
    for e in _model_exprs(model):
        if not isinstance(e, ir.Const):
            continue
        for sym in candidates:
            if sym.name in broken:
                continue
            for pi in _generators(sym):
                if rename(e.type, e.value, sym, pi) != e.value:
                    where = f" at {e.span}" if e.span is not None else ""
                    broken[sym.name] = (f"symmetry reduction off for type {sym.name}: the "
                                        f"spec names particular members{where}")
                    break
    usable = [s for s in candidates if s.name not in broken]
    return usable, list(broken.values())
