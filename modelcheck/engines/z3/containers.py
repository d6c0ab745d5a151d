"""Operations on symbolic sets, maps, sequences and bags.

Operations that can fail at run time return ``(value, fails)``: the value and
the condition under which the reference evaluator would raise its MC5xxx
error (the caller turns it into the error flag).  Where an element is known
statically (``concrete``), the bit or slot it touches is picked in Python;
otherwise its position is computed as a term (``index``: mixed-radix over
records, tuples, options and variants, exactly ``values.domain`` order), and only as a
last resort compared with every value of the domain.
"""
from __future__ import annotations

from typing import Any

import z3

from modelcheck.engines.z3.logic import FALSE, TRUE, conj, disj, is_false, is_true, neg
from modelcheck.engines.z3.ranks import position
from modelcheck.engines.z3.scalars import SNum
from modelcheck.engines.z3.symbolic import (EncodingUnsupported, SBag, SBool, SMap, SOpt, SProd,
                                            SSeq, SSet, SSparse, SSparseBag, SVariant, Sym, Syms)
from modelcheck.ir.types import BagType, IntType, RecordType, Type, render_type
from modelcheck.ir.values import FrozenDict, Variant

__all__ = ["Containers", "NOTHING"]

#: ``concrete`` returns this for a value that is not known statically.
NOTHING = object()


