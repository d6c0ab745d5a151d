"""The packed state layout, shared by the compiled and the Spark engines.

A state is a fixed-width vector of 64-bit words.  Each state variable is
flattened into slots (``reps``), and each slot becomes a bit field just wide
enough for its declared type: ``lo..hi`` takes ``bits_for(hi - lo + 1)`` bits
and stores ``v - lo``; an enum or model value (or a variant's tag) its index;
a set its bitset; a sequence or bag length/count ``bits_for(capacity + 1)``
bits; a sparse set or bag's element ranks ``bits_for(domain size)`` bits each.  A field never
straddles two words, so reading one is a shift and a mask.  Unused slots hold
their type's default value, which is stored as zero bits, so a state has
exactly one packing and ``unpack(pack(s)) == s``.

The state tuple is the variables' values in declaration order, as
``modelcheck.ir.values`` represents them.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from modelcheck.engines.compiled.reps import (Unsupported, bits_for, flatten, sparse, to_signed,
                                              to_unsigned, unflatten, width)
from modelcheck.ir.nodes import Model
from modelcheck.ir.types import (BagType, BoolType, EnumType, IntType, MapType, ModelType,
                                 OptionType, RecordType, SeqType, SetType, TupleType, Type,
                                 VariantType)
from modelcheck.ir.values import domain_size

__all__ = ["Field", "VarSlots", "Layout", "slot_fields", "MAX_SLOTS"]

#: The most slots (unpacked int64 values) a state may have.
MAX_SLOTS = 1 << 16


@dataclass(frozen=True)
class Field:
    """Where one slot lives: ``(word >> shift) & mask`` holds ``slot - lo``."""
    word: int
    shift: int
    bits: int
    lo: int

    @property
    def mask(self) -> int:
        return (1 << self.bits) - 1


@dataclass(frozen=True)
class VarSlots:
    """A state variable's run of slots: ``first .. first + count - 1``."""
    name: str
    type: Type
    first: int
    count: int

    @property
    def stop(self) -> int:
        return self.first + self.count


def slot_fields(t: Type) -> list[tuple[int, int]]:
    """(bits, lo) of every slot of a value of ``t``, in slot order."""
    out: list[tuple[int, int]] = []
    _slot_fields(t, out)
    return out


def _slot_fields(t: Type, out: list[tuple[int, int]]) -> None:
    if isinstance(t, BoolType):
        out.append((1, 0))
    elif isinstance(t, IntType):
        out.append((bits_for(t.hi - t.lo + 1), t.lo))
    elif isinstance(t, (EnumType, ModelType)):
        out.append((bits_for(len(t.members)), 0))
    elif isinstance(t, OptionType):
        out.append((1, 0))
        _slot_fields(t.elem, out)
    elif sparse(t):
        out.append((bits_for(t.capacity + 1), 0))
        out.extend([(bits_for(domain_size(t.elem)), 0)] * t.capacity)
    elif isinstance(t, SetType):
        chunks = width(t)          # declines a set it cannot lay out first
        ranks = domain_size(t.elem)
        for k in range(chunks):
            out.append((max(0, min(64, ranks - 64 * k)), 0))
    elif isinstance(t, MapType):
        inner = slot_fields(t.value)
        out.extend(inner * domain_size(t.key))
    elif isinstance(t, SeqType):
        out.append((bits_for(t.capacity + 1), 0))
        out.extend(slot_fields(t.elem) * t.capacity)
    elif isinstance(t, BagType):
        out.extend([(bits_for(t.capacity + 1), 0)] * domain_size(t.elem))
    elif isinstance(t, RecordType):
        for _, ft in t.fields:
            _slot_fields(ft, out)
    elif isinstance(t, TupleType):
        for ft in t.elems:
            _slot_fields(ft, out)
    elif isinstance(t, VariantType):
        out.append((bits_for(len(t.cases)), 0))
        for _, payload in t.cases:
            _slot_fields(payload, out)
    else:
        raise TypeError(t)


