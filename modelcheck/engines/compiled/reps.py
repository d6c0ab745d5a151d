"""Flat representations: how the compiled engine holds a value of each IR type.

A value of type ``T`` is a run of ``width(T)`` int64 *slots*:

========== ==============================================================
bool       one slot, 0 or 1
int        one slot, the value itself (not offset: intervals of
           expressions differ from the declared type's)
enum/model one slot, the member's index
option     a tag slot (0 none, 1 some) then the payload; a none's payload
           holds the payload type's default value
set        the bitset over the element type's ranks, 64 ranks per slot; or,
           for a ``sparse`` set, a count slot then ``capacity`` rank slots
map        one run of ``width(V)`` slots per key, in key-rank order
seq        a length slot then ``capacity`` runs of ``width(E)``; unused
           runs hold the element type's default value
bag        one count slot per element rank; or, for a ``sparse`` bag, a
           count slot then ``capacity`` rank slots, one per copy
tuple      the fields' runs, in order (records likewise)
variant    a tag slot (the case's index) then every case's record run, in
           case order; the cases not taken hold their default values
========== ==============================================================

Every slot of a value that is not in use holds the default value (the first
value of the type's domain), so two equal values always have equal slots and
the packed layout stores defaults as zero bits.

A *rank* numbers the values of a type densely, 0 .. domain_size - 1: set
elements are bits at their ranks, map keys are runs at their ranks.  For most
types rank order is the canonical order of ``modelcheck.ir.values``
(``rank_is_canonical``); where it is not (sets and bags inside elements), the
engines iterate through a canonical-order table instead.  A set whose
capacity leaves out some subsets (``capped``) keeps its bitset slots, but is
ranked densely, by size and then its sorted element ranks, the canonical order;
a variant's rank is its case's first rank plus its payload's rank.

A set or bag with a capacity over a large element type is *sparse*: where a
bitset (or a count per rank) would take over ``SPARSE_MIN_SLOTS`` slots and
more than twice ``1 + capacity``, the value is its element ranks in ascending
order (a bag repeats a rank once per copy) after a slot with their number,
and zeros after them.  A state's width then follows the capacity, not the
size of the element type: Raft's network of a few messages drawn from
millions is three slots, not a million.
"""
from __future__ import annotations

from math import comb
from typing import Any

from modelcheck.ir.types import (BagType, BoolType, EnumType, IntType, MapType, ModelType,
                                 OptionType, RecordType, SeqType, SetType, TupleType, Type,
                                 VariantType, render_type)
from modelcheck.ir.values import FrozenDict, Variant, domain_size
from modelcheck.semantics.types import bounded_size

__all__ = ["Unsupported", "MAX_BITSET_RANKS", "width", "rank_size", "rank", "unrank",
           "rank_is_canonical", "default", "flatten", "unflatten", "chunks", "to_signed",
           "to_unsigned", "bits_for", "field_types", "case_offsets", "capped", "sparse",
           "SPARSE_MIN_SLOTS"]

#: The most ranks one set bitset (or bag, map) may span: 65,536 bits is 1,024 words.
MAX_BITSET_RANKS = 1 << 16
#: A collection is held sparsely only when its dense form would take more slots.
SPARSE_MIN_SLOTS = 64
#: Ranks of a sparse collection's elements are int64 slots.
MAX_SPARSE_RANKS = 1 << 62


class Unsupported(Exception):
    """A model the compiled engine cannot lay out (the engine falls back to the
    reference explorer and says why)."""


def bits_for(count: int) -> int:
    """Bits needed to store 0 .. count - 1."""
    return max(0, (count - 1).bit_length())


