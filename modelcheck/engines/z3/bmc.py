"""Bounded model checking with Z3: ``BmcEngine`` (engine name ``bmc``).

The path is unrolled one step at a time, and at each depth k every open
question is asked about the last state only, so the first answer found for a
property is a shortest one (fewer steps were all ruled out before):

1. (k = 0) a run-time error computing the initial states;
2. each open invariant false in state k (VIOLATED, counterexample of k steps),
   or a run-time error evaluating it there;
3. each open ``sometimes`` true in state k (HOLDS, witness of k steps);
4. (k >= 1) each open step invariant false on step k (and its errors);
5. a run-time error in some action instance taken from state k;
6. state k has no enabled action and satisfies no ``terminal`` (deadlock).

With state constraints, a run-time error evaluating them in state k comes
first at each depth (the reference asks before it checks the state), and
5 and 6 concern state k only when it is in the model: the transition
relation expands no other (``Encoding``), so states 0..k-1 of every path are
in the model and state k may be outside it, its properties still checked, as
the reference explorer checks a successor it then drops.

Run-time errors stop the check, as in the explicit engines: the trace to the
failing state is decoded and the reference evaluator re-raises the error, so
its message and span are the reference's own.

Bounds: properties still open after depth K are HOLDS_UP_TO_BOUND ("holds up
to depth K"), never HOLDS: BMC does not answer the unbounded question.  An
open ``sometimes`` is UNKNOWN ("no witness within K steps").  The depth is
``options.depth`` (steps); without it, ``options.max_depth - 1`` (TLC levels
to steps) if set, else ``DEFAULT_DEPTH``.  A timeout (``options.timeout_s``)
ends the run at the depth reached, saying so: each solver call gets the
time left as its own timeout, and ``budget.watchdog`` interrupts Z3 at the
deadline whatever it is doing.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import z3

from modelcheck.engines.base import (DEADLOCK, CheckOptions, CheckResult, NullReporter, Progress,
                                     PropertyResult, Reporter, Stats, Status)
from modelcheck.evaluate.evaluator import Evaluator
from modelcheck.engines.reference.explorer import select_properties
from modelcheck.engines.z3.budget import past, watchdog
from modelcheck.engines.z3.encoding import (Encoding, EncodingOptions, EncodingUnsupported,
                                            StateCopy, StepCopy)
from modelcheck.engines.z3.logic import conj, disj, is_false, is_true, neg
from modelcheck.engines.z3.slicing import freeze
from modelcheck.engines.z3.symbolic import EncodingTimeout
from modelcheck.engines.z3.traces import decode_trace, rederive_error
from modelcheck.errors import EvalError
from modelcheck.ir.nodes import Model, Property, PropertyKind
from modelcheck.trace.trace import Trace

__all__ = ["BmcEngine", "DEFAULT_DEPTH", "CAPABILITIES", "bmc_depth"]

#: Steps unrolled when neither ``depth`` nor ``max_depth`` is given.
DEFAULT_DEPTH = 20

#: What the conformance suite may compare against the reference explorer:
#: verdicts and shortest trace lengths up to the depth, no state counts, no
#: unbounded HOLDS.
CAPABILITIES = frozenset({"invariants", "step_invariants", "sometimes", "deadlock",
                          "run_time_errors", "shortest_traces", "bounded"})


def bmc_depth(options: CheckOptions) -> tuple[int, str | None]:
    """The number of steps to unroll, and a note when it is a default."""
    if options.depth is not None:
        return options.depth, None
    if options.max_depth is not None:
        steps = max(0, options.max_depth - 1)
        return steps, f"bmc: no depth given; unrolling {steps} steps (max_depth {options.max_depth})"
    return DEFAULT_DEPTH, f"bmc: no depth given; unrolling the default {DEFAULT_DEPTH} steps"


class _Timeout(Exception):
    pass


class _Undecided(Exception):
    """Z3 answered "unknown" (not a timeout); the message is its reason."""


class _Stop(Exception):
    """A run-time error was found: ``error`` is the reference's EvalError."""

    def __init__(self, error: EvalError):
        self.error = error


