"""Mutant rows: is a HOLDS row's verdict worth anything at its bounds?

A row that expects a property to hold names mutants of itself
(``[[row.mutant]]``, read by ``modelcheck.cli.verdict_file``): the same bounds
with one safety mechanism switched off through a const.  A mutant must be
violated; if every mutant of a row holds, the bounds are too small to show
the mechanisms they remove, and the row's HOLDS says little.  A mutant that
holds is a warning, not a failure: the row's own verdicts are still right.
A mutant fails its row only on a run-time error or when it names an exact
trace length (``steps``) that the shortest counterexample does not have.

Nothing here prints; ``modelcheck.cli.verdicts`` renders the results.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from rich.console import Console

from modelcheck.cli.json_out import error_json
from modelcheck.cli.progress import ProgressDisplay
from modelcheck.cli.runner import Outcome, engine_that_ran, load_model, run_engine, save_traces
from modelcheck.cli.verdict_file import Mutant, Row, mutant_error
from modelcheck.engines.base import DEADLOCK, CheckOptions, PropertyResult, Status, is_settled_note
from modelcheck.errors import UsageError
from modelcheck.ir.nodes import Model, PropertyKind

__all__ = ["MutantOutcome", "SHOWN", "TOO_SMALL", "NO_MUTANT", "NOT_RUN", "held_properties",
           "adequacy", "load_mutant", "check_mutant", "mutant_json"]

#: A HOLDS row's adequacy: a mutant of it is violated; every mutant holds;
#: it has no mutant; its mutants were not run (``--no-mutants``).  Rows that
#: expect nothing to hold have none (None).
SHOWN, TOO_SMALL, NO_MUTANT, NOT_RUN = "shown", "too_small", "no_mutant", "not_run"


def held_properties(row: Row, model: Model) -> tuple[str, ...]:
    """The row's safety claims: the properties it expects to hold, less the
    ``sometimes`` ones (their "holds" is a witness, not a guarantee).  A row
    with none is not a HOLDS row."""
    kinds = {p.name: p.kind for p in model.properties}
    return tuple(name for name in row.holds_names
                 if kinds.get(name) is not PropertyKind.SOMETIMES)


@dataclass
class MutantOutcome:
    row: Row
    mutant: Mutant
    targets: tuple[str, ...]        # the properties searched: one of them must fail
    outcome: Outcome

    @property
    def name(self) -> str:
        return self.mutant.name(self.row.id)

    def prop(self, name: str) -> PropertyResult | None:
        for p in self.outcome.result.properties:
            if p.name == name:
                return p
        return None

    @property
    def violated(self) -> list[PropertyResult]:
        """The targets violated, shortest trace first."""
        found = [p for p in self.outcome.result.properties
                 if p.name in self.targets and p.status is Status.VIOLATED]
        return sorted(found, key=lambda p: (p.steps is None, p.steps or 0))

    @property
    def shown(self) -> bool:
        """The mutant fails: the row's bounds show the mechanism it removes."""
        return self.outcome.result.error is None and bool(self.violated)

    @property
    def steps_ok(self) -> bool:
        m = self.mutant
        if m.steps is None or m.property is None or not self.shown:
            return True
        p = self.prop(m.property)
        return p is not None and p.status is Status.VIOLATED and p.steps == m.steps

    @property
    def ok(self) -> bool:
        """Nothing contradicts the file: no run-time error, and the trace
        length is the one written (a mutant that holds is only a warning)."""
        return self.outcome.result.error is None and self.steps_ok


def adequacy(row: Row, held: Sequence[str], mutants: Sequence[MutantOutcome] | None) -> str | None:
    """SHOWN, TOO_SMALL, NO_MUTANT, NOT_RUN, or None for a row that holds nothing."""
    if not held:
        return None
    if not row.mutants:
        return NO_MUTANT
    if mutants is None:
        return NOT_RUN
    return SHOWN if any(m.shown for m in mutants) else TOO_SMALL


def load_mutant(row: Row, mutant: Mutant, held: Sequence[str]) -> Model:
    """The row's spec with the row's consts and the mutant's over them; a
    bad const is reported at the line of the mutant's consts."""
    if not held:
        raise mutant_error(row, mutant, "every property the row expects to hold is a "
                           "`sometimes` (a witness): there is no safety claim to test",
                           hint="a mutant belongs to a row that expects an invariant, a "
                                "step invariant or a liveness property to hold")
    try:
        return load_model(row.spec, {**row.consts, **mutant.consts})
    except UsageError as exc:
        raise mutant_error(row, mutant, str(exc), hint=exc.hint) from None


def _targets(mutant: Mutant, held: Sequence[str]) -> tuple[str, ...]:
    return (mutant.property,) if mutant.property is not None else tuple(held)


def mutant_options(row: Row, mutant: Mutant, held: Sequence[str]) -> CheckOptions:
    """The row's bounds; only the targets are searched for."""
    targets = _targets(mutant, held)
    return CheckOptions(invariants=tuple(t for t in targets if t != DEADLOCK),
                        deadlock=DEADLOCK in targets, max_states=row.max_states,
                        max_depth=row.max_depth, timeout_s=row.timeout, depth=row.depth)


def check_mutant(row: Row, mutant: Mutant, held: Sequence[str], model: Model, engine: str,
                 out_dir: str, err: Console, label: str, show_progress: bool,
                 workers: int | None = None) -> MutantOutcome:
    """Run one mutant as its row runs (engine, bounds, trace files, named
    ``<row>-mutant<n>-<property>``; ``workers`` as in ``check_row``)."""
    options = replace(mutant_options(row, mutant, held), workers=workers)
    # A mutant ends once its verdicts are settled: no note needed for that.
    with ProgressDisplay(err, label, enabled=show_progress, hide_note=is_settled_note) as reporter:
        result = run_engine(model, engine, options, reporter)
    outcome = Outcome(row.spec, model, engine_that_ran(engine, result), result, options=options)
    save_traces(outcome, out_dir, mutant.name(row.id))
    return MutantOutcome(row, mutant, _targets(mutant, held), outcome)


def mutant_json(d: MutantOutcome) -> dict[str, Any]:
    """One mutant of a row in ``modelcheck verdicts --json`` (docs/cli.md)."""
    result = d.outcome.result
    first = d.violated[0] if d.violated else None
    return {
        "name": d.name,
        "removes": d.mutant.removes,
        "consts": dict(d.mutant.consts),
        "property": d.mutant.property,
        "expect_steps": d.mutant.steps,
        "shown": d.shown,
        "ok": d.ok,
        "violated": [p.name for p in d.violated],
        "steps": first.steps if first is not None else None,
        "trace_file": first.trace_file if first is not None else None,
        "distinct_states": result.stats.distinct_states,
        "elapsed_s": round(result.stats.elapsed_s, 3),
        "complete": result.complete,
        "reason": result.reason,
        "error": (error_json(result.error, d.outcome.error_trace_file)
                  if result.error is not None else None),
    }
