"""Sets over element types too large for one bit per element (``SSparse``).

``set[T, cap]`` over a T of more than ``MAX_DOMAIN`` values (a message record
of 10^9 values) is kept as SPIN keeps a channel: the elements present, at
most ``cap`` of them, never the domain.

* In a state, and once converted to a declared type: a count and ``cap``
  slots; slots ``0..count-1`` hold the elements in strictly ascending rank
  (their position in ``values.domain(T)``, computed by ``ranks.position``:
  the reference's canonical order), the others T's default.  Equal sets have
  equal fields, so states compare field by field as for every other type.
* In an expression: guarded items, ``(g, x)`` meaning "x is in the set when g
  holds"; items may repeat and come in any order.  A union is the items of
  both, a difference guards each item by its absence from the other: no
  sorting until a value is written, compared or iterated over.

Making a value canonical costs O(n^2) comparisons for n items (n is small:
capacities and literals), which is where the work of this encoding lies.
What has no meaning here (``min``/``max``, a set of sets) is declined.

Smaller element types are sparse too when bits would cost far more than
slots (``sparse_families``): a ``set[Msg, 3]`` of records with a ``0..999``
field has 3,000 possible elements, and as bits its every ``len`` and
capacity check adds up 3,000 of them, a query of minutes where three slots
answer in a second.  The choice is made per *family* of element types
(records or variants with the same fields, whatever the bounds of their
ints), so that every shape a value takes in an expression (``val + 1``
widens the field) has the representation of the declared type it is
written to.
"""
from __future__ import annotations

from typing import Any

import z3

from modelcheck.engines.z3.logic import conj, disj, implies, is_false, is_true, neg
from modelcheck.engines.z3.ranks import position
from modelcheck.engines.z3.scalars import SNum
from modelcheck.engines.z3.symvalues import (MAX_DOMAIN, EncodingUnsupported, Leaf, SSet, SSparse,
                                             Sym)
from modelcheck.ir import nodes as ir
from modelcheck.ir.types import (BagType, BoolType, EnumType, IntType, MapType, ModelType,
                                 OptionType, RecordType, SeqType, SetType, TupleType, Type,
                                 VariantType, render_type)
from modelcheck.ir.values import domain_size

__all__ = ["Sparse", "is_large", "family", "sparse_families", "SPARSE_MIN_DOMAIN",
           "SPARSE_RATIO"]

#: A family is sparse only over at least this many elements...
SPARSE_MIN_DOMAIN = 256
#: ... and with every capacity at most this fraction of them.
SPARSE_RATIO = 16


def is_large(elem: Type, families: frozenset = frozenset()) -> bool:
    """Whether sets of ``elem`` are sparse: too many elements for bits, or
    of one of the ``families`` chosen by ``sparse_families``."""
    return domain_size(elem) > MAX_DOMAIN or (bool(families) and family(elem) in families)


def family(t: Type) -> Any:
    """``t`` with the bounds of its ints left out: the shapes a value of a
    declared type takes in expressions all have the family of that type."""
    if isinstance(t, IntType):
        return "int"
    if isinstance(t, RecordType):
        # Values are the same whatever the record's name (a join drops it).
        return ("record", tuple((n, family(ft)) for n, ft in t.fields))
    if isinstance(t, VariantType):
        return ("variant", t.name, tuple((c, family(ct)) for c, ct in t.cases))
    if isinstance(t, TupleType):
        return ("tuple", tuple(family(e) for e in t.elems))
    if isinstance(t, OptionType):
        return ("option", family(t.elem))
    return t


def _plain(t: Type) -> bool:
    """Whether ``t`` holds no collection (its values rank by arithmetic)."""
    if isinstance(t, (IntType, BoolType, EnumType, ModelType)):
        return True
    if isinstance(t, OptionType):
        return _plain(t.elem)
    if isinstance(t, RecordType):
        return all(_plain(ft) for _, ft in t.fields)
    if isinstance(t, VariantType):
        return all(_plain(ct) for _, ct in t.cases)
    if isinstance(t, TupleType):
        return all(_plain(e) for e in t.elems)
    return False


def _containers(t: Type) -> list[SetType | BagType]:
    """The sets and bags in a declared type, at any depth."""
    out: list[SetType | BagType] = []
    if isinstance(t, (SetType, BagType)):
        out.append(t)
    if isinstance(t, (SetType, BagType, SeqType, OptionType)):
        out += _containers(t.elem)
    elif isinstance(t, MapType):
        out += _containers(t.key) + _containers(t.value)
    elif isinstance(t, RecordType):
        out += [c for _, ft in t.fields for c in _containers(ft)]
    elif isinstance(t, VariantType):
        out += [c for _, ct in t.cases for c in _containers(ct)]
    elif isinstance(t, TupleType):
        out += [c for e in t.elems for c in _containers(e)]
    return out


