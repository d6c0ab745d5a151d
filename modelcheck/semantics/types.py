"""Type expressions -> IR types, and the checks that keep every type finite
and enumerable: MC4001 plain ``int``, MC4007 a map key type with more than
``MAX_ENUMERABLE`` values (or a capacity above it), MC4009 an empty range,
MC3012 an option of an option.

Sets, bags and sequences take element types of any finite size (records and
variants of millions of values): a state holds only the elements present,
and engines lay out a large element type sparsely, sized by the capacity.
What must be listed value by value (a map's keys, a type used as a value)
is still bounded.  Nothing here computes ``2**|T|``: ``bounded_size`` stops
at a limit.
"""
from __future__ import annotations

from math import comb
from typing import Any

from modelcheck.ir import types as T
from modelcheck.ir.types import MAX_ENUMERABLE, Type, render_int
from modelcheck.semantics.context import Abort, Env, Unit, show
from modelcheck.semantics.consts import NotConstant, TooLarge, fold
from modelcheck.syntax import ast

__all__ = ["MAX_ENUMERABLE", "bounded_size", "TypesMixin"]


def bounded_size(t: Type, limit: int = MAX_ENUMERABLE) -> int:
    """The number of values of ``t``, or ``limit + 1`` if there are more.
    Never builds a huge integer (``set[set[0..99]]`` would have 2**2**100)."""
    cap = limit + 1
    if isinstance(t, T.BoolType):
        return min(2, cap)
    if isinstance(t, T.IntType):
        return min(max(0, t.hi - t.lo + 1), cap)
    if isinstance(t, (T.EnumType, T.ModelType)):
        return min(len(t.members), cap)
    if isinstance(t, T.OptionType):
        return min(bounded_size(t.elem, limit) + 1, cap)
    if isinstance(t, T.SetType):
        n = bounded_size(t.elem, limit)
        if t.capacity is None or (t.capacity >= n and n < cap.bit_length()):
            return cap if n >= cap.bit_length() else min(2 ** n, cap)
        # subsets of at most capacity elements: sum of C(n, k), k <= capacity
        total = 0
        for k in range(min(t.capacity, n) + 1):
            total += comb(n, k)
            if total >= cap:
                return cap
        return total
    if isinstance(t, T.VariantType):
        total = 0
        for _, payload in t.cases:
            total += bounded_size(payload, limit)
            if total >= cap:
                return cap
        return total
    if isinstance(t, T.MapType):
        return _power(bounded_size(t.value, limit), bounded_size(t.key, limit), cap)
    if isinstance(t, T.SeqType):
        n = bounded_size(t.elem, limit)
        total = 0
        for k in range(t.capacity + 1):
            total += _power(n, k, cap)
            if total >= cap:
                return cap
        return total
    if isinstance(t, T.BagType):
        n = bounded_size(t.elem, limit)
        if n >= cap:
            return cap if t.capacity > 0 else 1
        total = 1
        for k in range(1, t.capacity + 1):
            total = comb(n + k, k)
            if total >= cap:
                return cap
        return total
    if isinstance(t, (T.TupleType, T.RecordType)):
        parts = t.elems if isinstance(t, T.TupleType) else tuple(f for _, f in t.fields)
        total = 1
        for part in parts:
            total = min(total * bounded_size(part, limit), cap)
        return total
    raise TypeError(t)


def _power(base: int, exp: int, cap: int) -> int:
    result = 1
    for _ in range(exp):
        result *= base
        if result >= cap:
            return cap
        if result == 0:
            return 0
    return result


