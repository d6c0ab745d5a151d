"""Where two traces part: the first step at which their actions or states
differ, what differs there, and where (if anywhere) they reach the same state
again.  Used by ``modelcheck trace diff``."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from modelcheck.ir.nodes import Model
from modelcheck.ir.types import Type
from modelcheck.trace.trace import Step, Trace
from modelcheck.trace.view import Change, step_label, value_changes, var_names, var_types

__all__ = ["TraceDiff", "diff_traces"]


@dataclass(frozen=True)
class TraceDiff:
    """``index`` is the first step (0 = initial state) where the traces differ,
    None when they are the same.  ``label_a``/``label_b``: the step each trace
    takes there (None where that trace has already ended).  ``changes`` go
    from A's state to B's at ``index``.  ``rejoin``: the first pair of later
    steps (in A, in B) that reach the same state, if any."""
    index: int | None
    steps_a: int
    steps_b: int
    label_a: str | None = None
    label_b: str | None = None
    action_differs: bool = False
    changes: tuple[Change, ...] = ()
    rejoin: tuple[int, int] | None = None

    @property
    def same(self) -> bool:
        return self.index is None


def _state_key(state: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
    return tuple(sorted(state.items()))


def _same_step(a: Step, b: Step) -> bool:
    return a.action == b.action and a.params == b.params and a.state == b.state


def diff_traces(a: Trace, b: Trace, model: Model | None = None) -> TraceDiff:
    """Compare ``a`` and ``b`` step by step."""
    common = 0
    while (common < len(a.steps) and common < len(b.steps)
           and _same_step(a.steps[common], b.steps[common])):
        common += 1
    if common == len(a.steps) == len(b.steps):
        return TraceDiff(None, len(a), len(b))
    step_a = a.steps[common] if common < len(a.steps) else None
    step_b = b.steps[common] if common < len(b.steps) else None
    types: dict[str, Type | None] = {**var_types(b, model), **var_types(a, model)}
    changes: list[Change] = []
    if step_a is not None and step_b is not None:
        for name in var_names(a, model) + [n for n in var_names(b, model) if n not in a.steps[0].state]:
            in_a, in_b = name in step_a.state, name in step_b.state
            if in_a and in_b:
                changes.extend(value_changes(name, step_a.state[name], step_b.state[name],
                                             types.get(name)))
            elif in_a or in_b:
                changes.append(Change(name, (), "removed" if in_a else "added",
                                      "(only in A)" if in_a else None,
                                      "(only in B)" if in_b else None))
    action_differs = (step_a is not None and step_b is not None
                      and (step_a.action, step_a.params) != (step_b.action, step_b.params))
    return TraceDiff(
        index=common,
        steps_a=len(a),
        steps_b=len(b),
        label_a=step_label(step_a, model, common) if step_a is not None else None,
        label_b=step_label(step_b, model, common) if step_b is not None else None,
        action_differs=action_differs,
        changes=tuple(changes),
        rejoin=_rejoin(a, b, common),
    )


def _rejoin(a: Trace, b: Trace, start: int) -> tuple[int, int] | None:
    later_b: dict[tuple[tuple[str, Any], ...], int] = {}
    for j in range(start + 1, len(b.steps)):
        later_b.setdefault(_state_key(b.steps[j].state), j)
    best: tuple[int, int] | None = None
    for i in range(start + 1, len(a.steps)):
        j = later_b.get(_state_key(a.steps[i].state))
        if j is not None and (best is None or i + j < best[0] + best[1]):
            best = (i, j)
    return best
