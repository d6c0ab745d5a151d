"""One row of a verdict file: its options, its model, its run, and what it
obtained against what it expects (``RowOutcome``)."""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from rich.console import Console

from modelcheck.cli.mutants import MutantOutcome, adequacy, held_properties
from modelcheck.cli.progress import ProgressDisplay
from modelcheck.cli.runner import Outcome, engine_that_ran, load_model, run_engine, save_traces
from modelcheck.cli.verdict_file import Expectation, Row
from modelcheck.diagnostics import did_you_mean
from modelcheck.engines.base import (DEADLOCK, is_settled_note, CheckOptions, CheckResult, PropertyResult, Stats,
                                     Status)
from modelcheck.errors import UsageError
from modelcheck.ir.nodes import Model, PropertyKind

__all__ = ["RowOutcome", "row_options", "load_row", "check_row", "lost_row"]


@dataclass
class RowOutcome:
    row: Row
    outcome: Outcome
    # the row's mutants as run; None when they were not (--no-mutants)
    mutants: list[MutantOutcome] | None = field(default=None)

    @property
    def held(self) -> tuple[str, ...]:
        return held_properties(self.row, self.outcome.model)

    @property
    def adequacy(self) -> str | None:
        return adequacy(self.row, self.held, self.mutants)

    def prop(self, name: str) -> PropertyResult | None:
        for p in self.outcome.result.properties:
            if p.name == name:
                return p
        return None

    def check_ok(self, c: Expectation) -> bool:
        p = self.prop(c.property)
        if p is None or self.outcome.result.error is not None:
            return False
        return p.status is c.expect and (c.steps is None or c.steps == p.steps)

    def obtained_counts(self) -> dict[str, int]:
        stats = self.outcome.result.stats
        return {"distinct": stats.distinct_states, "generated": stats.generated_states,
                "depth": stats.depth}

    @property
    def counts_ok(self) -> bool:
        """The row's expected figures, from a complete search without error."""
        if not self.row.counts:
            return True
        result = self.outcome.result
        got = self.obtained_counts()
        return (result.error is None and result.complete
                and all(got[key] == value for key, value in self.row.counts))

    @property
    def ok(self) -> bool:
        return (all(self.check_ok(c) for c in self.row.checks) and self.counts_ok
                and all(m.ok for m in self.mutants or ()))


def row_options(row: Row, model: Model) -> CheckOptions:
    """Only the properties the row checks are searched for (and deadlock
    unless the row says no_deadlock).  A row goes on after a violation
    (unless ``stop_at_first``) and ends once every property it checks is
    settled, except a row with ``counts``: those are the complete search's
    figures, so it searches every state."""
    known = [p.name for p in model.properties] + [t.name for t in model.temporals]
    names = []
    for c in row.checks:
        if c.property == DEADLOCK:
            continue
        if c.property not in known:
            raise UsageError(f"{row.file}: row {row.id!r}: {model.name} has no property "
                             f"{c.property!r}",
                             hint=did_you_mean(c.property, known + [DEADLOCK]))
        names.append(c.property)
    options = CheckOptions(invariants=tuple(names), deadlock=not row.no_deadlock,
                           max_states=row.max_states, max_depth=row.max_depth,
                           timeout_s=row.timeout, depth=row.depth,
                           stop_on_first=row.stop_at_first, stop_when_settled=not row.counts)
    return options


def load_row(row: Row) -> Model:
    try:
        return load_model(row.spec, row.consts)
    except UsageError as exc:
        # A bad const value reads as a -D mistake; say which row it comes from.
        raise UsageError(f"{row.file}: row {row.id!r}: {exc}", hint=exc.hint) from None


def check_row(row: Row, model: Model, engine: str, out_dir: str, err: Console,
              label: str, show_progress: bool, workers: int | None = None) -> RowOutcome:
    """``workers``: search threads (None: the engine's default, every core)."""
    options = replace(row_options(row, model), workers=workers)
    # A row ends when its verdicts are settled by design: saying so on every
    # row would be noise.
    with ProgressDisplay(err, label, enabled=show_progress, hide_note=is_settled_note) as reporter:
        result = run_engine(model, engine, options, reporter)
    outcome = Outcome(row.spec, model, engine_that_ran(engine, result), result, options=options)
    save_traces(outcome, out_dir, row.id)
    return RowOutcome(row, outcome)


def lost_row(row: Row, model: Model, engine: str, reason: str) -> RowOutcome:
    """A row whose run never answered (its worker process died: the kernel's
    out-of-memory killer, a signal): every property it checks is unknown,
    with ``reason``, and the search incomplete."""
    kinds = {p.name: p.kind for p in model.properties}
    kinds.update((t.name, PropertyKind.LIVENESS) for t in model.temporals)
    properties = [PropertyResult(c.property, kinds.get(c.property), Status.UNKNOWN,
                                 reason=reason) for c in row.checks]
    result = CheckResult(model.name, engine, properties, Stats(), reason=reason)
    return RowOutcome(row, Outcome(row.spec, model, engine, result))
