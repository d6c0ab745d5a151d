"""Run-time values of the IR, shared by every engine.

========  ===============================================================
type      value
========  ===============================================================
bool      ``bool``
int       ``int``
enum      ``str`` (the member name)
model     ``str`` (the id, e.g. ``"node1"``)
set       ``frozenset``
seq       ``tuple``
tuple     ``tuple``
map       ``FrozenDict`` with every key of the key type
record    ``FrozenDict`` field name -> value, every field present
option    ``None`` for none, the value itself for some(v) (options do not nest)
bag       ``FrozenDict`` element -> count, counts > 0 only
variant   ``Variant(tag, value)``: the case name and its fields as a record
          (``FrozenDict``, empty for a case without fields)
========  ===============================================================

Values are plain, hashable and compare by content; what they mean comes from
their type, which is always known from the IR.  ``domain``, ``order_key`` and
``sort_values`` give every engine the same canonical order of values, so that
exploration order and output are deterministic whatever PYTHONHASHSEED is.
"""
from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from math import comb
from typing import Any

from modelcheck.ir.types import (BagType, BoolType, EnumType, IntType, MapType, ModelType,
                                 OptionType, RecordType, SeqType, SetType, TupleType, Type,
                                 VariantType, render_int)

__all__ = ["FrozenDict", "Variant", "domain", "domain_size", "order_key", "sort_values",
           "in_type", "render_value", "index_of"]


class FrozenDict(Mapping):
    """An immutable, hashable mapping (maps, records, bags)."""
    __slots__ = ("_d", "_h")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._d = dict(*args, **kwargs)
        self._h: int | None = None

    def __getitem__(self, key: Any) -> Any:
        return self._d[key]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._d)

    def __len__(self) -> int:
        return len(self._d)

    def __hash__(self) -> int:
        if self._h is None:
            self._h = hash(frozenset(self._d.items()))
        return self._h

    def __eq__(self, other: object) -> bool:
        if isinstance(other, FrozenDict):
            return self._d == other._d
        return NotImplemented

    def __repr__(self) -> str:
        return f"FrozenDict({self._d!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        # Without the cached hash: another process hashes strings with
        # another seed, and a stale hash there makes equal keys miss in
        # dicts and sets (a spawned worker counted 494 states for 302).
        return (FrozenDict, (self._d,))

    def set(self, key: Any, value: Any) -> "FrozenDict":
        d = dict(self._d)
        d[key] = value
        return FrozenDict(d)


@dataclass(frozen=True)
class Variant:
    """A value of a ``VariantType``: the case ``tag`` with its fields."""
    tag: str
    value: FrozenDict

    def __repr__(self) -> str:
        return f"Variant({self.tag!r}, {dict(self.value)!r})"


def domain_size(t: Type) -> int:
    """Number of values of ``t``, computed without enumerating them."""
    if isinstance(t, BoolType):
        return 2
    if isinstance(t, IntType):
        return max(0, t.hi - t.lo + 1)
    if isinstance(t, (EnumType, ModelType)):
        return len(t.members)
    if isinstance(t, SetType):
        n = domain_size(t.elem)
        if t.capacity is None or t.capacity >= n:
            return 2 ** n
        return sum(comb(n, k) for k in range(t.capacity + 1))
    if isinstance(t, MapType):
        return domain_size(t.value) ** domain_size(t.key)
    if isinstance(t, VariantType):
        return sum(domain_size(payload) for _, payload in t.cases)
    if isinstance(t, OptionType):
        return domain_size(t.elem) + 1
    if isinstance(t, SeqType):
        n = domain_size(t.elem)
        return sum(n ** k for k in range(t.capacity + 1))
    if isinstance(t, BagType):
        # multisets of size <= capacity over n elements: C(n + cap, cap)
        return comb(domain_size(t.elem) + t.capacity, t.capacity)
    if isinstance(t, TupleType):
        r = 1
        for e in t.elems:
            r *= domain_size(e)
        return r
    if isinstance(t, RecordType):
        r = 1
        for _, f in t.fields:
            r *= domain_size(f)
        return r
    raise TypeError(t)


def domain(t: Type) -> tuple[Any, ...]:
    """Every value of ``t``, in canonical order.  Only for small types
    (parameters, quantifier domains, set elements)."""
    if isinstance(t, BoolType):
        return (False, True)
    if isinstance(t, IntType):
        return tuple(range(t.lo, t.hi + 1))
    if isinstance(t, (EnumType, ModelType)):
        return t.members
    if isinstance(t, OptionType):
        return (None,) + domain(t.elem)
    if isinstance(t, TupleType):
        return tuple(itertools.product(*(domain(e) for e in t.elems)))
    if isinstance(t, RecordType):
        names = [n for n, _ in t.fields]
        return tuple(FrozenDict(zip(names, vals))
                     for vals in itertools.product(*(domain(f) for _, f in t.fields)))
    if isinstance(t, SetType):
        elems = domain(t.elem)
        most = len(elems) if t.capacity is None else min(t.capacity, len(elems))
        return tuple(frozenset(c) for k in range(most + 1)
                     for c in itertools.combinations(elems, k))
    if isinstance(t, VariantType):
        return tuple(Variant(case, payload) for case, ptype in t.cases for payload in domain(ptype))
    if isinstance(t, MapType):
        keys = domain(t.key)
        return tuple(FrozenDict(zip(keys, vals))
                     for vals in itertools.product(domain(t.value), repeat=len(keys)))
    if isinstance(t, SeqType):
        elems = domain(t.elem)
        return tuple(s for k in range(t.capacity + 1) for s in itertools.product(elems, repeat=k))
    if isinstance(t, BagType):
        elems = domain(t.elem)
        out = []
        for k in range(t.capacity + 1):
            for combo in itertools.combinations_with_replacement(elems, k):
                counts: dict[Any, int] = {}
                for e in combo:
                    counts[e] = counts.get(e, 0) + 1
                out.append(FrozenDict(counts))
        return tuple(out)
    raise TypeError(t)


