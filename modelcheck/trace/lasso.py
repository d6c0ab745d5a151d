"""A liveness counterexample must prove itself too: a lasso is checked under
the reference semantics (docs/design.md, "Liveness").

A lasso is a trace whose last state is followed by ``steps[loop]`` (by the
step ``loop_back``), after which the behaviour goes round the cycle
``steps[loop:]`` forever; with ``loop`` the last index and no ``loop_back``,
the last state stutters forever.  ``analyse_lasso`` checks that

* the prefix is a behaviour (``replay``) and every state satisfies the state
  constraints (the behaviour goes on from each of them, the last included);
* the loop-back step is a step of the model to ``steps[loop]``;
* the cycle is fair: for each fairness condition F, either some cycle step
  takes F, or (WEAK) F is disabled in some cycle state, or (STRONG) F is
  enabled in no cycle state;
* the behaviour violates its property.

A step u -> v takes F when v != u and some binding of F's action that F
matches leads from u to v: a behaviour is a sequence of states, so the step
is F's whichever action the trace names for it.

Its report says how the cycle meets each fairness condition, and which
action bindings stay enabled in every cycle state without ever being taken:
the usual reason a user reads a fairness-related violation as a bug.  Its
advice names the remedy that fits each: ``fair weak`` for a binding enabled
throughout, ``fair strong`` for a weakly fair action the cycle only disables
now and then, and no fairness at all for an action that models a failure of
the environment (``is_failure_action``): a fair crash would have to happen,
and a cycle that repeats a failure is ruled out only by assuming failures stop.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from modelcheck.evaluate.evaluator import Evaluator, State
from modelcheck.evaluate.temporal import ANY, FairCondition, LivenessCheck, fair_conditions, liveness_checks
from modelcheck.errors import EvalError
from modelcheck.ir import nodes as ir
from modelcheck.ir.values import render_value
from modelcheck.trace.replay import TraceReplayError, replay
from modelcheck.behaviour import Behaviour, Step

__all__ = ["FairnessNote", "Advice", "advice_condition", "LassoReport", "is_failure_action", "FAILURE_WORDS", "analyse_lasso", "lasso_problem", "liveness_check_of",
           "complete_loop_back", "binding_label", "lasso_phrase", "cycle_end_phrase", "MAX_STARVED"]

#: The most "stays enabled but never fires" bindings a report names.
MAX_STARVED = 12

#: An action whose name has a word starting with one of these models a
#: failure of the environment (docs/language.md, "Liveness and fairness"):
#: the spec's language has no mark for it, and these names are the habit.
FAILURE_WORDS = ("crash", "fail", "lose", "loss", "lost", "drop", "partition", "stop",
                 "kill", "halt", "corrupt", "duplicat", "disconnect")
#: Words that start like a failure but name a recovery.
_RECOVERY_WORDS = ("failover", "failback")


def is_failure_action(name: str) -> bool:
    """Whether action ``name`` models a failure (``Crash``, ``LoseMsg``,
    ``drop_message``, ``PartitionNet``): one of its words, split at
    underscores and capitals, starts with a word of FAILURE_WORDS."""
    words = re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+", name)
    return any(w.lower().startswith(FAILURE_WORDS) and w.lower() not in _RECOVERY_WORDS
               for w in words)


@dataclass(frozen=True)
class FairnessNote:
    """How the cycle meets one fairness condition: ``how`` is "taken at step
    3", "disabled in state 2" or "never enabled in the cycle"."""
    label: str
    how: str


@dataclass(frozen=True)
class Advice:
    """One remedy the cycle suggests: ``subject`` (a binding, ``Send(n=n1)``)
    ``says`` what is wrong with it, and ``declare`` is the declaration that
    rules the cycle out (None: nothing to declare).  ``kind``: "strengthen"
    (a weakly fair action disabled now and then), "starved" (enabled
    throughout), "failure" (a failure enabled throughout) or "repeats" (a
    failure the cycle takes)."""
    kind: str
    subject: str
    says: str
    declare: str | None = None


