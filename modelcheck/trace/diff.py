"""Where two traces part: the first step at which their actions or states
differ, what differs there, and where (if anywhere) they reach the same state
again.  Used by ``modelcheck trace diff``."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from modelcheck.ir.nodes import Model
from modelcheck.ir.types import Type
from modelcheck.trace.lasso import cycle_end_phrase
from modelcheck.trace.trace import Step, Trace
from modelcheck.trace.view import (Change, format_value, param_texts, step_label, value_changes,
                                   var_names, var_types)

__all__ = ["TraceDiff", "diff_traces"]


#: ``diff_traces``'s default for ``model_b``: B was read with A's model.
_SAME: Any = object()


@dataclass(frozen=True)
class TraceDiff:
    """``index`` is the first step (0 = initial state) where the traces differ,
    None when their steps are the same.  ``label_a``/``label_b``: the step each
    trace takes there (None where that trace has already ended).  ``changes``
    go from A's state to B's at ``index``.  ``rejoin``: the first pair of later
    steps (in A, in B) that reach the same state, if any.  ``consts``: the
    consts whose values differ (A → B), or that only one trace records.
    ``loops``: what follows each trace's last state (a lasso's return, or
    "the trace ends"), when the two differ."""
    index: int | None
    steps_a: int
    steps_b: int
    label_a: str | None = None
    label_b: str | None = None
    action_differs: bool = False
    changes: tuple[Change, ...] = ()
    rejoin: tuple[int, int] | None = None
    consts: tuple[Change, ...] = ()
    loops: tuple[str, str] | None = None

    @property
    def same(self) -> bool:
        """The same steps, the same cycle (for lassos), under the same consts."""
        return self.index is None and not self.consts and self.loops is None


class _Side:
    """One trace and how its values read.  Traces read with the same model
    compare by value; across specs (or with one read without its spec) the
    same value may be held differently, so they compare by the text each
    spec writes for it, each with its own types."""

    def __init__(self, trace: Trace, model: Model | None, types: Mapping[str, Type | None],
                 by_text: bool):
        self.trace = trace
        self.model = model
        self.types = types
        self.by_text = by_text

    def value_key(self, name: str, value: Any) -> Any:
        return format_value(value, self.types.get(name)) if self.by_text else value

    def state_key(self, state: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
        return tuple(sorted((n, self.value_key(n, v)) for n, v in state.items()))

    def step_key(self, step: Step) -> tuple[Any, ...]:
        params = tuple(param_texts(step, self.model)) if self.by_text else step.params
        return step.action, params, self.state_key(step.state)


def diff_traces(a: Trace, b: Trace, model: Model | None = None, model_b: Model | None = _SAME, *,
                consts_a: Mapping[str, str] | None = None,
                consts_b: Mapping[str, str] | None = None) -> TraceDiff:
    """Compare ``a`` and ``b`` step by step: ``a`` read with ``model``, ``b``
    with ``model_b`` (default: the same model).  ``consts_a``/``consts_b``:
    the consts each trace was made under, as text (compared when both
    record some)."""
    model_b = model if model_b is _SAME else model_b
    by_text = model is not model_b and model != model_b
    types_a, types_b = var_types(a, model), var_types(b, model_b)
    if not by_text:
        types_a = types_b = {**types_b, **types_a}
    side_a, side_b = _Side(a, model, types_a, by_text), _Side(b, model_b, types_b, by_text)
    consts = _const_changes(consts_a, consts_b)
    common = 0
    while (common < len(a.steps) and common < len(b.steps)
           and side_a.step_key(a.steps[common]) == side_b.step_key(b.steps[common])):
        common += 1
    if common == len(a.steps) == len(b.steps):
        return TraceDiff(None, len(a), len(b), consts=consts,
                         loops=_loop_difference(side_a, side_b))
    step_a = a.steps[common] if common < len(a.steps) else None
    step_b = b.steps[common] if common < len(b.steps) else None
    changes: list[Change] = []
    if step_a is not None and step_b is not None:
        names = var_names(a, model) + [n for n in var_names(b, model_b) if n not in a.steps[0].state]
        for name in names:
            in_a, in_b = name in step_a.state, name in step_b.state
            if in_a and in_b:
                changes.extend(_var_changes(name, step_a.state[name], step_b.state[name],
                                            side_a, side_b))
            elif in_a or in_b:
                changes.append(Change(name, (), "removed" if in_a else "added",
                                      "(only in A)" if in_a else None,
                                      "(only in B)" if in_b else None))
    action_differs = (step_a is not None and step_b is not None
                      and side_a.step_key(step_a)[:2] != side_b.step_key(step_b)[:2])
    return TraceDiff(
        index=common,
        steps_a=len(a),
        steps_b=len(b),
        label_a=step_label(step_a, model, common) if step_a is not None else None,
        label_b=step_label(step_b, model_b, common) if step_b is not None else None,
        action_differs=action_differs,
        changes=tuple(changes),
        rejoin=_rejoin(side_a, side_b, common),
        consts=consts,
    )


def _loop_difference(a: _Side, b: _Side) -> tuple[str, str] | None:
    """What follows the last state of each of two traces with the same steps,
    when that differs: a lasso goes back into its cycle, another trace ends."""
    def key(side: _Side) -> tuple[Any, ...]:
        back = side.trace.loop_back
        return side.trace.loop, None if back is None else side.step_key(back)[:2]
    if key(a) == key(b):
        return None
    return _loop_words(a), _loop_words(b)


def _loop_words(side: _Side) -> str:
    trace = side.trace
    if trace.loop is None:
        return "the trace ends"
    back = None if trace.loop_back is None else step_label(trace.loop_back, side.model, 1)
    return cycle_end_phrase(trace, back)


def _var_changes(name: str, old: Any, new: Any, side_a: _Side, side_b: _Side) -> list[Change]:
    type_a, type_b = side_a.types.get(name), side_b.types.get(name)
    if not side_a.by_text:
        return value_changes(name, old, new, type_a)
    text_a, text_b = format_value(old, type_a), format_value(new, type_b)
    if text_a == text_b:
        return []
    if type_a is not None and type_a == type_b:
        # Declared alike in both specs: the values are held alike, so the
        # change can be as small as within one spec.
        return value_changes(name, old, new, type_a)
    return [Change(name, (), "changed", text_a, text_b, old, new, None)]


def _const_changes(consts_a: Mapping[str, str] | None,
                   consts_b: Mapping[str, str] | None) -> tuple[Change, ...]:
    if not consts_a or not consts_b:
        return ()       # a trace that records no consts (another tool's) says nothing of them
    out = []
    for name in [*consts_a, *(n for n in consts_b if n not in consts_a)]:
        old, new = consts_a.get(name), consts_b.get(name)
        if old == new:
            continue
        out.append(Change(name, (), "changed", old if old is not None else "(not recorded)",
                          new if new is not None else "(not recorded)"))
    return tuple(out)


def _rejoin(a: _Side, b: _Side, start: int) -> tuple[int, int] | None:
    later_b: dict[tuple[tuple[str, Any], ...], int] = {}
    for j in range(start + 1, len(b.trace.steps)):
        later_b.setdefault(b.state_key(b.trace.steps[j].state), j)
    best: tuple[int, int] | None = None
    for i in range(start + 1, len(a.trace.steps)):
        j = later_b.get(a.state_key(a.trace.steps[i].state))
        if j is not None and (best is None or i + j < best[0] + best[1]):
            best = (i, j)
    return best