class Containers:
    """The collection operations of one encoding (a ``Syms``)."""

    def __init__(self, sy: Syms):
        self.sy = sy
        self.nums = sy.nums

    # ---------------------------------------------------------------- static values

    def concrete(self, s: Sym) -> Any:
        """The Python value of ``s`` if it is known statically, else ``NOTHING``."""
        if isinstance(s, SBool):
            if is_true(s.term):
                return True
            return False if is_false(s.term) else NOTHING
        if isinstance(s, SNum):
            c = s.const
            if c is None:
                return NOTHING
            return s.atom.members[c] if s.atom is not None else c
        if isinstance(s, SOpt):
            if is_false(s.present):
                return None
            return self.concrete(s.value) if is_true(s.present) else NOTHING
        if isinstance(s, SProd):
            vals = [self.concrete(p) for p in s.parts]
            if any(v is NOTHING for v in vals):
                return NOTHING
            if isinstance(s.ptype, RecordType):
                return FrozenDict(zip((n for n, _ in s.ptype.fields), vals))
            return tuple(vals)
        if isinstance(s, SVariant):
            i = s.tag.const
            if i is None:
                return NOTHING
            payload = self.concrete(s.payloads[i])
            return NOTHING if payload is NOTHING else Variant(s.vtype.cases[i][0], payload)
        return NOTHING

    # ---------------------------------------------------------------- positions

    def index(self, s: Sym, t: Type) -> tuple[z3.BoolRef, SNum] | None:
        """``(valid, i)``: when valid, the value of ``s`` is ``domain(t)[i]``;
        not valid means it is not a value of ``t`` (``ranks.position``)."""
        return position(self.nums, s, t)

    def select(self, s: Sym, t: Type, size: int) -> list[tuple[int, z3.BoolRef]]:
        """``[(i, cond)]``: the positions in ``domain(t)`` the value may take
        (among the first ``size``) with the condition for each."""
        v = self.concrete(s)
        if v is not NOTHING:
            i = self.sy.position(t, v)
            return [] if i is None or i >= size else [(i, TRUE)]
        r = self.index(s, t)
        if r is None:
            dom = self.sy.domain(t)
            return [(i, self.sy.eq(s, self.sy.const(x, t))) for i, x in enumerate(dom[:size])]
        valid, idx = r
        lo, hi = max(0, idx.lo), min(size - 1, idx.hi)
        return [(i, conj([valid, self.nums.eq_const(idx, i)])) for i in range(lo, hi + 1)]

    # ---------------------------------------------------------------- sets

    def member(self, s: SSet | SSparse, e: Sym) -> z3.BoolRef:
        if isinstance(s, SSparse):
            return self.sy.sparse.member(s, e)
        if self.sy.set_bv and s.bv is not None and self.nums.bv and not z3.is_bv_value(s.bv) \
                and self.concrete(e) is NOTHING:
            r = self.index(e, s.elem)
            if r is not None and r[1].hi - r[1].lo > 4:
                return self._member_shift(s, *r)
        return disj(conj([cond, s.bit(i)]) for i, cond in self.select(e, s.elem, s.n))

    def _member_shift(self, s: SSet, valid: z3.BoolRef, idx: SNum) -> z3.BoolRef:
        # One shift instead of a disjunction over every position.
        inside = self.nums.in_range(idx, 0, s.n - 1)
        amount = idx.term
        w = amount.size()
        if w < s.n:
            amount = z3.ZeroExt(s.n - w, amount)
        elif w > s.n:
            amount = z3.Extract(s.n - 1, 0, amount)
        bit = z3.Extract(0, 0, z3.LShR(s.bv, amount)) == 1
        return conj([valid, inside, bit])

    def set_of(self, elem: Type, items: list[tuple[z3.BoolRef, Sym]]) -> SSet:
        """The set of the items whose guard holds."""
        if self.sy.is_large(elem):
            return self.sy.sparse.of(elem, items)
        n = len(self.sy.domain(elem))
        bits: list[list[z3.BoolRef]] = [[] for _ in range(n)]
        for guard, e in items:
            if is_false(guard):
                continue
            for i, cond in self.select(e, elem, n):
                bits[i].append(conj([guard, cond]))
        return self.sy.make_set(elem, [disj(b) for b in bits])

    def _pair(self, a: SSet, b: SSet) -> tuple[SSet, SSet]:
        if a.elem == b.elem:
            return a, b
        t = self.sy.join(a.type, b.type)
        return self.sy.coerce(a, t), self.sy.coerce(b, t)

    def union(self, a: SSet, b: SSet) -> SSet:
        a, b = self._pair(a, b)
        if isinstance(a, SSparse):
            return self.sy.sparse.union(a, b)
        if a.bv is not None:
            return SSet(a.elem, a.n, bv=a.bv | b.bv)
        return self.sy.make_set(a.elem, [disj([x, y]) for x, y in zip(a.bits, b.bits)])

    def inter(self, a: SSet, b: SSet) -> SSet:
        a, b = self._pair(a, b)
        if isinstance(a, SSparse):
            return self.sy.sparse.inter(a, b)
        if a.bv is not None:
            return SSet(a.elem, a.n, bv=a.bv & b.bv)
        return self.sy.make_set(a.elem, [conj([x, y]) for x, y in zip(a.bits, b.bits)])

    def diff(self, a: SSet, b: SSet) -> SSet:
        a, b = self._pair(a, b)
        if isinstance(a, SSparse):
            return self.sy.sparse.diff(a, b)
        if a.bv is not None:
            return SSet(a.elem, a.n, bv=a.bv & ~b.bv)
        return self.sy.make_set(a.elem, [conj([x, neg(y)]) for x, y in zip(a.bits, b.bits)])

    def subset(self, a: SSet, b: SSet) -> z3.BoolRef:
        a, b = self._pair(a, b)
        if isinstance(a, SSparse):
            return self.sy.sparse.subset(a, b)
        if a.bv is not None:
            return (a.bv & ~b.bv) == 0
        return conj(disj([neg(x), y]) for x, y in zip(a.bits, b.bits))

    def size(self, s: SSet) -> SNum:
        if isinstance(s, SSparse):
            return self.sy.sparse.size(s)
        n = self.nums
        return n.total([n.ite(b, n.const(1), n.const(0)) for b in s.all_bits()])

    def range_set(self, lo: SNum, hi: SNum) -> SSet:
        elem = IntType(lo.lo, hi.hi)
        # Checked before the loop below, which would otherwise run over the
        # whole span of the bounds' intervals (hours for 0..10^21).
        self.sy.domain(elem)
        n = self.nums
        bits = [conj([n.cmp("<=", lo, n.const(v)), n.cmp(">=", hi, n.const(v))])
                for v in range(lo.lo, hi.hi + 1)]
        return self.sy.make_set(elem, bits)

    def extreme(self, s: SSet, largest: bool) -> tuple[Sym, z3.BoolRef]:
        """``min(S)``/``max(S)`` in Python's order; fails on the empty set (MC5006)."""
        if isinstance(s, SSparse):
            raise EncodingUnsupported(f"min/max over a set of {render_type(s.elem)}")
        dom = self.sy.domain(s.elem)
        try:
            # Preference order: the first element present is the answer.
            order = sorted(range(len(dom)), key=lambda i: dom[i], reverse=largest)
        except TypeError:
            raise EncodingUnsupported(f"min/max over a set of {render_type(s.elem)}") from None
        bits = s.all_bits()
        result = self.sy.const(dom[order[-1]], s.elem)
        for i in reversed(order[:-1]):
            result = self.sy.ite(bits[i], self.sy.const(dom[i], s.elem), result, s.elem)
        return result, conj(neg(b) for b in bits)

    def first(self, s: Sym, elem: Type) -> tuple[Sym, z3.BoolRef]:
        """``choose`` (Op.CHOOSE): the first element of the set ``s`` in the
        canonical order, as the reference evaluator answers it (TLC's CHOOSE:
        the same value for the same set); with whether the set is empty, a
        fault (MC5008)."""
        items = self.elements(s)
        if not items:
            return self.sy.const(self.sy.domain(elem)[0], elem), TRUE
        result = items[-1][1]
        for present, value in reversed(items[:-1]):
            result = self.sy.ite(present, value, result, elem)
        return result, conj(neg(present) for present, _ in items)

    def elements(self, s: Sym) -> list[tuple[z3.BoolRef, Sym]]:
        """What ``pick``, quantifiers and comprehensions range over, in the
        reference evaluator's order: a set's or bag's distinct elements in
        canonical order, a sequence's elements in order."""
        if isinstance(s, SSparse):
            return self.sy.sparse.elements(s)
        if isinstance(s, SSparseBag):
            return self.sy.sparse_bags.elements(s)
        if isinstance(s, SSet):
            dom = self.sy.domain(s.elem)
            return [(b, self.sy.const(x, s.elem)) for x, b in zip(dom, s.all_bits())
                    if not is_false(b)]
        if isinstance(s, SBag):
            dom = self.sy.domain(s.elem)
            out = []
            for x, c in zip(dom, s.counts):
                present = self.nums.cmp(">", c, self.nums.const(0))
                if not is_false(present):
                    out.append((present, self.sy.const(x, s.elem)))
            return out
        if isinstance(s, SSeq):
            out = []
            for j, x in enumerate(s.slots):
                inside = self.nums.cmp(">", s.length, self.nums.const(j))
                if not is_false(inside):
                    out.append((inside, x))
            return out
        raise EncodingUnsupported(f"iterating over a value of type {render_type(s.type)}")

    # ---------------------------------------------------------------- maps

    def map_get(self, m: SMap, k: Sym) -> tuple[Sym, z3.BoolRef]:
        choices = self.select(k, m.key, len(m.vals))
        if len(choices) == 1 and is_true(choices[0][1]):
            return m.vals[choices[0][0]], FALSE
        if not choices:
            return self.sy.default(m.value_type), TRUE
        result = m.vals[choices[-1][0]]
        for i, cond in reversed(choices[:-1]):
            result = self.sy.ite(cond, m.vals[i], result, m.value_type)
        return result, neg(disj(c for _, c in choices))

    def map_set(self, m: SMap, k: Sym, v: Sym) -> tuple[SMap, z3.BoolRef]:
        vt = self.sy.join(m.value_type, v.type)
        vals = [self.sy.coerce(x, vt) for x in m.vals]
        choices = self.select(k, m.key, len(m.vals))
        for i, cond in choices:
            vals[i] = self.sy.ite(cond, v, vals[i], vt)
        return SMap(m.key, vt, tuple(vals)), neg(disj(c for _, c in choices))

    # ---------------------------------------------------------------- sequences

    def _inside(self, s: SSeq, i: SNum) -> z3.BoolRef:
        n = self.nums
        return conj([n.cmp(">=", i, n.const(0)), n.cmp("<", i, s.length)])

    def _slot_at(self, s: SSeq, i: SNum) -> Sym:
        n = self.nums
        lo, hi = max(0, i.lo), min(s.cap - 1, i.hi)
        if lo > hi:
            return self.sy.default(s.elem)
        result = s.slots[hi]
        for j in range(hi - 1, lo - 1, -1):
            result = self.sy.ite(n.eq_const(i, j), s.slots[j], result, s.elem)
        return result

    def seq_get(self, s: SSeq, i: SNum) -> tuple[Sym, z3.BoolRef]:
        return self._slot_at(s, i), neg(self._inside(s, i))

    def seq_set(self, s: SSeq, i: SNum, v: Sym) -> tuple[SSeq, z3.BoolRef]:
        et = self.sy.join(s.elem, v.type)
        slots = [self.sy.ite(self.nums.eq_const(i, j), v, x, et) for j, x in enumerate(s.slots)]
        return SSeq(et, s.cap, s.length, tuple(slots)), neg(self._inside(s, i))

    def append(self, s: SSeq, x: Sym) -> SSeq:
        n = self.nums
        et = self.sy.join(s.elem, x.type)
        slots = [self.sy.ite(n.eq_const(s.length, j), x, y, et) for j, y in enumerate(s.slots)]
        slots.append(self.sy.ite(n.eq_const(s.length, s.cap), x, self.sy.default(et), et))
        return SSeq(et, s.cap + 1, n.add(s.length, n.const(1)), tuple(slots))

    def concat(self, a: SSeq, b: SSeq) -> SSeq:
        n = self.nums
        et = self.sy.join(a.elem, b.elem)
        cap = a.cap + b.cap
        slots = []
        for j in range(cap):
            # Slot j comes from a if j < len(a), else from b at j - len(a).
            from_b: Sym = self.sy.default(et)
            for la in range(min(j, a.length.hi), max(0, a.length.lo) - 1, -1):
                k = j - la
                if k < b.cap:
                    from_b = self.sy.ite(n.eq_const(a.length, la), b.slots[k], from_b, et)
            if j < a.cap:
                slots.append(self.sy.ite(n.cmp(">", a.length, n.const(j)), a.slots[j], from_b, et))
            else:
                slots.append(from_b)
        return SSeq(et, cap, n.add(a.length, b.length), tuple(slots))

    def head(self, s: SSeq) -> tuple[Sym, z3.BoolRef]:
        empty = self.nums.eq_const(s.length, 0)
        if s.cap == 0:
            return self.sy.default(s.elem), TRUE
        return s.slots[0], empty

    def tail(self, s: SSeq) -> tuple[SSeq, z3.BoolRef]:
        n = self.nums
        empty = n.eq_const(s.length, 0)
        slots = list(s.slots[1:]) + ([self.sy.default(s.elem)] if s.cap else [])
        length = n.sub(s.length, n.const(1))
        # A length below 0 only arises when the tail fails (the error flag is set).
        length = n.narrow(length, 0, max(0, length.hi)) if length.lo < 0 else length
        return SSeq(s.elem, s.cap, length, tuple(slots)), empty

    def _clamp(self, s: SSeq, i: SNum | None, missing: SNum) -> SNum:
        # Python slice bounds: negative counts from the end, then clamp to 0..len.
        n = self.nums
        if i is None:
            return missing
        from_end = n.add(s.length, i)
        zero = n.const(0)
        neg_case = n.ite(n.cmp("<", from_end, zero), zero, from_end)
        pos_case = n.ite(n.cmp(">", i, s.length), s.length, i)
        return n.ite(n.cmp("<", i, zero), neg_case, pos_case)

    def slice(self, s: SSeq, i: SNum | None, j: SNum | None) -> SSeq:
        n = self.nums
        start = self._clamp(s, i, n.const(0))
        stop = self._clamp(s, j, s.length)
        diff = n.sub(stop, start)
        length = n.ite(n.cmp("<", diff, n.const(0)), n.const(0), diff)
        slots = []
        for k in range(s.cap):
            slots.append(self._slot_at(s, n.add(start, n.const(k))))
        length = n.narrow(length, 0, s.cap)
        return SSeq(s.elem, s.cap, length, tuple(slots))

    def seq_contains(self, s: SSeq, x: Sym) -> z3.BoolRef:
        return disj(conj([g, self.sy.eq(e, x)]) for g, e in self.elements(s))

    # ---------------------------------------------------------------- bags
    # A bag over a large element type is an ``SSparseBag`` (``sparsebags``).

    def bag_of(self, elem: Type, items: list[Sym]) -> SBag | SSparseBag:
        if self.sy.is_large(elem):
            return self.sy.sparse_bags.of(elem, [(TRUE, x) for x in items])
        n = self.nums
        dom = self.sy.domain(elem)
        counts = [n.const(0) for _ in dom]
        for e in items:
            for i, cond in self.select(e, elem, len(dom)):
                counts[i] = n.add(counts[i], n.ite(cond, n.const(1), n.const(0)))
        return SBag(elem, len(items), tuple(counts))

    def _bag_for(self, b: SBag, x: Sym) -> SBag:
        et = self.sy.join(b.elem, x.type)
        return b if et == b.elem else self.sy.coerce(b, BagType(et, b.cap))

    def bag_count(self, b: SBag | SSparseBag, x: Sym) -> SNum:
        if isinstance(b, SSparseBag):
            return self.sy.sparse_bags.count(b, x)
        n = self.nums
        choices = self.select(x, b.elem, len(b.counts))
        total = n.const(0)
        for i, cond in choices:
            total = n.add(total, n.ite(cond, b.counts[i], n.const(0))) if not is_true(cond) \
                else b.counts[i]
        return total

    def bag_put(self, b: SBag | SSparseBag, x: Sym) -> SBag | SSparseBag:
        if isinstance(b, SSparseBag):
            return self.sy.sparse_bags.put(b, x)
        n = self.nums
        b = self._bag_for(b, x)
        counts = list(b.counts)
        for i, cond in self.select(x, b.elem, len(counts)):
            counts[i] = n.add(counts[i], n.ite(cond, n.const(1), n.const(0)))
        return SBag(b.elem, b.cap + 1, tuple(counts))

    def bag_take(self, b: SBag | SSparseBag, x: Sym) -> tuple[SBag | SSparseBag, z3.BoolRef]:
        if isinstance(b, SSparseBag):
            return self.sy.sparse_bags.take(b, x)
        n = self.nums
        absent = n.eq_const(self.bag_count(b, x), 0)
        counts = list(b.counts)
        for i, cond in self.select(x, b.elem, len(counts)):
            dec = n.sub(counts[i], n.ite(cond, n.const(1), n.const(0)))
            counts[i] = n.narrow(dec, 0, dec.hi) if dec.lo < 0 else dec
        return SBag(b.elem, b.cap, tuple(counts)), absent

    def bag_size(self, b: SBag | SSparseBag) -> SNum:
        if isinstance(b, SSparseBag):
            return self.sy.sparse_bags.size(b)
        return self.nums.total(list(b.counts))

    def distinct(self, b: SBag | SSparseBag) -> SSet | SSparse:
        if isinstance(b, SSparseBag):
            return self.sy.sparse_bags.distinct(b)
        n = self.nums
        return self.sy.make_set(b.elem, [n.cmp(">", c, n.const(0)) for c in b.counts])
