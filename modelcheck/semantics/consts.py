"""Constants: ``-D`` overrides and compile-time evaluation.

``parse_const_value`` reads a ``-D NAME=VALUE`` value by the const's type;
``normalize_overrides`` checks the names; ``fold`` evaluates a constant IR
expression (const values, type bounds, capacities, ``model(N)`` counts,
tuple indices), or says why it is not constant.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from modelcheck.errors import UsageError
from modelcheck.ir import nodes as ir
from modelcheck.ir.ops import Op
from modelcheck.ir.types import (MAX_RANGE_SET, BoolType, EnumType, IntType, ModelType,
                                 OptionType, Type, VariantType, render_int, render_type)
from modelcheck.ir.values import FrozenDict, Variant

__all__ = ["parse_const_value", "normalize_name", "normalize_overrides", "fold", "NotConstant",
           "TooLarge"]

_INT = re.compile(r"^[+-]?[0-9]+$")

#: More digits than Python converts at once (4,300), with room to spare.
_MAX_DIGITS = 4000


def normalize_name(text: str) -> str:
    """``ha-promote-on-failure`` -> ``ha_promote_on_failure``."""
    return text.strip().replace("-", "_")


def normalize_overrides(overrides: Mapping[str, Any] | None,
                        declared: list[str]) -> dict[str, str]:
    """Overrides keyed by the const they set; UsageError for an unknown name."""
    out: dict[str, str] = {}
    for raw_name, raw_value in (overrides or {}).items():
        name = normalize_name(str(raw_name))
        if name not in declared:
            if declared:
                hint = "the spec's constants are: " + ", ".join(declared)
            else:
                hint = "this spec declares no constants"
            raise UsageError(f"-D {raw_name}: the spec has no constant '{name}'", hint=hint)
        out[name] = _as_text(raw_value)
    return out


def _as_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def parse_const_value(text: str, t: Type, name: str = "") -> Any:
    """The value ``text`` denotes as a ``t``; UsageError if it is not one."""
    label = f"-D {name}={text}" if name else repr(text)
    raw = text.strip()
    if isinstance(t, IntType):
        if not _INT.match(raw):
            raise UsageError(f"{label}: expected an integer in {render_type(t)}")
        if len(raw.lstrip("+-").lstrip("0")) > _MAX_DIGITS:
            # Python refuses to convert more than 4,300 digits; no type holds them.
            raise UsageError(f"-D {name}: the value has more than {_MAX_DIGITS} digits, "
                             f"outside {render_type(t)}")
        value = int(raw)
        if not t.lo <= value <= t.hi:
            raise UsageError(f"{label}: {value} is outside {render_type(t)}",
                             hint=f"{name or 'the constant'} is declared {render_type(t)}")
        return value
    if isinstance(t, BoolType):
        if raw in ("true", "false"):
            return raw == "true"
        raise UsageError(f"{label}: expected true or false")
    if isinstance(t, (EnumType, ModelType)):
        member = normalize_name(raw)
        if member in t.members:
            return member
        raise UsageError(f"{label}: '{raw}' is not a value of {t.name}",
                         hint=f"{t.name} has: " + ", ".join(t.members))
    if isinstance(t, OptionType):
        if raw == "none":
            return None
        match = re.fullmatch(r"some\((.*)\)", raw)
        return parse_const_value(match.group(1) if match else raw, t.elem, name)
    if isinstance(t, VariantType):
        return _parse_variant(raw, t, name, label)
    raise UsageError(f"{label}: a constant of type {render_type(t)} cannot be set with -D",
                     hint="-D sets ints, bools, enum members, model values, options and "
                          "variants")


def _parse_variant(raw: str, t: VariantType, name: str, label: str) -> Variant:
    """``Case`` or ``Case(f=v, ...)``, each field read by its own type."""
    match = re.fullmatch(r"([A-Za-z_][A-Za-z_0-9]*)\s*(?:\((.*)\))?", raw, re.DOTALL)
    cases = [c for c, _ in t.cases]
    if not match or match.group(1) not in cases:
        raise UsageError(f"{label}: expected a case of {t.name}, as written in the spec",
                         hint=f"{t.name} has: " + ", ".join(cases))
    case, inner = match.group(1), (match.group(2) or "").strip()
    payload = t.case_type(case)
    given: dict[str, str] = {}
    for part in _top_level_split(inner) if inner else []:
        field, eq, text = part.partition("=")
        field = field.strip()
        if not eq or field not in dict(payload.fields) or field in given:
            raise UsageError(f"{label}: '{part.strip()}' is not a field of {case} given once "
                             f"as name=value",
                             hint=f"{case} has: " + (", ".join(f for f, _ in payload.fields)
                                                     or "no fields"))
        given[field] = text
    missing = [f for f, _ in payload.fields if f not in given]
    if missing:
        raise UsageError(f"{label}: {case} needs every field; missing: {', '.join(missing)}")
    return Variant(case, FrozenDict({f: parse_const_value(given[f], ft, f"{name}.{f}")
                                     for f, ft in payload.fields}))


def _top_level_split(text: str) -> list[str]:
    """``text`` split at the commas outside parentheses."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p for p in parts if p.strip()]


