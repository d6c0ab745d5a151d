"""Breadth-first exploration storing whole states: the reference explorer.

Plain and deterministic: states are numbered in the order they are found;
each number keeps its parent, the action and the parameters that reached it,
so the first violation found is a shortest counterexample (BFS finds states
in order of distance).  The counts follow docs/design.md (TLC's conventions).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Protocol

from modelcheck.engines.base import (DEADLOCK, CheckOptions, CheckResult, Progress, PropertyResult,
                                     Reporter, Stats, Status, report_found, settled_note,
                                     stops_when_settled)
from modelcheck.evaluate.evaluator import Evaluator, State
from modelcheck.engines.reference.liveness import Edge, Graph, find_lasso
from modelcheck.engines.reference.orbits import GROUP_LIMIT, OrbitKeys
from modelcheck.engines.symmetry import usable_symmetric_types
from modelcheck.engines.liveness_scope import SYMMETRY_OFF_NOTE, selected_temporals
from modelcheck.evaluate.temporal import FairCondition, LivenessCheck, fair_conditions, liveness_checks
from modelcheck.errors import EvalError, UsageError
from modelcheck.ir.nodes import Model, Property, PropertyKind
from modelcheck.trace.trace import Step, Trace
from modelcheck.trace.paths import trace_of

__all__ = ["explore", "select_properties", "attach_error_trace", "Verdicts", "PROGRESS_EVERY_S",
           "STOPPED", "StopSignal", "TRACE_CUT"]

#: Seconds between two progress ticks within a level.
PROGRESS_EVERY_S = 0.5

#: The reason of a search ended by its caller's ``stop`` signal.
STOPPED = "stopped by the caller"


class StopSignal(Protocol):
    """Asked between two states (and inside long evaluations) whether the
    search should end: a ``threading.Event`` is one.  The default engine sets
    it from another thread when the compiled kernel is ready to take over."""

    def is_set(self) -> bool: ...


def select_properties(model: Model, options: CheckOptions) -> list[Property]:
    """The properties to check, in declaration order (``options.invariants``
    names a subset; ``deadlock`` may be named there too and is handled apart)."""
    if options.invariants is None:
        return list(model.properties)
    known = {p.name for p in model.properties} | {t.name for t in model.temporals}
    unknown = [n for n in options.invariants if n not in known and n != DEADLOCK]
    if unknown:
        raise UsageError(f"no property named {unknown[0]!r} in spec {model.name!r}",
                         hint="properties: " + (", ".join(sorted(known)) or "(none)"))
    wanted = set(options.invariants)
    return [p for p in model.properties if p.name in wanted]


def attach_error_trace(err: EvalError, trace: Trace) -> None:
    """Give a run-time error the trace to the state where it happened (the
    failing step itself, which has no state, is named in the diagnostic)."""
    trace.meta["error"] = err.diagnostic.code
    trace.meta["message"] = err.diagnostic.message
    err.trace = trace


#: The reason of a find whose trace the user stopped (Ctrl-C, SIGTERM): not
#: shown, so neither its verdict nor, at the end of a finished search, HOLDS.
TRACE_CUT = "found, but the run was interrupted before its trace was rebuilt and replayed"


@dataclass
class Verdicts:
    """The verdicts settled so far; what is left unsettled at the end is
    decided by whether the search finished (shared with the simulator)."""
    properties: list[Property]
    deadlock: bool
    settled: dict[str, PropertyResult] = field(default_factory=dict)

    def open(self, name: str) -> bool:
        return name not in self.settled

    def settle(self, name: str, kind: PropertyKind | None, status: Status, trace: Trace) -> None:
        self.settled[name] = PropertyResult(name, kind, status, trace)

    def leave_unknown(self, name: str, kind: PropertyKind | None, reason: str) -> None:
        """Settle ``name`` as UNKNOWN: found, but not shown (its trace was not
        rebuilt), so neither its verdict nor the finished search's default."""
        self.settled.setdefault(name, PropertyResult(name, kind, Status.UNKNOWN, reason=reason))

    def all_settled(self) -> bool:
        return (all(p.name in self.settled for p in self.properties)
                and (not self.deadlock or DEADLOCK in self.settled))

    def results(self, finished: bool, reason: str | None) -> list[PropertyResult]:
        """Every verdict: unsettled ones hold (or, for ``sometimes``, are
        violated) only if the search finished; otherwise they are UNKNOWN."""
        out = []
        for p in self.properties:
            out.append(self.settled.get(p.name) or self._unsettled(p.name, p.kind, finished, reason))
        if self.deadlock:
            out.append(self.settled.get(DEADLOCK) or self._unsettled(DEADLOCK, None, finished, reason))
        return out

    @staticmethod
    def _unsettled(name: str, kind: PropertyKind | None, finished: bool,
                   reason: str | None) -> PropertyResult:
        if not finished:
            return PropertyResult(name, kind, Status.UNKNOWN, reason=reason)
        if kind is PropertyKind.SOMETIMES:
            return PropertyResult(name, kind, Status.VIOLATED,
                                  reason="no reachable state satisfies it")
        return PropertyResult(name, kind, Status.HOLDS)


