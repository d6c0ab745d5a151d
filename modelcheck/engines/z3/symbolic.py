"""Symbolic values: an IR value of any type as a fixed structure of Z3 terms.

Every compound value is flattened into fields: a record or tuple into its
parts, a map into one value per key (keys in ``values.domain`` order), an
option into a presence flag and a value, a variant into the index of its
case and one record per case, a bounded sequence into a length and
``cap`` slots, a bag into one count per element of its element type, a
set over a finite domain into one bit per element (over a domain too large
for that, ``set[T, cap]`` into a count and ``cap`` sorted slots: ``sparse``) (one bit-vector, or one
boolean per element: the ``set_mode`` encoding choice); a bag over such a domain into a count and
``cap`` sorted slots, one per copy (``sparsebags``).

Each symbolic value carries its *shape*, an IR type (``.type``).  Shapes are
computed here: an int's interval grows with arithmetic, a sequence's capacity
with ``append``; values of different shapes are brought to their join before
they are compared or merged, and ``convert`` brings a value to a state
variable's declared type once it is known to fit (the MC5001 check).

Canonical form: a state variable never holds garbage in a part that does not
count (the value of a ``none``, a slot past a sequence's length); those parts
hold the type's default, as do the payloads of the cases a variant is not in.  Values inside expressions need not be canonical, so
``eq`` compares by meaning; ``canonical`` restores the form on every write.
"""
from __future__ import annotations

import time
from typing import Any

import z3

from modelcheck.engines.z3.logic import (FALSE, TRUE, bite, boolean, conj,
                                         implies, is_false, is_true, neg)
from modelcheck.engines.z3.scalars import Nums, SNum
from modelcheck.engines.z3.shapes import Shapes
from modelcheck.engines.z3.sparse import Sparse, is_large
from modelcheck.engines.z3.sparsebags import SparseBags
from modelcheck.engines.z3.symvalues import (MAX_DOMAIN, SET_MODES, EncodingUnsupported, Leaf, SBag,
                                             SBool, SMap, SOpt, SProd, SSeq, SSet, SSparse,
                                             SSparseBag, SVariant, Sym, default_value)
from modelcheck.ir.types import (BOOL, BagType, BoolType, EnumType, IntType, MapType, ModelType,
                                 OptionType, RecordType, SeqType, SetType, TupleType, Type,
                                 VariantType, render_type)
from modelcheck.ir.values import FrozenDict, Variant, domain, domain_size, render_value

__all__ = ["SBool", "SSet", "SSparse", "SSparseBag", "SMap", "SSeq", "SBag", "SOpt", "SProd", "SVariant", "Sym", "Leaf",
           "Syms",
           "EncodingUnsupported", "EncodingTimeout", "SET_MODES", "MAX_DOMAIN"]


class EncodingTimeout(Exception):
    """The encoding ran past its deadline (an engine's --timeout)."""