@dataclass(frozen=True)
class LassoReport:
    """What a verified lasso shows.  ``violation`` says in words why the
    behaviour violates its property; ``starved`` are the action bindings
    (labels) enabled in every cycle state and never taken in the cycle, and
    ``starved_more`` how many more there are past MAX_STARVED; ``suggestions``
    the declarations that would rule the cycle out, and ``advice`` each
    remedy in words (strong fairness first, failures last)."""
    property_label: str
    kind: ir.TemporalKind
    loop: int
    last: int
    loop_back: str | None
    fairness: tuple[FairnessNote, ...]
    starved: tuple[str, ...]
    starved_more: int
    suggestions: tuple[str, ...]
    violation: str
    advice: tuple[Advice, ...] = ()

    @property
    def cycle_steps(self) -> int:
        """Steps round the cycle (the loop-back step counted); 0 when the
        last state stutters forever."""
        return 0 if self.loop_back is None else self.last - self.loop + 1


def liveness_check_of(model: ir.Model, trace: Behaviour) -> LivenessCheck | None:
    """The binding of the liveness property the trace is about: by name and,
    for a property with parameters, by ``meta["instance"]`` (its label)."""
    checks = [c for c in liveness_checks(model.temporals) if c.name == trace.property_name]
    if len(checks) == 1 and not checks[0].instance:
        return checks[0]
    wanted = trace.meta.get("instance")
    for c in checks:
        if c.label == wanted:
            return c
    return None


def analyse_lasso(model: ir.Model, trace: Behaviour, evaluator: Evaluator | None = None) -> LassoReport:
    """The report on a lasso (see the module doc).  Raises TraceReplayError,
    an internal error, when the trace is not a fair lasso violating its
    property: an engine must never hand one back."""
    found = _analyse(model, trace, evaluator if evaluator is not None else Evaluator(model))
    if isinstance(found, str):
        raise TraceReplayError(f"internal error: the lasso for '{trace.property_name}' {found}")
    return found


def lasso_problem(model: ir.Model, trace: Behaviour, evaluator: Evaluator | None = None) -> str | None:
    """None when the trace is a fair lasso violating its property; otherwise
    why not, as a phrase ("is not fair: ...")."""
    found = _analyse(model, trace, evaluator if evaluator is not None else Evaluator(model))
    return found if isinstance(found, str) else None


def complete_loop_back(model: ir.Model, trace: Behaviour, evaluator: Evaluator | None = None) -> None:
    """Fill in the loop-back step of a lasso read from a file that gives the
    loop index but not the step (Apalache writes only ``loop``): the first
    action, in canonical order, that leads from the last state back to
    ``steps[loop]``.  Leaves the trace as it is when there is none."""
    if trace.loop is None or not 0 <= trace.loop < len(trace.steps) - 1:
        return
    if trace.loop_back is not None and trace.loop_back.action is not None:
        return
    ev = evaluator if evaluator is not None else Evaluator(model)
    last = ev.state_from_dict(trace.steps[-1].state)
    target = ev.state_from_dict(trace.steps[trace.loop].state)
    try:
        for action, params, new in ev.successors(last):
            if new == target:
                trace.loop_back = Step(action, params, trace.steps[trace.loop].state)
                return
    except EvalError:
        return


def binding_label(model: ir.Model, action: str, params: tuple[tuple[str, Any], ...]) -> str:
    """``Send(n=n1)``: an action binding as a person reads it."""
    if not params:
        return action
    types = {p.name: p.type for p in model.action(action).params}
    return action + "(" + ", ".join(f"{k}={render_value(types[k], v)}" for k, v in params) + ")"


def lasso_phrase(trace: Behaviour) -> str:
    """``a lasso of 4 steps, cycle of 3 (from state 1)``: the shape of a
    lasso in words (the loop-back step counted in the cycle, not in the
    steps)."""
    steps = len(trace)
    head = f"a lasso of {steps} step{'s' if steps != 1 else ''}"
    last = len(trace.steps) - 1
    if trace.loop_back is None:
        if last == 0:
            return "a lasso: the initial state stutters forever"
        return f"{head}, then state {last} stutters forever"
    return f"{head}, cycle of {last - (trace.loop or 0) + 1} (from state {trace.loop})"