@dataclass(eq=False)
class _Goal:
    """One question at the current depth: a formula over the path, what it is
    about, and (for a run-time error) how to make the reference evaluator
    raise it from the states of the decoded trace."""
    formula: z3.BoolRef
    what: str
    run: Callable[[list], object] | None = None
    prop: Property | None = None
    initial: bool = False


class BmcEngine:
    """Bounded model checking: shortest counterexamples and witnesses up to a depth."""

    name = "bmc"
    capabilities = CAPABILITIES

    def check(self, model: Model, options: CheckOptions | None = None,
              reporter: Reporter | None = None) -> CheckResult:
        options = options if options is not None else CheckOptions()
        reporter = reporter if reporter is not None else NullReporter()
        return _Bmc(model, options, reporter).run()


class _Bmc:
    def __init__(self, model: Model, options: CheckOptions, reporter: Reporter):
        self.model = model
        self.options = options
        self.reporter = reporter
        self.props = select_properties(model, options)
        self.depth, note = bmc_depth(options)
        self.notes = [note] if note else []
        self.settled: dict[str, PropertyResult] = {}
        self.start = time.monotonic()
        self.solver_s = 0.0
        self.queries = 0
        self.enc: Encoding | None = None
        self.states: list[StateCopy] = []
        self.steps: list[StepCopy] = []
        self.ev: Evaluator | None = None
        self.incremental: z3.Solver | None = None
        self.fixed: dict = {}

    # ---------------------------------------------------------------- driver

    def run(self) -> CheckResult:
        reached = -1
        reason = None
        # What each property's own line says; the whole reason is said once,
        # as the run's reason (an encoding refusal can be long).
        brief = None
        error = None
        timeout = self.options.timeout_s
        deadline = None if timeout is None else self.start + timeout
        try:
            with watchdog(deadline):
                # Variables the configuration never changes are replaced by
                # their value (exact); traces get them back when decoded.
                reduced, self.fixed = freeze(self.model)
                self.props = [reduced.get_property(p.name) for p in self.props]
                self.enc = Encoding(reduced, EncodingOptions.from_extra(self.options.extra),
                                    deadline=deadline)
                for k in range(self.depth + 1):
                    self.at_depth(k)
                    reached = k
                    self.reporter.progress(Progress(0, 0, k + 1, 0,
                                                    time.monotonic() - self.start, phase="bmc"))
                    if self.done():
                        break
        except z3.Z3Exception:
            # The watchdog's interrupt can end a call that is not a check
            # (reading a model) with an exception.
            if not past(deadline):
                raise
            reason = f"timeout after {timeout:g} s at depth {reached + 1}"
        except (_Timeout, EncodingTimeout):
            reason = f"timeout after {timeout:g} s at depth {reached + 1}"
        except KeyboardInterrupt:
            reason = f"interrupted at depth {reached + 1}"
        except EncodingUnsupported as err:
            brief = "the Z3 encoding does not support this spec"
            reason = f"{brief}: {err}"
        except _Undecided as err:
            brief = f"Z3 could not decide a query at depth {reached + 1}"
            reason = f"{brief}: {err}"
        except _Stop as stop:
            error = stop.error
        return self.result(reached, reason, error, brief or reason)

    def done(self) -> bool:
        if self.options.stop_on_first and any(p.status is Status.VIOLATED
                                              for p in self.settled.values()):
            return True
        names = [p.name for p in self.props] + ([DEADLOCK] if self.options.deadlock else [])
        return all(n in self.settled for n in names)

    def solver(self, k: int) -> z3.Solver:
        """The solver holding the path to state k."""
        if self.incremental is not None:
            if k > 0:
                self.incremental.add(self.states[k].wf, self.steps[k - 1].formula)
            return self.incremental
        s = self.enc.solver()
        s.add(self.enc.init(self.states[0])[0])
        s.add(*[st.wf for st in self.states[:k + 1]])
        s.add(*[step.formula for step in self.steps[:k]])
        return s

    def at_depth(self, k: int) -> None:
        enc = self.enc
        if k == 0:
            self.states.append(enc.state("0:"))
            if self.options.deadlock:
                # Enabledness may need a quantifier, which decides the solver.
                enc.enabled(self.states[0])
            if enc.options.solver == "incremental":
                self.incremental = enc.solver()
                self.incremental.add(enc.init(self.states[0])[0], self.states[0].wf)
        # The step out of state k is built now (its error flag is asked about
        # at this depth) and joins the path at the next one.
        self.states.append(enc.state(f"{k + 1}:"))
        self.steps.append(enc.step(self.states[k], self.states[k + 1], k))
        solver = self.solver(k)
        s = self.states[k]
        ev = self.evaluator()
        # Each group is one query while nothing is found: "some open property
        # is violated here" costs one solver call, not one per property.
        errors: list[_Goal] = []
        violations: list[_Goal] = []
        witnesses: list[_Goal] = []
        if k == 0:
            errors.append(_Goal(enc.init(s)[1], "the initial states",
                                lambda st: ev.initial_states(), initial=True))
        # The reference asks whether a new state is in the model before it
        # checks the state's properties.
        inside, outside_faults = enc.in_model(s)
        errors.append(_Goal(outside_faults, "a state constraint",
                            lambda st: ev.in_model(st[-1])))
        for p in self.open(PropertyKind.INVARIANT, PropertyKind.SOMETIMES):
            holds, faults = enc.prop(p, s)
            errors.append(_Goal(faults, f"property {p.name}",
                                lambda st, n=p.name: ev.check_property(n, st[-1])))
            if p.kind is PropertyKind.SOMETIMES:
                witnesses.append(_Goal(holds, p.name, prop=p))
            else:
                violations.append(_Goal(neg(holds), p.name, prop=p))
        if k >= 1:
            for p in self.open(PropertyKind.STEP):
                holds, faults = enc.prop(p, self.states[k - 1], s)
                errors.append(_Goal(faults, f"step invariant {p.name}",
                                    lambda st, n=p.name: ev.check_property(n, st[-2], st[-1])))
                violations.append(_Goal(neg(holds), p.name, prop=p))
        # The reference explorer checks every state of a level before it
        # expands any: a property false in state k is reported even when an
        # action taken from state k then fails.
        expanding = [_Goal(self.steps[k].faults, "an action",
                           lambda st: list(ev.successors(st[-1])))]
        if self.options.deadlock and DEADLOCK not in self.settled:
            terminal, terminal_faults = enc.terminal(s)
            # A state outside the model is never expanded, so never a deadlock.
            stuck = conj([inside, neg(enc.enabled(s))])
            expanding.append(_Goal(conj([stuck, terminal_faults]), "a terminal declaration",
                                   lambda st: ev.is_terminal(st[-1])))
            # A state whose expansion fails is an error, not a deadlock.
            violations.append(_Goal(conj([stuck, neg(terminal), neg(terminal_faults),
                                          neg(self.steps[k].faults)]), DEADLOCK))
        self.errors(solver, k, errors)
        self.settle_group(solver, k, violations, Status.VIOLATED, "counterexample")
        self.settle_group(solver, k, witnesses, Status.HOLDS, "witness")
        if not (self.options.stop_on_first and any(p.status is Status.VIOLATED
                                                   for p in self.settled.values())):
            self.errors(solver, k, expanding)

    def settle_group(self, solver: z3.Solver, k: int, goals: list["_Goal"], status: Status,
                     kind: str) -> None:
        """Settle every goal reachable at depth k: each model found settles
        all the goals it satisfies (its trace is a shortest one for each)."""
        goals = [g for g in goals if not is_false(g.formula)]
        while goals:
            m = self.ask(solver, disj(g.formula for g in goals))
            if m is None:
                return
            hit = [g for g in goals if is_true(m.eval(g.formula, model_completion=True))]
            if not hit:
                # A model does not always evaluate a quantified part (the
                # enabledness of an action with many choices): ask each.
                for g in goals:
                    one = self.ask(solver, g.formula)
                    if one is not None:
                        m, hit = one, [g]
                        break
            if not hit:
                raise _Undecided("a model satisfies a disjunction but none of its parts")
            for g in hit:
                self.settle(g.what, g.prop.kind if g.prop is not None else None, status,
                            self.trace(m, k, kind, g.what))
            goals = [g for g in goals if not any(g is h for h in hit)]
            if self.options.stop_on_first and status is Status.VIOLATED:
                return

    def errors(self, solver: z3.Solver, k: int, goals: list["_Goal"]) -> None:
        """Stop with the reference's error if a run-time error can happen at
        depth k; the first goal (in the reference's order) the model
        satisfies says which evaluation to re-run."""
        goals = [g for g in goals if not is_false(g.formula)]
        if not goals:
            return
        m = self.ask(solver, disj(g.formula for g in goals))
        if m is None:
            return
        goal = next((g for g in goals if is_true(m.eval(g.formula, model_completion=True))),
                    goals[0])
        ev = self.evaluator()
        trace = None if goal.initial else self.trace(m, k, "error", None)
        states = [] if trace is None else [ev.state_from_dict(st.state) for st in trace.steps]
        raise _Stop(rederive_error(trace, lambda: goal.run(states), goal.what))

    def trace(self, m: z3.ModelRef, k: int, kind: str, prop: str | None) -> Trace:
        return decode_trace(self.enc, m, self.states[:k + 1], self.steps[:k], kind, prop,
                            self.model, self.fixed)

    # ---------------------------------------------------------------- solving

    def ask(self, solver: z3.Solver, goal: z3.BoolRef) -> z3.ModelRef | None:
        """A model of the path so far with ``goal`` in it, or None if there is none."""
        if is_false(goal):
            return None
        timeout = self.options.timeout_s
        if timeout is not None:
            left = timeout - (time.monotonic() - self.start)
            if left <= 0:
                raise _Timeout()
            solver.set("timeout", max(1, int(left * 1000)))
        t0 = time.monotonic()
        answer = solver.check(goal)
        self.solver_s += time.monotonic() - t0
        self.queries += 1
        if answer == z3.sat:
            return solver.model()
        if answer == z3.unsat:
            return None
        if timeout is not None and time.monotonic() - self.start >= timeout * 0.99:
            raise _Timeout()
        raise _Undecided(solver.reason_unknown() or "unknown")

    # ---------------------------------------------------------------- bookkeeping

    def open(self, *kinds: PropertyKind) -> list[Property]:
        return [p for p in self.props if p.kind in kinds and p.name not in self.settled]

    def settle(self, name: str, kind: PropertyKind | None, status: Status, trace: Trace) -> None:
        self.settled[name] = PropertyResult(name, kind, status, trace)

    def evaluator(self) -> Evaluator:
        if self.ev is None:
            self.ev = Evaluator(self.model)
        return self.ev

    def result(self, reached: int, reason: str | None, error: EvalError | None,
               brief: str | None = None) -> CheckResult:
        """``reason`` is the run's (why it stopped); ``brief``, its first
        words, is what each property left open says."""
        out = []
        entries = [(p.name, p.kind) for p in self.props]
        if self.options.deadlock:
            entries.append((DEADLOCK, None))
        for name, kind in entries:
            got = self.settled.get(name)
            if got is not None:
                out.append(got)
            elif error is not None:
                out.append(PropertyResult(name, kind, Status.UNKNOWN,
                                          reason=f"stopped by a run-time error "
                                                 f"({error.diagnostic.code})"))
            elif reached < 0:
                out.append(PropertyResult(name, kind, Status.UNKNOWN, reason=brief))
            elif kind is PropertyKind.SOMETIMES:
                why = f"no state satisfying it within {reached} steps"
                out.append(PropertyResult(name, kind, Status.UNKNOWN,
                                          reason=why + (f" ({brief})" if brief else "")))
            else:
                why = f"holds up to depth {reached}"
                out.append(PropertyResult(name, kind, Status.HOLDS_UP_TO_BOUND,
                                          reason=why + (f" ({brief})" if brief else "")))
        elapsed = time.monotonic() - self.start
        stats = Stats(depth=reached + 1 if reached >= 0 else 0, elapsed_s=elapsed,
                      extras={"bmc_steps": max(reached, 0), "solver_s": round(self.solver_s, 3),
                              "queries": self.queries})
        bounded = reason
        if bounded is None and error is None and any(
                p.status in (Status.HOLDS_UP_TO_BOUND, Status.UNKNOWN) for p in out):
            bounded = f"bounded model checking up to depth {reached}"
        return CheckResult(self.model.name, "bmc", out, stats,
                           reason=None if error is not None else bounded, error=error,
                           notes=list(self.notes))