class Layout:
    """The packed layout of one model's states.

    ``words``: W, the words per state.  ``slots``: the total number of slots
    (the length of an unpacked state).  ``fields[i]``: where slot ``i`` lives.
    ``vars``: each variable's run of slots.
    """

    def __init__(self, var_types: Sequence[tuple[str, Type]]):
        self.vars: tuple[VarSlots, ...] = ()
        fields: list[Field] = []
        varslots = []
        word, bit = 0, 0
        for name, t in var_types:
            first = len(fields)
            for bits, lo in slot_fields(t):
                if bits == 0:
                    # A slot with one possible value stores nothing.  Its
                    # shift must stay below 64 all the same: a shift by 64
                    # is undefined in the generated code (LLVM makes the
                    # whole word poison), which a full word would give it.
                    fields.append(Field(word, 0, 0, lo))
                    continue
                if bit + bits > 64:
                    word, bit = word + 1, 0
                fields.append(Field(word, bit, bits, lo))
                bit += bits
            varslots.append(VarSlots(name, t, first, len(fields) - first))
        if len(fields) > MAX_SLOTS:
            raise Unsupported(f"a state of {len(fields):,} slots (at most {MAX_SLOTS:,})")
        self.vars = tuple(varslots)
        self.fields: tuple[Field, ...] = tuple(fields)
        self.slots = len(fields)
        self.words = max(1, word + (1 if bit > 0 else 0))
        self.bits_used = sum(f.bits for f in fields)

    @classmethod
    def from_model(cls, model: Model) -> "Layout":
        return cls([(v.name, v.type) for v in model.vars])

    def __reduce__(self) -> Any:
        return (Layout, ([(v.name, v.type) for v in self.vars],))

    def var(self, name: str) -> VarSlots:
        for v in self.vars:
            if v.name == name:
                return v
        raise KeyError(name)

    def words_of(self, name: str) -> tuple[int, ...]:
        """The words holding some bit of variable ``name``."""
        v = self.var(name)
        return tuple(sorted({self.fields[i].word for i in range(v.first, v.stop)
                             if self.fields[i].bits > 0}))

    # ---------------------------------------------------------------- slots

    def flatten_state(self, state: Sequence[Any]) -> list[int]:
        out: list[int] = []
        for v, value in zip(self.vars, state):
            out.extend(flatten(v.type, value))
        return out

    def unflatten_state(self, slots: Sequence[int]) -> tuple[Any, ...]:
        return tuple(unflatten(v.type, slots, v.first) for v in self.vars)

    def pack_slots(self, slots: Sequence[int]) -> np.ndarray:
        words = [0] * self.words
        for f, s in zip(self.fields, slots):
            if f.bits:
                words[f.word] |= ((int(s) - f.lo) & f.mask) << f.shift
        return np.array([to_signed(w) for w in words], dtype=np.int64).view(np.uint64)

    def unpack_slots(self, words: np.ndarray) -> list[int]:
        raw = [to_unsigned(int(w)) for w in np.asarray(words).view(np.int64)]
        out = []
        for f in self.fields:
            value = (raw[f.word] >> f.shift) & f.mask
            out.append(to_signed(value) if f.bits == 64 else value + f.lo)
        return out

    # ---------------------------------------------------------------- states

    def pack(self, state: Sequence[Any]) -> np.ndarray:
        """The state tuple (values in variable order) as W uint64 words."""
        return self.pack_slots(self.flatten_state(state))

    def unpack(self, words: np.ndarray) -> tuple[Any, ...]:
        """The state tuple packed in ``words`` (W uint64 or int64 words)."""
        return self.unflatten_state(self.unpack_slots(words))

    def to_dict(self, state: Sequence[Any]) -> dict[str, Any]:
        return {v.name: value for v, value in zip(self.vars, state)}

    def describe(self) -> str:
        """One line per variable: its slots and bits (for --verbose and dumps)."""
        lines = [f"{self.words} words, {self.slots} slots, {self.bits_used} bits used"]
        for v in self.vars:
            bits = sum(f.bits for f in self.fields[v.first:v.stop])
            lines.append(f"  {v.name}: slots {v.first}..{v.stop - 1}, {bits} bits, "
                         f"words {list(self.words_of(v.name))}")
        return "\n".join(lines)