def cycle_end_phrase(trace: Behaviour, back: str | None = None) -> str:
    """What follows the last state: ``↻ back to state 1 by Reset`` (``back``,
    the loop-back step's label, defaults to the step's own) or ``↻ the last
    state stutters forever``."""
    if trace.loop_back is None:
        return "↻ the last state stutters forever"
    return f"↻ back to state {trace.loop} by {back if back is not None else trace.loop_back.label()}"


# ------------------------------------------------------------------ checking

def _analyse(model: ir.Model, trace: Behaviour, ev: Evaluator) -> LassoReport | str:
    check = liveness_check_of(model, trace)
    if check is None:
        return _unknown_property(model, trace)
    shape = _shape_problem(trace)
    if shape is not None:
        return shape
    replayed = replay(model, trace, ev)
    if not replayed.ok:
        return f"does not replay under the reference semantics: {replayed.reason}"
    try:
        states = [ev.state_from_dict(s.state) for s in trace.steps]
        for i, state in enumerate(states):
            if not ev.in_model(state):
                return (f"goes through state {i}, which fails a state constraint: a behaviour "
                        f"never leaves the constraints")
        back = _loop_back_problem(model, trace, ev, states)
        if back is not None:
            return back
        cycle = _Cycle(model, trace, ev, states)
        conditions = fair_conditions(model, lambda e, env: ev.eval(e, (), env))
        fairness = cycle.fairness(conditions)
        if isinstance(fairness, str):
            return fairness
        violation = _violation(ev, check, states, trace.loop or 0)
        if violation is None:
            return f"does not violate {check.label}: {_satisfied(check)}"
        starved, more = cycle.starved()
        advice = cycle.strengthen(conditions) + [_starved_advice(label, suggestion)
                                                 for label, suggestion in starved]
        advice += cycle.repeated_failures()
    except EvalError as err:
        return (f"cannot be evaluated: [{err.diagnostic.code}] {err.diagnostic.message}")
    back_label = None if trace.loop_back is None else \
        binding_label(model, trace.loop_back.action or "", trace.loop_back.params)
    advice.sort(key=lambda a: _ADVICE_ORDER.index(a.kind))
    return LassoReport(check.label, check.kind, trace.loop or 0, len(states) - 1, back_label,
                       tuple(fairness), tuple(label for label, _ in starved), more,
                       tuple(a.declare for a in advice if a.declare is not None), violation,
                       tuple(advice))


def _unknown_property(model: ir.Model, trace: Behaviour) -> str:
    names = {t.name for t in model.temporals}
    if trace.property_name not in names:
        return f"names '{trace.property_name}', which is not a liveness property of {model.name}"
    return (f"does not say which binding of {trace.property_name} it violates "
            f"(#meta instance {trace.meta.get('instance')!r} names none)")


def _shape_problem(trace: Behaviour) -> str | None:
    last = len(trace.steps) - 1
    if trace.loop is None:
        return "is not a lasso: it has no loop index"
    if not 0 <= trace.loop <= last:
        return (f"has the loop index {trace.loop}, which is not the index of one of its "
                f"{last + 1} states")
    if trace.loop == last and trace.loop_back is not None:
        return ("loops from its last state to itself by a step: that is a stutter, written "
                "with no loop-back step")
    if trace.loop < last and trace.loop_back is None:
        return f"loops back to state {trace.loop} without saying by which step"
    if trace.loop_back is not None and trace.loop_back.state != trace.steps[trace.loop].state:
        return (f"has a loop-back step whose state is not state {trace.loop}, where the "
                f"cycle starts")
    return None


def _loop_back_problem(model: ir.Model, trace: Behaviour, ev: Evaluator,
                       states: list[State]) -> str | None:
    step = trace.loop_back
    if step is None:
        return None
    if step.action is None:
        return f"loops back to state {trace.loop} without naming the action"
    try:
        action = model.action(step.action)
    except KeyError:
        return f"loops back by '{step.action}', which is not an action of {model.name}"
    if {name for name, _ in step.params} != {p.name for p in action.params}:
        return f"loops back by {step.label()}, whose parameters are not those of {action.name}"
    if states[trace.loop or 0] not in ev.outcomes(step.action, step.params, states[-1]):
        return (f"loops back by {step.label()}, which does not lead from its last state "
                f"to state {trace.loop}")
    return None


