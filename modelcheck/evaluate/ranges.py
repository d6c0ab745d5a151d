"""Ranges ``lo..hi`` without building them.

A range is a set of ints, but the evaluator never needs one as a set to answer
``len``, ``in``, ``min`` and ``max`` (arithmetic on the bounds) or to iterate
over it (one int at a time): ``len(0..10**21)`` is immediate and
``all(p(i) for i in 0..10**9)`` runs in constant memory.  Only a range kept as
a set value is built, and then only up to ``MAX_RANGE_SET`` values (MC5007,
in ``ops``).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from modelcheck.diagnostics import Diagnostic, Span
from modelcheck.errors import EvalError
from modelcheck.ir.ops import Op

__all__ = ["BEAT_EVERY", "range_elements", "range_answer"]

#: Elements of a range between two heartbeats.
BEAT_EVERY = 1 << 16

Fn = Callable[[tuple, dict], Any]


def range_elements(lo: Fn, hi: Fn, beat: Callable[[], None] | None) -> Fn:
    """The ints of the range, in order, lazily; ``beat`` is called every
    BEAT_EVERY of them, so a long iteration still reports and can time out."""
    def elements(s: tuple, env: dict) -> Iterable[int]:
        first, last = lo(s, env), hi(s, env)
        if beat is None or last - first < BEAT_EVERY:
            return range(first, last + 1)
        return _beating(first, last, beat)
    return elements


def _beating(first: int, last: int, beat: Callable[[], None]) -> Iterator[int]:
    for start in range(first, last + 1, BEAT_EVERY):
        beat()
        yield from range(start, min(start + BEAT_EVERY, last + 1))


def range_answer(op: Op, lo: Fn, hi: Fn, x: Fn | None, span: Span | None) -> Fn:
    """``len``, ``x in``, ``min`` or ``max`` of the range ``lo..hi``."""
    if op is Op.LEN:
        return lambda s, env: max(0, hi(s, env) - lo(s, env) + 1)
    if op is Op.IN:
        assert x is not None
        return lambda s, env: lo(s, env) <= x(s, env) <= hi(s, env)
    smallest = op is Op.SET_MIN

    def bound(s: tuple, env: dict) -> int:
        first, last = lo(s, env), hi(s, env)
        if first > last:
            raise EvalError(Diagnostic("MC5006", f"{'min' if smallest else 'max'} of an "
                                       "empty set", span))
        return first if smallest else last
    return bound