def index_of(t: Type, v: Any) -> int:
    """Position of an atomic value (bool, int, enum, model) in ``domain(t)``."""
    if isinstance(t, BoolType):
        return int(v)
    if isinstance(t, IntType):
        return v - t.lo
    if isinstance(t, (EnumType, ModelType)):
        return t.members.index(v)
    if isinstance(t, OptionType):
        return 0 if v is None else 1 + index_of(t.elem, v)
    raise TypeError(f"index_of is for atomic types, not {t}")


def order_key(t: Type, v: Any) -> Any:
    """A sort key giving the canonical order of values of ``t``."""
    if isinstance(t, BoolType):
        return int(v)
    if isinstance(t, IntType):
        return v
    if isinstance(t, (EnumType, ModelType)):
        return t.members.index(v)
    if isinstance(t, OptionType):
        return (0,) if v is None else (1, order_key(t.elem, v))
    if isinstance(t, SetType):
        return (len(v), sorted(order_key(t.elem, e) for e in v))
    if isinstance(t, (SeqType,)):
        return (len(v), [order_key(t.elem, e) for e in v])
    if isinstance(t, TupleType):
        return tuple(order_key(et, e) for et, e in zip(t.elems, v))
    if isinstance(t, RecordType):
        return tuple(order_key(ft, v[n]) for n, ft in t.fields)
    if isinstance(t, MapType):
        return tuple(order_key(t.value, v[k]) for k in domain(t.key))
    if isinstance(t, BagType):
        return (sum(v.values()), sorted((order_key(t.elem, e), c) for e, c in v.items()))
    if isinstance(t, VariantType):
        return (t.case_index(v.tag), order_key(t.case_type(v.tag), v.value))
    raise TypeError(t)


def sort_values(t: Type, values: Any) -> list[Any]:
    """The values (of type ``t``) in canonical order."""
    return sorted(values, key=lambda v: order_key(t, v))


def in_type(t: Type, v: Any) -> bool:
    """Whether ``v`` is a value of ``t`` (bounds and capacities included)."""
    if isinstance(t, BoolType):
        return isinstance(v, bool)
    if isinstance(t, IntType):
        return isinstance(v, int) and not isinstance(v, bool) and t.lo <= v <= t.hi
    if isinstance(t, (EnumType, ModelType)):
        return v in t.members
    if isinstance(t, OptionType):
        return v is None or in_type(t.elem, v)
    if isinstance(t, SetType):
        return (isinstance(v, frozenset) and (t.capacity is None or len(v) <= t.capacity)
                and all(in_type(t.elem, e) for e in v))
    if isinstance(t, VariantType):
        return (isinstance(v, Variant) and any(v.tag == case for case, _ in t.cases)
                and in_type(t.case_type(v.tag), v.value))
    if isinstance(t, SeqType):
        return isinstance(v, tuple) and len(v) <= t.capacity and all(in_type(t.elem, e) for e in v)
    if isinstance(t, TupleType):
        return (isinstance(v, tuple) and len(v) == len(t.elems)
                and all(in_type(et, e) for et, e in zip(t.elems, v)))
    if isinstance(t, RecordType):
        return (isinstance(v, FrozenDict) and len(v) == len(t.fields)
                and all(n in v and in_type(ft, v[n]) for n, ft in t.fields))
    if isinstance(t, MapType):
        keys = domain(t.key)
        return (isinstance(v, FrozenDict) and len(v) == len(keys)
                and all(k in v and in_type(t.value, v[k]) for k in keys))
    if isinstance(t, BagType):
        return (isinstance(v, FrozenDict) and sum(v.values()) <= t.capacity
                and all(c > 0 and in_type(t.elem, e) for e, c in v.items()))
    raise TypeError(t)


def render_value(t: Type, v: Any) -> str:
    """The value as the spec language writes it."""
    if isinstance(t, BoolType):
        return "true" if v else "false"
    if isinstance(t, IntType):
        return render_int(v)
    if isinstance(t, (EnumType, ModelType)):
        return str(v)
    if isinstance(t, OptionType):
        return "none" if v is None else f"some({render_value(t.elem, v)})"
    if isinstance(t, SetType):
        return "{" + ", ".join(render_value(t.elem, e) for e in sort_values(t.elem, v)) + "}"
    if isinstance(t, SeqType):
        return "[" + ", ".join(render_value(t.elem, e) for e in v) + "]"
    if isinstance(t, TupleType):
        inner = ", ".join(render_value(et, e) for et, e in zip(t.elems, v))
        return f"({inner},)" if len(v) == 1 else f"({inner})"
    if isinstance(t, RecordType):
        inner = ", ".join(f"{n}={render_value(ft, v[n])}" for n, ft in t.fields)
        return f"{t.name or 'record'}({inner})"
    if isinstance(t, MapType):
        return "{" + ", ".join(f"{render_value(t.key, k)}: {render_value(t.value, v[k])}"
                               for k in domain(t.key)) + "}"
    if isinstance(t, BagType):
        items = []
        for e in sort_values(t.elem, v.keys()):
            items.extend([render_value(t.elem, e)] * v[e])
        return "bag{" + ", ".join(items) + "}"
    if isinstance(t, VariantType):
        ptype = t.case_type(v.tag)
        if not ptype.fields:
            return v.tag
        return render_value(ptype, v.value)
    raise TypeError(t)