class _Cycle:
    """The cycle of a lasso: its states (indexes into the trace), its steps
    (state index -> state index, the loop-back step last), and, per state,
    the action bindings with a step that leaves it, outside the constraints
    included (they count for enabledness)."""

    def __init__(self, model: ir.Model, trace: Behaviour, ev: Evaluator, states: list[State]):
        self.model = model
        self.ev = ev
        self.loop = trace.loop or 0
        self.states = states
        self.members = list(range(self.loop, len(states)))
        self.steps = [(i - 1, i) for i in range(self.loop + 1, len(states))]
        if trace.loop_back is not None:
            self.steps.append((len(states) - 1, self.loop))
        successors = {i: list(ev.successors(states[i])) for i in self.members}
        self.leaving = {i: {(a, p) for a, p, new in successors[i] if new != states[i]}
                        for i in self.members}
        # Per cycle step, the bindings that take it (a behaviour is a
        # sequence of states: the step is each of theirs).
        self.taking = [{(a, p) for a, p, new in successors[u] if new == states[v] != states[u]}
                       for u, v in self.steps]

    def enabled(self, i: int, matches: Any) -> bool:
        return any(matches(a, p) for a, p in self.leaving[i])

    def taken_at(self, matches: Any) -> int | None:
        """The trace index of the first cycle step a matching binding takes
        (the loop-back step is numbered one past the last state)."""
        for (u, _), takers in zip(self.steps, self.taking):
            if any(matches(a, p) for a, p in takers):
                return u + 1
        return None

    def fairness(self, conditions: list[FairCondition]) -> list[FairnessNote] | str:
        notes = []
        for f in conditions:
            taken = self.taken_at(f.matches)
            if taken is not None:
                notes.append(FairnessNote(f.label, f"taken at {self._step_name(taken)}"))
                continue
            where = [i for i in self.members if self.enabled(i, f.matches)]
            if f.kind is ir.FairKind.WEAK:
                off = [i for i in self.members if i not in where]
                if not off:
                    return (f"is not fair: {f.label} is enabled in every state of the cycle "
                            f"({self._span()}) and never taken in it")
                notes.append(FairnessNote(f.label, f"disabled in state {off[0]}"))
            else:
                if where:
                    return (f"is not fair: {f.label} is enabled in state {where[0]} of the "
                            f"cycle and never taken in it")
                notes.append(FairnessNote(f.label, "never enabled in the cycle"))
        return notes

    def _span(self) -> str:
        first, last = self.members[0], self.members[-1]
        return f"state {first}" if first == last else f"states {first} to {last}"

    def _step_name(self, index: int) -> str:
        return "the loop-back step" if index == len(self.states) else f"step {index}"

    def starved(self) -> tuple[list[tuple[str, str]], int]:
        """(label, suggested declaration) for each action binding enabled in
        every cycle state and never taken there, in canonical order, and how
        many more there are past MAX_STARVED."""
        always = set.intersection(*(self.leaving[i] for i in self.members))
        always -= set().union(*self.taking)
        order = {a.name: k for k, a in enumerate(self.model.actions)}
        ranked = sorted(always, key=lambda b: (order.get(b[0], len(order)),
                                               self._binding_rank(b)))
        out = [(binding_label(self.model, a, p), _suggestion(self.model, self.model.action(a), p))
               for a, p in ranked[:MAX_STARVED]]
        return out, max(0, len(ranked) - MAX_STARVED)

    def _binding_rank(self, binding: tuple) -> int:
        action, params = binding
        return self.ev.action_bindings(action).index(params)

    def strengthen(self, conditions: list[FairCondition]) -> list[Advice]:
        """The weak conditions the cycle meets only by disabling their
        action now and then: enabled in some cycle state, never taken, so
        the strong form of the declaration rules the cycle out."""
        out = []
        for f in conditions:
            if f.kind is not ir.FairKind.WEAK or self.taken_at(f.matches) is not None:
                continue
            where = [i for i in self.members if self.enabled(i, f.matches)]
            off = [i for i in self.members if i not in where]
            if not where or not off:
                continue
            subject = f.label.split(" ", 1)[1]
            says = (f"is enabled in state {where[0]} of the cycle and never taken (weak "
                    f"fairness allows that: it is disabled in state {off[0]})")
            if is_failure_action(f.action):
                says += "; it models a failure, which the system cannot make happen"
                out.append(Advice("failure", subject, says))
                continue
            out.append(Advice("strengthen", subject, says,
                              _declaration(self.model, "strong", f.action, f.pattern)))
        return out

    def repeated_failures(self) -> list[Advice]:
        """A failure the cycle takes, for the first of each action: the
        behaviour fails for ever, and only an assumption that failures stop
        rules that out."""
        out: list[Advice] = []
        seen: set[str] = set()
        for (u, _), takers in zip(self.steps, self.taking):
            for action, params in sorted(takers, key=lambda b: b[0]):
                if action in seen or not is_failure_action(action):
                    continue
                seen.add(action)
                out.append(Advice(
                    "repeats", binding_label(self.model, action, params),
                    f"is a failure the cycle takes at {self._step_name(u + 1)}, again and again: "
                    f"a fairness declaration rules the cycle out only by assuming such failures "
                    f"stop (or leave room for progress); if they need not, the lasso is a real "
                    f"way for the property to fail"))
        return out


