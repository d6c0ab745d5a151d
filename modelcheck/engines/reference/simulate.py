"""Random simulation: ``options.simulate`` runs of at most ``options.sim_depth``
steps each, from a seeded generator, so that the same seed gives the same runs.

Simulation proves nothing about the states it did not visit: an invariant
never seen violated is UNKNOWN, never HOLDS.  What it finds is exact, though:
a violation is a real counterexample and a ``sometimes`` witness a real
behaviour, so those are reported as VIOLATED and HOLDS.  Per property the
shortest trace found over all runs is kept.
"""
from __future__ import annotations

import random
import time
from typing import Any

from modelcheck.engines.base import (DEADLOCK, CheckOptions, CheckResult, Progress, PropertyResult,
                                     Reporter, Stats, Status)
from modelcheck.evaluate.evaluator import Evaluator, State
from modelcheck.engines.reference.explorer import (PROGRESS_EVERY_S, Verdicts, attach_error_trace,
                                                   select_properties)
from modelcheck.errors import EvalError
from modelcheck.ir.nodes import Model, PropertyKind
from modelcheck.trace.paths import trace_of

__all__ = ["simulate", "SIMULATION_REASON"]

SIMULATION_REASON = "simulation explores only some behaviours"

Path = list[tuple[str | None, tuple, State]]


class _OutOfTime(Exception):
    """The time limit is reached; the message is the reason."""


class _Simulation:
    def __init__(self, model: Model, options: CheckOptions, reporter: Reporter):
        self.options = options
        self.reporter = reporter
        self.model = model
        # Built when the runs start, with the clock: compiling folds constant
        # expressions, which may take long (see the explorer).
        self.ev: Evaluator
        props = select_properties(model, options)
        self.verdicts = Verdicts(props, options.deadlock)
        self.invariants = [p.name for p in props if p.kind is PropertyKind.INVARIANT]
        self.steps = [p.name for p in props if p.kind is PropertyKind.STEP]
        self.sometimes = [p.name for p in props if p.kind is PropertyKind.SOMETIMES]
        self.rng = random.Random(options.seed)
        self.seen: set[State] = set()
        self.generated = 0
        self.depth = 0
        self.runs = 0
        self.action_counts = {a.name: 0 for a in model.actions}
        self.start = time.monotonic()
        self.last_tick = self.start
        self.stopped_on_first = False

    def keep(self, name: str, kind: PropertyKind | None, status: Status, path: Path,
             trace_kind: str) -> None:
        """Record a trace for a property if it is the shortest one so far."""
        current = self.verdicts.settled.get(name)
        if current is not None and current.trace is not None and len(current.trace) <= len(path) - 1:
            return
        self.verdicts.settle(name, kind, status, trace_of(self.ev, path, trace_kind, name))
        if status is Status.VIOLATED and self.options.stop_on_first:
            self.stopped_on_first = True

    def guarded(self, path: Path, check: Any, *args: Any) -> Any:
        try:
            return check(*args)
        except EvalError as err:
            attach_error_trace(err, trace_of(self.ev, path, "error"))
            raise

    def check_state(self, path: Path) -> None:
        state = path[-1][2]
        check = self.ev.check_property
        for name in self.invariants:
            if not self.guarded(path, check, name, state):
                self.keep(name, PropertyKind.INVARIANT, Status.VIOLATED, path, "counterexample")
        for name in self.sometimes:
            if self.guarded(path, check, name, state):
                self.keep(name, PropertyKind.SOMETIMES, Status.HOLDS, path, "witness")

    def tick(self) -> None:
        now = time.monotonic()
        timeout = self.options.timeout_s
        if timeout is not None and now - self.start >= timeout:
            raise _OutOfTime(f"timeout after {timeout:g} s: {self.runs:,} runs")
        if now - self.last_tick >= PROGRESS_EVERY_S:
            self.last_tick = now
            self.reporter.progress(Progress(len(self.seen), self.generated, self.depth,
                                            (self.options.simulate or 0) - self.runs,
                                            now - self.start, phase="simulate"))

    def run_all(self) -> None:
        self.ev = Evaluator(self.model, heartbeat=self.tick)
        initial = self.ev.initial_states()
        self.generated += len(initial)
        if not initial:
            return
        for _ in range(self.options.simulate or 0):
            self.one_run(initial)
            self.runs += 1
            if self.stopped_on_first:
                return

    def one_run(self, initial: list[State]) -> None:
        state = self.rng.choice(initial)
        path: Path = [(None, (), state)]
        self.check_state(path)
        if not self.guarded(path, self.ev.in_model, state):
            return
        self.seen.add(state)
        for _ in range(self.options.sim_depth):
            self.depth = max(self.depth, len(path))
            if self.stopped_on_first:
                return
            self.tick()
            try:
                transitions = list(self.ev.successors(state))
            except EvalError as err:
                attach_error_trace(err, trace_of(self.ev, path, "error"))
                raise
            self.generated += len(transitions)
            if not transitions:
                if self.options.deadlock and not self.guarded(path, self.ev.is_terminal, state):
                    self.keep(DEADLOCK, None, Status.VIOLATED, path, "counterexample")
                return
            for action, params, new in transitions:
                self.action_counts[action] += 1
                for name in self.steps:
                    step_path = path + [(action, params, new)]
                    if not self.guarded(step_path, self.ev.check_property, name, state, new):
                        self.keep(name, PropertyKind.STEP, Status.VIOLATED, step_path,
                                  "counterexample")
            action, params, state = self.rng.choice(transitions)
            path.append((action, params, state))
            self.check_state(path)
            # A state failing a constraint is checked but not explored (as in
            # the explorer and TLC's simulation): the run ends there.
            if not self.guarded(path, self.ev.in_model, state):
                break
            self.seen.add(state)
        self.depth = max(self.depth, len(path))

    def stats(self) -> Stats:
        elapsed = time.monotonic() - self.start
        return Stats(distinct_states=len(self.seen), generated_states=self.generated,
                     depth=self.depth, elapsed_s=elapsed, action_counts=dict(self.action_counts),
                     never_enabled=tuple(a for a, n in self.action_counts.items() if n == 0),
                     extras={"runs": self.runs, "seed": self.options.seed})


def simulate(model: Model, options: CheckOptions, reporter: Reporter) -> CheckResult:
    """Random runs; violations and witnesses found are exact, the rest UNKNOWN."""
    sim = _Simulation(model, options, reporter)
    reason = SIMULATION_REASON
    error: EvalError | None = None
    try:
        sim.run_all()
    except _OutOfTime as timeout:
        reason = f"{SIMULATION_REASON}; {timeout}"
    except KeyboardInterrupt:
        reason = "interrupted"
    except MemoryError:
        sim.seen.clear()
        reason = f"out of memory at {sim.runs:,} runs"
    except EvalError as err:
        error = err
    if sim.stopped_on_first:
        reason = f"{SIMULATION_REASON}; stopped at the first violation (stop_on_first)"
    results: list[PropertyResult] = sim.verdicts.results(False, reason)
    return CheckResult(model.name, "reference", results, sim.stats(), reason=reason, error=error,
                       notes=[f"simulation: {sim.runs:,} runs of at most {options.sim_depth} steps, "
                              f"seed {options.seed}"])
