"""Why a trace ends in a deadlock: in its last state no action can take a
step, and for each action the ``require`` that stops it there (the first
false one on each path the reference evaluator tries), with the bindings it
stops and the state variables it reads.

An action may also be stopped without a false require: a ``pick`` over an
empty set, or steps that all leave the state constraints (a deadlock is a
state with no successor inside them).
"""
from __future__ import annotations

from dataclasses import dataclass

from modelcheck.diagnostics import Span
from modelcheck.evaluate.evaluator import Evaluator
from modelcheck.errors import EvalError, UsageError
from modelcheck.ir import nodes as ir
from modelcheck.trace.explain import expr_text, source_text, state_tuple, vars_of
from modelcheck.trace.lasso import binding_label
from modelcheck.trace.trace import Trace
from modelcheck.trace.view import format_value, step_label

__all__ = ["Stopped", "DeadlockExplanation", "explain_deadlock", "is_deadlock_trace",
           "MAX_BINDINGS"]

#: Bindings named per guard before "and N more".
MAX_BINDINGS = 6


@dataclass(frozen=True)
class Stopped:
    """What stops ``action`` in the last state: ``guard``, the text of a
    false require (None when no require is false: ``reason`` says what
    instead), for ``bindings`` (labels; all of them when ``every``)."""
    action: str
    guard: str | None
    span: Span | None
    reason: str
    bindings: tuple[str, ...]
    every: bool
    more: int = 0


@dataclass(frozen=True)
class DeadlockExplanation:
    """``step``: the index of the last state; ``stopped``: per action, what
    stops it, in declaration order; ``variables``: what the guards read, with
    their values there; ``terminals``: the spec's ``terminal`` names (none of
    which holds there)."""
    step: int
    label: str
    stopped: tuple[Stopped, ...]
    variables: tuple[tuple[str, str], ...]
    terminals: tuple[str, ...]


def is_deadlock_trace(trace: Trace) -> bool:
    return trace.property_name == "deadlock" and trace.loop is None


def explain_deadlock(trace: Trace, model: ir.Model) -> DeadlockExplanation:
    """Why no action can leave the last state of ``trace``.  Raises
    UsageError when an action can (the trace does not end in a deadlock of
    this spec)."""
    ev = Evaluator(model)
    last = len(trace.steps) - 1
    state = state_tuple(ev, trace.steps[last].state, last)
    sources = dict(model.sources)
    stopped: list[Stopped] = []
    read: set[str] = set()
    for action in model.actions:
        groups: dict[tuple, list[str]] = {}
        bindings = ev.action_bindings(action.name)
        for params in bindings:
            key = _what_stops(ev, action.name, params, state, last)
            if key is None:
                raise UsageError(
                    f"the last state of the trace is no deadlock: "
                    f"{binding_label(model, action.name, params)} can take a step there",
                    hint="is the trace from this spec? give the spec it was made with (--spec)")
            groups.setdefault(key, []).append(binding_label(model, action.name, params))
        for (req, reason), labels in groups.items():
            guard = None
            span = None
            if req is not None:
                guard = source_text(req.cond.span, sources) or expr_text(req.cond, sources)
                span = req.cond.span or req.span
                read.update(vars_of(req.cond))
            every = len(labels) == len(bindings)
            stopped.append(Stopped(action.name, guard, span, reason,
                                   tuple(labels[:MAX_BINDINGS]), every,
                                   max(0, len(labels) - MAX_BINDINGS)))
    shown = trace.steps[last].state
    variables = tuple((v.name, format_value(shown[v.name], v.type))
                      for v in model.vars if v.name in read)
    return DeadlockExplanation(last, step_label(trace.steps[last], model, last), tuple(stopped),
                               variables, tuple(t.name for t in model.terminals))


def _what_stops(ev: Evaluator, action: str, params: tuple, state: tuple,
                index: int) -> tuple[ir.Require | None, str] | None:
    """(the first false require, "is false") or (None, why), or None when
    the binding has a step inside the constraints."""
    blocked: list[ir.Require] = []
    try:
        outcomes = ev.outcomes(action, params, state, blocked)
    except EvalError as err:
        raise UsageError(f"state {index} of the trace cannot be explained: "
                         f"[{err.diagnostic.code}] {err.diagnostic.message}") from None
    if any(ev.in_model(new) for new in outcomes):
        return None
    if outcomes:
        return None, "its steps all leave the state constraints"
    if blocked:
        return blocked[0], "is false"
    return None, "it picks from an empty set"
