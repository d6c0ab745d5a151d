"""Constants read at run time: one kernel for every value of a spec's flags.

A spec's ``bool`` and ``enum`` constants (``commit_rule``, ``vote_log_check``,
a mutant's switch) change what the actions do, never the state layout: their
types do not depend on their values.  The code generator emits a read of the
kernel's scratch array ``S`` for each of them instead of the value, so the
generated source, and with it the cache key, is the same for every value; the
engine writes the values into ``S`` before it searches.  ``make check`` runs a
row and its mutants on one kernel, and a ``-D`` of a flag compiles nothing.

Integer constants stay built in: their values are in the types of the
expressions that read them (``0..max_crashes``), which size collections and
range checks, so a kernel shared across their values is rare (measured in
docs/engines/compiled.md), and folding them keeps loops over ``1..N``
unrolled.
"""
from __future__ import annotations

from typing import Any

from modelcheck.engines.compiled.reps import flatten
from modelcheck.ir import nodes as ir
from modelcheck.ir.types import BoolType, EnumType

__all__ = ["is_runtime", "Params"]


def is_runtime(e: Any) -> bool:
    """Whether ``e`` is a constant the kernel reads at run time."""
    return isinstance(e, ir.Const) and e.name is not None \
        and isinstance(e.type, (BoolType, EnumType))


class Params:
    """The run-time constants one generated module reads: each has a slot at
    ``S[PARAM_OFF + slot]``, numbered in the order the generator meets them
    (a function of the source, so equal sources agree on the slots)."""

    def __init__(self) -> None:
        self._slots: dict[str, tuple[int, int]] = {}   # name -> (slot, encoded value)

    def read(self, e: ir.Const) -> str:
        """Code for ``e``'s value, read from the scratch array."""
        assert e.name is not None
        hit = self._slots.get(e.name)
        if hit is None:
            hit = (len(self._slots), _encode(e))
            self._slots[e.name] = hit
        elif hit[1] != _encode(e):
            raise AssertionError(f"constant {e.name} read with two values")
        at = f"S[PARAM_OFF + {hit[0]}]"
        return f"({at} != 0)" if isinstance(e.type, BoolType) else at

    def __len__(self) -> int:
        return len(self._slots)

    def values(self) -> list[tuple[int, int]]:
        """(slot, encoded value) of each constant, for this run's ``S``."""
        return list(self._slots.values())


def _encode(e: ir.Const) -> int:
    if isinstance(e.type, BoolType):
        return int(bool(e.value))
    return int(flatten(e.type, e.value)[0])