def sparse_families(model: ir.Model) -> frozenset:
    """The families of records and variants whose sets and bags are sparse
    although their element types are small enough for bits: those every
    declared set or bag of which (in the state variables) has a capacity of
    at most 1/SPARSE_RATIO of its at least SPARSE_MIN_DOMAIN elements.  A
    family also held by a set without a capacity stays in bits (a sparse
    set needs one); so does one with a collection inside its elements,
    which ranks by comparison with each of its values, not by arithmetic."""
    verdict: dict[Any, bool] = {}
    for var in model.vars:
        for c in _containers(var.type):
            elem = c.elem
            if not isinstance(elem, (RecordType, VariantType)):
                continue
            key = family(elem)
            size = domain_size(elem)
            fits = (_plain(elem) and c.capacity is not None and size >= SPARSE_MIN_DOMAIN
                    and c.capacity * SPARSE_RATIO <= size)
            verdict[key] = verdict.get(key, True) and fits
    return frozenset(k for k, v in verdict.items() if v)


class Sparse:
    """Sparse-set operations of one encoding; ``sy`` is its ``Syms``."""

    def __init__(self, sy: Any):
        self.sy = sy
        self.nums = sy.nums

    # ---------------------------------------------------------------- building

    def of(self, elem: Type, items: list[tuple[z3.BoolRef, Sym]]) -> SSparse:
        return SSparse(elem, tuple((g, self.sy.coerce(x, elem)) for g, x in items
                                   if not is_false(g)))

    def rank(self, x: Sym, elem: Type) -> SNum:
        r = position(self.nums, x, elem, self.sy)
        if r is None:
            raise EncodingUnsupported(f"a set of {render_type(elem)}: its elements have no "
                                      f"order the Z3 encoding can compute")
        return r[1]

    def const(self, v: Any, t: SetType) -> SSparse:
        sy, n = self.sy, self.nums
        ranked = sorted((self.rank(sy.const(x, t.elem), t.elem).const, x) for x in v)
        size = len(v) if t.capacity is None else max(t.capacity, len(v))
        slots = [sy.const(x, t.elem) for _, x in ranked]
        slots += [sy.default(t.elem)] * (size - len(slots))
        count = n.widen(n.const(len(v)), 0, size)
        return self._canonical_value(t.elem, count, slots)

    def fresh(self, t: SetType, name: str, wf: list[z3.BoolRef], leaves: list[Leaf] | None,
              guard: z3.BoolRef | None, tag: str) -> SSparse:
        sy, n = self.sy, self.nums
        cap = t.capacity
        if cap is None:
            raise EncodingUnsupported(
                f"{render_type(t)} is over {domain_size(t.elem):,} elements and has no "
                f"capacity: give it one (set[{render_type(t.elem)}, cap])")
        count, ok = n.var(f"{tag}len({name})", 0, cap)
        wf.append(ok)
        if leaves is not None:
            # Under a guard (the value of an option...), 0 when it does not count.
            default = None if guard is None else sy.const(0, IntType(0, cap)).term
            leaves.append(Leaf(count.term, f"len({name})", IntType(0, cap), guard, default))
        slots = []
        for j in range(cap):
            inside = n.cmp(">", count, n.const(j))
            in_guard = inside if guard is None else conj([guard, inside])
            slot = sy.fresh(t.elem, f"{name}<{j}>", wf, leaves, in_guard, tag)
            wf.append(implies(neg(inside), sy.eq(slot, sy.default(t.elem))))
            if slots:
                # Strictly ascending: no repeats, one layout per set.
                below = n.cmp("<", self.rank(slots[-1], t.elem), self.rank(slot, t.elem))
                wf.append(implies(inside, below))
            slots.append(slot)
        return self._canonical_value(t.elem, count, slots)

    def _canonical_value(self, elem: Type, count: SNum, slots: list[Sym]) -> SSparse:
        n = self.nums
        items = tuple((n.cmp(">", count, n.const(j)), x) for j, x in enumerate(slots))
        return SSparse(elem, items, count)

    def from_bits(self, s: SSet, elem: Type) -> SSparse:
        """A set over a small domain seen in a large element shape."""
        sy = self.sy
        return self.of(elem, [(b, sy.const(x, s.elem))
                              for x, b in zip(sy.domain(s.elem), s.all_bits())])

    # ---------------------------------------------------------------- canonical form

    def _kept(self, s: SSparse) -> list[z3.BoolRef]:
        """Per item: present, and not equal to an earlier present item."""
        out = []
        for i, (g, x) in enumerate(s.items):
            repeat = disj(conj([h, self.sy.eq(y, x)]) for h, y in s.items[:i])
            out.append(conj([g, neg(repeat)]))
        return out

    def size(self, s: SSparse) -> SNum:
        if s.count is not None:
            return s.count
        n = self.nums
        return n.total([n.ite(k, n.const(1), n.const(0)) for k in self._kept(s)])

    def canonical(self, s: SSparse, size: int | None = None) -> SSparse:
        """``s`` as count and ascending slots, ``size`` slots (default: one
        per item); a count above ``size`` only where the caller flags MC5001."""
        sy, n = self.sy, self.nums
        size = len(s.items) if size is None else size
        if s.count is not None and size >= len(s.items):
            slots = [x for _, x in s.items] + [sy.default(s.elem)] * (size - len(s.items))
            return self._canonical_value(s.elem, n.widen(s.count, 0, size), slots)
        kept = self._kept(s)
        ranks = [self.rank(x, s.elem) for _, x in s.items]
        places = []
        for i in range(len(s.items)):
            below = [n.ite(conj([kept[k], n.cmp("<", ranks[k], ranks[i])]), n.const(1), n.const(0))
                     for k in range(len(s.items)) if k != i]
            places.append(n.total(below))
        slots = []
        for j in range(size):
            value = sy.default(s.elem)
            for i in range(len(s.items) - 1, -1, -1):
                value = sy.ite(conj([kept[i], n.eq_const(places[i], j)]), s.items[i][1], value,
                               s.elem)
            slots.append(value)
        count = n.total([n.ite(k, n.const(1), n.const(0)) for k in kept])
        count = n.narrow(count, 0, size) if count.hi > size else n.widen(count, 0, size)
        return self._canonical_value(s.elem, count, slots)

    # ---------------------------------------------------------------- set algebra

    def member(self, s: SSparse, x: Sym) -> z3.BoolRef:
        return disj(conj([g, self.sy.eq(y, x)]) for g, y in s.items)

    def union(self, a: SSparse, b: SSparse) -> SSparse:
        return SSparse(a.elem, a.items + b.items)

    def inter(self, a: SSparse, b: SSparse) -> SSparse:
        return SSparse(a.elem, tuple((conj([g, self.member(b, x)]), x) for g, x in a.items))

    def diff(self, a: SSparse, b: SSparse) -> SSparse:
        return SSparse(a.elem, tuple((conj([g, neg(self.member(b, x))]), x) for g, x in a.items))

    def subset(self, a: SSparse, b: SSparse) -> z3.BoolRef:
        return conj(implies(g, self.member(b, x)) for g, x in a.items)

    def elements(self, s: SSparse) -> list[tuple[z3.BoolRef, Sym]]:
        """The distinct elements in ascending order (the reference's)."""
        c = s if s.count is not None else self.canonical(s)
        return [(g, x) for g, x in c.items if not is_false(g)]

    def eq(self, a: SSparse, b: SSparse) -> z3.BoolRef:
        size = max(len(a.items), len(b.items))
        a, b = self.canonical(a, size), self.canonical(b, size)
        parts = [self.nums.eq(a.count, b.count)]
        parts += [self.sy.eq(x, y) for (_, x), (_, y) in zip(a.items, b.items)]
        return conj(parts)

    def ite(self, c: z3.BoolRef, a: SSparse, b: SSparse) -> SSparse:
        sy = self.sy
        if a.count is not None and b.count is not None and len(a.items) == len(b.items):
            # Both canonical: slot by slot, so the result is canonical too.
            slots = [sy.ite(c, x, y, a.elem) for (_, x), (_, y) in zip(a.items, b.items)]
            return self._canonical_value(a.elem, self.nums.ite(c, a.count, b.count), slots)
        return SSparse(a.elem, tuple((conj([c, g]), x) for g, x in a.items)
                       + tuple((conj([neg(c), g]), x) for g, x in b.items))

    # ---------------------------------------------------------------- shapes

    def coerce(self, s: SSparse, elem: Type) -> SSparse:
        if s.count is not None:
            return SSparse(elem, tuple((g, self.sy.coerce(x, elem)) for g, x in s.items), s.count)
        return self.of(elem, list(s.items))

    def in_type(self, s: SSparse, t: SetType) -> z3.BoolRef:
        parts = [implies(g, self.sy.in_type(x, t.elem)) for g, x in s.items]
        if t.capacity is not None:
            parts.append(self.nums.cmp("<=", self.size(s), self.nums.const(t.capacity)))
        return conj(parts)

    def convert(self, s: SSparse, t: SetType) -> SSparse:
        sy = self.sy
        if t.capacity is None:
            raise EncodingUnsupported(f"{render_type(t)} is over {domain_size(t.elem):,} "
                                      f"elements and has no capacity")
        items = SSparse(t.elem, tuple((g, sy.convert(x, t.elem)) for g, x in s.items), s.count)
        c = self.canonical(items, t.capacity)
        count = self.nums.exact(c.count, 0, t.capacity)
        return self._canonical_value(t.elem, count, [sy.convert(x, t.elem) for _, x in c.items])

    def terms(self, s: SSparse) -> list[z3.ExprRef]:
        if s.count is None:
            raise TypeError("the fields of a sparse set that is not canonical")
        return [s.count.term] + [t for _, x in s.items for t in self.sy.terms(x)]

    def decode(self, model: z3.ModelRef, s: SSparse) -> frozenset:
        return frozenset(self.sy.decode(model, x) for g, x in s.items
                         if is_true(g) or z3.is_true(model.eval(g, model_completion=True)))