class TypesMixin:
    """Converts ``ast`` type expressions; needs ``expr``, ``named_type`` and
    ``fail`` from the other parts of the checker."""

    def convert_type(self: Any, texpr: Any) -> Type:
        if isinstance(texpr, ast.BoolTypeExpr):
            return T.BOOL
        if isinstance(texpr, ast.IntTypeExpr):
            self.fail("MC4001", "plain 'int' is unbounded, and every type here must be finite",
                      texpr.span, hint="give a range, e.g. 0..10")
        if isinstance(texpr, ast.RangeTypeExpr):
            lo = self.const_int(texpr.lo, "the lower bound of a range")
            hi = self.const_int(texpr.hi, "the upper bound of a range")
            if lo > hi:
                self.fail("MC4009", f"the range {lo}..{hi} is empty", texpr.span,
                          hint="write the smaller bound first")
            return T.IntType(lo, hi)
        if isinstance(texpr, ast.NamedTypeExpr):
            return self.named_type(texpr.name, texpr.span)
        if isinstance(texpr, ast.SetTypeExpr):
            elem = self.convert_type(texpr.elem)
            if texpr.capacity is None:
                return T.SetType(elem)
            return T.SetType(elem, self.capacity(texpr.capacity, "set"))
        if isinstance(texpr, ast.MapTypeExpr):
            key = self.convert_type(texpr.key)
            self.check_enumerable(key, "map key type", texpr.key.span)
            return T.MapType(key, self.convert_type(texpr.value))
        if isinstance(texpr, (ast.SeqTypeExpr, ast.BagTypeExpr)):
            elem = self.convert_type(texpr.elem)
            cap = self.capacity(texpr.capacity,
                                "bag" if isinstance(texpr, ast.BagTypeExpr) else "sequence")
            if isinstance(texpr, ast.BagTypeExpr):
                return T.BagType(elem, cap)
            return T.SeqType(elem, cap)
        if isinstance(texpr, ast.OptionTypeExpr):
            elem = self.convert_type(texpr.elem)
            if isinstance(elem, T.OptionType):
                self.fail("MC3012", f"options do not nest: option[{show(elem)}]", texpr.span,
                          hint="use option[T] once, or an enum to tell the cases apart")
            return T.OptionType(elem)
        if isinstance(texpr, ast.TupleTypeExpr):
            return T.TupleType(tuple(self.convert_type(e) for e in texpr.elems))
        if isinstance(texpr, ast.RecordTypeExpr):
            return T.RecordType(None, tuple((f.name, self.convert_type(f.type))
                                            for f in texpr.fields))
        raise TypeError(f"not an AST type: {texpr!r}")

    def capacity(self: Any, expr: Any, kind: str) -> int:
        """The capacity of a set, bag or sequence type (MC4009, MC4007)."""
        cap = self.const_int(expr, "a capacity")
        if cap < 0:
            self.fail("MC4009", f"a capacity cannot be negative (found {cap})", expr.span)
        if cap > MAX_ENUMERABLE:
            # Engines give each place of a collection its own slot.
            self.fail("MC4007", f"a capacity of {render_int(cap)} is more than the "
                      f"{MAX_ENUMERABLE} places an engine can lay out", expr.span,
                      hint="use a capacity of a few elements: the "
                      f"{'longest' if kind == 'sequence' else 'largest'} {kind} the scenario "
                      "needs")
        return cap

    def check_enumerable(self: Any, t: Type, what: str, span: Any) -> None:
        size = bounded_size(t)
        if size > MAX_ENUMERABLE:
            if isinstance(t, T.IntType) and what == "type":
                # A type name used as a value is the set of all its values.
                hint = (f"write the range itself, {show(t)}, where you only ask about it: "
                        "len, in, min, max and 'for' over a range do not list its values")
            elif isinstance(t, T.IntType):
                hint = "use a smaller range"
            elif what == "map key type":
                hint = ("a map is total over its keys: use a set of pairs "
                        f"(set[tuple[{show(t)}, V], cap]) or a smaller key type")
            elif what == "type":
                hint = ("a type used as a value lists every value of it: range over a "
                        "state variable instead (for m in network, pick m in network)")
            else:
                hint = "use smaller types inside it"
            self.fail("MC4007", f"the {what} {show(t)} has more than {MAX_ENUMERABLE} values, "
                      f"too many to enumerate", span, hint=hint)

    def const_value(self: Any, expr: Any, what: str, expected: Type | None = None) -> tuple:
        """(IR node, value) of a constant expression (MC3006 if it is not one)."""
        env = Env(Unit(what, const=True), {})
        node = self.expr(expr, env, expected)
        try:
            return node, fold(node)
        except TooLarge as err:
            self.fail("MC4007", f"{what}: {err.message}", err.span or expr.span,
                      hint="ask about the range instead of building it: len(lo..hi), "
                           "x in lo..hi, min(lo..hi) and max(lo..hi) are computed directly")
        except NotConstant as err:
            self.fail("MC3006", f"{what} must be a constant: {err.message}",
                      err.span or expr.span,
                      hint="constant expressions use numbers, consts and arithmetic")
        raise Abort()  # unreachable: fail raises

    def const_int(self: Any, expr: Any, what: str) -> int:
        node, value = self.const_value(expr, what)
        if not isinstance(node.type, T.IntType):
            self.fail("MC3001", f"{what} must be an int, found {show(node.type)}", expr.span)
        return value