_ADVICE_ORDER = ("strengthen", "starved", "failure", "repeats")


def advice_condition(advice: Advice) -> str:
    """What the system must guarantee for ``advice.declare`` to be right."""
    if advice.kind == "strengthen":
        return "if the system guarantees it runs when it is enabled again and again"
    return "if the system guarantees it runs"


def _starved_advice(label: str, suggestion: str) -> Advice:
    if is_failure_action(label.split("(", 1)[0]):
        return Advice("failure", label, "stays enabled but never fires: it models a failure, "
                      "which the system cannot make happen; no fairness to declare for it "
                      "(a fair failure would have to happen, not stop)")
    return Advice("starved", label, "stays enabled but never fires", suggestion)


def _declaration(model: ir.Model, kind: str, action_name: str, pattern: tuple) -> str:
    """``fair strong Send(n1, _)``: a declaration as the spec writes it."""
    action = model.action(action_name)
    if not action.params or all(v is ANY for v in pattern):
        return f"fair {kind} {action.name}"
    args = ", ".join("_" if v is ANY else render_value(p.type, v)
                     for p, v in zip(action.params, pattern))
    return f"fair {kind} {action.name}({args})"


def _suggestion(model: ir.Model, action: ir.Action, params: tuple) -> str:
    return _declaration(model, "weak", action.name, tuple(v for _, v in params))


def _violation(ev: Evaluator, check: LivenessCheck, states: list[State], loop: int) -> str | None:
    """Why the lasso violates the property, or None when it does not."""
    def q(i: int) -> bool:
        return bool(ev.eval(check.q, states[i]))
    cycle = range(loop, len(states))
    kind = check.kind
    if kind is ir.TemporalKind.EVENTUALLY:
        if any(q(i) for i in range(len(states))):
            return None
        return "its predicate is false in every state, the cycle's included, forever"
    if kind is ir.TemporalKind.ALWAYS_EVENTUALLY:
        if any(q(i) for i in cycle):
            return None
        return f"its predicate is false in every state of the cycle (from state {loop}), forever"
    if kind is ir.TemporalKind.EVENTUALLY_ALWAYS:
        off = [i for i in cycle if not q(i)]
        if not off:
            return None
        return f"its predicate is false in state {off[0]}, which the cycle comes back to forever"
    assert check.p is not None, "leads to has a left side"
    for i in range(len(states)):
        if not ev.eval(check.p, states[i]) or q(i):
            continue
        if not any(q(j) for j in range(min(i, loop), len(states))):
            return (f"its left side holds in state {i} and its right side is false there and "
                    f"in every state after it, the cycle's included, forever")
    return None


def _satisfied(check: LivenessCheck) -> str:
    return {
        ir.TemporalKind.EVENTUALLY: "its predicate holds in some state",
        ir.TemporalKind.ALWAYS_EVENTUALLY: "its predicate holds in a state of the cycle",
        ir.TemporalKind.EVENTUALLY_ALWAYS: "its predicate holds in every state of the cycle",
        ir.TemporalKind.LEADS_TO: "every state where its left side holds is followed by one "
                                  "where its right side holds",
    }[check.kind]
