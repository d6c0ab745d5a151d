"""Numbers: every operation, on every pair of values of small intervals,
gives Python's answer in both representations (signed bit-vectors sized by
interval arithmetic, and Z3 integers), and the intervals computed contain
every value the operation can produce."""
from __future__ import annotations

import itertools

import pytest
import z3

from modelcheck.engines.z3.scalars import NUM_MODES, Nums, width_for

OPS = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "floordiv": lambda a, b: a // b,
    "mod": lambda a, b: a % b,
    "min": min,
    "max": max,
}
A_RANGE = (-5, 4)
B_RANGE = (-3, 3)


def test_width_for_is_the_smallest_signed_width():
    assert [width_for(0, 0), width_for(-1, 0), width_for(0, 1), width_for(-8, 7), width_for(0, 8)] \
        == [1, 1, 2, 4, 5]


@pytest.mark.parametrize("mode", NUM_MODES)
@pytest.mark.parametrize("op", sorted(OPS))
def test_operation_matches_python(mode, op):
    nums = Nums(mode)
    a, a_ok = nums.var("a", *A_RANGE)
    b, b_ok = nums.var("b", *B_RANGE)
    result = getattr(nums, op)(a, b)
    solver = z3.SolverFor("QF_BV") if mode == "bv" else z3.Solver()
    solver.add(a_ok, b_ok)
    for x, y in itertools.product(range(A_RANGE[0], A_RANGE[1] + 1),
                                  range(B_RANGE[0], B_RANGE[1] + 1)):
        if op in ("floordiv", "mod") and y == 0:
            continue
        want = OPS[op](x, y)
        assert result.lo <= want <= result.hi, (x, y, want, result.lo, result.hi)
        solver.push()
        solver.add(nums.eq_const(a, x), nums.eq_const(b, y))
        assert solver.check() == z3.sat
        assert nums.decode(solver.model(), result) == want, (op, x, y)
        solver.pop()


@pytest.mark.parametrize("mode", NUM_MODES)
def test_comparisons_fold_on_intervals_and_agree_otherwise(mode):
    nums = Nums(mode)
    low, _ = nums.var("low", 0, 2)
    high, _ = nums.var("high", 5, 9)
    assert z3.is_true(nums.cmp("<", low, high))
    assert z3.is_false(nums.cmp("==", low, high))
    x, x_ok = nums.var("x", -4, 4)
    for op, fn in {"<": int.__lt__, "<=": int.__le__, ">": int.__gt__, ">=": int.__ge__,
                   "==": int.__eq__, "!=": int.__ne__}.items():
        for v in range(-4, 5):
            s = z3.Solver()
            s.add(x_ok, nums.eq_const(x, v))
            assert s.check() == z3.sat
            got = z3.is_true(s.model().eval(nums.cmp(op, x, nums.const(1)), model_completion=True))
            assert got == fn(v, 1), (op, v)


@pytest.mark.parametrize("mode", NUM_MODES)
def test_var_constraint_keeps_the_unknown_in_its_interval(mode):
    nums = Nums(mode)
    x, ok = nums.var("x", -3, 5)
    s = z3.Solver()
    s.add(ok, z3.Or(nums.cmp("<", x, nums.const(-3)), nums.cmp(">", x, nums.const(5))))
    # Folding must not hide the question: ask with the raw terms.
    s2 = z3.Solver()
    raw = x.term
    bad = z3.Or(raw < -3, raw > 5) if mode == "int" else z3.Or(raw < z3.BitVecVal(-3, raw.size()),
                                                                 raw > z3.BitVecVal(5, raw.size()))
    s2.add(ok, bad)
    assert s2.check() == z3.unsat


@pytest.mark.parametrize("mode", NUM_MODES)
def test_narrow_and_exact_keep_values_in_range(mode):
    nums = Nums(mode)
    x, ok = nums.var("x", -10, 10)
    narrowed = nums.exact(x, 0, 3)
    assert (narrowed.lo, narrowed.hi) == (0, 3)
    for v in range(0, 4):
        s = z3.Solver()
        s.add(ok, nums.eq_const(x, v))
        assert s.check() == z3.sat
        assert nums.decode(s.model(), narrowed) == v


BIG_OPS = {**OPS, "neg": lambda a, b: -a, "cmp": lambda a, b: a < b}
# Intervals at and beyond the ends of 64-bit arithmetic, with small ones.
BIG_RANGES = [(-(2 ** 63), 2 ** 63 - 1), (0, 2 ** 64), (-(10 ** 20), 3), (-7, 7), (1, 2 ** 70)]


def _corners(lo: int, hi: int) -> list[int]:
    return sorted({v for v in (lo, lo + 1, -1, 0, 1, 2, hi - 1, hi) if lo <= v <= hi})


@pytest.mark.parametrize("mode", NUM_MODES)
@pytest.mark.parametrize("op", sorted(BIG_OPS))
def test_operation_at_the_ends_of_big_intervals_matches_python(mode, op):
    # Products, negation of the minimum, floor division and modulo of
    # negative values: nothing wraps, whatever the widths of the operands.
    for (alo, ahi), (blo, bhi) in itertools.product(BIG_RANGES, repeat=2):
        nums = Nums(mode)
        a, a_ok = nums.var("a", alo, ahi)
        b, b_ok = nums.var("b", blo, bhi)
        if op == "neg":
            result = nums.neg(a)
        elif op == "cmp":
            result = nums.cmp("<", a, b)
        else:
            result = getattr(nums, op)(a, b)
        solver = z3.SolverFor("QF_BV") if mode == "bv" else z3.Solver()
        solver.add(a_ok, b_ok)
        for x, y in itertools.product(_corners(alo, ahi), _corners(blo, bhi)):
            if op in ("floordiv", "mod") and y == 0:
                continue
            want = BIG_OPS[op](x, y)
            solver.push()
            solver.add(nums.eq_const(a, x), nums.eq_const(b, y))
            assert solver.check() == z3.sat
            m = solver.model()
            if op == "cmp":
                assert z3.is_true(m.eval(result, model_completion=True)) == want, (x, y)
            else:
                assert result.lo <= want <= result.hi, (op, x, y, want)
                assert nums.decode(m, result) == want, (op, x, y)
            solver.pop()
