"""Interval arithmetic on int types: the static range of every int expression.

Each function takes the IntTypes of the operands and returns the IntType of
the result: the smallest interval holding every value the operation can
produce on operands in those intervals.  Division and modulo by a divisor
that may be zero describe the non-zero divisors (zero fails at run time,
MC5002); a divisor that can only be zero gives the dividend's range, since
the operation never yields a value.
"""
from __future__ import annotations

from modelcheck.ir.types import IntType

__all__ = ["add", "sub", "mul", "neg", "floordiv", "mod", "minimum", "maximum", "point",
           "hull", "sum_of"]


def point(v: int) -> IntType:
    return IntType(v, v)


def hull(values: list[int]) -> IntType:
    return IntType(min(values), max(values))


def add(a: IntType, b: IntType) -> IntType:
    return IntType(a.lo + b.lo, a.hi + b.hi)


def sub(a: IntType, b: IntType) -> IntType:
    return IntType(a.lo - b.hi, a.hi - b.lo)


def mul(a: IntType, b: IntType) -> IntType:
    return hull([a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi])


def neg(a: IntType) -> IntType:
    return IntType(-a.hi, -a.lo)


def _nonzero_parts(b: IntType) -> list[IntType]:
    parts = []
    if b.lo <= -1:
        parts.append(IntType(b.lo, min(b.hi, -1)))
    if b.hi >= 1:
        parts.append(IntType(max(b.lo, 1), b.hi))
    return parts


def floordiv(a: IntType, b: IntType) -> IntType:
    """Python's ``//`` (floor division)."""
    parts = _nonzero_parts(b)
    if not parts:
        return a
    candidates = []
    for part in parts:
        for x in (a.lo, a.hi):
            for y in (part.lo, part.hi):
                candidates.append(x // y)
    return hull(candidates)


def mod(a: IntType, b: IntType) -> IntType:
    """Python's ``%``: the result has the divisor's sign and is smaller in size."""
    parts = _nonzero_parts(b)
    if not parts:
        return a
    los, his = [], []
    for part in parts:
        if part.lo > 0:
            # 0 <= a % y <= y - 1; a non-negative dividend below y is left as is.
            hi = part.hi - 1
            if a.lo >= 0:
                hi = min(hi, a.hi)
            los.append(0 if a.lo < 0 or a.hi >= part.lo else a.lo)
            his.append(hi)
        else:
            lo = part.lo + 1
            if a.hi <= 0:
                lo = max(lo, a.lo)
            los.append(lo)
            his.append(0 if a.hi > 0 or a.lo <= part.hi else a.hi)
    return IntType(min(los), max(his))


def minimum(a: IntType, b: IntType) -> IntType:
    return IntType(min(a.lo, b.lo), min(a.hi, b.hi))


def maximum(a: IntType, b: IntType) -> IntType:
    return IntType(max(a.lo, b.lo), max(a.hi, b.hi))


def sum_of(elem: IntType, count: int) -> IntType:
    """The sum of at most ``count`` values each in ``elem`` (a SumComp)."""
    return IntType(min(0, count * elem.lo), max(0, count * elem.hi))
