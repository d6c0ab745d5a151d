"""Replay a trace under the reference semantics.

A trace replays when its first state is an initial state of the model and each
later step's action, with its parameters, is enabled in the previous state and
leads to exactly the recorded state.  Every trace any engine produces goes
through here before it is shown or written; traces read from other tools
(ITF without action names) are completed: the first action that produces the
recorded state is filled in.  That the trace also shows what it claims (its
property false at its end) is ``verify.py``'s job, which replays first.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from modelcheck.evaluate.evaluator import Evaluator, State
from modelcheck.errors import EvalError
from modelcheck.ir import nodes as ir
from modelcheck.ir.types import BagType, SeqType, SetType, Type, render_type
from modelcheck.ir.values import in_type, render_value
from modelcheck.behaviour import Behaviour, Step
from modelcheck.trace.view import format_value

__all__ = ["ReplayResult", "ReplayStream", "TraceReplayError", "replay", "check_replays",
           "behaviour_note"]


@dataclass(frozen=True)
class ReplayResult:
    """``ok`` if the whole trace replays; otherwise ``step`` is the index of the
    first step that does not (0 = the initial state) and ``reason`` says why in
    plain words.  ``trace`` is the trace replayed, with missing action names
    filled in."""
    ok: bool
    step: int | None = None
    reason: str | None = None
    trace: Behaviour | None = None


def behaviour_note(model: ir.Model, result: ReplayResult) -> str | None:
    """None when ``result`` (of ``replay`` or a ``ReplayStream``) passed;
    otherwise what every command says of a trace file whose recorded states
    the spec does not produce (``trace show``, ``trace explain``, ``replay``):
    the first step that does not replay, and the variables that differ."""
    if result.ok:
        return None
    return f"this trace is not a behaviour of {model.name}: {result.reason}"


class TraceReplayError(RuntimeError):
    """A trace produced by modelcheck itself does not replay: a bug in an
    engine, never a problem with the spec (so not a ModelcheckError)."""


def check_replays(model: ir.Model, trace: Behaviour, what: str) -> None:
    """Raise TraceReplayError unless ``trace`` replays (``what`` names its origin)."""
    result = replay(model, trace)
    if not result.ok:
        raise TraceReplayError(f"internal error: {what} does not replay under the reference "
                               f"semantics: {result.reason}")


class ReplayStream:
    """``replay`` one step at a time, keeping only the state before: ``feed``
    each step in order (it returns the step with its action filled in), then
    ``result``.  The result is the one ``replay`` gives for the same steps:
    a value outside its type anywhere is reported before any step that does
    not replay.  ``trace`` is the trace the result names."""

    def __init__(self, model: ir.Model, evaluator: Evaluator | None = None,
                 trace: Behaviour | None = None):
        ev = evaluator if evaluator is not None else Evaluator(model)
        self._replay = _Replay(model, ev, trace if trace is not None else Behaviour(model.name, []))
        self._before: State | None = None
        self._count = 0
        self._failure: ReplayResult | None = None
        self.bad_value = False

    def feed(self, step: Step) -> Step:
        i, self._count = self._count, self._count + 1
        if self.bad_value:
            return step
        state = self._replay.state_of(i, step)
        if isinstance(state, ReplayResult):
            self._failure, self.bad_value = state, True
            return step
        if self._failure is None:
            before = self._before
            outcome = self._replay.first_state(state) if before is None else \
                self._replay.replay_step(i, step, before, state)
            if isinstance(outcome, ReplayResult):
                self._failure = outcome
            elif outcome is not None:
                step = outcome
        self._before = state
        return step

    def result(self) -> ReplayResult:
        if self._count == 0:
            return self._replay.fail(0, "the trace has no states")
        if self._failure is not None:
            return self._failure
        return ReplayResult(True, None, None, self._replay.trace)


def replay(model: ir.Model, trace: Behaviour, evaluator: Evaluator | None = None) -> ReplayResult:
    """Check that ``trace`` is a behaviour of ``model`` (see the module doc)."""
    ev = evaluator if evaluator is not None else Evaluator(model)
    return _Replay(model, ev, trace).run()


class _Replay:
    def __init__(self, model: ir.Model, ev: Evaluator, trace: Behaviour):
        self.model = model
        self.ev = ev
        self.trace = trace

    def fail(self, step: int, reason: str) -> ReplayResult:
        return ReplayResult(False, step, reason, self.trace)

    def run(self) -> ReplayResult:
        stream = ReplayStream(self.model, self.ev, self.trace)
        filled = [stream.feed(step) for step in self.trace.steps]
        result = stream.result()
        if result.ok or not stream.bad_value:
            # Actions are filled in as far as the trace replays; a value
            # outside its type stops the replay before any step is taken.
            self.trace.steps[:] = filled
        return result

    def first_state(self, state: State) -> ReplayResult | None:
        try:
            initial = self.ev.initial_states()
        except EvalError as err:
            return self.fail(0, f"the initial states cannot be computed: {err.diagnostic.message}")
        if state not in set(initial):
            return self.fail(0, "the first state is not an initial state: "
                             + self.closest_difference(state, initial))
        return None

    def state_of(self, i: int, step: Step) -> State | ReplayResult:
        names = set(self.ev.var_names)
        missing = [n for n in self.ev.var_names if n not in step.state]
        extra = sorted(k for k in step.state if k not in names)
        if missing:
            return self.fail(i, f"step {i} has no value for the state variable '{missing[0]}'")
        if extra:
            return self.fail(i, f"step {i} records '{extra[0]}', which is not a state variable "
                             f"of {self.model.name}")
        for decl in self.model.vars:
            value = step.state[decl.name]
            if not in_type(decl.type, value):
                return self.fail(i, f"step {i}: the value {format_value(value, decl.type)} of "
                                 f"'{decl.name}' is not a value of its type "
                                 f"{render_type(decl.type)}{_over_capacity(decl.type, value)}")
        return self.ev.state_from_dict(step.state)

    def replay_step(self, i: int, step: Step, before: State, after: State) -> ReplayResult | Step:
        """The step, its action filled in, or why it does not replay."""
        if step.action is None:
            return self.fill_in_action(i, step, before, after)
        try:
            action = self.model.action(step.action)
        except KeyError:
            return self.fail(i, f"step {i}: {self.model.name} has no action named '{step.action}'")
        problem = self.check_params(action, step.params)
        if problem is not None:
            return self.fail(i, f"step {i} ({step.label()}): {problem}")
        try:
            outcomes = self.ev.outcomes(action.name, step.params, before)
        except EvalError as err:
            return self.fail(i, f"step {i} ({step.label()}) fails: [{err.diagnostic.code}] "
                             f"{err.diagnostic.message}")
        if after in outcomes:
            return step
        if not outcomes:
            return self.fail(i, f"step {i} ({step.label()}) is not enabled in the state before "
                             f"it: {self.blocked_reason(action, step.params, before)}")
        return self.fail(i, f"step {i} ({step.label()}) does not lead to the recorded state: "
                         + self.closest_difference(after, outcomes, "the action gives"))

    def fill_in_action(self, i: int, step: Step, before: State, after: State) -> ReplayResult | Step:
        try:
            for action, params, new in self.ev.successors(before):
                if new == after:
                    return Step(action, params, step.state)
        except EvalError as err:
            return self.fail(i, f"step {i}: computing the possible steps fails: "
                             f"[{err.diagnostic.code}] {err.diagnostic.message}")
        return self.fail(i, f"step {i}: no action leads from the state before it to the "
                         f"recorded state")

    def check_params(self, action: ir.Action, params: tuple[tuple[str, Any], ...]) -> str | None:
        given = dict(params)
        names = [p.name for p in action.params]
        for p in action.params:
            if p.name not in given:
                return f"the parameter '{p.name}' is not given"
            if not in_type(p.type, given[p.name]):
                return (f"the parameter {p.name}={given[p.name]!r} is not a value of "
                        f"{render_type(p.type)}")
        extra = [n for n in given if n not in names]
        if extra:
            return f"'{action.name}' has no parameter named '{extra[0]}'"
        return None

    def blocked_reason(self, action: ir.Action, params: tuple, before: State) -> str:
        blocked: list[ir.Require] = []
        try:
            self.ev.outcomes(action.name, params, before, blocked)
        except EvalError as err:      # cannot happen: the same run succeeded above
            return err.diagnostic.message
        if not blocked:
            return "no outcome (a pick over an empty set)"
        first = blocked[0]
        where = f" at {first.span}" if first.span is not None else ""
        text = self.source_text(first)
        guard = f"'require {text}'" if text else "a require"
        more = f" (and {len(blocked) - 1} more failing requires on other paths)" \
            if len(blocked) > 1 else ""
        return f"the guard {guard}{where} is false{more}"

    def source_text(self, node: ir.Require) -> str | None:
        """The source text of a require's condition, when the model has its source."""
        span = node.cond.span
        if span is None or span.line != span.end_line:
            return None
        sources = dict(self.model.sources)
        text = sources.get(span.file)
        if text is None:
            return None
        lines = text.splitlines()
        if not 1 <= span.line <= len(lines):
            return None
        return lines[span.line - 1][span.col - 1:span.end_col - 1]

    def closest_difference(self, target: State, candidates: list[State],
                           candidate_words: str = "the closest initial state has") -> str:
        """Name the variables that differ between ``target`` and the candidate
        differing in the fewest variables."""
        if not candidates:
            return "there is none"

        def differing(c: State) -> list[int]:
            return [k for k, (a, b) in enumerate(zip(target, c)) if a != b]
        best = min(candidates, key=lambda c: len(differing(c)))
        parts = []
        for k in differing(best):
            decl = self.model.vars[k]
            parts.append(f"'{decl.name}' is {render_value(decl.type, target[k])} in the trace "
                         f"but {candidate_words} {render_value(decl.type, best[k])}")
        return "; ".join(parts)


def _over_capacity(t: Type, value: Any) -> str:
    """Why a collection is outside its type when its size is the reason
    (``set[T, cap]``, bags and sequences), else nothing."""
    if not isinstance(t, (SetType, SeqType, BagType)) or t.capacity is None:
        return ""
    try:
        size = sum(value.values()) if isinstance(t, BagType) else len(value)
    except (TypeError, AttributeError):
        return ""
    return f" ({size} elements, at most {t.capacity})" if size > t.capacity else ""