class _Bound(Exception):
    """The search hit a bound; the message is the reason."""


class _Stopped(Exception):
    """The caller's stop signal was set."""


class _Search:
    def __init__(self, model: Model, options: CheckOptions, reporter: Reporter,
                 stop: StopSignal | None = None):
        self.model = model
        self.stop = stop
        self.options = options
        self.reporter = reporter
        # Built when the search starts: compiling folds constant expressions,
        # which may be long (a quantifier over a big range), and the
        # heartbeat may then stop it at the timeout.
        self.ev: Evaluator
        self.cursor = 0   # the state being expanded, for the heartbeat's queue size
        props = select_properties(model, options)
        self.verdicts = Verdicts(props, options.deadlock)
        self.invariants = [p.name for p in props if p.kind is PropertyKind.INVARIANT]
        self.steps = [p.name for p in props if p.kind is PropertyKind.STEP]
        self.sometimes = [p.name for p in props if p.kind is PropertyKind.SOMETIMES]
        self.states: list[State] = []
        self.index: dict[State, int] = {}
        self.parent: list[int] = []
        self.via: list[tuple[str | None, tuple]] = []
        self.generated = 0
        self.depth = 0
        self.action_counts = {a.name: 0 for a in model.actions}
        self.start = time.monotonic()
        self.last_tick = self.start
        self.stopped_on_first = False
        self.settled_early = False      # stopped: every property checked was settled
        self.cut_at_depth = False
        # Liveness needs the state graph itself (reference/liveness.py).
        self.live = liveness_checks(selected_temporals(model, options))
        self.conditions: list[FairCondition] = []
        self.graph = Graph([], [], [])
        # Every distinct predicate of the checks, and their values per state.
        self.preds = list({id(e): e for c in self.live for e in (c.p, c.q)
                           if e is not None}.values())
        self.pred_index = {id(e): k for k, e in enumerate(self.preds)}
        self.pred_values: list[tuple] = []
        self.notes: list[str] = []
        if options.fingerprint_bits != 64:
            self.notes.append(f"--fingerprint-bits {options.fingerprint_bits} has no effect "
                              f"here: the reference explorer keeps whole states")
        self.orbits = self.symmetry(model, options)
        # States are stored as found (so every trace is a behaviour) and
        # looked up by their orbit key under symmetry.
        self.key = self.orbits.key if self.orbits is not None else _same

    def symmetry(self, model: Model, options: CheckOptions) -> OrbitKeys | None:
        """The brute-force reduction (orbits.py) by the usable symmetric
        types, or None; off for liveness, as in every engine."""
        if not options.symmetry or not model.symmetric_types:
            return None
        if self.live:
            self.notes.append(SYMMETRY_OFF_NOTE)
            return None
        types, notes = usable_symmetric_types(model)
        self.notes.extend(notes)
        if not types:
            return None
        size = OrbitKeys.group_size(types)
        names = ", ".join(t.name for t in types)
        if size > GROUP_LIMIT:
            self.notes.append(f"symmetry reduction off: the renamings of {names} number "
                              f"{size:,} (the reference explorer tries at most "
                              f"{GROUP_LIMIT:,} per state)")
            return None
        return OrbitKeys(model, types)

    # -------------------------------------------------------------- traces

    def path(self, i: int) -> list[tuple[str | None, tuple, State]]:
        out = []
        while i >= 0:
            action, params = self.via[i]
            out.append((action, params, self.states[i]))
            i = self.parent[i]
        out.reverse()
        return out

    def trace_to(self, i: int, kind: str, prop: str | None,
                 last: tuple[str, tuple, State] | None = None) -> Trace:
        path = self.path(i)
        if last is not None:
            path.append(last)
        return trace_of(self.ev, path, kind, prop)

    # -------------------------------------------------------------- checks

    def found(self, name: str, kind: PropertyKind | None, status: Status, trace: Trace) -> None:
        self.verdicts.settle(name, kind, status, trace)
        if status is Status.VIOLATED and self.options.stop_on_first:
            self.stopped_on_first = True
            return
        open_names = [p.name for p in self.verdicts.properties if self.verdicts.open(p.name)]
        if self.verdicts.deadlock and self.verdicts.open(DEADLOCK):
            open_names.append(DEADLOCK)
        open_names.extend(dict.fromkeys(c.name for c in self.live))
        if open_names:
            report_found(self.reporter, self.verdicts.settled[name], open_names)

    def all_settled(self) -> bool:
        """At the start of a level: every property checked is settled, so the
        search may end here (never with liveness, which needs the whole graph)."""
        v = self.verdicts
        if self.live or not stops_when_settled(self.options, len(v.properties) + v.deadlock):
            return False
        self.settled_early = v.all_settled()
        return self.settled_early

    def check_state(self, i: int) -> None:
        state = self.states[i]
        check = self.ev.check_property
        for name in self.invariants:
            if self.verdicts.open(name) and not self.guarded(i, None, check, name, state):
                self.found(name, PropertyKind.INVARIANT, Status.VIOLATED,
                           self.trace_to(i, "counterexample", name))
        for name in self.sometimes:
            if self.verdicts.open(name) and self.guarded(i, None, check, name, state):
                self.found(name, PropertyKind.SOMETIMES, Status.HOLDS,
                           self.trace_to(i, "witness", name))
        if self.live:
            # Liveness predicates are evaluated as each state is stored, like
            # invariants (and as the compiled engine does): a run-time error
            # in one stops the search at the same state on every engine.
            ev = self.ev.eval
            self.pred_values.append(tuple(self.guarded(i, None, ev, e, state)
                                          for e in self.preds))

    def check_outside(self, state: State, parent: int, action: str | None, params: tuple) -> None:
        """Check a state that fails a constraint: TLC still checks its
        invariants (and it may witness a ``sometimes``), with the trace
        through its parent; it is never stored (docs/design.md)."""
        last = (action, params, state)
        check = self.ev.check_property
        for name in self.invariants:
            if self.verdicts.open(name) and not self.guarded(parent, last, check, name, state):
                self.found(name, PropertyKind.INVARIANT, Status.VIOLATED,
                           self.trace_to(parent, "counterexample", name, last))
        for name in self.sometimes:
            if self.verdicts.open(name) and self.guarded(parent, last, check, name, state):
                self.found(name, PropertyKind.SOMETIMES, Status.HOLDS,
                           self.trace_to(parent, "witness", name, last))

    def in_model(self, state: State, parent: int, action: str | None, params: tuple) -> bool:
        return self.guarded(parent, (action, params, state), self.ev.in_model, state)

    def add(self, state: State, parent: int, action: str | None, params: tuple) -> None:
        key = self.key(state)
        if key in self.index:
            return
        if not self.in_model(state, parent, action, params):
            self.check_outside(state, parent, action, params)
            return
        limit = self.options.max_states
        if limit is not None and len(self.states) >= limit:
            raise _Bound(f"stopped at the state bound: {len(self.states):,} distinct states "
                         f"(max_states={limit:,}), depth {self.depth}")
        i = len(self.states)
        self.states.append(state)
        self.parent.append(parent)
        self.via.append((action, params))
        # Registered last: an interrupt between these lines leaves a state
        # that is never looked up, not an index pointing past the lists.
        self.index[key] = i
        self.check_state(i)

    # -------------------------------------------------------------- search

    def tick(self, queue: int, force: bool = False) -> None:
        if self.stop is not None and self.stop.is_set():
            raise _Stopped
        now = time.monotonic()
        timeout = self.options.timeout_s
        if timeout is not None and now - self.start >= timeout:
            raise _Bound(f"timeout after {timeout:g} s: {len(self.states):,} distinct states, "
                         f"depth {self.depth}")
        if force or now - self.last_tick >= PROGRESS_EVERY_S:
            self.report(queue, now)

    def report(self, queue: int, now: float) -> None:
        self.last_tick = now
        self.reporter.progress(Progress(len(self.states), self.generated, self.depth, queue,
                                        now - self.start))

    def heartbeat(self) -> None:
        """Called by the evaluator inside a long evaluation."""
        self.tick(len(self.states) - self.cursor)

    def run(self) -> None:
        self.ev = Evaluator(self.model, heartbeat=self.heartbeat)
        if self.live:
            self.conditions = fair_conditions(self.model,
                                              lambda e, env: self.ev.eval(e, (), env))
        initial = self.ev.initial_states()
        # TLC reports depth 1 even when every initial state fails a constraint.
        self.depth = 1 if initial else 0
        for state in initial:
            self.generated += 1
            self.add(state, -1, None, ())
            if self.live and state in self.index:       # no symmetry with liveness
                self.graph.initial.append(self.index[state])
            if self.stopped_on_first:
                return
        level_end = len(self.states)
        max_depth = self.options.max_depth
        i = 0
        if self.all_settled():
            return
        while i < len(self.states) and not self.stopped_on_first:
            if i == level_end:
                self.depth += 1
                level_end = len(self.states)
                self.tick(level_end - i, force=True)
                if self.all_settled():
                    return
            self.cursor = i
            self.expand(i, max_depth is not None and self.depth >= max_depth)
            i += 1
            self.tick(len(self.states) - i)
        if self.stopped_on_first and len(self.states) > level_end:
            # Stopped inside a level after storing states of the next one
            # (the violation is often one of them): TLC's depth is the
            # deepest level stored, as the distinct count already has them.
            self.depth += 1
        if self.cut_at_depth and not self.stopped_on_first:
            raise _Bound(f"stopped at the depth bound: depth {self.depth} "
                         f"(max_depth={self.options.max_depth}) has successors not explored; "
                         f"{len(self.states):,} distinct states")

    def expand(self, i: int, at_depth_bound: bool) -> None:
        state = self.states[i]
        transitions = self.transitions(i)
        self.generated += len(transitions)
        if not transitions and self.options.deadlock and self.verdicts.open(DEADLOCK) \
                and not self.guarded(i, None, self.ev.is_terminal, state):
            self.found(DEADLOCK, None, Status.VIOLATED, self.trace_to(i, "counterexample", DEADLOCK))
        counts = self.action_counts
        if self.live:
            enabled: set[int] = set()
            out: dict[tuple, Edge] = {}
            self.graph.edges.append([])
            self.graph.enabled.append(frozenset())
        for n, (action, params, new) in enumerate(transitions, 1):
            counts[action] += 1
            for name in self.steps:
                if self.verdicts.open(name) and not self.guarded(
                        i, (action, params, new), self.ev.check_property, name, state, new):
                    self.found(name, PropertyKind.STEP, Status.VIOLATED,
                               self.trace_to(i, "counterexample", name, (action, params, new)))
            if self.stopped_on_first:
                # TLC counts the successors generated up to the violation
                self.generated -= len(transitions) - n
                return
            if at_depth_bound:
                # States past the bound are not stored, but the rest of this
                # level is still expanded so its deadlocks and steps are checked
                # (and, for liveness, its steps to states already stored).
                if self.key(new) not in self.index and self.in_model(new, i, action, params):
                    self.cut_at_depth = True
            else:
                self.add(new, i, action, params)
            if self.live and new != state:
                takes = frozenset(f for f, c in enumerate(self.conditions)
                                  if c.matches(action, params))
                enabled |= takes
                j = self.index.get(new)
                if j is not None:
                    out.setdefault((j, action, params), Edge(j, (action, params), takes))
            if self.stopped_on_first:
                self.generated -= len(transitions) - n
                return
        if self.live:
            self.graph.edges[i] = list(out.values())
            self.graph.enabled[i] = frozenset(enabled)

    def guarded(self, i: int, last: tuple | None, check: Any, *args: Any) -> Any:
        """Run a property check, attaching the trace to state ``i`` (and the
        step ``last``) to a run-time error it raises."""
        try:
            return check(*args)
        except EvalError as err:
            attach_error_trace(err, self.trace_to(i, "error", None, last))
            raise

    def transitions(self, i: int) -> list:
        try:
            return list(self.ev.successors(self.states[i]))
        except EvalError as err:
            attach_error_trace(err, self.trace_to(i, "error", None))
            raise

    # -------------------------------------------------------------- liveness

    def liveness_results(self, reason: str | None) -> list[PropertyResult]:
        """One verdict per temporal property: the first binding violated, in
        order, gives the lasso; only a finished search can say HOLDS."""
        out: dict[str, PropertyResult] = {}
        for check in self.live:
            if check.name in out and out[check.name].status is not Status.HOLDS:
                continue
            if reason is not None:
                out[check.name] = PropertyResult(check.name, PropertyKind.LIVENESS,
                                                 Status.UNKNOWN, reason=reason)
                continue
            lasso = find_lasso(self.graph, check, self.conditions, self.holds)
            if lasso is None:
                out[check.name] = PropertyResult(check.name, PropertyKind.LIVENESS, Status.HOLDS)
            else:
                out[check.name] = PropertyResult(check.name, PropertyKind.LIVENESS,
                                                 Status.VIOLATED, self.lasso_trace(check, lasso))
        return list(out.values())

    def holds(self, expr: Any, i: int) -> bool:
        return bool(self.pred_values[i][self.pred_index[id(expr)]])

    def lasso_trace(self, check: LivenessCheck, lasso: Any) -> Trace:
        path = [(None if label is None else label[0], () if label is None else label[1],
                 self.states[u]) for u, label in lasso.prefix]
        loop = len(path) - 1
        for u, (action, params) in lasso.cycle[:-1]:
            path.append((action, params, self.states[u]))
        trace = trace_of(self.ev, path, "counterexample", check.name)
        trace.loop = loop
        if lasso.cycle:
            u, (action, params) = lasso.cycle[-1]
            trace.loop_back = Step(action, tuple(params), self.ev.state_dict(self.states[u]))
        if check.instance:
            trace.meta["instance"] = check.label
        return trace

    def stats(self) -> Stats:
        elapsed = time.monotonic() - self.start
        never = tuple(a for a, n in self.action_counts.items() if n == 0)
        extras: dict[str, Any] = {}
        if elapsed > 0:
            extras["states_per_s"] = round(len(self.states) / elapsed)
        if self.orbits is not None:
            extras["symmetry"] = [t.name for t in self.orbits.types]
        return Stats(distinct_states=len(self.states), generated_states=self.generated,
                     depth=self.depth, elapsed_s=elapsed, action_counts=dict(self.action_counts),
                     never_enabled=never, extras=extras)


