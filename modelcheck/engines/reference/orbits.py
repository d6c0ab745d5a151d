"""Symmetry reduction by brute force: the oracle for the compiled engine's.

A state's *orbit key* is the smallest, under one fixed total order on
values, of the state renamed by every permutation of every symmetric type
together (the product group: ``n1! * n2! * ...`` renamings, as TLC's
SYMMETRY computes them).  Two states have the same key exactly when one is a
renaming of the other, so a search that keeps one state per key keeps one
state per orbit: its distinct count is the number of orbits, whatever state
of an orbit it happens to meet first.  Nothing here is clever, on purpose:
the compiled engine's signature-and-ties canonical form is checked against
it.  (For speed, the renamed value's key is built in one pass per type by a
function made once per variable, instead of renaming and then ordering.)
"""
from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from typing import Any

from modelcheck.engines.symmetry import involves
from modelcheck.ir.nodes import Model
from modelcheck.ir.types import (BagType, MapType, ModelType, OptionType, RecordType, SeqType,
                                 SetType, TupleType, Type, VariantType)
from modelcheck.ir.values import FrozenDict, Variant

__all__ = ["OrbitKeys", "order_key", "GROUP_LIMIT"]

#: The largest product group reduced by brute force (6! renamings a state:
#: the search tries them all for every state it generates).
GROUP_LIMIT = 720

#: A renaming: for each symmetric type (by position), member -> new member's rank.
Renaming = tuple[dict[str, int], ...]
KeyFn = Callable[[Any, Renaming], Any]


def order_key(v: Any) -> tuple:
    """A key that orders every value of the language totally and tells any
    two different values apart (sets and maps by their sorted contents)."""
    if v is None:
        return (0,)
    if isinstance(v, bool):
        return (1, v)
    if isinstance(v, int):
        return (2, v)
    if isinstance(v, str):
        return (3, v)
    if isinstance(v, tuple):
        return (4, tuple(order_key(x) for x in v))
    if isinstance(v, frozenset):
        return (5, tuple(sorted(order_key(x) for x in v)))
    if isinstance(v, FrozenDict):
        return (6, tuple(sorted((order_key(k), order_key(x)) for k, x in v.items())))
    if isinstance(v, Variant):
        return (7, v.tag, order_key(v.value))
    raise TypeError(f"no order for {type(v).__name__} {v!r}")


def _plain(v: Any, pis: Renaming) -> tuple:
    return order_key(v)


def renamed_key(t: Type, syms: Sequence[ModelType]) -> KeyFn:
    """``f(v, pis)``: a key of ``v`` (a value of ``t``) renamed by ``pis``,
    injective and totally ordered among the values of ``t``."""
    if not any(involves(t, s) for s in syms):
        return _plain
    if isinstance(t, ModelType):
        k = syms.index(t)
        return lambda v, pis: pis[k][v]
    if isinstance(t, OptionType):
        elem = renamed_key(t.elem, syms)
        return lambda v, pis: (0,) if v is None else (1, elem(v, pis))
    if isinstance(t, (SetType, SeqType)):
        elem = renamed_key(t.elem, syms)
        if isinstance(t, SeqType):
            return lambda v, pis: tuple(elem(x, pis) for x in v)
        return lambda v, pis: tuple(sorted(elem(x, pis) for x in v))
    if isinstance(t, BagType):
        elem = renamed_key(t.elem, syms)
        return lambda v, pis: tuple(sorted((elem(x, pis), n) for x, n in v.items()))
    if isinstance(t, MapType):
        key, val = renamed_key(t.key, syms), renamed_key(t.value, syms)
        return lambda v, pis: tuple(sorted((key(k, pis), val(x, pis)) for k, x in v.items()))
    if isinstance(t, TupleType):
        parts = [renamed_key(e, syms) for e in t.elems]
        return lambda v, pis: tuple(f(x, pis) for f, x in zip(parts, v))
    if isinstance(t, RecordType):
        fields = [(name, renamed_key(ft, syms)) for name, ft in t.fields]
        return lambda v, pis: tuple(f(v[name], pis) for name, f in fields)
    if isinstance(t, VariantType):
        cases = {name: renamed_key(payload, syms) for name, payload in t.cases}
        return lambda v, pis: (v.tag, cases[v.tag](v.value, pis))
    raise TypeError(t)


class OrbitKeys:
    """``key(state)``: the orbit key of a state of ``model`` under ``types``."""

    def __init__(self, model: Model, types: Sequence[ModelType]):
        self.types = list(types)
        moved = [i for i, v in enumerate(model.vars)
                 if any(involves(v.type, t) for t in self.types)]
        self.moved = [(i, renamed_key(model.vars[i].type, self.types)) for i in moved]
        self.fixed = [i for i in range(len(model.vars)) if i not in set(moved)]
        per_type = [[{m: r for m, r in zip(t.members, ranks)}
                     for ranks in itertools.permutations(range(len(t.members)))]
                    for t in self.types]
        self.group: list[Renaming] = list(itertools.product(*per_type))

    @staticmethod
    def group_size(types: Sequence[ModelType]) -> int:
        return math.prod(math.factorial(len(t.members)) for t in types)

    def key(self, state: tuple) -> tuple:
        # Variables no renaming touches are keyed once, outside the min.
        fixed = tuple(order_key(state[i]) for i in self.fixed)
        # The smallest tuple, a variable at a time: only the renamings that
        # give the smallest first part can give the smallest whole.
        group = self.group
        parts = []
        for i, f in self.moved:
            keyed = [(f(state[i], pis), pis) for pis in group]
            best = min(k for k, _ in keyed)
            parts.append(best)
            group = [pis for k, pis in keyed if k == best]
        return fixed, tuple(parts)
