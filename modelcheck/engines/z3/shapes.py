"""Changing the shape of a symbolic value (``symbolic.Syms`` inherits this).

Shapes are IR types (see ``symbolic``).  Two values meet in their ``join``;
``coerce`` widens a value to a wider shape; ``in_type`` says whether it fits a
declared type (the MC5001 check); ``convert`` narrows it to the declared type
once it is known to fit, and restores the canonical form.

A variant's shape is its type with each case's record in the shape of that
case's payload (``Req(term=t + 1)`` may hold a term past the declared
bound): ``ir.types.join`` joins variants by name only, so shapes of one
variant type are joined here case by case, wherever they sit in a type.
An element past its declared bound then has a position in a set of that
shape, and the write of that set is the MC5001 the reference reports.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable

import z3

from modelcheck.engines.z3.logic import FALSE, TRUE, conj, implies, neg
from modelcheck.engines.z3.scalars import SNum
from modelcheck.engines.z3.symvalues import (EncodingUnsupported, SBag, SBool, SMap, SOpt, SProd,
                                             SSeq, SSet, SSparse, SSparseBag, SVariant, Sym,
                                             part_types)
from modelcheck.ir.types import (BagType, MapType, OptionType, RecordType, SeqType, SetType,
                                 TupleType, Type, VariantType, join, render_type)

__all__ = ["Shapes"]


class Shapes:
    """Mixin of ``Syms``: uses its ``nums``, ``domain``, ``position``,
    ``make_set``, ``within``, ``sparse``, ``sparse_bags``, ``is_large``,
    ``default`` and ``ite``."""

    def join(self, a: Type, b: Type) -> Type:
        if a == b:
            return a
        t = join(a, b)
        if t is None:
            t = _join_variant_shapes(a, b)
        if t is None:
            raise EncodingUnsupported(f"values of types {render_type(a)} and {render_type(b)} "
                                      f"meet in one expression")
        return t

    def coerce(self, s: Sym, t: Type) -> Sym:
        """``s`` in the shape ``t``, a shape at least as wide as its own."""
        if s.type == t:
            return s
        if isinstance(s, SNum):
            if s.atom is not None:
                return s
            return self.nums.widen(s, t.lo, t.hi)
        if isinstance(s, SSet) and self.is_large(t.elem):
            return self.sparse.from_bits(s, t.elem)
        if isinstance(s, SSparse):
            return self.sparse.coerce(s, t.elem)
        if isinstance(s, SSet):
            return self.make_set(t.elem, self._remap(s.elem, s.all_bits(), t.elem, FALSE))
        if isinstance(s, SMap):
            src = self.domain(s.key)
            vals = []
            for k in self.domain(t.key):
                i = self.position(s.key, k)
                vals.append(self.coerce(s.vals[i], t.value) if i is not None and k in src
                            else self.default(t.value))
            return SMap(t.key, t.value, tuple(vals))
        if isinstance(s, SSeq):
            slots = [self.coerce(x, t.elem) for x in s.slots]
            slots += [self.default(t.elem) for _ in range(t.capacity - s.cap)]
            return SSeq(t.elem, t.capacity, self.nums.widen(s.length, 0, t.capacity), tuple(slots))
        if isinstance(s, SBag) and self.is_large(t.elem):
            s = self.sparse_bags.from_counts(s, t.elem)
        if isinstance(s, SSparseBag):
            return self.sparse_bags.coerce(s, t)
        if isinstance(s, SBag):
            zero = self.nums.const(0)
            counts = self._remap(s.elem, list(s.counts), t.elem, zero)
            top = max([t.capacity] + [c.hi for c in counts])
            return SBag(t.elem, t.capacity, tuple(self.nums.widen(c, 0, top) for c in counts))
        if isinstance(s, SOpt):
            return SOpt(t.elem, s.present, self.coerce(s.value, t.elem))
        if isinstance(s, SProd):
            return SProd(t, tuple(self.coerce(p, pt) for p, pt in zip(s.parts, part_types(t))))
        if isinstance(s, SVariant):
            return SVariant(t, s.tag, tuple(self.coerce(p, ct)
                                            for p, (_, ct) in zip(s.payloads, t.cases)))
        return s

    def _remap(self, src: Type, items: list, dst: Type, missing: Any) -> list:
        if src == dst:
            return list(items)
        out = []
        for x in self.domain(dst):
            i = self.position(src, x)
            out.append(items[i] if i is not None else missing)
        return out

    def in_type(self, s: Sym, t: Type) -> z3.BoolRef:
        """Whether the value of ``s`` belongs to ``t`` (bounds and capacities, deeply)."""
        if isinstance(s, SBool) or (isinstance(s, SNum) and s.atom is not None):
            return TRUE
        if isinstance(s, SNum):
            return self.nums.in_range(s, t.lo, t.hi)
        if isinstance(s, SSet) and self.is_large(t.elem):
            s = self.sparse.from_bits(s, t.elem)
        if isinstance(s, SSparse):
            return self.sparse.in_type(s, t)
        if isinstance(s, SSet):
            parts = []
            if s.elem != t.elem:
                parts = [neg(b) for x, b in zip(self.domain(s.elem), s.all_bits())
                         if self.position(t.elem, x) is None]
            if t.capacity is not None and t.capacity < s.n:
                parts.append(self.within(s, t.capacity))
            return conj(parts)
        if isinstance(s, SMap):
            return conj(self.in_type(v, t.value) for v in s.vals)
        if isinstance(s, SSeq):
            parts = [self.nums.cmp("<=", s.length, self.nums.const(t.capacity))]
            for j, x in enumerate(s.slots):
                inside = self.nums.cmp(">", s.length, self.nums.const(j))
                parts.append(implies(inside, self.in_type(x, t.elem)))
            return conj(parts)
        if isinstance(s, SBag) and self.is_large(t.elem):
            s = self.sparse_bags.from_counts(s, t.elem)
        if isinstance(s, SSparseBag):
            return self.sparse_bags.in_type(s, t)
        if isinstance(s, SBag):
            parts = [self.nums.cmp("<=", self.nums.total(list(s.counts)), self.nums.const(t.capacity))]
            for x, c in zip(self.domain(s.elem), s.counts):
                if self.position(t.elem, x) is None:
                    parts.append(self.nums.eq_const(c, 0))
            return conj(parts)
        if isinstance(s, SOpt):
            return implies(s.present, self.in_type(s.value, t.elem))
        if isinstance(s, SProd):
            return conj(self.in_type(p, pt) for p, pt in zip(s.parts, part_types(t)))
        if isinstance(s, SVariant):
            return conj(implies(self.nums.eq_const(s.tag, i), self.in_type(p, ct))
                        for i, (p, (_, ct)) in enumerate(zip(s.payloads, t.cases)))
        raise TypeError(s)

    def convert(self, s: Sym, t: Type) -> Sym:
        """``s`` in exactly the shape of type ``t`` and in canonical form, assuming
        ``in_type(s, t)`` (the caller raises MC5001 otherwise)."""
        if isinstance(s, SBool):
            return s
        if isinstance(s, SNum):
            if s.atom is not None:
                return self.nums.exact(s, 0, len(s.atom.members) - 1)
            return self.nums.exact(s, t.lo, t.hi)
        if isinstance(s, SSet) and self.is_large(t.elem):
            s = self.sparse.from_bits(s, t.elem)
        if isinstance(s, SSparse):
            return self.sparse.convert(s, t)
        if isinstance(s, SSet):
            return self.make_set(t.elem, self._remap(s.elem, s.all_bits(), t.elem, FALSE))
        if isinstance(s, SMap):
            return SMap(t.key, t.value, tuple(self.convert(v, t.value) for v in s.vals))
        if isinstance(s, SSeq):
            length = self.nums.exact(s.length, 0, t.capacity)
            slots = []
            for j in range(t.capacity):
                d = self.default(t.elem)
                if j >= s.cap:
                    slots.append(d)
                    continue
                inside = self.nums.cmp(">", length, self.nums.const(j))
                slots.append(self.ite(inside, self.convert(s.slots[j], t.elem), d, t.elem))
            return SSeq(t.elem, t.capacity, length, tuple(slots))
        if isinstance(s, SBag) and self.is_large(t.elem):
            s = self.sparse_bags.from_counts(s, t.elem)
        if isinstance(s, SSparseBag):
            return self.sparse_bags.convert(s, t)
        if isinstance(s, SBag):
            zero = self.nums.const(0)
            counts = self._remap(s.elem, list(s.counts), t.elem, zero)
            return SBag(t.elem, t.capacity,
                        tuple(self.nums.exact(c, 0, t.capacity) for c in counts))
        if isinstance(s, SOpt):
            value = self.ite(s.present, self.convert(s.value, t.elem), self.default(t.elem), t.elem)
            return SOpt(t.elem, s.present, value)
        if isinstance(s, SProd):
            return SProd(t, tuple(self.convert(p, pt) for p, pt in zip(s.parts, part_types(t))))
        if isinstance(s, SVariant):
            tag = self.nums.exact(s.tag, 0, len(t.cases) - 1)
            payloads = tuple(self.ite(self.nums.eq_const(tag, i), self.convert(p, ct),
                                      self.default(ct), ct)
                             for i, (p, (_, ct)) in enumerate(zip(s.payloads, t.cases)))
            return SVariant(t, tag, payloads)
        raise TypeError(s)



def _join_variant_shapes(a: Type, b: Type) -> Type | None:
    """The join of two shapes holding shapes of the same variant types."""
    joined: dict[str, VariantType] = {}
    for v in _variants(a) + _variants(b):
        prev = joined.get(v.name)
        if prev is None or prev == v:
            joined[v.name] = v
            continue
        if [c for c, _ in prev.cases] != [c for c, _ in v.cases]:
            return None
        cases = []
        for (case, ra), (_, rb) in zip(prev.cases, v.cases):
            r = join(ra, rb) or _join_variant_shapes(ra, rb)
            if r is None:
                return None
            cases.append((case, r))
        joined[v.name] = VariantType(v.name, tuple(cases))
    if not joined:
        return None
    def widen(v: VariantType) -> Type:
        return joined[v.name]
    return join(_rebuild(a, widen), _rebuild(b, widen))


def _variants(t: Type) -> list[VariantType]:
    if isinstance(t, VariantType):
        return [t]
    return [v for part in _parts(t) for v in _variants(part)]


def _parts(t: Type) -> list[Type]:
    if isinstance(t, (SetType, SeqType, BagType, OptionType)):
        return [t.elem]
    if isinstance(t, MapType):
        return [t.key, t.value]
    if isinstance(t, RecordType):
        return [ft for _, ft in t.fields]
    if isinstance(t, TupleType):
        return list(t.elems)
    return []


def _rebuild(t: Type, f: Callable[[VariantType], Type]) -> Type:
    """``t`` with ``f`` applied to each variant type in it (not inside one)."""
    if isinstance(t, VariantType):
        return f(t)
    if isinstance(t, (SetType, SeqType, BagType, OptionType)):
        return replace(t, elem=_rebuild(t.elem, f))
    if isinstance(t, MapType):
        return MapType(_rebuild(t.key, f), _rebuild(t.value, f))
    if isinstance(t, RecordType):
        return RecordType(t.name, tuple((n, _rebuild(ft, f)) for n, ft in t.fields))
    if isinstance(t, TupleType):
        return TupleType(tuple(_rebuild(e, f) for e in t.elems))
    return t
