"""Bags over element types too large for one count per element (``SSparseBag``).

``bag[T, cap]`` over a T of more than ``MAX_DOMAIN`` values (Raft's messages)
is kept as the compiled engine keeps it (its ``reps.sparse``): a count and
``cap`` slots, one slot per copy, in non-decreasing rank (``ranks.position``,
the reference's canonical order), the slots past the count at T's default.
Equal bags have equal fields, so states compare field by field.

Inside an expression a bag is guarded items, ``(g, x)`` meaning "one copy
of x when g holds": ``put`` appends an item, ``take`` switches off the first
item holding the element, so neither sorts; a value is sorted only when it is
written, compared or iterated over.  Every formula is a case split over the
few items (``cap`` is small), never a quantifier: sorting n items costs n^2
rank comparisons and n^2 small ite terms.
"""
from __future__ import annotations

from typing import Any

import z3

from modelcheck.engines.z3.logic import FALSE, TRUE, conj, disj, implies, is_false, is_true, neg
from modelcheck.engines.z3.scalars import SNum
from modelcheck.engines.z3.symvalues import EncodingUnsupported, Leaf, SBag, SSparse, SSparseBag, Sym
from modelcheck.ir.types import BagType, IntType, Type
from modelcheck.ir.values import FrozenDict

__all__ = ["SparseBags"]


