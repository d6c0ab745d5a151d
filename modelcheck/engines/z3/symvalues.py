"""The symbolic values themselves: one class per kind of IR value, each a
fixed structure of Z3 terms with its shape (an IR type), and the fields of a
flattened state variable (``Leaf``).  How they are built and combined is in
``symbolic.Syms``."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Union

import z3

from modelcheck.engines.z3.logic import boolean
from modelcheck.engines.z3.scalars import SNum
from modelcheck.ir.types import (BOOL, BagType, BoolType, EnumType, IntType, MapType, ModelType,
                                 OptionType, RecordType, SeqType, SetType, TupleType, Type,
                                 VariantType)
from modelcheck.ir.values import FrozenDict, Variant, domain

__all__ = ["SBool", "SSet", "SSparse", "SSparseBag", "SMap", "SSeq", "SBag", "SOpt", "SProd", "SVariant", "Sym",
           "Leaf", "EncodingUnsupported", "SET_MODES", "MAX_DOMAIN", "part_types", "default_value"]

#: The representations of sets an encoding may choose.
SET_MODES = ("bv", "bools")

#: The largest domain a set, bag, map key or quantifier may range over.
MAX_DOMAIN = 4096


class EncodingUnsupported(Exception):
    """A construct the Z3 encoding cannot express (a set over a huge domain...);
    engines turn it into UNKNOWN with this message as the reason."""


@dataclass(frozen=True)
class SBool:
    term: z3.BoolRef

    @property
    def type(self) -> Type:
        return BOOL


@dataclass(frozen=True)
class SSet:
    """Bit i says whether ``domain(elem)[i]`` is in the set; exactly one of
    ``bits`` (one boolean per element) and ``bv`` (one bit-vector) is set."""
    elem: Type
    n: int
    bits: tuple[z3.BoolRef, ...] | None = None
    bv: z3.BitVecRef | None = None

    @property
    def type(self) -> Type:
        return SetType(self.elem)

    def bit(self, i: int) -> z3.BoolRef:
        if self.bits is not None:
            return self.bits[i]
        if z3.is_bv_value(self.bv):
            return boolean(bool((self.bv.as_long() >> i) & 1))
        return z3.Extract(i, i, self.bv) == 1

    def all_bits(self) -> list[z3.BoolRef]:
        return [self.bit(i) for i in range(self.n)]


@dataclass(frozen=True)
class SSparse:
    """A set over an element type too large for one bit per element: the
    set of the ``items`` ``(guard, element)`` whose guard holds.  Items may
    repeat and come in any order inside an expression; a canonical value (a
    state's, one converted to a declared type) has ``count`` set, and its
    items are ``(count > j, slot j)`` in strictly ascending rank, the slots
    past the count holding the element type's default (see ``sparse``)."""
    elem: Type
    items: tuple[tuple[z3.BoolRef, "Sym"], ...]
    count: SNum | None = None

    @property
    def type(self) -> Type:
        return SetType(self.elem)


@dataclass(frozen=True)
class SSparseBag:
    """A bag over an element type too large for one count per element: one
    copy of each item's element whose guard holds.  Inside an expression
    items come in any order; a canonical value (a state's, one converted to
    a declared type) has ``count`` set, and its items are ``(count > j,
    slot j)`` in non-decreasing rank, one slot per copy, the slots past the
    count holding the element type's default (see ``sparsebags``).  Its
    shape's capacity is the number of items: how many copies it may hold."""
    elem: Type
    items: tuple[tuple[z3.BoolRef, "Sym"], ...]
    count: SNum | None = None

    @property
    def cap(self) -> int:
        return len(self.items)

    @property
    def type(self) -> Type:
        return BagType(self.elem, len(self.items))


@dataclass(frozen=True)
class SMap:
    key: Type
    value_type: Type
    vals: tuple["Sym", ...]

    @property
    def type(self) -> Type:
        return MapType(self.key, self.value_type)


@dataclass(frozen=True)
class SSeq:
    elem: Type
    cap: int
    length: SNum
    slots: tuple["Sym", ...]

    @property
    def type(self) -> Type:
        return SeqType(self.elem, self.cap)


@dataclass(frozen=True)
class SBag:
    elem: Type
    cap: int
    counts: tuple[SNum, ...]

    @property
    def type(self) -> Type:
        return BagType(self.elem, self.cap)


@dataclass(frozen=True)
class SOpt:
    elem: Type
    present: z3.BoolRef
    value: "Sym"

    @property
    def type(self) -> Type:
        return OptionType(self.elem)


@dataclass(frozen=True)
class SProd:
    """A record or a tuple: ``ptype`` is its (shape) type, ``parts`` in order."""
    ptype: RecordType | TupleType
    parts: tuple["Sym", ...]

    @property
    def type(self) -> Type:
        return self.ptype

    def part_types(self) -> tuple[Type, ...]:
        return part_types(self.ptype)


@dataclass(frozen=True)
class SVariant:
    """A value of a variant type: ``tag`` is the index of its case in
    ``vtype.cases``, ``payloads`` holds one record per case, in case order.
    Only the payload of the case taken counts: in a state the others hold
    their defaults (so equal values have equal fields, as for options).  The
    shape ``vtype`` is the variant type with each case's record in the shape
    of its payload, whose ints may be wider than the case declares until the
    value is converted (see ``shapes``)."""
    vtype: VariantType
    tag: SNum
    payloads: tuple[SProd, ...]

    @property
    def type(self) -> Type:
        return self.vtype


Sym = Union[SBool, SNum, SSet, SSparse, SSparseBag, SMap, SSeq, SBag, SOpt, SProd, SVariant]


@dataclass(frozen=True)
class Leaf:
    """One field of a flattened state variable, for printing lemmas: its
    term, how the spec writes it, its type (bool, int, atom, or a set for a
    bit-vector set), and, for a part that only counts under a condition (the
    value of an option, a sequence slot), that condition and the default the
    field holds otherwise."""
    term: z3.ExprRef
    text: str
    type: Type
    guard: z3.BoolRef | None = None
    default: z3.ExprRef | None = None
    members: tuple[str, ...] = ()


def part_types(t: RecordType | TupleType) -> tuple[Type, ...]:
    if isinstance(t, RecordType):
        return tuple(ft for _, ft in t.fields)
    return t.elems


def default_value(t: Type) -> Any:
    """The value a part that does not count holds (canonical form)."""
    if isinstance(t, BoolType):
        return False
    if isinstance(t, IntType):
        return 0 if t.lo <= 0 <= t.hi else (t.lo if t.lo > 0 else t.hi)
    if isinstance(t, (EnumType, ModelType)):
        return t.members[0]
    if isinstance(t, SetType):
        return frozenset()
    if isinstance(t, MapType):
        return FrozenDict({k: default_value(t.value) for k in domain(t.key)})
    if isinstance(t, SeqType):
        return ()
    if isinstance(t, BagType):
        return FrozenDict()
    if isinstance(t, OptionType):
        return None
    if isinstance(t, RecordType):
        return FrozenDict({n: default_value(ft) for n, ft in t.fields})
    if isinstance(t, TupleType):
        return tuple(default_value(e) for e in t.elems)
    if isinstance(t, VariantType):
        case, payload = t.cases[0]
        return Variant(case, default_value(payload))
    raise TypeError(t)


