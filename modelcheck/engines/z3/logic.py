"""Boolean connectives that fold constants before Z3 sees them.

The encoder builds many formulas whose parts are often literally true or
false (a guard on a constant parameter, a bit of a constant set); folding them
here keeps the terms handed to the solver small.  Z3 shares equal terms, so
"is this the constant true" is one id comparison (``is_true``), much cheaper
than ``z3.is_true``, which walks the Python API several times: on a spec like
the quorum queue the encoder asks it millions of times.
"""
from __future__ import annotations

from collections.abc import Iterable

import z3

__all__ = ["TRUE", "FALSE", "boolean", "conj", "disj", "neg", "implies", "bite", "is_true",
           "is_false"]

# Immutable constants of Z3's main context (terms are hash-consed there).
TRUE = z3.BoolVal(True)
FALSE = z3.BoolVal(False)
_TRUE_ID = TRUE.get_id()
_FALSE_ID = FALSE.get_id()


def boolean(v: bool) -> z3.BoolRef:
    return TRUE if v else FALSE


def is_true(b: z3.ExprRef) -> bool:
    return b is TRUE or (b is not FALSE and b.get_id() == _TRUE_ID)


def is_false(b: z3.ExprRef) -> bool:
    return b is FALSE or (b is not TRUE and b.get_id() == _FALSE_ID)


def _mk(build, parts: list[z3.BoolRef]) -> z3.BoolRef:
    # The Python API's And/Or re-check every argument's sort; these are all
    # booleans of one context already, so the C call is made directly.
    ctx = parts[0].ctx
    args = (z3.Ast * len(parts))()
    for i, p in enumerate(parts):
        args[i] = p.as_ast()
    return z3.BoolRef(build(ctx.ref(), len(parts), args), ctx)


def conj(parts: Iterable[z3.BoolRef]) -> z3.BoolRef:
    kept = []
    for p in parts:
        if is_false(p):
            return FALSE
        if not is_true(p):
            kept.append(p)
    if not kept:
        return TRUE
    return kept[0] if len(kept) == 1 else _mk(z3.Z3_mk_and, kept)


def disj(parts: Iterable[z3.BoolRef]) -> z3.BoolRef:
    kept = []
    for p in parts:
        if is_true(p):
            return TRUE
        if not is_false(p):
            kept.append(p)
    if not kept:
        return FALSE
    return kept[0] if len(kept) == 1 else _mk(z3.Z3_mk_or, kept)


def neg(p: z3.BoolRef) -> z3.BoolRef:
    if is_true(p):
        return FALSE
    if is_false(p):
        return TRUE
    if z3.is_not(p):
        return p.arg(0)
    return z3.Not(p)


def implies(a: z3.BoolRef, b: z3.BoolRef) -> z3.BoolRef:
    if is_false(a) or is_true(b):
        return TRUE
    if is_true(a):
        return b
    if is_false(b):
        return neg(a)
    return z3.Implies(a, b)


def bite(c: z3.BoolRef, a: z3.BoolRef, b: z3.BoolRef) -> z3.BoolRef:
    """``if c then a else b`` on booleans."""
    if is_true(c):
        return a
    if is_false(c):
        return b
    if a.eq(b):
        return a
    if is_true(a) and is_false(b):
        return c
    if is_false(a) and is_true(b):
        return neg(c)
    return z3.If(c, a, b)
