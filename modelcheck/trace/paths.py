"""Reached states with parent pointers: the path from an initial state to a
node, and the trace steps along it.

A search that keeps, for each state it reached, the action and parameters
that reached it and the node before (``trace.scenario_run``'s replay of a
scenario, ``conform.belief``'s states the real system may be in) turns a
node back into a trace with these; an engine that keeps (action, params,
state) triples turns them into a Trace with ``trace_of``.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from modelcheck.evaluate.evaluator import Evaluator, State
from modelcheck.trace.trace import Step, Trace

__all__ = ["path_to", "path_steps", "trace_of"]

#: A node: ``state``, ``action``, ``params`` and ``parent`` (None at an initial state).
N = TypeVar("N")


def path_to(node: N) -> list[N]:
    """``node`` and the nodes before it, from the initial state to ``node``."""
    out: list[N] = []
    cur: Any = node
    while cur is not None:
        out.append(cur)
        cur = cur.parent
    return out[::-1]


def path_steps(evaluator: Evaluator, path: Sequence[Any]) -> list[Step]:
    """The trace steps along ``path``: each node's action, parameters and state."""
    return [Step(n.action, n.params, evaluator.state_dict(n.state)) for n in path]


def trace_of(evaluator: Evaluator, path: Sequence[tuple[str | None, tuple, State]], kind: str,
             property_name: str | None = None) -> Trace:
    """A Trace from (action, params, state) triples, the first one initial."""
    steps = [Step(a, tuple(p), evaluator.state_dict(s)) for a, p, s in path]
    return Trace(evaluator.model.name, steps, kind=kind, property_name=property_name)