class NotConstant(Exception):
    """The expression is not a compile-time constant; ``span`` says where."""

    def __init__(self, message: str, span: Any) -> None:
        super().__init__(message)
        self.message = message
        self.span = span


_ARITH = {Op.ADD: lambda a, b: a + b, Op.SUB: lambda a, b: a - b,
          Op.MUL: lambda a, b: a * b, Op.MIN: min, Op.MAX: max,
          Op.EQ: lambda a, b: a == b, Op.NE: lambda a, b: a != b,
          Op.LT: lambda a, b: a < b, Op.LE: lambda a, b: a <= b,
          Op.GT: lambda a, b: a > b, Op.GE: lambda a, b: a >= b,
          Op.UNION: lambda a, b: a | b, Op.INTER: lambda a, b: a & b,
          Op.DIFF: lambda a, b: a - b, Op.SUBSET: lambda a, b: a <= b,
          Op.IN: lambda a, b: a in b}


class TooLarge(NotConstant):
    """The constant is a set too large to build (MC4007)."""


def _range_set(lo: int, hi: int, span: Any) -> frozenset:
    if hi - lo + 1 > MAX_RANGE_SET:
        raise TooLarge(f"the range {render_int(lo)}..{render_int(hi)} has more than "
                       f"{MAX_RANGE_SET} values, too many to build as a set", span)
    return frozenset(range(lo, hi + 1))


def _fold_on_range(expr: ir.Apply, env: Mapping[str, Any]) -> tuple[bool, Any]:
    """(True, value) where ``expr`` asks about a range ``lo..hi`` and the
    answer is arithmetic (len, membership, min, max): ``len(0..10**21)`` is
    never built.  (False, None) otherwise."""
    op, args = expr.op, expr.args
    ranged = args[-1]
    if not ir.asks_a_range(expr):
        return False, None
    lo, hi = (fold(a, env) for a in ranged.args)
    if op is Op.LEN:
        return True, max(0, hi - lo + 1)
    if op is Op.IN:
        return True, lo <= fold(args[0], env) <= hi
    if lo > hi:
        raise NotConstant("min/max of an empty set in a constant expression", expr.span)
    return True, lo if op is Op.SET_MIN else hi


def fold(expr: ir.Expr, env: Mapping[str, Any] | None = None) -> Any:
    """The value of a constant expression (raises NotConstant)."""
    env = env or {}
    if isinstance(expr, ir.Const):
        return expr.value
    if isinstance(expr, ir.Local) and expr.name in env:
        return env[expr.name]
    if isinstance(expr, ir.Var):
        raise NotConstant(f"a constant expression cannot read state variable '{expr.name}'",
                          expr.span)
    if isinstance(expr, ir.IfExpr):
        return fold(expr.then if fold(expr.cond, env) else expr.else_, env)
    if isinstance(expr, ir.LetExpr):
        return fold(expr.body, {**env, expr.name: fold(expr.value, env)})
    if isinstance(expr, ir.SetLit):
        return frozenset(fold(e, env) for e in expr.elems)
    if isinstance(expr, ir.Apply):
        return _fold_apply(expr, env)
    if isinstance(expr, ir.RecordLit):
        return FrozenDict((n, fold(e, env)) for n, e in expr.fields)
    if isinstance(expr, ir.FieldGet):
        return fold(expr.record, env)[expr.field]
    if isinstance(expr, ir.VariantLit):
        return Variant(expr.case, fold(expr.payload, env))
    if isinstance(expr, ir.CaseTest):
        return fold(expr.subject, env).tag == expr.case
    if isinstance(expr, ir.CasePayload):
        return fold(expr.subject, env).value
    raise NotConstant("this is not a constant expression", expr.span)


def _fold_apply(expr: ir.Apply, env: Mapping[str, Any]) -> Any:
    op = expr.op
    if op is Op.AND:
        return all(fold(a, env) for a in expr.args)
    if op is Op.OR:
        return any(fold(a, env) for a in expr.args)
    if op is Op.IMPLIES:
        return (not fold(expr.args[0], env)) or fold(expr.args[1], env)
    done, value = _fold_on_range(expr, env)
    if done:
        return value
    args = [fold(a, env) for a in expr.args]
    if op is Op.RANGE:
        return _range_set(args[0], args[1], expr.span)
    if op is Op.NOT:
        return not args[0]
    if op is Op.NEG:
        return -args[0]
    if op in (Op.DIV, Op.MOD):
        if args[1] == 0:
            raise NotConstant("division by zero in a constant expression", expr.span)
        return args[0] // args[1] if op is Op.DIV else args[0] % args[1]
    if op is Op.LEN and isinstance(args[0], frozenset):
        return len(args[0])
    if op in (Op.SET_MIN, Op.SET_MAX):
        if not args[0]:
            raise NotConstant("min/max of an empty set in a constant expression", expr.span)
        return min(args[0]) if op is Op.SET_MIN else max(args[0])
    if op in _ARITH:
        return _ARITH[op](*args)
    raise NotConstant(f"'{op.value}' cannot be used in a constant expression", expr.span)
