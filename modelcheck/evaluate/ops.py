"""The meaning of each built-in operation (``ir.ops.Op``) on run-time values.

Each handler takes the evaluated arguments and returns the result; a handler
that can fail raises ``Fault`` with the MC5xxx code and a plain message, and
the evaluator turns that into an ``EvalError`` carrying the span of the
expression.  Short-circuit operators (and, or, =>) are not here: they need
their arguments unevaluated, so the evaluator handles them itself.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from modelcheck.ir.ops import Op
from modelcheck.ir.types import MAX_RANGE_SET, BagType, Type, render_int
from modelcheck.ir.values import FrozenDict, order_key, render_value

__all__ = ["Fault", "handler_for", "can_fault", "bag_size", "SHORT_CIRCUIT"]

#: Operators whose arguments are evaluated lazily by the evaluator.
SHORT_CIRCUIT = frozenset({Op.AND, Op.OR, Op.IMPLIES})


class Fault(Exception):
    """A run-time error inside an operation, before its span is known."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


def _div(a: int, b: int) -> int:
    if b == 0:
        raise Fault("MC5002", f"division by zero ({a} // 0)")
    return a // b


def _mod(a: int, b: int) -> int:
    if b == 0:
        raise Fault("MC5002", f"modulo by zero ({a} % 0)")
    return a % b


def _range(lo: int, hi: int) -> frozenset:
    # Only a range that is kept as a set gets here; len, membership, min, max
    # and iteration never build one (see the evaluator).
    if hi - lo + 1 > MAX_RANGE_SET:
        raise Fault("MC5007", f"the range {render_int(lo)}..{render_int(hi)} has "
                    f"{render_int(hi - lo + 1)} values, more than the {MAX_RANGE_SET} a set "
                    "may hold when it is built")
    return frozenset(range(lo, hi + 1))


def _set_min(s: frozenset) -> Any:
    if not s:
        raise Fault("MC5006", "min of an empty set")
    return min(s)


def _set_max(s: frozenset) -> Any:
    if not s:
        raise Fault("MC5006", "max of an empty set")
    return max(s)


def _choose(s: frozenset, elem: Type) -> Any:
    # TLC's CHOOSE: the same value for the same set, every time (the first in
    # the canonical order of the element type).
    if not s:
        raise Fault("MC5008", "choose from an empty set: no element satisfies the condition")
    return min(s, key=lambda v: order_key(elem, v))


def _map_get(m: FrozenDict, k: Any) -> Any:
    try:
        return m[k]
    except KeyError:
        # Maps are total over their key type, so a missing key is a key
        # outside that type (an int key computed out of range).
        raise Fault("MC5003", f"map key {k!r} is outside the map's key type") from None


def _map_set(m: FrozenDict, k: Any, v: Any) -> FrozenDict:
    if k not in m:
        raise Fault("MC5003", f"map key {k!r} is outside the map's key type")
    return m.set(k, v)


def _seq_get(s: tuple, i: int) -> Any:
    if not 0 <= i < len(s):
        raise Fault("MC5003", f"sequence index {i} out of range (length {len(s)})")
    return s[i]


def _seq_set(s: tuple, i: int, v: Any) -> tuple:
    if not 0 <= i < len(s):
        raise Fault("MC5003", f"sequence index {i} out of range (length {len(s)})")
    return s[:i] + (v,) + s[i + 1:]


def _head(s: tuple) -> Any:
    if not s:
        raise Fault("MC5003", "head of an empty sequence")
    return s[0]


def _tail(s: tuple) -> tuple:
    if not s:
        raise Fault("MC5003", "tail of an empty sequence")
    return s[1:]


def _slice(s: tuple, i: int | None, j: int | None) -> tuple:
    # Python slice semantics: out-of-range bounds are clamped, never an error.
    return s[i:j]


def _opt_get(o: Any) -> Any:
    if o is None:
        raise Fault("MC5004", ".value of none")
    return o