def chunks(ranks: int) -> int:
    """Slots of a bitset over ``ranks`` ranks (at least one, so every set has a slot)."""
    return max(1, (ranks + 63) // 64)


def to_signed(u: int) -> int:
    """A 64-bit pattern as the int64 numpy and numba store."""
    u &= (1 << 64) - 1
    return u - (1 << 64) if u >= 1 << 63 else u


def to_unsigned(s: int) -> int:
    return s & ((1 << 64) - 1)


def _elem_ranks(t: Type, coll: Type | None = None) -> int:
    n = bounded_size(t, MAX_BITSET_RANKS)
    if n > MAX_BITSET_RANKS:
        if isinstance(coll, SetType) and coll.capacity is None:
            hint = f"; give it a capacity: set[{render_type(t)}, cap]"
        else:
            # ``sparse`` declined it: its capacity is near the type's size
            hint = "; a smaller capacity would hold it sparsely"
        raise Unsupported(f"a collection over more than {MAX_BITSET_RANKS:,} possible "
                          f"elements ({render_type(t)}) does not fit a bitset{hint}")
    return n


def sparse(t: Type) -> bool:
    """Whether ``t`` is a set or bag held as its sorted element ranks."""
    if not isinstance(t, (SetType, BagType)) or t.capacity is None:
        return False
    ranks = bounded_size(t.elem, MAX_SPARSE_RANKS)
    dense = chunks(ranks) if isinstance(t, SetType) else ranks
    if dense <= SPARSE_MIN_SLOTS or dense <= 2 * (1 + t.capacity):
        return False
    if ranks > MAX_SPARSE_RANKS - 1:
        raise Unsupported(f"a collection over more than 2^62 possible elements "
                          f"({render_type(t.elem)})")
    return True


def capped(t: SetType) -> bool:
    """Whether the capacity of ``t`` leaves out some subsets of its element type
    (its values are then fewer than the bitsets, and ranked densely)."""
    return t.capacity is not None and t.capacity < domain_size(t.elem)


def case_offsets(t: VariantType) -> list[tuple[int, int]]:
    """(first slot after the tag, first rank) of each case of ``t``."""
    out, slot, first = [], 1, 0
    for _, payload in t.cases:
        out.append((slot, first))
        slot += width(payload)
        first += domain_size(payload)
    return out


def field_types(t: RecordType | TupleType) -> tuple[Type, ...]:
    if isinstance(t, RecordType):
        return tuple(ft for _, ft in t.fields)
    return t.elems


def width(t: Type) -> int:
    """Slots of the flat representation of ``t``."""
    if isinstance(t, (BoolType, IntType, EnumType, ModelType)):
        return 1
    if isinstance(t, OptionType):
        return 1 + width(t.elem)
    if sparse(t):
        return 1 + t.capacity
    if isinstance(t, SetType):
        return chunks(_elem_ranks(t.elem, t))
    if isinstance(t, MapType):
        return _elem_ranks(t.key) * width(t.value)
    if isinstance(t, SeqType):
        return 1 + t.capacity * width(t.elem)
    if isinstance(t, BagType):
        return _elem_ranks(t.elem)
    if isinstance(t, (RecordType, TupleType)):
        return sum(width(f) for f in field_types(t))
    if isinstance(t, VariantType):
        return 1 + sum(width(p) for _, p in t.cases)
    raise TypeError(t)


def rank_size(t: Type) -> int:
    return domain_size(t)


def rank_is_canonical(t: Type) -> bool:
    """Whether ascending rank is the canonical order (``values.order_key``)."""
    if isinstance(t, (BoolType, IntType, EnumType, ModelType)):
        return True
    if isinstance(t, OptionType):
        return rank_is_canonical(t.elem)
    if isinstance(t, SetType) and capped(t):
        # dense ranks: by size, then the sorted element ranks lexicographically
        return rank_is_canonical(t.elem)
    if isinstance(t, (SetType, BagType)):
        return domain_size(t.elem) <= 1
    if isinstance(t, VariantType):
        return all(rank_is_canonical(p) for _, p in t.cases)
    if isinstance(t, MapType):
        return rank_is_canonical(t.value)
    if isinstance(t, SeqType):
        return rank_is_canonical(t.elem)
    if isinstance(t, (RecordType, TupleType)):
        return all(rank_is_canonical(f) for f in field_types(t))
    raise TypeError(t)


def _atom_index(t: Type, v: Any) -> int:
    if isinstance(t, BoolType):
        return int(v)
    if isinstance(t, IntType):
        return v - t.lo
    return t.members.index(v)


def _seq_offset(n: int, length: int) -> int:
    """Ranks of all sequences shorter than ``length`` over ``n`` elements."""
    return sum(n ** k for k in range(length))


def rank(t: Type, v: Any) -> int:
    """The dense rank of ``v`` among the values of ``t``."""
    if isinstance(t, (BoolType, IntType, EnumType, ModelType)):
        return _atom_index(t, v)
    if isinstance(t, OptionType):
        return 0 if v is None else 1 + rank(t.elem, v)
    if isinstance(t, (RecordType, TupleType)):
        vals = [v[n] for n, _ in t.fields] if isinstance(t, RecordType) else list(v)
        r = 0
        for ft, fv in zip(field_types(t), vals):
            r = r * rank_size(ft) + rank(ft, fv)
        return r
    if isinstance(t, MapType):
        r = 0
        base = rank_size(t.value)
        for i in range(rank_size(t.key)):
            r = r * base + rank(t.value, v[unrank(t.key, i)])
        return r
    if isinstance(t, SetType) and capped(t):
        return _subset_rank(rank_size(t.elem), sorted(rank(t.elem, e) for e in v))
    if isinstance(t, SetType):
        return sum(1 << rank(t.elem, e) for e in v)
    if isinstance(t, VariantType):
        i = t.case_index(v.tag)
        return case_offsets(t)[i][1] + rank(t.cases[i][1], v.value)
    if isinstance(t, SeqType):
        n = rank_size(t.elem)
        r = 0
        for e in v:
            r = r * n + rank(t.elem, e)
        return _seq_offset(n, len(v)) + r
    if isinstance(t, BagType):
        return _bag_rank(t, v)
    raise TypeError(t)


def _multisets(n: int, k: int) -> int:
    """Multisets of size k over n elements."""
    return comb(n + k - 1, k) if n > 0 else int(k == 0)


def _subset_rank(n: int, elems: list[int]) -> int:
    # values.domain order of a capped set: by size, then combinations order.
    k = len(elems)
    r = sum(comb(n, s) for s in range(k))
    prev = 0
    for i, e in enumerate(elems):
        left = k - i - 1
        for x in range(prev, e):
            r += comb(n - x - 1, left)
        prev = e + 1
    return r


def _subset_unrank(n: int, r: int) -> list[int]:
    k = 0
    while r >= comb(n, k):
        r -= comb(n, k)
        k += 1
    elems, x = [], 0
    for i in range(k):
        left = k - i - 1
        while r >= comb(n - x - 1, left):
            r -= comb(n - x - 1, left)
            x += 1
        elems.append(x)
        x += 1
    return elems


def _bag_rank(t: BagType, v: Any) -> int:
    # values.domain order: by size, then combinations_with_replacement order.
    n = rank_size(t.elem)
    elems = sorted(rank(t.elem, e) for e, c in v.items() for _ in range(c))
    k = len(elems)
    r = sum(_multisets(n, s) for s in range(k))
    prev = 0
    for i, e in enumerate(elems):
        left = k - i - 1
        for x in range(prev, e):
            r += _multisets(n - x, left)
        prev = e
    return r


def unrank(t: Type, r: int) -> Any:
    """The value of ``t`` with rank ``r``."""
    if isinstance(t, BoolType):
        return bool(r)
    if isinstance(t, IntType):
        return t.lo + r
    if isinstance(t, (EnumType, ModelType)):
        return t.members[r]
    if isinstance(t, OptionType):
        return None if r == 0 else unrank(t.elem, r - 1)
    if isinstance(t, (RecordType, TupleType)):
        out = []
        for ft in reversed(field_types(t)):
            size = rank_size(ft)
            out.append(unrank(ft, r % size))
            r //= size
        out.reverse()
        if isinstance(t, RecordType):
            return FrozenDict(zip((n for n, _ in t.fields), out))
        return tuple(out)
    if isinstance(t, MapType):
        keys = [unrank(t.key, i) for i in range(rank_size(t.key))]
        base = rank_size(t.value)
        vals = []
        for _ in keys:
            vals.append(unrank(t.value, r % base))
            r //= base
        vals.reverse()
        return FrozenDict(zip(keys, vals))
    if isinstance(t, SetType) and capped(t):
        return frozenset(unrank(t.elem, i) for i in _subset_unrank(rank_size(t.elem), r))
    if isinstance(t, SetType):
        return frozenset(unrank(t.elem, i) for i in range(r.bit_length()) if r >> i & 1)
    if isinstance(t, VariantType):
        for (case, payload), (_, first) in zip(t.cases, case_offsets(t)):
            if r < first + domain_size(payload):
                return Variant(case, unrank(payload, r - first))
        raise ValueError(f"rank {r} out of {t}")
    if isinstance(t, SeqType):
        n = rank_size(t.elem)
        length = 0
        while r >= n ** length:
            r -= n ** length
            length += 1
        out = []
        for _ in range(length):
            out.append(unrank(t.elem, r % n))
            r //= n
        return tuple(reversed(out))
    if isinstance(t, BagType):
        return _bag_unrank(t, r)
    raise TypeError(t)


def _bag_unrank(t: BagType, r: int) -> Any:
    n = rank_size(t.elem)
    k = 0
    while r >= _multisets(n, k):
        r -= _multisets(n, k)
        k += 1
    elems = []
    prev = 0
    for i in range(k):
        left = k - i - 1
        x = prev
        while r >= _multisets(n - x, left):
            r -= _multisets(n - x, left)
            x += 1
        elems.append(x)
        prev = x
    counts: dict[Any, int] = {}
    for e in elems:
        value = unrank(t.elem, e)
        counts[value] = counts.get(value, 0) + 1
    return FrozenDict(counts)


def default(t: Type) -> Any:
    """The first value of ``t``'s domain: what unused slots hold."""
    if isinstance(t, BoolType):
        return False
    if isinstance(t, IntType):
        return t.lo
    if isinstance(t, (EnumType, ModelType)):
        return t.members[0]
    if isinstance(t, OptionType):
        return None
    if isinstance(t, SetType):
        return frozenset()
    if isinstance(t, MapType):
        return FrozenDict({unrank(t.key, i): default(t.value) for i in range(rank_size(t.key))})
    if isinstance(t, SeqType):
        return ()
    if isinstance(t, BagType):
        return FrozenDict()
    if isinstance(t, RecordType):
        return FrozenDict({n: default(ft) for n, ft in t.fields})
    if isinstance(t, TupleType):
        return tuple(default(e) for e in t.elems)
    if isinstance(t, VariantType):
        case, payload = t.cases[0]
        return Variant(case, default(payload))
    raise TypeError(t)


def flatten(t: Type, v: Any) -> list[int]:
    """The slots of ``v`` (a value of ``t``)."""
    out: list[int] = []
    _flatten(t, v, out)
    return out


def _flatten(t: Type, v: Any, out: list[int]) -> None:
    if isinstance(t, BoolType):
        out.append(int(v))
    elif isinstance(t, IntType):
        out.append(v)
    elif isinstance(t, (EnumType, ModelType)):
        out.append(t.members.index(v))
    elif isinstance(t, OptionType):
        out.append(0 if v is None else 1)
        _flatten(t.elem, default(t.elem) if v is None else v, out)
    elif sparse(t):
        ranks = sorted(rank(t.elem, e) for e in v) if isinstance(t, SetType) else \
            sorted(rank(t.elem, e) for e, c in v.items() for _ in range(c))
        if len(ranks) > t.capacity:
            raise ValueError(f"{len(ranks)} elements in a {render_type(t)}")
        out.append(len(ranks))
        out.extend(ranks)
        out.extend([0] * (t.capacity - len(ranks)))
    elif isinstance(t, SetType):
        bits = 0
        for e in v:
            bits |= 1 << rank(t.elem, e)
        out.extend(to_signed(bits >> (64 * i)) for i in range(width(t)))
    elif isinstance(t, MapType):
        for i in range(rank_size(t.key)):
            _flatten(t.value, v[unrank(t.key, i)], out)
    elif isinstance(t, SeqType):
        out.append(len(v))
        for e in v:
            _flatten(t.elem, e, out)
        filler = default(t.elem)
        for _ in range(t.capacity - len(v)):
            _flatten(t.elem, filler, out)
    elif isinstance(t, BagType):
        counts = [0] * rank_size(t.elem)
        for e, c in v.items():
            counts[rank(t.elem, e)] = c
        out.extend(counts)
    elif isinstance(t, RecordType):
        for n, ft in t.fields:
            _flatten(ft, v[n], out)
    elif isinstance(t, TupleType):
        for ft, fv in zip(t.elems, v):
            _flatten(ft, fv, out)
    elif isinstance(t, VariantType):
        out.append(t.case_index(v.tag))
        for case, payload in t.cases:
            _flatten(payload, v.value if case == v.tag else default(payload), out)
    else:
        raise TypeError(t)


def unflatten(t: Type, slots: Any, start: int = 0) -> Any:
    """The value whose slots begin at ``slots[start]``."""
    return _unflatten(t, slots, start)[0]


def _unflatten(t: Type, s: Any, i: int) -> tuple[Any, int]:
    if isinstance(t, BoolType):
        return bool(s[i]), i + 1
    if isinstance(t, IntType):
        return int(s[i]), i + 1
    if isinstance(t, (EnumType, ModelType)):
        return t.members[int(s[i])], i + 1
    if isinstance(t, OptionType):
        tag = int(s[i])
        value, j = _unflatten(t.elem, s, i + 1)
        return (value if tag else None), j
    if sparse(t):
        n = int(s[i])
        ranks = [int(s[i + 1 + k]) for k in range(n)]
        if isinstance(t, SetType):
            return frozenset(unrank(t.elem, r) for r in ranks), i + 1 + t.capacity
        counts: dict[Any, int] = {}
        for r in ranks:
            value = unrank(t.elem, r)
            counts[value] = counts.get(value, 0) + 1
        return FrozenDict(counts), i + 1 + t.capacity
    if isinstance(t, SetType):
        n = width(t)
        bits = 0
        for k in range(n):
            bits |= to_unsigned(int(s[i + k])) << (64 * k)
        return frozenset(unrank(t.elem, r) for r in range(bits.bit_length()) if bits >> r & 1), i + n
    if isinstance(t, MapType):
        d = {}
        for r in range(rank_size(t.key)):
            d[unrank(t.key, r)], i = _unflatten(t.value, s, i)
        return FrozenDict(d), i
    if isinstance(t, SeqType):
        length = int(s[i])
        i += 1
        out = []
        for k in range(t.capacity):
            value, i = _unflatten(t.elem, s, i)
            if k < length:
                out.append(value)
        return tuple(out), i
    if isinstance(t, BagType):
        n = rank_size(t.elem)
        counts = {unrank(t.elem, r): int(s[i + r]) for r in range(n) if int(s[i + r]) > 0}
        return FrozenDict(counts), i + n
    if isinstance(t, RecordType):
        d = {}
        for n, ft in t.fields:
            d[n], i = _unflatten(ft, s, i)
        return FrozenDict(d), i
    if isinstance(t, TupleType):
        out = []
        for ft in t.elems:
            value, i = _unflatten(ft, s, i)
            out.append(value)
        return tuple(out), i
    if isinstance(t, VariantType):
        tag = int(s[i])
        i += 1
        taken = None
        for k, (case, payload) in enumerate(t.cases):
            value, i = _unflatten(payload, s, i)
            if k == tag:
                taken = Variant(case, value)
        return taken, i
    raise TypeError(t)
