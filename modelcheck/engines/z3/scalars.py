"""Integers and atoms (enum members, model values) as Z3 terms.

A number is an ``SNum``: a Z3 term plus the interval ``lo..hi`` its value is
known to lie in.  The interval is computed here, bottom-up, by interval
arithmetic on the terms themselves, so the encoding never depends on the
front end's static intervals being tight: a bit-vector is always wide enough
for the value it holds, and ``lo == hi`` means the value is a constant (which
lets every operation fold constants in Python before Z3 sees them).

Two representations, chosen by ``Nums(mode)``:

* ``"bv"``: a signed two's-complement bit-vector just wide enough for the
  interval; operands are sign-extended to a common width before an operation,
  and the width of a result covers its interval, so nothing overflows.
* ``"int"``: a Z3 integer (linear arithmetic), which Spacer handles best and
  which prints back as plain arithmetic.

An atom (enum member, model value) is an ``SNum`` holding the member's index
in its type's ``members``, with ``atom`` set to the type.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import z3

from modelcheck.engines.z3.logic import boolean, conj, is_false, is_true
from modelcheck.ir.types import EnumType, IntType, ModelType, Type

__all__ = ["SNum", "Nums", "width_for", "NUM_MODES"]

#: The representations of numbers an encoding may choose.
NUM_MODES = ("bv", "int")


def width_for(lo: int, hi: int) -> int:
    """The smallest signed bit-width holding every value of ``lo..hi``."""
    # v >= 0 needs its bits plus a sign bit; v < 0 as many as ~v = -v - 1 does.
    return max(1, *((v if v >= 0 else ~v).bit_length() + 1 for v in (lo, hi)))


@dataclass(frozen=True)
class SNum:
    """A number: its term, the interval it lies in, the atom type it indexes
    (None for an int) and, when known statically, its value."""
    term: z3.ExprRef
    lo: int
    hi: int
    atom: EnumType | ModelType | None = None
    known: int | None = None

    @property
    def const(self) -> int | None:
        if self.known is not None:
            return self.known
        return self.lo if self.lo == self.hi else None

    @property
    def type(self) -> Type:
        return self.atom if self.atom is not None else IntType(self.lo, self.hi)


def _floordiv_range(alo: int, ahi: int, blo: int, bhi: int) -> tuple[int, int]:
    # a // b is monotone in a, and in b on each side of zero, so the extremes
    # lie at the ends of a's interval and of b's interval split at zero.
    bs = [b for b in (blo, bhi, -1, 1) if blo <= b <= bhi and b != 0]
    if not bs:
        return 0, 0
    vals = [a // b for a in (alo, ahi) for b in bs]
    return min(vals), max(vals)


def _mod_range(blo: int, bhi: int) -> tuple[int, int]:
    lo = blo + 1 if blo < 0 else 0
    hi = bhi - 1 if bhi > 0 else 0
    return min(lo, 0), max(hi, 0)


class Nums:
    """Builds number terms in one representation (``"bv"`` or ``"int"``)."""

    def __init__(self, mode: str):
        if mode not in NUM_MODES:
            raise ValueError(f"unknown number representation {mode!r}")
        self.bv = mode == "bv"
        self._vals: dict[tuple[int, int], z3.ExprRef] = {}
        self._consts: dict[tuple[int, Any], SNum] = {}

    # ---------------------------------------------------------------- building

    def _val(self, v: int, w: int) -> z3.ExprRef:
        # Constants are built once per encoding: the Python API is slow at it.
        key = (v, w)
        term = self._vals.get(key)
        if term is None:
            term = z3.BitVecVal(v, w) if self.bv else z3.IntVal(v)
            self._vals[key] = term
        return term

    def const(self, v: int, atom: EnumType | ModelType | None = None) -> SNum:
        key = (v, atom)
        num = self._consts.get(key)
        if num is None:
            num = SNum(self._val(v, width_for(v, v) if self.bv else 0), v, v, atom, v)
            self._consts[key] = num
        return num

    def var(self, name: str, lo: int, hi: int,
            atom: EnumType | ModelType | None = None) -> tuple[SNum, z3.BoolRef]:
        """A fresh unknown in ``lo..hi``, and the constraint that keeps it there."""
        if self.bv:
            w = width_for(lo, hi)
            term = z3.BitVec(name, w)
            # Only the bounds the width does not already enforce.
            parts = []
            if lo > -(1 << (w - 1)):
                parts.append(term >= z3.BitVecVal(lo, w))
            if hi < (1 << (w - 1)) - 1:
                parts.append(term <= z3.BitVecVal(hi, w))
        else:
            term = z3.Int(name)
            parts = [term >= lo, term <= hi]
        return SNum(term, lo, hi, atom), conj(parts)

    def sort(self, lo: int, hi: int) -> z3.SortRef:
        return z3.BitVecSort(width_for(lo, hi)) if self.bv else z3.IntSort()

    def _fit(self, a: SNum, w: int) -> z3.ExprRef:
        if a.const is not None:
            return self._val(a.const, w)
        size = a.term.size()
        return a.term if size == w else z3.SignExt(w - size, a.term)

    def _terms(self, lo: int, hi: int, *nums: SNum) -> tuple[z3.ExprRef, ...]:
        """The operands in one representation wide enough for ``lo..hi`` and for each of them."""
        if not self.bv:
            return tuple(n.term for n in nums)
        w = max([width_for(lo, hi)] + [width_for(n.lo, n.hi) for n in nums]
                + [n.term.size() for n in nums if n.const is None])
        return tuple(self._fit(n, w) for n in nums)

    def _make(self, term: z3.ExprRef, lo: int, hi: int) -> SNum:
        if lo == hi:
            return self.const(lo)
        return SNum(term, lo, hi)

    # ---------------------------------------------------------------- arithmetic

    def add(self, a: SNum, b: SNum) -> SNum:
        lo, hi = a.lo + b.lo, a.hi + b.hi
        if a.const is not None and b.const is not None:
            return self.const(a.const + b.const)
        x, y = self._terms(lo, hi, a, b)
        return self._make(x + y, lo, hi)

    def sub(self, a: SNum, b: SNum) -> SNum:
        lo, hi = a.lo - b.hi, a.hi - b.lo
        if a.const is not None and b.const is not None:
            return self.const(a.const - b.const)
        x, y = self._terms(lo, hi, a, b)
        return self._make(x - y, lo, hi)

    def neg(self, a: SNum) -> SNum:
        return self.sub(self.const(0), a)

    def mul(self, a: SNum, b: SNum) -> SNum:
        corners = [x * y for x in (a.lo, a.hi) for y in (b.lo, b.hi)]
        lo, hi = min(corners), max(corners)
        if a.const is not None and b.const is not None:
            return self.const(a.const * b.const)
        x, y = self._terms(lo, hi, a, b)
        return self._make(x * y, lo, hi)

    def floordiv(self, a: SNum, b: SNum) -> SNum:
        """``a // b`` (Python's floor division); meaningless when b is 0 (the
        caller raises the MC5002 flag)."""
        if a.const is not None and b.const is not None and b.const != 0:
            return self.const(a.const // b.const)
        lo, hi = _floordiv_range(a.lo, a.hi, b.lo, b.hi)
        r = self.mod(a, b)
        diff = self.sub(a, r)
        if self.bv:
            x, y = self._terms(lo, hi, diff, b)
            return self._make(x / y, lo, hi)   # exact division: signed '/' is fine
        return self._make(self._int_exact_div(diff.term, b.term), lo, hi)

    @staticmethod
    def _int_exact_div(x: z3.ArithRef, y: z3.ArithRef) -> z3.ArithRef:
        # Z3's integer division is Euclidean; on an exact quotient it only
        # differs from the true quotient by sign when y < 0.
        return z3.If(y >= 0, x / y, -(x / -y))

    def mod(self, a: SNum, b: SNum) -> SNum:
        """``a % b`` with Python's sign rule (the result has b's sign)."""
        if a.const is not None and b.const is not None and b.const != 0:
            return self.const(a.const % b.const)
        lo, hi = _mod_range(b.lo, b.hi)
        if self.bv:
            x, y = self._terms(lo, hi, a, b)
            return self._make(x % y, lo, hi)   # bvsmod: the sign follows the divisor
        x, y = a.term, b.term
        r = x % y                                  # Euclidean: 0 <= r < |y|
        return self._make(z3.If(z3.Or(y > 0, r == 0), r, r + y), lo, hi)

    def min(self, a: SNum, b: SNum) -> SNum:
        return self.ite(self.cmp("<=", a, b), a, b)

    def max(self, a: SNum, b: SNum) -> SNum:
        return self.ite(self.cmp(">=", a, b), a, b)

    def total(self, nums: list[SNum]) -> SNum:
        out = self.const(0)
        for n in nums:
            out = self.add(out, n)
        return out

    # ---------------------------------------------------------------- comparison

    def cmp(self, op: str, a: SNum, b: SNum) -> z3.BoolRef:
        """``a op b`` for op in == != < <= > >=, folded on intervals where possible."""
        if op in ("==", "!="):
            decided = None
            if a.hi < b.lo or b.hi < a.lo:
                decided = False
            elif a.const is not None and a.const == b.const:
                decided = True
            if decided is not None:
                return boolean(decided if op == "==" else not decided)
        else:
            lt_always = {"<": a.hi < b.lo, "<=": a.hi <= b.lo, ">": a.lo > b.hi, ">=": a.lo >= b.hi}
            never = {"<": a.lo >= b.hi, "<=": a.lo > b.hi, ">": a.hi <= b.lo, ">=": a.hi < b.lo}
            if lt_always[op]:
                return boolean(True)
            if never[op]:
                return boolean(False)
        lo, hi = min(a.lo, b.lo), max(a.hi, b.hi)
        if a.const is not None and b.const is not None:
            x, y = a.const, b.const
            return boolean({"==": x == y, "!=": x != y, "<": x < y, "<=": x <= y,
                               ">": x > y, ">=": x >= y}[op])
        x, y = self._terms(lo, hi, a, b)
        # Python's comparison operators on Z3 bit-vectors are the signed ones.
        return {"==": x == y, "!=": x != y, "<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y}[op]

    def eq(self, a: SNum, b: SNum) -> z3.BoolRef:
        return self.cmp("==", a, b)

    def eq_const(self, a: SNum, v: int) -> z3.BoolRef:
        return self.cmp("==", a, self.const(v, a.atom))

    def in_range(self, a: SNum, lo: int, hi: int) -> z3.BoolRef:
        parts = []
        if a.lo < lo:
            parts.append(self.cmp(">=", a, self.const(lo)))
        if a.hi > hi:
            parts.append(self.cmp("<=", a, self.const(hi)))
        return conj(parts)

    # ---------------------------------------------------------------- choice and shape

    def ite(self, c: z3.BoolRef, a: SNum, b: SNum) -> SNum:
        if is_true(c):
            return a
        if is_false(c):
            return b
        atom = a.atom if a.atom is not None else b.atom
        lo, hi = min(a.lo, b.lo), max(a.hi, b.hi)
        if a.const is not None and a.const == b.const:
            return self.widen(a, lo, hi)
        lo, hi = min(a.lo, b.lo), max(a.hi, b.hi)
        x, y = self._terms(lo, hi, a, b)
        return SNum(z3.If(c, x, y), lo, hi, atom)

    def widen(self, a: SNum, lo: int, hi: int, atom: EnumType | ModelType | None = None) -> SNum:
        """The same value seen in a wider interval (a common shape for merging)."""
        lo, hi = min(lo, a.lo), max(hi, a.hi)
        (x,) = self._terms(lo, hi, a)
        return SNum(x, lo, hi, atom if atom is not None else a.atom, a.const)

    def narrow(self, a: SNum, lo: int, hi: int) -> SNum:
        """The value seen in ``lo..hi``, assuming it lies there (checked by the caller)."""
        if a.const is not None:
            return self.const(a.const if lo <= a.const <= hi else lo, a.atom)
        new_lo, new_hi = max(lo, a.lo), min(hi, a.hi)
        if new_lo > new_hi:
            return self.const(lo, a.atom)
        if not self.bv:
            return SNum(a.term, new_lo, new_hi, a.atom)
        w = width_for(new_lo, new_hi)
        term = a.term if a.term.size() <= w else z3.Extract(w - 1, 0, a.term)
        return SNum(term, new_lo, new_hi, a.atom)

    def exact(self, a: SNum, lo: int, hi: int) -> SNum:
        """The value in the representation a state variable of ``lo..hi`` has
        (width exactly ``width_for(lo, hi)``), assuming it lies there."""
        n = self.narrow(a, lo, hi)
        if not self.bv:
            return SNum(n.term, lo, hi, a.atom, n.const)
        (x,) = self._terms(lo, hi, n)
        w = width_for(lo, hi)
        if x.size() > w:
            x = z3.Extract(w - 1, 0, x)
        return SNum(x, lo, hi, a.atom, n.const)

    def decode(self, model: z3.ModelRef, a: SNum) -> int:
        if a.const is not None:
            return a.const
        v = model.eval(a.term, model_completion=True)
        return v.as_signed_long() if self.bv else v.as_long()