def _bag_add(b: FrozenDict, x: Any) -> FrozenDict:
    return b.set(x, b.get(x, 0) + 1)


def _bag_remove(b: FrozenDict, x: Any, t: Type | None = None) -> FrozenDict:
    n = b.get(x, 0)
    if n == 0:
        shown = repr(x) if t is None else render_value(t, x)
        raise Fault("MC5005", f"take of {shown}, which is not in the bag")
    if n == 1:
        return FrozenDict((k, c) for k, c in b.items() if k != x)
    return b.set(x, n - 1)


def bag_size(b: FrozenDict) -> int:
    return sum(b.values())


_HANDLERS: dict[Op, Callable[..., Any]] = {
    Op.ADD: lambda a, b: a + b,
    Op.SUB: lambda a, b: a - b,
    Op.MUL: lambda a, b: a * b,
    Op.DIV: _div,
    Op.MOD: _mod,
    Op.NEG: lambda a: -a,
    Op.MIN: min,
    Op.MAX: max,
    Op.EQ: lambda a, b: a == b,
    Op.NE: lambda a, b: a != b,
    Op.LT: lambda a, b: a < b,
    Op.LE: lambda a, b: a <= b,
    Op.GT: lambda a, b: a > b,
    Op.GE: lambda a, b: a >= b,
    Op.NOT: lambda a: not a,
    Op.IN: lambda x, s: x in s,
    Op.UNION: lambda a, b: a | b,
    Op.INTER: lambda a, b: a & b,
    Op.DIFF: lambda a, b: a - b,
    Op.SUBSET: lambda a, b: a <= b,
    Op.RANGE: _range,
    Op.SET_MIN: _set_min,
    Op.SET_MAX: _set_max,
    Op.LEN: len,
    Op.MAP_GET: _map_get,
    Op.MAP_SET: _map_set,
    Op.SEQ_GET: _seq_get,
    Op.SEQ_SET: _seq_set,
    Op.APPEND: lambda s, x: s + (x,),
    Op.CONCAT: lambda s, t: s + t,
    Op.HEAD: _head,
    Op.TAIL: _tail,
    Op.SLICE: _slice,
    Op.TUPLE_GET: lambda t, i: t[i],
    Op.SOME: lambda v: v,
    Op.IS_SOME: lambda o: o is not None,
    Op.IS_NONE: lambda o: o is None,
    Op.OPT_GET: _opt_get,
    Op.BAG_ADD: _bag_add,
    Op.BAG_REMOVE: _bag_remove,
    Op.BAG_COUNT: lambda b, x: b.get(x, 0),
    Op.BAG_DISTINCT: lambda b: frozenset(b.keys()),
}

_FAULTING = frozenset({Op.CHOOSE, Op.RANGE, Op.DIV, Op.MOD, Op.SET_MIN, Op.SET_MAX, Op.MAP_GET, Op.MAP_SET,
                       Op.SEQ_GET, Op.SEQ_SET, Op.HEAD, Op.TAIL, Op.OPT_GET, Op.BAG_REMOVE})


def handler_for(op: Op, arg_types: tuple[Type, ...]) -> Callable[..., Any]:
    """The function computing ``op`` on evaluated arguments of the given types."""
    # len is the only operation whose meaning depends on the argument's type:
    # a bag's size counts repeated elements.
    if op is Op.LEN and arg_types and isinstance(arg_types[0], BagType):
        return bag_size
    if op is Op.CHOOSE:
        elem = arg_types[0].elem
        return lambda s: _choose(s, elem)
    if op is Op.BAG_REMOVE and len(arg_types) == 2:
        # the message shows the element as the spec writes it
        elem = arg_types[1]
        return lambda b, x: _bag_remove(b, x, elem)
    try:
        return _HANDLERS[op]
    except KeyError:
        raise ValueError(f"no handler for operation {op}") from None


def can_fault(op: Op) -> bool:
    """Whether ``op`` may raise ``Fault`` (so its call needs a span)."""
    return op in _FAULTING
