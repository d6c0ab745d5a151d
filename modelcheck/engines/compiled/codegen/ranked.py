"""Records bound by a loop over a set, kept as their rank until read.

A set of records is a bitset or a sparse list of ranks, and a loop over it
used to unrank every element into slots, every field at once, before the
body ran.  Raft's ``ElectionSafety`` reads two scalar fields of each pair
of elections, and unranking whole elections (their logs and vote maps) was
a quarter of Raft's search.  A loop now binds such a record as ``Ranked``:
a field read takes its one digit of the mixed-radix rank (the last field
is the lowest digit, as ``ValueGen.unrank_into`` lays them out) and
unranks that field alone; any other use unranks the whole record where it
is used, as before.
"""
from __future__ import annotations

from dataclasses import dataclass

from modelcheck.engines.compiled.codegen.source import Val
from modelcheck.engines.compiled.codegen.values import ValueGen
from modelcheck.engines.compiled.reps import field_types, rank_size
from modelcheck.ir.types import RecordType, Type

__all__ = ["Ranked", "bind_rank", "whole", "field"]


@dataclass(frozen=True)
class Ranked:
    """A record of type ``type`` whose rank is the local ``rank``."""
    rank: str
    type: RecordType


def bind_rank(gen: ValueGen, r: str, t: Type) -> "Val | Ranked":
    """What a loop binds to its variable for the element ranked ``r``."""
    if isinstance(t, RecordType) and len(t.fields) > 1:
        return Ranked(r, t)
    return gen.unrank(r, t)


def whole(gen: ValueGen, value: "Val | Ranked") -> Val:
    """``value`` as slots: a ``Ranked`` record is unranked here."""
    if isinstance(value, Ranked):
        return gen.unrank(value.rank, value.type)
    return value


def field(gen: ValueGen, value: Ranked, name: str) -> Val:
    """Field ``name`` of a ranked record, unranked from its own digit."""
    fields = field_types(value.type)
    index = [n for n, _ in value.type.fields].index(name)
    below = 1
    for ft in fields[index + 1:]:
        below *= rank_size(ft)
    digit = f"{value.rank} // {below}" if below > 1 else value.rank
    if index > 0:
        digit = f"({digit}) % {rank_size(fields[index])}"
    return gen.unrank(gen.src.let(digit, "d"), fields[index])
