"""Hints for type errors that a Python or TLA+ habit causes: comparing an
option with a value, '-' on a bag, put() on a set, calling an action.

Each takes ``written``, which quotes an AST node as the user wrote it, so the
hint shows the fix in the user's own names: ``take(net, m)``, not
``take(b, x)``.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from modelcheck.ir import types as T
from modelcheck.ir.types import Type, join
from modelcheck.syntax import ast

__all__ = ["option_compare_hint", "bag_operator_hint", "bag_function_hint", "ACTION_CALL_HINT"]

#: For a call of an action inside an expression (`require Inc()`).
ACTION_CALL_HINT = ("an action is one atomic step and cannot be called; put the condition or "
                    "the value it computes in a def (a named expression, e.g. "
                    "def enabled() = x < 3) and use the def both here and in the action")

Written = Callable[[Any, str], str]



def _element(node: Any, written: Written, default: str) -> str:
    """The x of a one-element literal {x}, else the whole expression."""
    if isinstance(node, ast.SetLit) and len(node.elems) == 1:
        return written(node.elems[0], default)
    return written(node, default)


def option_compare_hint(e: ast.BinOp, lt: Type, rt: Type, written: Written) -> str | None:
    """``leader == node1``: the value is some(node1), or leader.value is node1."""
    if isinstance(lt, T.OptionType) and join(lt.elem, rt) is not None:
        opt, value = written(e.left, "o"), written(e.right, "v")
        opt_first = True
    elif isinstance(rt, T.OptionType) and join(rt.elem, lt) is not None:
        opt, value = written(e.right, "o"), written(e.left, "v")
        opt_first = False
    else:
        return None
    wrapped = f"{opt} {e.op} some({value})" if opt_first else f"some({value}) {e.op} {opt}"
    return (f"an option is none or some(v): compare with some(...), {wrapped}, or compare "
            f"its value, {opt}.value {e.op} {value} (when is_some({opt}))")


def bag_operator_hint(e: ast.BinOp, left: Type, written: Written) -> str | None:
    """``net - {m}`` on a bag is take(net, m); ``net + {m}`` or ``net | {m}`` is put."""
    if not isinstance(left, T.BagType) or e.op not in ("-", "+", "|"):
        return None
    bag, elem = written(e.left, "b"), _element(e.right, written, "x")
    if e.op == "-":
        return f"a bag removes one copy of an element with take: take({bag}, {elem})"
    return f"a bag adds one copy of an element with put: put({bag}, {elem})"


def bag_function_hint(func: str, found: Type, args: list[Any], written: Written) -> str | None:
    """put/take/count are for bags; a set has operators instead."""
    if not isinstance(found, T.SetType) or len(args) != 2:
        return None
    s, x = written(args[0], "s"), written(args[1], "x")
    return {"put": f"a set adds an element with '|': {s} | {{{x}}}",
            "take": f"a set removes an element with '-': {s} - {{{x}}}",
            "count": f"an element is in a set at most once: {x} in {s}"}.get(func)
