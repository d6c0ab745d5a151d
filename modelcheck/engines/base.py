"""The engine interface: ``Engine.check(model, options, reporter) -> CheckResult``.

Every engine reads only the IR, reports progress through a ``Reporter``, and
returns a ``CheckResult``.  HOLDS is reported only when the search finished;
any bound hit, timeout, interruption or memory exhaustion gives UNKNOWN with a
reason (or HOLDS_UP_TO_BOUND for bounded model checking).
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Protocol

from modelcheck.behaviour import DEADLOCK
from modelcheck.ir.nodes import Model, PropertyKind
from modelcheck.trace.trace import Trace

__all__ = ["Status", "PropertyResult", "CheckOptions", "Stats", "Progress", "CheckResult",
           "Reporter", "NullReporter", "Engine", "DEADLOCK", "report_found", "settled_note",
           "is_settled_note", "stops_when_settled"]


class Status(enum.Enum):
    """A property's verdict.  HOLDS: the search finished and the property is
    true of every reachable state (for ``sometimes P``: P is reachable).
    VIOLATED: a counterexample was found (for ``sometimes P``: the search
    finished and P is never reachable).  HOLDS_UP_TO_BOUND: no counterexample
    within a bound (bmc).  UNKNOWN: the search stopped first; ``reason`` says why."""
    HOLDS = "holds"
    VIOLATED = "violated"
    HOLDS_UP_TO_BOUND = "holds_up_to_bound"
    UNKNOWN = "unknown"


@dataclass(repr=False)
class PropertyResult:
    """The verdict on one property.

    For an invariant or step invariant: VIOLATED comes with the shortest
    counterexample.  For ``sometimes P``: HOLDS comes with the shortest witness
    trace (P is reachable); VIOLATED means the search finished and P is never
    reachable.  The deadlock check appears as a property named ``deadlock``
    (kind None).  ``trace_file`` is set by whoever wrote the trace to disk.
    ``modelcheck.testing`` asserts on these (``assert_violated(result, name)``).
    """
    name: str
    kind: PropertyKind | None
    status: Status
    trace: Trace | None = None
    reason: str | None = None
    trace_file: str | None = None

    @property
    def steps(self) -> int | None:
        """The length of the trace in steps (the initial state not counted), if any."""
        return len(self.trace) if self.trace is not None else None

    def __repr__(self) -> str:
        steps = f", steps={self.steps}" if self.trace is not None else ""
        return f"PropertyResult({self.name}, {self.status.value}{steps})"


@dataclass
class CheckOptions:
    """Everything an engine may be asked; engines ignore what they do not use."""
    invariants: tuple[str, ...] | None = None   # property names to check; None = all
    deadlock: bool = True                       # report deadlock (unless a terminal state)
    max_states: int | None = None
    max_depth: int | None = None                # in TLC levels: initial states are depth 1
    timeout_s: float | None = None
    stop_on_first: bool = False                 # stop at the first violation of any property
    # End the search at the end of the level that settles the last selected
    # property (deadlock included when checked): every verdict is then final.
    # Off where the complete search's figures are wanted (verdict rows with counts).
    stop_when_settled: bool = True
    # simulation (reference engine)
    simulate: int | None = None                 # number of random runs
    sim_depth: int = 100
    seed: int = 0
    # compiled engine
    exact: bool = False                         # store whole packed states, no fingerprints
    fingerprint_bits: int = 64                  # 64, 96 or 128 (compiled; --fingerprint-bits)
    symmetry: bool = True                       # use symmetric declarations
    checkpoint_dir: str | None = None
    checkpoint_every_s: float = 300.0
    resume_dir: str | None = None
    dump_kernel: str | None = None              # path to write the generated source
    cache_dir: str | None = None
    workers: int | None = None                  # search threads; None or 0 = every core
    # Z3 engine
    depth: int | None = None                    # BMC depth (steps)
    k: int = 1                                  # k-induction
    lemmas: tuple[str, ...] = ()
    # Spark engine
    master: str | None = None
    partitions: int | None = None
    spark_threshold: int | None = None
    verbose: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class Stats:
    distinct_states: int = 0
    generated_states: int = 0
    depth: int = 0                              # TLC-style: levels, initial states = 1
    elapsed_s: float = 0.0
    action_counts: dict[str, int] = field(default_factory=dict)   # successors per action
    never_enabled: tuple[str, ...] = ()
    extras: dict[str, Any] = field(default_factory=dict)          # engine-specific figures


@dataclass(frozen=True)
class Progress:
    """A progress tick, at least every ~0.5 s of search.  The reference
    explorer and Spark also tick once per level; the compiled engine ticks
    once per kernel call, which may cross several narrow levels (the
    kernel runs on while the next level fits), so ``depth`` may advance by
    more than one between ticks."""
    distinct_states: int
    generated_states: int
    depth: int
    queue: int
    elapsed_s: float
    phase: str = "explore"


@dataclass(repr=False)
class CheckResult:
    """What an engine found: one ``PropertyResult`` per property checked (and
    ``deadlock``, when it is checked), the search's figures, and ``engine``,
    the engine that ran (the compiled engine hands a spec it cannot lay out
    to the reference engine, and the result then says ``reference``).
    ``reason`` is why the search stopped early; ``error`` a run-time error in
    the spec; ``notes`` what the engine wanted said (a fallback, symmetry off).
    ``requested_engine`` is the engine that was asked for (the default
    engine's name, ``auto`` or ``reference``, when none was), set by
    ``modelcheck.api.check``: it differs from ``engine`` when the engine
    asked for handed the spec on, and the notes then say why."""
    model_name: str
    engine: str
    properties: list[PropertyResult]
    stats: Stats
    reason: str | None = None          # why the search stopped early (bounds, timeout, Ctrl-C)
    error: Any = None                  # an EvalError (MC5xxx) with its trace, if the spec failed
    notes: list[str] = field(default_factory=list)
    requested_engine: str | None = None

    def __repr__(self) -> str:
        words = [f"{p.name}={p.status.value}" for p in self.properties]
        if self.error is not None:
            code = getattr(getattr(self.error, "diagnostic", None), "code", None)
            words.append(f"error={code or type(self.error).__name__}")
        if self.reason is not None:
            words.append("incomplete")
        return f"CheckResult({', '.join([self.model_name, f'engine={self.engine}', *words])})"

    @property
    def complete(self) -> bool:
        """The search finished: no bound, timeout or interruption stopped it, and no error."""
        return self.reason is None and self.error is None

    @property
    def ok(self) -> bool:
        """Every property checked holds (a ``sometimes`` one: is reachable)
        and the spec raised no run-time error."""
        return self.error is None and all(p.status is Status.HOLDS for p in self.properties)

    @property
    def violations(self) -> list[PropertyResult]:
        """The violated properties, in property order (deadlock among them)."""
        return [p for p in self.properties if p.status is Status.VIOLATED]

    def get_property(self, name: str) -> PropertyResult:
        """The result on the property ``name``; KeyError when it was not checked."""
        for p in self.properties:
            if p.name == name:
                return p
        raise KeyError(name)

    @property
    def exit_code(self) -> int:
        """0 all hold, 1 a property violated, 2 spec error, 3 unknown."""
        if self.error is not None:
            return 2
        if any(p.status is Status.VIOLATED for p in self.properties):
            return 1
        if any(p.status in (Status.UNKNOWN, Status.HOLDS_UP_TO_BOUND) for p in self.properties):
            return 3
        return 0


class Reporter(Protocol):
    """``progress`` and ``note`` are required.  A reporter may also define
    ``found(result: PropertyResult, open_names: tuple[str, ...])``: called
    the moment a property is settled with a trace (a counterexample or a
    witness) while the search goes on for ``open_names``; engines call it
    through ``report_found`` (the CLI prints it and writes the trace)."""
    def progress(self, progress: Progress) -> None: ...
    def note(self, message: str) -> None: ...


class NullReporter:
    def progress(self, progress: Progress) -> None:
        pass

    def note(self, message: str) -> None:
        pass


def report_found(reporter: Reporter, result: PropertyResult, open_names: list[str]) -> None:
    """Hand a verdict settled mid-search to the reporter, if it takes them."""
    found = getattr(reporter, "found", None)
    if found is not None and result.trace is not None:
        found(result, tuple(open_names))


_SETTLED = "search stopped after depth "


def settled_note(depth: int, distinct: int) -> str:
    """The note of a search that stopped because every property was settled."""
    return (f"{_SETTLED}{depth}: every property checked is settled "
            f"({distinct:,} distinct states so far; the figures are those of the search "
            f"up to there)")


def is_settled_note(message: str) -> bool:
    """Whether ``message`` is :func:`settled_note`'s (a verdict table, whose
    rows end when settled by design, leaves it out of its output)."""
    return message.startswith(_SETTLED)


def stops_when_settled(options: CheckOptions, checked: int) -> bool:
    """Whether a search checking ``checked`` verdicts (properties, and deadlock
    when checked) may end once they are all settled."""
    return options.stop_when_settled and checked > 0


class Engine(Protocol):
    name: str

    def check(self, model: Model, options: CheckOptions, reporter: Reporter) -> CheckResult: ...
