"""Reached states with parent pointers: the path from an initial state to a
node, and the trace steps along it.

A search that keeps, for each state it reached, the action and parameters
that reached it and the node before (``trace.scenario_run``'s replay of a
scenario, ``conform.belief``'s states the real system may be in) turns a
node back into a trace with these.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from modelcheck.engines.reference.evaluator import Evaluator
from modelcheck.trace.trace import Step

__all__ = ["path_to", "path_steps"]

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
