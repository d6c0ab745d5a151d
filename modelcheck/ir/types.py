"""The finite types of the IR.

Every type here has a finite, enumerable domain; the front end rejects anything
else (an unbounded ``int``, a set over an infinite type).  Int bounds and
sequence/bag capacities are part of the type so that engines can size their
encodings (bit widths, slots) statically.

Two types are *compatible* when they have the same shape; int bounds and
capacities may differ (a value is checked against the declared type of the
variable it is written to, at run time: MC5001).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Union

__all__ = [
    "BoolType", "IntType", "EnumType", "ModelType", "SetType", "MapType",
    "SeqType", "BagType", "RecordType", "TupleType", "OptionType", "VariantType", "Type",
    "BOOL", "MAX_ENUMERABLE", "MAX_RANGE_SET", "compatible", "join", "render_type", "render_int",
]

#: The most values a type may have where engines enumerate it (MC4007).
MAX_ENUMERABLE = 2 ** 16

#: The most values a range ``lo..hi`` may have where it is built as a set
#: (MC4007 in a constant, MC5007 at run time).  Its len, membership, min, max
#: and iteration never build it, so they have no such limit.
MAX_RANGE_SET = 2 ** 20


@dataclass(frozen=True)
class BoolType:
    pass


@dataclass(frozen=True)
class IntType:
    """Integers lo..hi inclusive.  Expression types carry the static interval
    computed by the type checker, so engines know every intermediate range."""
    lo: int
    hi: int


@dataclass(frozen=True)
class EnumType:
    name: str
    members: tuple[str, ...]


@dataclass(frozen=True)
class ModelType:
    """A set of interchangeable named ids (model values), e.g. the nodes.
    ``symmetric`` types may be reduced under permutation by engines."""
    name: str
    members: tuple[str, ...]
    symmetric: bool = False


@dataclass(frozen=True)
class SetType:
    """Sets of ``elem``; ``capacity``, where given (``set[T, cap]``), bounds
    the number of elements: a larger value written to a variable of this
    type is the run-time error MC5001.  Engines size sparse encodings by it."""
    elem: "Type"
    capacity: int | None = None


@dataclass(frozen=True)
class MapType:
    """A total function from every value of ``key`` to a ``value``.
    Partial maps are written ``map[K, option[V]]``."""
    key: "Type"
    value: "Type"


@dataclass(frozen=True)
class SeqType:
    """Sequences of at most ``capacity`` elements, indexed from 0."""
    elem: "Type"
    capacity: int


@dataclass(frozen=True)
class BagType:
    """Multisets holding at most ``capacity`` elements in total."""
    elem: "Type"
    capacity: int


@dataclass(frozen=True)
class RecordType:
    """Named fields, in declaration order.  ``name`` is the declared type name
    (used as the constructor, ``Msg(term=1, ...)``), or None if anonymous."""
    name: str | None
    fields: tuple[tuple[str, "Type"], ...]

    def field_type(self, field: str) -> "Type":
        for name, ftype in self.fields:
            if name == field:
                return ftype
        raise KeyError(field)


@dataclass(frozen=True)
class TupleType:
    elems: tuple["Type", ...]


@dataclass(frozen=True)
class OptionType:
    """``none`` or ``some(v)``; options do not nest."""
    elem: "Type"


@dataclass(frozen=True)
class VariantType:
    """A sum type: a value is one of the ``cases``, each with its own fields.
    A case's fields are a ``RecordType`` named after the case; a case without
    fields has a record with no fields.  Case order is declaration order
    (the canonical order of values: by case, then by fields)."""
    name: str
    cases: tuple[tuple[str, RecordType], ...]

    def case_type(self, case: str) -> RecordType:
        for name, payload in self.cases:
            if name == case:
                return payload
        raise KeyError(case)

    def case_index(self, case: str) -> int:
        for i, (name, _) in enumerate(self.cases):
            if name == case:
                return i
        raise KeyError(case)


Type = Union[BoolType, IntType, EnumType, ModelType, SetType, MapType, SeqType,
             BagType, RecordType, TupleType, OptionType, VariantType]

BOOL = BoolType()


def compatible(a: Type, b: Type) -> bool:
    """Same shape, ignoring int bounds and capacities."""
    return join(a, b) is not None


def join(a: Type, b: Type) -> Type | None:
    """The smallest type holding the values of both, or None if the shapes differ."""
    if isinstance(a, IntType) and isinstance(b, IntType):
        return IntType(min(a.lo, b.lo), max(a.hi, b.hi))
    if type(a) is not type(b):
        return None
    if isinstance(a, (BoolType, EnumType, ModelType, VariantType)):
        # Variants join by name: a case's int fields are its declared types.
        return a if a == b else None
    if isinstance(a, SetType):
        e = join(a.elem, b.elem)
        if e is None:
            return None
        cap = None if a.capacity is None or b.capacity is None else max(a.capacity, b.capacity)
        return SetType(e, cap)
    if isinstance(a, OptionType):
        e = join(a.elem, b.elem)
        return None if e is None else OptionType(e)
    if isinstance(a, MapType):
        if a.key != b.key and join(a.key, b.key) != a.key:
            return None
        v = join(a.value, b.value)
        return None if v is None else MapType(a.key, v)
    if isinstance(a, (SeqType, BagType)):
        e = join(a.elem, b.elem)
        return None if e is None else type(a)(e, max(a.capacity, b.capacity))
    if isinstance(a, RecordType):
        if [n for n, _ in a.fields] != [n for n, _ in b.fields]:
            return None
        fields = []
        for (n, ta), (_, tb) in zip(a.fields, b.fields):
            t = join(ta, tb)
            if t is None:
                return None
            fields.append((n, t))
        return RecordType(a.name if a.name == b.name else None, tuple(fields))
    if isinstance(a, TupleType):
        if len(a.elems) != len(b.elems):
            return None
        elems = [join(x, y) for x, y in zip(a.elems, b.elems)]
        return None if any(e is None for e in elems) else TupleType(tuple(elems))
    return None


#: Ints with more bits than this are shown by their size: Python refuses to
#: write more than 4,300 digits, and nobody reads them.
_RENDER_BITS = 4000


def render_int(v: int) -> str:
    """An int as the language writes it, or a short description of a huge one."""
    if v.bit_length() <= _RENDER_BITS:
        return str(v)
    sign = "-" if v < 0 else ""
    return f"{sign}<a number of about {int(v.bit_length() * 0.30103):,} digits>"


def render_type(t: Type) -> str:
    """The type as a user writes it."""
    if isinstance(t, BoolType):
        return "bool"
    if isinstance(t, IntType):
        return f"{render_int(t.lo)}..{render_int(t.hi)}"
    if isinstance(t, (EnumType, ModelType, VariantType)):
        return t.name
    if isinstance(t, SetType):
        if t.capacity is not None:
            return f"set[{render_type(t.elem)}, {t.capacity}]"
        return f"set[{render_type(t.elem)}]"
    if isinstance(t, MapType):
        return f"map[{render_type(t.key)}, {render_type(t.value)}]"
    if isinstance(t, SeqType):
        return f"seq[{render_type(t.elem)}, {t.capacity}]"
    if isinstance(t, BagType):
        return f"bag[{render_type(t.elem)}, {t.capacity}]"
    if isinstance(t, OptionType):
        return f"option[{render_type(t.elem)}]"
    if isinstance(t, TupleType):
        return "tuple[" + ", ".join(render_type(e) for e in t.elems) + "]"
    if isinstance(t, RecordType):
        if t.name:
            return t.name
        return "record {" + ", ".join(f"{n}: {render_type(ft)}" for n, ft in t.fields) + "}"
    raise TypeError(t)
