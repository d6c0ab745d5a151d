"""The position of a symbolic value in its type's domain, as a term.

``values.domain(t)`` lists the values of ``t`` in a fixed order (the
reference's canonical order): mixed-radix over records, tuples, options and
variants.  The position of a value is computed from its parts by
arithmetic, without enumerating the domain, so it serves both to pick a bit
of a set over a small domain and to order the elements of a set over a huge
one (``sparse``)."""
from __future__ import annotations

import z3

from modelcheck.engines.z3.logic import TRUE, conj, disj, implies, neg
from modelcheck.engines.z3.scalars import Nums, SNum
from modelcheck.engines.z3.symvalues import SBool, SOpt, SProd, SVariant, Sym, part_types
from modelcheck.ir.types import (BoolType, EnumType, IntType, ModelType, OptionType, RecordType,
                                 TupleType, Type, VariantType)
from modelcheck.ir.values import domain_size

__all__ = ["position"]


def position(n: Nums, s: Sym, t: Type) -> tuple[z3.BoolRef, SNum] | None:
    """``(valid, i)``: when valid, the value of ``s`` is ``domain(t)[i]``;
    not valid means it is not a value of ``t``.  None where no arithmetic
    position exists (sets, maps, sequences as elements)."""
    if isinstance(t, BoolType) and isinstance(s, SBool):
        return TRUE, n.ite(s.term, n.const(1), n.const(0))
    if isinstance(t, IntType) and isinstance(s, SNum) and s.atom is None:
        return n.in_range(s, t.lo, t.hi), n.sub(s, n.const(t.lo))
    if isinstance(t, (EnumType, ModelType)) and isinstance(s, SNum):
        return TRUE, SNum(s.term, s.lo, s.hi, None, s.known)
    if isinstance(t, OptionType) and isinstance(s, SOpt):
        inner = position(n, s.value, t.elem)
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
            inner = position(n, p, pt)
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
            inner = position(n, p, ct)
            if inner is None:
                return None
            valids.append(implies(n.eq_const(s.tag, i), inner[0]))
            positions.append(n.add(inner[1], n.const(offset)))
            offset += domain_size(ct)
        total = positions[-1]
        for i in range(len(positions) - 2, -1, -1):
            total = n.ite(n.eq_const(s.tag, i), positions[i], total)
        return conj(valids), total
    return None
