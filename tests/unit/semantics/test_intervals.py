"""Interval arithmetic: every result lies in the computed interval, and the
interval is tight on the examples where it should be."""
from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from modelcheck.ir.types import IntType
from modelcheck.semantics import intervals as I

small = st.integers(-6, 6)


@st.composite
def interval(draw):
    lo = draw(small)
    return IntType(lo, draw(st.integers(lo, 6)))


def values(t):
    return range(t.lo, t.hi + 1)


OPS = [
    (I.add, lambda a, b: a + b),
    (I.sub, lambda a, b: a - b),
    (I.mul, lambda a, b: a * b),
    (I.floordiv, lambda a, b: a // b),
    (I.mod, lambda a, b: a % b),
    (I.minimum, min),
    (I.maximum, max),
]


@settings(max_examples=300, deadline=None)
@given(interval(), interval())
def test_every_result_is_inside_and_the_bounds_are_reached(a, b):
    for interval_fn, concrete in OPS:
        result = interval_fn(a, b)
        outcomes = [concrete(x, y) for x, y in itertools.product(values(a), values(b))
                    if not (concrete in (OPS[3][1], OPS[4][1]) and y == 0)]
        for v in outcomes:
            assert result.lo <= v <= result.hi, (interval_fn.__name__, a, b, v, result)
        if outcomes and interval_fn is not I.mod:
            # tight: both ends are produced by some operands
            assert min(outcomes) == result.lo and max(outcomes) == result.hi, \
                (interval_fn.__name__, a, b, result)


@given(interval())
def test_negation(a):
    assert I.neg(a) == IntType(-a.hi, -a.lo)


def test_division_by_an_interval_that_is_only_zero_keeps_the_dividend():
    assert I.floordiv(IntType(2, 5), IntType(0, 0)) == IntType(2, 5)
    assert I.mod(IntType(2, 5), IntType(0, 0)) == IntType(2, 5)


def test_mod_examples():
    assert I.mod(IntType(0, 10), IntType(3, 3)) == IntType(0, 2)
    assert I.mod(IntType(0, 1), IntType(3, 5)) == IntType(0, 1)
    assert I.mod(IntType(-5, 5), IntType(-3, -3)) == IntType(-2, 0)


def test_sum_of():
    assert I.sum_of(IntType(1, 2), 3) == IntType(0, 6)
    assert I.sum_of(IntType(-1, 2), 3) == IntType(-3, 6)
