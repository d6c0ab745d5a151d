"""Replaying a scenario against a spec: is it feasible, and which properties
break along the way.

The scenario fixes the actions and their parameters; the spec may still
choose (several initial states, ``pick``, ``either``).  The replay follows
every choice: after step k it holds every state the first k steps can reach.
The scenario is feasible when that set never becomes empty.  A step that no
state enables is reported with the ``require`` statements that were false,
as written in the spec and with their source lines.

Along the way every invariant and step invariant is checked on every state
(and step) reached; ``sometimes`` properties are checked for being reached.
Where the spec chose, a property is reported violated (or reached) when one
of the choices leads there, and the trace shown is that choice.  Every trace
handed out is replayed by ``modelcheck.trace.replay`` first.

An ITF lasso (a liveness counterexample) replays its loop-back step as its
last step; the lasso is then checked as ``check`` checks one
(``modelcheck.trace.lasso``): the outcome for its liveness property says
whether it is a fair behaviour violating it, and why not.

An ITF trace also records the state after each step.  Those states are
compared with what the actions give, by the replay ``trace show`` and
``trace explain`` use (``modelcheck.trace.replay``): a file whose states were
edited is not a behaviour of the spec, even when its actions can be taken,
and the report says from which step and in which variables.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from modelcheck.diagnostics import Span
from modelcheck.evaluate.evaluator import Evaluator, State
from modelcheck.errors import EvalError
from modelcheck.ir import nodes as ir
from modelcheck.trace.explain import expr_text, source_text
from modelcheck.trace.itf import from_itf
from modelcheck.trace.itf_json import loads_itf
from modelcheck.trace.lasso import lasso_problem
from modelcheck.trace.paths import path_steps, path_to
from modelcheck.trace.replay import behaviour_note, replay
from modelcheck.trace.verify import verify_trace
from modelcheck.trace.scenario import BoundStep, Expectation, Scenario, bind
from modelcheck.trace.trace import Step, Trace
from modelcheck.trace.view import step_label

__all__ = ["Guard", "PropertyOutcome", "ExpectationResult", "RecordedStates", "ReplayReport",
           "run_scenario"]


@dataclass(frozen=True)
class Guard:
    """A ``require`` that was false when a scenario step was tried."""
    text: str
    span: Span | None


@dataclass(frozen=True)
class PropertyOutcome:
    """``status``: for invariants and step invariants ``violated`` or
    ``holds`` (on the steps taken); for ``sometimes``: ``reached`` or ``not
    reached``; for the liveness property of a lasso, ``violated`` or ``not
    shown`` (``reason`` says why).  ``step``: the step (0 = the initial
    state) where it was first violated or reached; ``trace``: the steps up
    to there (the lasso, for a liveness property)."""
    name: str
    kind: ir.PropertyKind
    status: str
    step: int | None = None
    trace: Trace | None = None
    reason: str | None = None

    @property
    def broken(self) -> bool:
        return self.status == "violated"


@dataclass(frozen=True)
class ExpectationResult:
    expectation: Expectation
    met: bool
    actual: str


@dataclass(frozen=True)
class RecordedStates:
    """How the states an ITF scenario records agree with the spec.  ``step``:
    the first step whose recorded state is not what it gives (0: the first
    state is not an initial state), None when every state agrees; ``note``
    says so, naming the variables that differ.  ``unchecked``: why the states
    were not compared (another tool's trace, without the spec's variables)."""
    step: int | None = None
    note: str | None = None
    unchecked: str | None = None

    @property
    def differ(self) -> bool:
        return self.step is not None


@dataclass(frozen=True)
class ReplayReport:
    """The answer for one scenario.  ``failed_step``: the 1-based scenario step
    no reachable state enables (None when feasible), with ``blocked``: the
    guards that were false.  ``trace``: the steps taken (up to the failing
    step), one of the choices where the spec had several.  ``branching``:
    the steps after which more than one state was possible.  ``recorded``:
    for an ITF trace, how its recorded states agree (None for a scenario,
    which records none)."""
    model_name: str
    scenario_path: str
    steps: int
    feasible: bool
    failed_step: int | None
    failed_label: str | None
    failed_span: Span | None
    blocked: tuple[Guard, ...]
    properties: tuple[PropertyOutcome, ...]
    expectations: tuple[ExpectationResult, ...]
    trace: Trace
    branching: tuple[int, ...]
    recorded: RecordedStates | None = None

    @property
    def ok(self) -> bool:
        """Whether every expectation is met; without an expectation about
        feasibility, the scenario must be feasible.  Recorded states that
        the spec does not produce are never ok."""
        about_feasibility = any(r.expectation.name is None for r in self.expectations)
        recorded_ok = self.recorded is None or not self.recorded.differ
        return (recorded_ok and (about_feasibility or self.feasible)
                and all(r.met for r in self.expectations))

    @property
    def exit_code(self) -> int:
        return 0 if self.ok else 1


@dataclass
class _Node:
    """One reachable state and how it was reached (a parent pointer)."""
    state: State
    parent: "_Node | None"
    action: str | None
    params: tuple[tuple[str, Any], ...]
    depth: int


class _Run:
    def __init__(self, model: ir.Model, scenario: Scenario, bound: list[BoundStep]):
        self.model = model
        self.scenario = scenario
        self.bound = bound
        self.ev = Evaluator(model)
        self.sources = dict(model.sources)
        self.first: dict[str, _Node] = {}      # property -> first node where violated / reached

    def trace_of(self, node: _Node, kind: str, prop: str | None) -> Trace:
        steps = path_steps(self.ev, path_to(node))
        trace = Trace(self.model.name, steps, kind=kind, property_name=prop,
                      meta={"scenario": self.scenario.path})
        verify_trace(self.model, trace, f"reference (scenario {self.scenario.path})")
        return trace

    def check_properties(self, nodes: list[_Node]) -> None:
        for prop in self.model.properties:
            if prop.name in self.first:
                continue
            for node in nodes:
                if self.hits(prop, node):
                    self.first[prop.name] = node
                    break

    def hits(self, prop: ir.Property, node: _Node) -> bool:
        if prop.kind is ir.PropertyKind.STEP:
            if node.parent is None:
                return False
            return not self.ev.check_property(prop.name, node.parent.state, node.state)
        holds = self.ev.check_property(prop.name, node.state)
        return holds if prop.kind is ir.PropertyKind.SOMETIMES else not holds

    def take(self, frontier: list[_Node], step: BoundStep, depth: int) -> list[_Node]:
        seen: set[State] = set()
        out: list[_Node] = []
        for node in frontier:
            try:
                outcomes = self.ev.outcomes(step.action, step.params, node.state)
            except EvalError as err:
                err.trace = self.trace_of(node, "error", None)
                raise
            for new in outcomes:
                if new not in seen:
                    seen.add(new)
                    out.append(_Node(new, node, step.action, step.params, depth))
        return out

    def guards(self, frontier: list[_Node], step: BoundStep) -> tuple[Guard, ...]:
        found: list[Guard] = []
        for node in frontier:
            blocked: list[ir.Require] = []
            self.ev.outcomes(step.action, step.params, node.state, blocked)
            for req in blocked:
                text = source_text(req.cond.span, self.sources)
                if text is None:
                    text = expr_text(req.cond, self.sources)
                guard = Guard(text, req.cond.span or req.span)
                if guard not in found:
                    found.append(guard)
        return tuple(found)

    def run(self) -> ReplayReport:
        try:
            initial = self.ev.initial_states()
        except EvalError:
            raise  # no trace: no state was reached
        frontier = [_Node(s, None, None, (), 0) for s in initial]
        self.check_properties(frontier)
        branching: list[int] = [0] if len(frontier) > 1 else []
        failed: int | None = None
        blocked: tuple[Guard, ...] = ()
        for k, step in enumerate(self.bound, start=1):
            following = self.take(frontier, step, k)
            if not following:
                failed, blocked = k, self.guards(frontier, step)
                break
            frontier = following
            if len(frontier) > 1:
                branching.append(k)
            self.check_properties(frontier)
        feasible = failed is None
        outcomes = tuple(self.outcome(p) for p in self.model.properties)
        if feasible and self.scenario.lasso is not None:
            lasso, taken = self.lasso(frontier)
            outcomes += (lasso,)
        else:
            taken = self.trace_of(frontier[0], "scenario", None)
        failed_label = failed_span = None
        if failed is not None:
            step = self.bound[failed - 1]
            failed_label = step_label(Step(step.action, step.params, {}), self.model, failed)
            failed_span = step.span
        results = tuple(self.judge(e, outcomes, feasible, failed) for e in self.scenario.expectations)
        return ReplayReport(self.model.name, self.scenario.path, len(self.bound), feasible, failed,
                            failed_label, failed_span, blocked, outcomes, results, taken,
                            tuple(branching), self.recorded())

    def recorded(self) -> RecordedStates | None:
        """The recorded states of an ITF scenario, replayed as recorded."""
        if not self.scenario.recorded:
            return None
        data = loads_itf(self.scenario.source, self.scenario.path)
        states = data.get("states") if isinstance(data, dict) else None
        first = states[0] if isinstance(states, list) and states else None
        missing = [d.name for d in self.model.vars
                   if not isinstance(first, dict) or d.name not in first]
        if missing:
            # Another tool's trace of its own variables: its actions are all
            # that can be replayed.
            return RecordedStates(unchecked=f"its first state records no value for the "
                                            f"variable '{missing[0]}' of {self.model.name}")
        trace = from_itf(data, self.model, self.scenario.path, self.scenario.source)
        result = replay(self.model, trace, self.ev)
        return RecordedStates(result.step, behaviour_note(self.model, result))

    def lasso(self, frontier: list[_Node]) -> tuple[PropertyOutcome, Trace]:
        """The outcome for the liveness property of a replayed lasso, and
        the trace to show: the path whose loop-back step returns to its own
        state at the loop index (the spec may have chosen), checked as a
        counterexample.  A lasso that is not one is shown as its steps, with
        the reason in the outcome."""
        loop = self.scenario.lasso
        assert loop is not None
        name, instance = self.scenario.about
        # With a loop-back step the scenario has one step per state (the
        # loop-back last); without, the last state (index ``loop``) stutters.
        has_back = len(self.bound) > loop
        paths = [path_to(node) for node in frontier]
        back = next((p for p in paths if not has_back or p[-1].state == p[loop].state), paths[0])
        kept = back[:-1] if has_back else back
        steps = path_steps(self.ev, kept)
        meta: dict[str, Any] = {"scenario": self.scenario.path}
        if instance is not None:
            meta["instance"] = instance
        trace = Trace(self.model.name, steps, property_name=name, meta=meta, loop=loop,
                      loop_back=Step(back[-1].action, back[-1].params, steps[loop].state)
                      if has_back else None)
        problem = lasso_problem(self.model, trace, self.ev)
        kind = ir.PropertyKind.LIVENESS
        if problem is None:
            return PropertyOutcome(name or "?", kind, "violated", None, trace), trace
        return (PropertyOutcome(name or "?", kind, "not shown", reason=problem),
                self.trace_of(kept[-1], "scenario", None))

    def outcome(self, prop: ir.Property) -> PropertyOutcome:
        node = self.first.get(prop.name)
        sometimes = prop.kind is ir.PropertyKind.SOMETIMES
        if node is None:
            return PropertyOutcome(prop.name, prop.kind, "not reached" if sometimes else "holds")
        kind = "witness" if sometimes else "counterexample"
        return PropertyOutcome(prop.name, prop.kind, "reached" if sometimes else "violated",
                               node.depth, self.trace_of(node, kind, prop.name))

    @staticmethod
    def judge(e: Expectation, outcomes: tuple[PropertyOutcome, ...], feasible: bool,
              failed: int | None) -> ExpectationResult:
        if e.name is None:
            actual = "feasible" if feasible else f"infeasible at step {failed}"
            met = (e.outcome == "feasible") == feasible
            if met and e.at_step is not None and not feasible:
                met = failed == e.at_step
            return ExpectationResult(e, met, actual)
        outcome = next(o for o in outcomes if o.name == e.name)
        sometimes = outcome.kind is ir.PropertyKind.SOMETIMES
        happened = outcome.step is not None
        # for a sometimes property "holds" means reached (a witness exists)
        wanted = (e.outcome == "holds") if sometimes else (e.outcome == "violated")
        where = f" at step {outcome.step}" if happened else ""
        if sometimes:
            actual = ("reached" if happened else "not reached") + where
        else:
            actual = ("violated" if happened else "holds") + where
        met = happened == wanted
        if met and happened and e.at_step is not None:
            met = outcome.step == e.at_step
        return ExpectationResult(e, met, actual)


def run_scenario(model: ir.Model, scenario: Scenario) -> ReplayReport:
    """Replay ``scenario`` against ``model``.  Raises ``CompileError`` when a
    step or expectation does not fit the model, ``EvalError`` (with the trace
    to it) when the spec fails at run time on the way."""
    bound = bind(scenario, model)
    return _Run(model, scenario, bound).run()
