"""Boolean connectives that fold constants before Z3 sees them.

The encoder builds many formulas whose parts are often literally true or
false (a guard on a constant parameter, a bit of a constant set); folding them
here keeps the terms handed to the solver small.
"""
from __future__ import annotations

from collections.abc import Iterable

import z3

__all__ = ["TRUE", "FALSE", "conj", "disj", "neg", "implies", "bite", "is_true", "is_false"]

TRUE = z3.BoolVal(True)
FALSE = z3.BoolVal(False)


def is_true(b: z3.BoolRef) -> bool:
    return z3.is_true(b)


def is_false(b: z3.BoolRef) -> bool:
    return z3.is_false(b)


def conj(parts: Iterable[z3.BoolRef]) -> z3.BoolRef:
    kept = []
    for p in parts:
        if z3.is_false(p):
            return FALSE
        if not z3.is_true(p):
            kept.append(p)
    if not kept:
        return TRUE
    return kept[0] if len(kept) == 1 else z3.And(kept)


def disj(parts: Iterable[z3.BoolRef]) -> z3.BoolRef:
    kept = []
    for p in parts:
        if z3.is_true(p):
            return TRUE
        if not z3.is_false(p):
            kept.append(p)
    if not kept:
        return FALSE
    return kept[0] if len(kept) == 1 else z3.Or(kept)


def neg(p: z3.BoolRef) -> z3.BoolRef:
    if z3.is_true(p):
        return FALSE
    if z3.is_false(p):
        return TRUE
    if z3.is_not(p):
        return p.arg(0)
    return z3.Not(p)


def implies(a: z3.BoolRef, b: z3.BoolRef) -> z3.BoolRef:
    if z3.is_false(a) or z3.is_true(b):
        return TRUE
    if z3.is_true(a):
        return b
    if z3.is_false(b):
        return neg(a)
    return z3.Implies(a, b)


def bite(c: z3.BoolRef, a: z3.BoolRef, b: z3.BoolRef) -> z3.BoolRef:
    """``if c then a else b`` on booleans."""
    if z3.is_true(c):
        return a
    if z3.is_false(c):
        return b
    if a.eq(b):
        return a
    if z3.is_true(a) and z3.is_false(b):
        return c
    if z3.is_false(a) and z3.is_true(b):
        return neg(c)
    return z3.If(c, a, b)
