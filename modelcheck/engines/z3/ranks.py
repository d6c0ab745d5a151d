"""The position of a symbolic value in its type's domain, as a term.

``values.domain(t)`` lists the values of ``t`` in a fixed order (the
reference's canonical order): mixed-radix over records, tuples, options and
variants.  The position of a value is computed from its parts by
arithmetic, without enumerating the domain, so it serves both to pick a bit
of a set over a small domain and to order the elements of a set over a huge
one (``sparse``).

Ordering the elements of a sparse set or bag needs a position for every
element type, so ``position`` given the encoding's ``Syms`` (``sy``) also
ranks sequences (by length, then lexicographically: ``order_key``) and maps
(mixed-radix over the keys) by arithmetic, and the values of any other small
type (a set of servers) by comparing with each in turn."""
from __future__ import annotations

from typing import Any

import z3

from modelcheck.engines.z3.logic import TRUE, conj, disj, implies, neg
from modelcheck.engines.z3.scalars import Nums, SNum
from modelcheck.engines.z3.symvalues import (SBool, SMap, SOpt, SProd, SSeq, SVariant, Sym,
                                             part_types)
from modelcheck.ir.types import (BoolType, EnumType, IntType, MapType, ModelType, OptionType,
                                 RecordType, SeqType, TupleType, Type, VariantType)
from modelcheck.ir.values import domain, domain_size

__all__ = ["position"]

#: The most values a type ranked by comparison with each of them may have.
_ENUMERATE_LIMIT = 256


def position(n: Nums, s: Sym, t: Type, sy: Any = None) -> tuple[z3.BoolRef, SNum] | None:
    """``(valid, i)``: when valid, the value of ``s`` is ``domain(t)[i]``;
    not valid means it is not a value of ``t``.  None where no position
    exists: without ``sy``, for sets, maps and sequences; with it, for
    sets and bags of more than 256 values."""
    if isinstance(t, BoolType) and isinstance(s, SBool):
        return TRUE, n.ite(s.term, n.const(1), n.const(0))
    if isinstance(t, IntType) and isinstance(s, SNum) and s.atom is None:
        return n.in_range(s, t.lo, t.hi), n.sub(s, n.const(t.lo))
    if isinstance(t, (EnumType, ModelType)) and isinstance(s, SNum):
        return TRUE, SNum(s.term, s.lo, s.hi, None, s.known)
    if isinstance(t, OptionType) and isinstance(s, SOpt):
        inner = position(n, s.value, t.elem, sy)
        if inner is None:
            return None
        valid, i = inner
        return (disj([neg(s.present), valid]),
                n.ite(s.present, n.add(i, n.const(1)), n.const(0)))
    if isinstance(t, (RecordType, TupleType)) and isinstance(s, SProd):
        types = part_types(t)
        valids, total = [], n.const(0)
        stride = 1
        for p, pt in reversed(list(zip(s.parts, types))):
            inner = position(n, p, pt, sy)
            if inner is None:
                return None
            valids.append(inner[0])
            total = n.add(total, n.mul(inner[1], n.const(stride)))
            stride *= domain_size(pt)
        return conj(valids), total
    if isinstance(t, VariantType) and isinstance(s, SVariant):
        # domain(t) lists the values of each case in turn.
        valids, positions, offset = [], [], 0
        for i, (p, (_, ct)) in enumerate(zip(s.payloads, t.cases)):
            inner = position(n, p, ct, sy)
            if inner is None:
                return None
            valids.append(implies(n.eq_const(s.tag, i), inner[0]))
            positions.append(n.add(inner[1], n.const(offset)))
            offset += domain_size(ct)
        total = positions[-1]
        for i in range(len(positions) - 2, -1, -1):
            total = n.ite(n.eq_const(s.tag, i), positions[i], total)
        return conj(valids), total
    if sy is None:
        return None
    if isinstance(t, SeqType) and isinstance(s, SSeq):
        return _seq_position(n, s, t, sy)
    if isinstance(t, MapType) and isinstance(s, SMap) and s.key == t.key:
        valids, total, stride = [], n.const(0), 1
        for v in reversed(s.vals):
            inner = position(n, v, t.value, sy)
            if inner is None:
                return None
            valids.append(inner[0])
            total = n.add(total, n.mul(inner[1], n.const(stride)))
            stride *= domain_size(t.value)
        return conj(valids), total
    if domain_size(t) <= _ENUMERATE_LIMIT:
        hits = [(sy.eq(s, sy.const(v, t)), i) for i, v in enumerate(domain(t))]
        total = n.const(0)
        for hit, i in hits:
            total = n.ite(hit, n.const(i), total) if i else total
        return disj(h for h, _ in hits), total
    return None


def _seq_position(n: Nums, s: SSeq, t: SeqType, sy: Any) -> tuple[z3.BoolRef, SNum] | None:
    """``domain(t)`` lists the sequences by length, then lexicographically."""
    inner = [position(n, x, t.elem, sy) for x in s.slots]
    if any(r is None for r in inner):
        return None
    size = domain_size(t.elem)
    valids = [n.cmp("<=", s.length, n.const(t.capacity))]
    valids += [implies(n.cmp(">", s.length, n.const(j)), r[0]) for j, r in enumerate(inner)]
    total: SNum | None = None
    offset = 0
    for length in range(min(s.cap, t.capacity) + 1):
        at = n.const(offset)
        for j in range(length):
            at = n.add(at, n.mul(inner[j][1], n.const(size ** (length - 1 - j))))
        total = at if total is None else n.ite(n.eq_const(s.length, length), at, total)
        offset += size ** length
    return conj(valids), total
