"""A counterexample must prove itself.

Replay (``replay.py``) shows that a trace is a behaviour of the model.  That is
not enough for an answer: an engine whose arithmetic wrapped can return a
behaviour of the model that violates nothing.  So every trace an engine hands
back is also checked, under the reference semantics, to show what it claims:

* a counterexample to an invariant: the invariant is false in its last state;
* a counterexample to a step invariant: it is false on the last step;
* a deadlock: no action is enabled in the last state, and no ``terminal``
  declaration covers it;
* a witness for a ``sometimes`` property: the property holds in the last state;
* a trace to a run-time error: evaluating its last state (its successors, the
  properties there, the last step's step invariants) raises that error's code;
* a lasso for a liveness property: a fair behaviour violating it
  (``lasso.py``, which checks every state, the cycle and its fairness).

Every state but the last must satisfy the spec's state constraints (no
engine expands a state outside them).  Only the last state is checked for the
property: a shortest counterexample is the engine's
promise, not something a single trace can prove wrong.  ``verify_trace`` is the
one place this happens; ``modelcheck.api.check`` calls it on every trace of
every engine, and ``store.write_trace`` before anything is written.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from modelcheck.behaviour import DEADLOCK, Behaviour
from modelcheck.evaluate.evaluator import Evaluator, State
from modelcheck.evaluate.temporal import liveness_checks
from modelcheck.errors import EvalError
from modelcheck.ir import nodes as ir
from modelcheck.trace.lasso import lasso_problem
from modelcheck.trace.replay import TraceReplayError, replay

__all__ = ["VIOLATION_KINDS", "violation_kind", "check_violation", "trace_problem", "verified_for",
           "verify_trace"]

#: The kinds ``check_violation`` knows ("lasso": a liveness counterexample).
VIOLATION_KINDS = ("invariant", "step invariant", "deadlock", "sometimes", "error", "lasso")


def violation_kind(model: ir.Model, trace: Behaviour) -> str | None:
    """What ``trace`` claims, as one of VIOLATION_KINDS; None for a trace that
    claims nothing beyond being a behaviour (a scenario, or no property)."""
    if trace.kind == "error":
        return "error"
    if trace.kind not in ("counterexample", "witness") or trace.property_name is None:
        return None
    if trace.property_name == DEADLOCK and trace.kind == "counterexample":
        return "deadlock"
    if any(t.name == trace.property_name for t in model.temporals):
        return "lasso"
    try:
        return model.get_property(trace.property_name).kind.value
    except KeyError:
        # An unknown name cannot be checked, and must not pass unchecked.
        return f"unknown property '{trace.property_name}'"


def check_violation(model: ir.Model, trace: Behaviour, kind: str, name: str | None = None,
                    error_code: str | None = None, evaluator: Evaluator | None = None) -> str | None:
    """None when ``trace`` (already known to replay) shows ``kind`` for the
    property ``name``; otherwise why it does not, in plain words.  ``kind`` is
    one of VIOLATION_KINDS ("error" needs ``error_code``, the MC5xxx code).
    Raises ValueError for any other kind: a new kind of counterexample must
    say how it proves itself before any engine may return one."""
    if kind not in VIOLATION_KINDS:
        raise ValueError(f"cannot check a counterexample of kind {kind!r}: "
                         f"known kinds are {', '.join(VIOLATION_KINDS)}")
    if not trace.steps:
        return "the trace has no states"
    ev = evaluator if evaluator is not None else Evaluator(model)
    if kind == "lasso":
        return lasso_problem(model, trace, ev)
    last = ev.state_from_dict(trace.steps[-1].state)
    before = ev.state_from_dict(trace.steps[-2].state) if len(trace.steps) > 1 else None
    try:
        if kind == "error":
            return _error_problem(model, ev, before, last, error_code)
        if kind == "deadlock":
            return _deadlock_problem(ev, last)
        assert name is not None, "a property kind needs the property's name"
        if kind == "step invariant":
            if before is None:
                return f"{name} is a step invariant, but the trace takes no step"
            holds = ev.check_property(name, before, last)
            return f"{name} is true on its last step" if holds else None
        holds = ev.check_property(name, last)
        if kind == "sometimes":
            return None if holds else f"{name} is false in its last state"
        return f"{name} is true in its last state" if holds else None
    except EvalError as err:
        return (f"evaluating it in its last state fails: [{err.diagnostic.code}] "
                f"{err.diagnostic.message}")


def _deadlock_problem(ev: Evaluator, last: State) -> str | None:
    for action, params, _ in ev.successors(last):
        label = action if not params else f"{action}({', '.join(f'{k}={v}' for k, v in params)})"
        return f"{label} is enabled in its last state"
    if ev.is_terminal(last):
        return "its last state is a terminal state, not a deadlock"
    return None


def _error_problem(model: ir.Model, ev: Evaluator, before: State | None, last: State,
                   error_code: str | None) -> str | None:
    if error_code is None:
        return "the trace to a run-time error does not say which error it shows"
    # Where an engine may meet a run-time error at the end of a trace: taking
    # a step from the last state, a property or a constraint in it, or a step
    # invariant on the step that reached it.
    attempts: list[Callable[[], Any]] = [lambda: list(ev.successors(last)),
                                         lambda: ev.is_terminal(last)]
    if model.constraints:
        # a state's constraints are evaluated before it is stored
        attempts.append(lambda: ev.in_model(last))
    for prop in model.properties:
        if prop.kind is ir.PropertyKind.STEP:
            if before is not None:
                attempts.append(lambda n=prop.name: ev.check_property(n, before, last))
        else:
            attempts.append(lambda n=prop.name: ev.check_property(n, last))
    # Liveness predicates are evaluated in every stored state too.
    for check in liveness_checks(model.temporals):
        for pred in (check.p, check.q):
            if pred is not None:
                attempts.append(lambda e=pred: ev.eval(e, last))
    raised = []
    for attempt in attempts:
        try:
            attempt()
        except EvalError as err:
            if err.diagnostic.code == error_code:
                return None
            raised.append(err.diagnostic.code)
    if raised:
        return f"its last state raises {', '.join(sorted(set(raised)))}, not {error_code}"
    return f"nothing evaluated in its last state raises {error_code}"


def trace_problem(model: ir.Model, trace: Behaviour, error_code: str | None = None,
                  evaluator: Evaluator | None = None) -> str | None:
    """None when ``trace`` replays and shows what it claims (see the module
    doc); otherwise why not, as a phrase ("does not replay ...").
    ``error_code`` overrides the trace's own record of its run-time error
    (``meta["error"]``).  ``evaluator``: one of ``model`` to reuse (it keeps
    the actions it compiled for earlier traces)."""
    ev = evaluator if evaluator is not None else Evaluator(model)
    result = replay(model, trace, ev)
    if not result.ok:
        return f"does not replay under the reference semantics: {result.reason}"
    outside = _first_outside_constraints(model, ev, trace)
    if outside is not None:
        return (f"goes on from state {outside}, which fails a state constraint: no engine "
                f"explores a state outside the constraints")
    kind = violation_kind(model, trace)
    if trace.loop is not None and kind != "lasso":
        # Only a liveness counterexample goes round a cycle; a loop anywhere
        # else claims something nothing checks.
        return f"has a loop (to state {trace.loop}) but is not about a liveness property"
    if kind is None:
        return None
    if kind not in VIOLATION_KINDS:
        return f"names an {kind}"
    if kind == "lasso":
        return lasso_problem(model, trace, ev)
    code = error_code if error_code is not None else trace.meta.get("error")
    if kind == "error" and code is None:
        # Not every engine records the code in the trace; the caller that has
        # the error (``api.check``) passes it, so this trace was checked there.
        return None
    problem = check_violation(model, trace, kind, trace.property_name, code, ev)
    if problem is None:
        return None
    return f"does not show {_claim(kind, trace.property_name, code)}: {problem}"


def _first_outside_constraints(model: ir.Model, ev: Evaluator, trace: Behaviour) -> int | None:
    """The first state before the last that fails a ``constraint`` (TLC's
    CONSTRAINT: such a state is checked, never expanded), or None."""
    if not model.constraints:
        return None
    for i, step in enumerate(trace.steps[:-1]):
        if not ev.in_model(ev.state_from_dict(step.state)):
            return i
    return None


def _claim(kind: str, name: str | None, code: str | None) -> str:
    if kind == "error":
        return f"the run-time error {code}"
    if kind == "deadlock":
        return "a deadlock"
    if kind == "sometimes":
        return f"that {name} is reachable"
    if kind == "lasso":
        return f"a violation of the liveness property {name}"
    return f"a violation of the {kind} {name}"


def _claims(trace: Behaviour) -> tuple:
    """Everything of ``trace`` that ``trace_problem`` judges, copied (states
    are dicts, which a caller could change in place)."""
    return (tuple((s.action, s.params, dict(s.state)) for s in trace.steps), trace.kind,
            trace.property_name, trace.loop, trace.loop_back, trace.meta.get("error"))


def verified_for(model: ir.Model, trace: Behaviour) -> bool:
    """Whether ``verify_trace`` passed this trace for this model object, and
    the trace still says what it said then."""
    return (trace.verified is not None and trace.verified[0] is model
            and trace.verified[1] == _claims(trace))


def verify_trace(model: ir.Model, trace: Behaviour, engine: str,
                 error_code: str | None = None, evaluator: Evaluator | None = None) -> None:
    """Raise TraceReplayError (an internal error naming ``engine``) unless
    ``trace`` replays and shows what it claims (see ``trace_problem``).  A
    trace that passes is marked (``verified_for``), so that writing it does
    not replay it again."""
    problem = trace_problem(model, trace, error_code, evaluator)
    if problem is None:
        trace.verified = (model, _claims(trace))
        return
    if trace.kind == "error":
        what = "trace to a run-time error"
    elif trace.property_name is not None:
        what = f"trace for property '{trace.property_name}'"
    else:
        what = "trace"
    raise TraceReplayError(f"internal error: the {engine} engine's {what} {problem}")