def explore(model: Model, options: CheckOptions, reporter: Reporter,
            stop: StopSignal | None = None) -> CheckResult:
    """Explore every reachable state breadth-first and settle the properties.
    When ``stop`` is set the search ends at the next state, like a Ctrl-C,
    with the reason ``STOPPED`` (every open verdict UNKNOWN)."""
    search = _Search(model, options, reporter, stop)
    reason: str | None = None
    error: EvalError | None = None
    try:
        search.run()
    except _Bound as bound:
        reason = str(bound)
    except KeyboardInterrupt:
        reason = "interrupted"
    except _Stopped:
        reason = STOPPED
    except MemoryError:
        n = len(search.states)
        # Drop the state store first: building the result needs memory.
        search.index.clear()
        reason = f"out of memory at {n:,} states"
    except EvalError as err:
        error = err
        reason = f"stopped by a run-time error ({err.diagnostic.code})"
    if search.stopped_on_first and reason is None:
        reason = "stopped at the first violation (stop_on_first)"
    results = search.verdicts.results(reason is None, reason)
    if search.live:
        results.extend(search.liveness_results(reason))
    stats = search.stats()
    if reason is None:
        search.report(0, time.monotonic())
    notes = list(search.notes)
    if search.settled_early and reason is None:
        notes.append(settled_note(search.depth, len(search.states)))
    if search.orbits is not None:
        notes.append(orbit_note(search.orbits.types, len(search.states)))
    for note in notes:
        reporter.note(note)
    return CheckResult(model.name, "reference", results,
                       stats, reason=None if error is not None else reason, error=error,
                       notes=notes)


def orbit_note(types: list, distinct: int) -> str:
    """The note of a run reduced by symmetry (the same on every engine)."""
    names = ", ".join(t.name for t in types)
    return (f"symmetry reduction by {names}: {distinct:,} distinct states are "
            f"orbit representatives (run with symmetry off for the full count)")


def _same(state: State) -> State:
    return state