class SparseBags:
    """Sparse-bag operations of one encoding; ``sy`` is its ``Syms``."""

    def __init__(self, sy: Any):
        self.sy = sy
        self.nums = sy.nums

    # ---------------------------------------------------------------- building

    def of(self, elem: Type, items: list[tuple[z3.BoolRef, Sym]]) -> SSparseBag:
        return SSparseBag(elem, tuple((g, self.sy.coerce(x, elem)) for g, x in items
                                      if not is_false(g)))

    def _canonical_value(self, elem: Type, count: SNum, slots: list[Sym]) -> SSparseBag:
        n = self.nums
        items = tuple((n.cmp(">", count, n.const(j)), x) for j, x in enumerate(slots))
        return SSparseBag(elem, items, count)

    def const(self, v: Any, t: BagType) -> SSparseBag:
        sy, n = self.sy, self.nums
        rank = self.sy.sparse.rank
        copies = sorted((rank(sy.const(x, t.elem), t.elem).const, x)
                        for x, c in v.items() for _ in range(c))
        size = max(t.capacity, len(copies))
        slots = [sy.const(x, t.elem) for _, x in copies]
        slots += [sy.default(t.elem)] * (size - len(slots))
        return self._canonical_value(t.elem, n.widen(n.const(len(copies)), 0, size), slots)

    def fresh(self, t: BagType, name: str, wf: list[z3.BoolRef], leaves: list[Leaf] | None,
              guard: z3.BoolRef | None, tag: str) -> SSparseBag:
        sy, n = self.sy, self.nums
        cap = t.capacity
        count, ok = n.var(f"{tag}len({name})", 0, cap)
        wf.append(ok)
        if leaves is not None:
            default = None if guard is None else sy.const(0, IntType(0, cap)).term
            leaves.append(Leaf(count.term, f"len({name})", IntType(0, cap), guard, default))
        slots: list[Sym] = []
        for j in range(cap):
            inside = n.cmp(">", count, n.const(j))
            in_guard = inside if guard is None else conj([guard, inside])
            slot = sy.fresh(t.elem, f"{name}<{j}>", wf, leaves, in_guard, tag)
            wf.append(implies(neg(inside), sy.eq(slot, sy.default(t.elem))))
            if slots:
                # Non-decreasing: copies of one element sit side by side,
                # one layout per bag.
                rank = self.sy.sparse.rank
                wf.append(implies(inside, n.cmp("<=", rank(slots[-1], t.elem),
                                                rank(slot, t.elem))))
            slots.append(slot)
        return self._canonical_value(t.elem, count, slots)

    def from_counts(self, b: SBag, elem: Type) -> SSparseBag:
        """A bag over a small domain seen in a large element shape."""
        sy, n = self.sy, self.nums
        items = [(n.cmp(">", c, n.const(k)), sy.const(x, b.elem))
                 for x, c in zip(sy.domain(b.elem), b.counts) for k in range(min(b.cap, c.hi))]
        return self.of(elem, items)

    # ---------------------------------------------------------------- canonical form

    def canonical(self, b: SSparseBag, size: int | None = None) -> SSparseBag:
        """``b`` as a count and sorted slots, ``size`` slots (default: one per
        item); a count above ``size`` only where the caller flags MC5001."""
        sy, n = self.sy, self.nums
        size = b.cap if size is None else size
        if b.count is not None and size >= b.cap:
            slots = [x for _, x in b.items] + [sy.default(b.elem)] * (size - b.cap)
            return self._canonical_value(b.elem, n.widen(b.count, 0, size), slots)
        guards = [g for g, _ in b.items]
        ranks = [self.sy.sparse.rank(x, b.elem) for _, x in b.items]
        # An item's place: the items before it in (rank, index) order.
        places = []
        for i in range(b.cap):
            below = []
            for k in range(b.cap):
                if k == i:
                    continue
                before = n.cmp("<=" if k < i else "<", ranks[k], ranks[i])
                below.append(n.ite(conj([guards[k], before]), n.const(1), n.const(0)))
            places.append(n.total(below))
        slots = []
        for j in range(size):
            value = sy.default(b.elem)
            for i in range(b.cap - 1, -1, -1):
                if places[i].lo <= j <= places[i].hi:
                    value = sy.ite(conj([guards[i], n.eq_const(places[i], j)]), b.items[i][1],
                                   value, b.elem)
            slots.append(value)
        count = self.size(b)
        count = n.narrow(count, 0, size) if count.hi > size else n.widen(count, 0, size)
        return self._canonical_value(b.elem, count, slots)

    # ---------------------------------------------------------------- bag operations

    def size(self, b: SSparseBag) -> SNum:
        if b.count is not None:
            return b.count
        n = self.nums
        return n.total([n.ite(g, n.const(1), n.const(0)) for g, _ in b.items])

    def _hits(self, b: SSparseBag, x: Sym) -> list[z3.BoolRef]:
        return [conj([g, self.sy.eq(y, x)]) for g, y in b.items]

    def count(self, b: SSparseBag, x: Sym) -> SNum:
        n = self.nums
        return n.total([n.ite(h, n.const(1), n.const(0)) for h in self._hits(b, x)])

    def member(self, b: SSparseBag, x: Sym) -> z3.BoolRef:
        return disj(self._hits(b, x))

    def put(self, b: SSparseBag, x: Sym) -> SSparseBag:
        elem = self.sy.join(b.elem, x.type)
        b = self.coerce(b, BagType(elem, b.cap)) if elem != b.elem else b
        return SSparseBag(elem, b.items + ((TRUE, self.sy.coerce(x, elem)),))

    def take(self, b: SSparseBag, x: Sym) -> tuple[SSparseBag, z3.BoolRef]:
        """One copy of ``x`` out (the first item holding it), and whether there was none."""
        found = FALSE
        items = []
        for (g, y), hit in zip(b.items, self._hits(b, x)):
            items.append((conj([g, neg(conj([hit, neg(found)]))]), y))
            found = disj([found, hit])
        return SSparseBag(b.elem, tuple(items)), neg(found)

    def distinct(self, b: SSparseBag) -> SSparse:
        return SSparse(b.elem, b.items)

    def elements(self, b: SSparseBag) -> list[tuple[z3.BoolRef, Sym]]:
        """The distinct elements in ascending order (the reference's): in
        sorted slots, a slot that differs from the one before."""
        c = b if b.count is not None else self.canonical(b)
        out = []
        for j, (g, x) in enumerate(c.items):
            if is_false(g):
                continue
            fresh = g if j == 0 else conj([g, neg(self.sy.eq(c.items[j - 1][1], x))])
            out.append((fresh, x))
        return out

    # ---------------------------------------------------------------- comparing, choosing

    def eq(self, a: SSparseBag, b: SSparseBag) -> z3.BoolRef:
        size = max(a.cap, b.cap)
        a, b = self.canonical(a, size), self.canonical(b, size)
        parts = [self.nums.eq(a.count, b.count)]
        parts += [self.sy.eq(x, y) for (_, x), (_, y) in zip(a.items, b.items)]
        return conj(parts)

    def ite(self, c: z3.BoolRef, a: SSparseBag, b: SSparseBag) -> SSparseBag:
        sy = self.sy
        if a.count is not None and b.count is not None and a.cap == b.cap:
            # Both sorted: slot by slot, so the result is sorted too.
            slots = [sy.ite(c, x, y, a.elem) for (_, x), (_, y) in zip(a.items, b.items)]
            return self._canonical_value(a.elem, self.nums.ite(c, a.count, b.count), slots)
        return SSparseBag(a.elem, tuple((conj([c, g]), x) for g, x in a.items)
                          + tuple((conj([neg(c), g]), x) for g, x in b.items))

    # ---------------------------------------------------------------- shapes

    def coerce(self, b: SSparseBag, t: BagType) -> SSparseBag:
        """``b`` in the wider shape ``t``: its elements widened, and sorted
        values padded to ``t``'s capacity so they stay sorted."""
        sy = self.sy
        items = tuple((g, sy.coerce(x, t.elem)) for g, x in b.items)
        if b.count is None:
            return SSparseBag(t.elem, items)
        pad = max(0, t.capacity - b.cap)
        slots = [x for _, x in items] + [sy.default(t.elem)] * pad
        return self._canonical_value(t.elem, self.nums.widen(b.count, 0, len(slots)), slots)

    def in_type(self, b: SSparseBag, t: BagType) -> z3.BoolRef:
        parts = [implies(g, self.sy.in_type(x, t.elem)) for g, x in b.items]
        if b.cap > t.capacity:
            parts.append(self.nums.cmp("<=", self.size(b), self.nums.const(t.capacity)))
        return conj(parts)

    def convert(self, b: SSparseBag, t: BagType) -> SSparseBag:
        sy = self.sy
        items = SSparseBag(t.elem, tuple((g, sy.convert(x, t.elem)) for g, x in b.items), b.count)
        c = self.canonical(items, t.capacity)
        count = self.nums.exact(c.count, 0, t.capacity)
        return self._canonical_value(t.elem, count, [x for _, x in c.items])

    def terms(self, b: SSparseBag) -> list[z3.ExprRef]:
        if b.count is None:
            raise EncodingUnsupported("the fields of a sparse bag that is not sorted")
        return [b.count.term] + [t for _, x in b.items for t in self.sy.terms(x)]

    def decode(self, model: z3.ModelRef, b: SSparseBag) -> FrozenDict:
        counts: dict[Any, int] = {}
        for g, x in b.items:
            if is_true(g) or z3.is_true(model.eval(g, model_completion=True)):
                v = self.sy.decode(model, x)
                counts[v] = counts.get(v, 0) + 1
        return FrozenDict(counts)