class Syms(Shapes):
    """Builds and combines symbolic values in one encoding (number and set
    representations); holds the caches of element domains and constants.
    Changing a value's shape (join, coerce, convert, in_type) is in ``Shapes``."""

    def __init__(self, num_mode: str = "bv", set_mode: str = "bv",
                 deadline: float | None = None, sparse: frozenset = frozenset()):
        if set_mode not in SET_MODES:
            raise ValueError(f"unknown set representation {set_mode!r}")
        self.nums = Nums(num_mode)
        self.set_bv = set_mode == "bv"
        self._domains: dict[Type, tuple[Any, ...]] = {}
        self._positions: dict[Type, dict[Any, int]] = {}
        self._consts: dict[tuple[Type, Any], Sym] = {}
        self.sparse = Sparse(self)
        self.sparse_bags = SparseBags(self)
        self.deadline = deadline
        # The families (``sparse.family``) kept sparse though small.
        self.sparse_families = sparse
        self._large: dict[Type, bool] = {}

    def is_large(self, elem: Type) -> bool:
        """Whether sets and bags of ``elem`` are sparse in this encoding."""
        large = self._large.get(elem)
        if large is None:
            large = self._large[elem] = is_large(elem, self.sparse_families)
        return large

    def tick(self) -> None:
        """EncodingTimeout past the deadline (time.monotonic()).  Encoding
        one depth of a large spec takes minutes of Python: an engine's
        timeout must bound that too, not only the solver's calls."""
        if self.deadline is not None and time.monotonic() >= self.deadline:
            raise EncodingTimeout()

    # ---------------------------------------------------------------- domains

    def domain(self, t: Type) -> tuple[Any, ...]:
        d = self._domains.get(t)
        if d is None:
            if domain_size(t) > MAX_DOMAIN:
                raise EncodingUnsupported(
                    f"the domain of {render_type(t)} has {domain_size(t):,} values; "
                    f"the Z3 encoding enumerates at most {MAX_DOMAIN:,} "
                    f"(sets, bags, map keys, quantifiers)")
            d = domain(t)
            self._domains[t] = d
        return d

    def position(self, t: Type, v: Any) -> int | None:
        pos = self._positions.get(t)
        if pos is None:
            pos = {x: i for i, x in enumerate(self.domain(t))}
            self._positions[t] = pos
        return pos.get(v)

    # ---------------------------------------------------------------- sets from bits

    def make_set(self, elem: Type, bits: list[z3.BoolRef]) -> SSet:
        n = len(bits)
        if not self.set_bv or n == 0:
            return SSet(elem, n, bits=tuple(bits))
        if all(is_true(b) or is_false(b) for b in bits):
            return SSet(elem, n, bv=z3.BitVecVal(sum(1 << i for i, b in enumerate(bits)
                                                     if is_true(b)), n))
        one, zero = z3.BitVecVal(1, 1), z3.BitVecVal(0, 1)
        parts = [z3.If(b, one, zero) for b in reversed(bits)]
        return SSet(elem, n, bv=parts[0] if n == 1 else z3.Concat(parts))

    # ---------------------------------------------------------------- constants

    def const(self, v: Any, t: Type) -> Sym:
        """The value ``v`` of type ``t``, with shape exactly ``t``."""
        key = (t, v)
        s = self._consts.get(key)
        if s is None:
            s = self._const(v, t)
            self._consts[key] = s
        return s

    def _const(self, v: Any, t: Type) -> Sym:
        if isinstance(t, BoolType):
            return SBool(boolean(bool(v)))
        if isinstance(t, IntType):
            return self.nums.widen(self.nums.const(v), t.lo, t.hi)
        if isinstance(t, (EnumType, ModelType)):
            n = self.nums
            return n.widen(n.const(t.members.index(v), t), 0, len(t.members) - 1, t)
        if isinstance(t, SetType):
            if self.is_large(t.elem):
                return self.sparse.const(v, t)
            dom = self.domain(t.elem)
            return self.make_set(t.elem, [boolean(x in v) for x in dom])
        if isinstance(t, MapType):
            return SMap(t.key, t.value, tuple(self.const(v[k], t.value) for k in self.domain(t.key)))
        if isinstance(t, SeqType):
            slots = [self.const(v[j] if j < len(v) else default_value(t.elem), t.elem)
                     for j in range(t.capacity)]
            return SSeq(t.elem, t.capacity, self.nums.widen(self.nums.const(len(v)), 0, t.capacity),
                        tuple(slots))
        if isinstance(t, BagType) and self.is_large(t.elem):
            return self.sparse_bags.const(v, t)
        if isinstance(t, BagType):
            counts = [self.nums.widen(self.nums.const(v.get(x, 0)), 0, t.capacity)
                      for x in self.domain(t.elem)]
            return SBag(t.elem, t.capacity, tuple(counts))
        if isinstance(t, OptionType):
            inner = self.const(default_value(t.elem) if v is None else v, t.elem)
            return SOpt(t.elem, boolean(v is not None), inner)
        if isinstance(t, RecordType):
            return SProd(t, tuple(self.const(v[n], ft) for n, ft in t.fields))
        if isinstance(t, TupleType):
            return SProd(t, tuple(self.const(x, et) for x, et in zip(v, t.elems)))
        if isinstance(t, VariantType):
            i = t.case_index(v.tag)
            tag = self.nums.widen(self.nums.const(i), 0, len(t.cases) - 1)
            payloads = tuple(self.const(v.value if j == i else default_value(ct), ct)
                             for j, (_, ct) in enumerate(t.cases))
            return SVariant(t, tag, payloads)
        raise TypeError(t)

    def default(self, t: Type) -> Sym:
        return self.const(default_value(t), t)

    # ---------------------------------------------------------------- unknowns

    def fresh(self, t: Type, name: str, wf: list[z3.BoolRef], leaves: list[Leaf] | None = None,
              guard: z3.BoolRef | None = None, tag: str = "") -> Sym:
        """A value of type ``t`` made of fresh unknowns.  ``name`` is how the spec
        writes it (the leaves' text); the unknowns are named ``tag + text``.
        Appends to ``wf`` the constraints that make it a canonical value of
        ``t``, and to ``leaves`` its fields."""
        def leaf(term: z3.ExprRef, text: str, lt: Type, default: Any, members: tuple = ()) -> None:
            if leaves is not None:
                d = None if guard is None else self._leaf_term(default, lt)
                leaves.append(Leaf(term, text, lt, guard, d, members))

        def sub(st: Type, text: str, g: z3.BoolRef | None = guard) -> Sym:
            return self.fresh(st, text, wf, leaves, g, tag)

        if isinstance(t, BoolType):
            b = z3.Bool(tag + name)
            leaf(b, name, t, False)
            return SBool(b)
        if isinstance(t, (IntType, EnumType, ModelType)):
            atom = None if isinstance(t, IntType) else t
            lo, hi = (t.lo, t.hi) if atom is None else (0, len(t.members) - 1)
            num, ok = self.nums.var(tag + name, lo, hi, atom)
            wf.append(ok)
            leaf(num.term, name, t, default_value(t))
            return num
        if isinstance(t, SetType) and self.is_large(t.elem):
            return self.sparse.fresh(t, name, wf, leaves, guard, tag)
        if isinstance(t, SetType):
            dom = self.collection_domain(t)
            texts = tuple(f"{render_value(t.elem, x)} in {name}" for x in dom)
            if self.set_bv and dom:
                bv = z3.BitVec(tag + name, len(dom))
                leaf(bv, name, t, frozenset(), texts)
                out = SSet(t.elem, len(dom), bv=bv)
            else:
                bits = []
                for text in texts:
                    b = z3.Bool(tag + text)
                    leaf(b, text, BOOL, False)
                    bits.append(b)
                out = SSet(t.elem, len(dom), bits=tuple(bits))
            if t.capacity is not None and t.capacity < len(dom):
                wf.append(self.within(out, t.capacity))
            return out
        if isinstance(t, MapType):
            return SMap(t.key, t.value, tuple(sub(t.value, f"{name}[{render_value(t.key, k)}]")
                                              for k in self.domain(t.key)))
        if isinstance(t, SeqType):
            length, ok = self.nums.var(f"{tag}len({name})", 0, t.capacity)
            wf.append(ok)
            leaf(length.term, f"len({name})", IntType(0, t.capacity), 0)
            slots = []
            for j in range(t.capacity):
                inside = self.nums.cmp(">", length, self.nums.const(j))
                slot = sub(t.elem, f"{name}[{j}]", _and(guard, inside))
                wf.append(implies(neg(inside), self.eq(slot, self.default(t.elem))))
                slots.append(slot)
            return SSeq(t.elem, t.capacity, length, tuple(slots))
        if isinstance(t, BagType) and self.is_large(t.elem):
            return self.sparse_bags.fresh(t, name, wf, leaves, guard, tag)
        if isinstance(t, BagType):
            counts = []
            for x in self.collection_domain(t):
                text = f"count({name}, {render_value(t.elem, x)})"
                c, ok = self.nums.var(tag + text, 0, t.capacity)
                wf.append(ok)
                leaf(c.term, text, IntType(0, t.capacity), 0)
                counts.append(c)
            wf.append(self.nums.cmp("<=", self.nums.total(counts), self.nums.const(t.capacity)))
            return SBag(t.elem, t.capacity, tuple(counts))
        if isinstance(t, OptionType):
            present = z3.Bool(f"{tag}is_some({name})")
            leaf(present, f"is_some({name})", BOOL, False)
            value = sub(t.elem, f"{name}.value", _and(guard, present))
            wf.append(implies(neg(present), self.eq(value, self.default(t.elem))))
            return SOpt(t.elem, present, value)
        if isinstance(t, RecordType):
            return SProd(t, tuple(sub(ft, f"{name}.{n}") for n, ft in t.fields))
        if isinstance(t, TupleType):
            return SProd(t, tuple(sub(et, f"{name}[{i}]") for i, et in enumerate(t.elems)))
        if isinstance(t, VariantType):
            last = len(t.cases) - 1
            case, ok = self.nums.var(f"{tag}case({name})", 0, last)
            wf.append(ok)
            leaf(case.term, f"case({name})", IntType(0, last), 0)
            payloads = []
            for i, (cname, ct) in enumerate(t.cases):
                # Cases may share field names: each payload is named by its case.
                taken = self.nums.eq_const(case, i)
                payload = sub(ct, f"({name} as {cname})", _and(guard, taken))
                wf.append(implies(neg(taken), self.eq(payload, self.default(ct))))
                payloads.append(payload)
            return SVariant(t, case, tuple(payloads))
        raise TypeError(t)

    def collection_domain(self, t: SetType | BagType) -> tuple[Any, ...]:
        """The element domain a set or bag variable is encoded over, one
        field per element; a clear refusal when it is too large."""
        n = domain_size(t.elem)
        if n > MAX_DOMAIN:
            raise EncodingUnsupported(
                f"{render_type(t)} is over {n:,} elements: the Z3 engines encode a set or bag "
                f"element by element, up to {MAX_DOMAIN:,} elements; check it with the "
                f"compiled engine or the reference explorer")
        return self.domain(t.elem)

    def within(self, s: SSet, capacity: int) -> z3.BoolRef:
        """The set has at most ``capacity`` elements."""
        n = self.nums
        size = n.total([n.ite(b, n.const(1), n.const(0)) for b in s.all_bits()])
        return n.cmp("<=", size, n.const(capacity))

    def _leaf_term(self, v: Any, t: Type) -> z3.ExprRef:
        s = self.const(v, t)
        if isinstance(s, SBool):
            return s.term
        if isinstance(s, SSet):
            return s.bv if s.bv is not None else FALSE
        assert isinstance(s, SNum)
        return self.nums.exact(s, s.lo, s.hi).term if not isinstance(t, IntType) \
            else self.nums.exact(s, t.lo, t.hi).term

    # ---------------------------------------------------------------- reading a model

    def decode(self, model: z3.ModelRef, s: Sym) -> Any:
        """The value of ``s`` in a Z3 model, as a ``modelcheck.ir.values`` value."""
        if isinstance(s, SBool):
            return is_true(model.eval(s.term, model_completion=True))
        if isinstance(s, SNum):
            v = self.nums.decode(model, s)
            return s.atom.members[v] if s.atom is not None else v
        if isinstance(s, SSet):
            dom = self.domain(s.elem)
            if s.bv is not None:
                word = model.eval(s.bv, model_completion=True).as_long()
                return frozenset(x for i, x in enumerate(dom) if (word >> i) & 1)
            return frozenset(x for x, b in zip(dom, s.bits)
                             if is_true(model.eval(b, model_completion=True)))
        if isinstance(s, SMap):
            return FrozenDict(zip(self.domain(s.key), (self.decode(model, v) for v in s.vals)))
        if isinstance(s, SSeq):
            n = self.nums.decode(model, s.length)
            return tuple(self.decode(model, x) for x in s.slots[:n])
        if isinstance(s, SBag):
            counts = {}
            for x, c in zip(self.domain(s.elem), s.counts):
                k = self.nums.decode(model, c)
                if k > 0:
                    counts[x] = k
            return FrozenDict(counts)
        if isinstance(s, SOpt):
            if not is_true(model.eval(s.present, model_completion=True)):
                return None
            return self.decode(model, s.value)
        if isinstance(s, SProd):
            vals = [self.decode(model, p) for p in s.parts]
            if isinstance(s.ptype, RecordType):
                return FrozenDict(zip((n for n, _ in s.ptype.fields), vals))
            return tuple(vals)
        if isinstance(s, SSparse):
            return self.sparse.decode(model, s)
        if isinstance(s, SSparseBag):
            return self.sparse_bags.decode(model, s)
        if isinstance(s, SVariant):
            i = self.nums.decode(model, s.tag)
            return Variant(s.vtype.cases[i][0], self.decode(model, s.payloads[i]))
        raise TypeError(s)

    # ---------------------------------------------------------------- equality and choice

    def eq(self, a: Sym, b: Sym) -> z3.BoolRef:
        """Whether two values are equal (by meaning: parts that do not count are ignored)."""
        if isinstance(a, SBool):
            if a.term.eq(b.term):
                return TRUE
            for x, y in ((a.term, b.term), (b.term, a.term)):
                if is_true(x):
                    return y
                if is_false(x):
                    return neg(y)
            return a.term == b.term
        if isinstance(a, SNum):
            return self.nums.eq(a, b)
        if a.type != b.type:
            t = self.join(a.type, b.type)
            a, b = self.coerce(a, t), self.coerce(b, t)
        if isinstance(a, SSet):
            if a.bv is not None and b.bv is not None:
                if z3.is_bv_value(a.bv) and z3.is_bv_value(b.bv):
                    return boolean(a.bv.as_long() == b.bv.as_long())
                return a.bv == b.bv
            return conj(self.eq(SBool(x), SBool(y)) for x, y in zip(a.all_bits(), b.all_bits()))
        if isinstance(a, SMap):
            return conj(self.eq(x, y) for x, y in zip(a.vals, b.vals))
        if isinstance(a, SSeq):
            parts = [self.nums.eq(a.length, b.length)]
            for j, (x, y) in enumerate(zip(a.slots, b.slots)):
                inside = self.nums.cmp(">", a.length, self.nums.const(j))
                parts.append(implies(inside, self.eq(x, y)))
            return conj(parts)
        if isinstance(a, SBag):
            return conj(self.nums.eq(x, y) for x, y in zip(a.counts, b.counts))
        if isinstance(a, SOpt):
            both = self.eq(SBool(a.present), SBool(b.present))
            return conj([both, implies(a.present, self.eq(a.value, b.value))])
        if isinstance(a, SProd):
            return conj(self.eq(x, y) for x, y in zip(a.parts, b.parts))
        if isinstance(a, SSparse):
            return self.sparse.eq(a, b)
        if isinstance(a, SSparseBag):
            return self.sparse_bags.eq(a, b)
        if isinstance(a, SVariant):
            n = self.nums
            parts = [n.eq(a.tag, b.tag)]
            for i, (x, y) in enumerate(zip(a.payloads, b.payloads)):
                parts.append(implies(n.eq_const(a.tag, i), self.eq(x, y)))
            return conj(parts)
        raise TypeError(a)

    def ite(self, c: z3.BoolRef, a: Sym, b: Sym, t: Type | None = None) -> Sym:
        """``if c then a else b``, in shape ``t`` (default: the join of both)."""
        if t is None:
            t = a.type if a.type == b.type else self.join(a.type, b.type)
        a, b = self.coerce(a, t), self.coerce(b, t)
        if is_true(c):
            return a
        if is_false(c):
            return b
        if isinstance(a, SBool):
            return SBool(bite(c, a.term, b.term))
        if isinstance(a, SNum):
            return self.nums.ite(c, a, b)
        if isinstance(a, SSet):
            if a.bv is not None:
                return SSet(a.elem, a.n, bv=a.bv if a.bv.eq(b.bv) else z3.If(c, a.bv, b.bv))
            return SSet(a.elem, a.n, bits=tuple(bite(c, x, y) for x, y in zip(a.bits, b.bits)))
        if isinstance(a, SMap):
            return SMap(a.key, a.value_type,
                        tuple(self.ite(c, x, y, a.value_type) for x, y in zip(a.vals, b.vals)))
        if isinstance(a, SSeq):
            return SSeq(a.elem, a.cap, self.nums.ite(c, a.length, b.length),
                        tuple(self.ite(c, x, y, a.elem) for x, y in zip(a.slots, b.slots)))
        if isinstance(a, SBag):
            return SBag(a.elem, a.cap, tuple(self.nums.ite(c, x, y) for x, y in zip(a.counts, b.counts)))
        if isinstance(a, SOpt):
            return SOpt(a.elem, bite(c, a.present, b.present), self.ite(c, a.value, b.value, a.elem))
        if isinstance(a, SProd):
            return SProd(a.ptype, tuple(self.ite(c, x, y, pt)
                                        for x, y, pt in zip(a.parts, b.parts, a.part_types())))
        if isinstance(a, SSparse):
            return self.sparse.ite(c, a, b)
        if isinstance(a, SSparseBag):
            return self.sparse_bags.ite(c, a, b)
        if isinstance(a, SVariant):
            return SVariant(a.vtype, self.nums.ite(c, a.tag, b.tag),
                            tuple(self.ite(c, x, y, ct)
                                  for x, y, (_, ct) in zip(a.payloads, b.payloads, a.vtype.cases)))
        raise TypeError(a)

    def same(self, a: Sym, b: Sym) -> z3.BoolRef:
        """Field-by-field equality of two canonical values of one declared type
        (cheaper than ``eq``; used between states)."""
        return conj(x == y for x, y in zip(self.terms(a), self.terms(b)))

    def terms(self, s: Sym) -> list[z3.ExprRef]:
        """The fields of a value, in a fixed order."""
        if isinstance(s, (SBool, SNum)):
            return [s.term]
        if isinstance(s, SSet):
            return [s.bv] if s.bv is not None else list(s.bits)
        if isinstance(s, SMap):
            return [x for v in s.vals for x in self.terms(v)]
        if isinstance(s, SSeq):
            return [s.length.term] + [x for v in s.slots for x in self.terms(v)]
        if isinstance(s, SBag):
            return [c.term for c in s.counts]
        if isinstance(s, SOpt):
            return [s.present] + self.terms(s.value)
        if isinstance(s, SProd):
            return [x for p in s.parts for x in self.terms(p)]
        if isinstance(s, SSparse):
            return self.sparse.terms(s)
        if isinstance(s, SSparseBag):
            return self.sparse_bags.terms(s)
        if isinstance(s, SVariant):
            return [s.tag.term] + [x for p in s.payloads for x in self.terms(p)]
        raise TypeError(s)


def _and(guard: z3.BoolRef | None, c: z3.BoolRef) -> z3.BoolRef:
    return c if guard is None else conj([guard, c])
