"""``modelcheck verdicts FILE.toml...``: run every row of verdict files and
compare each property's verdict with the one expected."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import click
from rich.console import Console
from rich.table import Table
from rich.text import Text

from modelcheck.engines import ENGINES
from modelcheck.engines.base import DEADLOCK, CheckOptions, PropertyResult, Status
from modelcheck.errors import UsageError
from modelcheck.ir.nodes import Model, PropertyKind
from modelcheck.cli.check import choose_engine
from modelcheck.cli.console import err_console, out_console
from modelcheck.cli.json_out import dumps, error_json, plain_value
from modelcheck.cli.options import CheckFlags
from modelcheck.diagnostics import did_you_mean
from modelcheck.cli.progress import ProgressDisplay
from modelcheck.cli.render import consts_text, print_run_error, verdict_phrase
from modelcheck.cli.runner import (InterruptWatch, Outcome, engine_that_ran, load_model, run_engine,
                                   save_traces)
from modelcheck.cli.verdict_file import Expectation, Row, read_verdict_file, select_rows

__all__ = ["verdicts_cmd", "RowOutcome", "check_row", "row_options", "load_row", "row_mismatches"]


@dataclass
class RowOutcome:
    row: Row
    outcome: Outcome

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
        return all(self.check_ok(c) for c in self.row.checks) and self.counts_ok


def row_options(row: Row, model: Model) -> CheckOptions:
    """Only the properties the row checks are searched for (and deadlock
    unless the row says no_deadlock)."""
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
                           timeout_s=row.timeout, depth=row.depth)
    return options


def load_row(row: Row) -> Model:
    try:
        return load_model(row.spec, row.consts)
    except UsageError as exc:
        # A bad const value reads as a -D mistake; say which row it comes from.
        raise UsageError(f"{row.file}: row {row.id!r}: {exc}", hint=exc.hint) from None


def check_row(row: Row, model: Model, engine: str, out_dir: str, err: Console,
              label: str, show_progress: bool) -> RowOutcome:
    options = row_options(row, model)
    with ProgressDisplay(err, label, enabled=show_progress) as reporter:
        result = run_engine(model, engine, options, reporter)
    outcome = Outcome(row.spec, model, engine_that_ran(engine, result), result)
    save_traces(outcome, out_dir, row.id)
    return RowOutcome(row, outcome)


@click.command("verdicts")
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("--engine", type=click.Choice(list(ENGINES)), default=None,
              help="Engine for rows that name none. Default: the default engine of check.")
@click.option("--only", multiple=True, metavar="ID", help="Run only this row (repeatable).")
@click.option("--large", is_flag=True, help="Also run the rows marked large = true.")
@click.option("--json", "json_mode", is_flag=True, help="Print one JSON list on stdout.")
@click.option("--out", type=click.Path(file_okay=False), default="counterexamples",
              show_default=True, help="Folder for the traces (<ID>-<property>.itf.json).")
@click.pass_context
def verdicts_cmd(ctx: click.Context, files: tuple[str, ...], engine: str | None,
                 only: tuple[str, ...], large: bool, json_mode: bool, out: str) -> None:
    """Run the rows of verdict FILES and compare each verdict with the one
    expected.  Exit code: 0 every row as expected, 1 a row not as expected,
    2 bad input, 3 interrupted."""
    out_c, err = out_console(), err_console()
    rows: list[Row] = []
    for path in files:
        rows.extend(read_verdict_file(path))
    chosen, skipped = select_rows(rows, only, large)
    # Compile every row first: a typo in a spec or a const fails before hours of search.
    models = [load_row(r) for r in chosen]
    for r, m in zip(chosen, models):
        row_options(r, m)
    # The default engine is looked up (and its notice printed) only if a row needs it.
    default = engine
    if default is None and any(r.engine is None for r in chosen):
        default = choose_engine(None, CheckFlags(), err)
    done: list[RowOutcome] = []
    interrupted = False
    for i, (row, model) in enumerate(zip(chosen, models), start=1):
        try:
            with InterruptWatch() as watch:
                done.append(check_row(row, model, row.engine or str(default), out,
                                      err, f"[{i}/{len(chosen)}] {row.id}", not json_mode))
        except KeyboardInterrupt:
            interrupted = True
            break
        if watch.hit:
            interrupted = True
            break
    if json_mode:
        click.echo(dumps([row_json(d) for d in done]))
    else:
        print_verdict_table(out_c, done)
        print_footer(out_c, done, chosen, skipped, interrupted)
    if interrupted:
        ctx.exit(3)
    ctx.exit(0 if all(d.ok for d in done) else 1)


def _expected_text(row_outcome: RowOutcome, c: Expectation) -> str:
    p = row_outcome.prop(c.property)
    kind = p.kind if p is not None else None
    if kind is PropertyKind.LIVENESS and c.expect is Status.VIOLATED and c.steps is not None:
        return f"violated: {c.steps}-step lasso"
    return verdict_phrase(kind, c.expect, c.steps)


def _obtained_text(row_outcome: RowOutcome, c: Expectation) -> str:
    error = row_outcome.outcome.result.error
    if error is not None:
        return f"error {error.diagnostic.code}"
    p = row_outcome.prop(c.property)
    if p is None:
        return "not checked"
    if p.status is Status.VIOLATED and p.trace is not None and p.trace.loop is not None:
        # A lasso: its length (prefix and cycle, as the row gives it) is what
        # the row compares; the footer names the binding that failed.
        return f"violated: {p.steps}-step lasso"
    return verdict_phrase(p.kind, p.status, p.steps, p.reason)


def print_verdict_table(out: Console, done: Sequence[RowOutcome]) -> None:
    table = Table(title=Text("verdicts"), title_justify="left")
    for name in ("row", "configuration", "property", "expected", "obtained", "ok"):
        # Only the free-text configuration may wrap: a verdict reads best whole.
        if name == "configuration":
            table.add_column(name, min_width=20)
        else:
            table.add_column(name, no_wrap=True)
    for d in done:
        config = d.row.description or consts_text(d.outcome.model.consts)
        for n, c in enumerate(d.row.checks):
            good = d.check_ok(c)
            table.add_row(Text(d.row.id if n == 0 else ""), Text(config if n == 0 else ""),
                          Text(c.property), Text(_expected_text(d, c)),
                          Text(_obtained_text(d, c), style="green" if good else "bold red"),
                          Text("✓" if good else "✗", style="green" if good else "bold red"))
        got = d.obtained_counts()
        complete = d.outcome.result.error is None and d.outcome.result.complete
        for key, value in d.row.counts:
            # one line a figure keeps the table narrow; an incomplete search
            # meets none of them (its figures are only as far as it went)
            good = complete and got[key] == value
            table.add_row(Text(""), Text(""), Text(_COUNT_LABELS[key]), Text(f"{value:,}"),
                          Text(f"{got[key]:,}", style="green" if good else "bold red"),
                          Text("✓" if good else "✗", style="green" if good else "bold red"))
    out.print(table)


#: how the table names each figure a row may expect
_COUNT_LABELS = {"distinct": "distinct states", "generated": "states generated", "depth": "depth"}


def row_mismatches(d: RowOutcome) -> list[str]:
    """What differs from the row's expectations, a line each (the pytest
    plugin's failure message); empty when the row is as expected."""
    lines = []
    for c in d.row.checks:
        if not d.check_ok(c):
            p = d.prop(c.property)
            where = f" (trace: {p.trace_file})" if p is not None and p.trace_file else ""
            lines.append(f"{c.property}: expected {_expected_text(d, c)}, "
                         f"obtained {_obtained_text(d, c)}{where}")
    result = d.outcome.result
    if not d.counts_ok:
        got = d.obtained_counts()
        for key, value in d.row.counts:
            if got[key] != value or not result.complete:
                lines.append(f"{_COUNT_LABELS[key]}: expected {value:,}, obtained {got[key]:,}")
    if result.reason is not None and lines:
        lines.append(f"search incomplete: {result.reason}")
    if result.error is not None:
        lines.append(f"run-time error: {result.error}")
    return lines


def print_footer(out: Console, done: Sequence[RowOutcome], chosen: Sequence[Row],
                 skipped: Sequence[Row], interrupted: bool) -> None:
    for d in done:
        for p in d.outcome.result.properties:
            if p.trace_file:
                # a parametrised liveness property: which binding failed
                label = (p.trace.meta.get("instance") if p.trace is not None else None) or p.name
                out.print(Text(f"{d.row.id}: {label}: {p.trace_file}"))
        if d.outcome.result.reason is not None:
            out.print(Text(f"{d.row.id}: search incomplete: {d.outcome.result.reason}",
                           style="yellow"))
        if d.outcome.result.error is not None:
            out.print(Text(f"{d.row.id}: run-time error:"))
            print_run_error(out, d.outcome.model, d.outcome.result.error,
                            d.outcome.error_trace_file)
    bad = [d.row.id for d in done if not d.ok]
    if bad:
        out.print(Text(f"{len(bad)} of {len(done)} rows not as expected: {', '.join(bad)}",
                       style="bold red"))
    else:
        out.print(Text(f"all {len(done)} rows as expected", style="green"))
    if skipped:
        rows = "row" if len(skipped) == 1 else "rows"
        out.print(Text(f"{len(skipped)} large {rows} not run (use --large): "
                       + ", ".join(r.id for r in skipped)))
    if interrupted:
        out.print(Text(f"interrupted: {len(done)} of {len(chosen)} rows run", style="yellow"))


def row_json(d: RowOutcome) -> dict[str, Any]:
    """One row of ``modelcheck verdicts --json`` (documented in docs/cli.md)."""
    result = d.outcome.result
    checks = []
    for c in d.row.checks:
        p = d.prop(c.property)
        checks.append({
            "property": c.property,
            "expect": c.expect.value,
            "expect_steps": c.steps,
            "status": p.status.value if p is not None else None,
            "steps": p.steps if p is not None else None,
            "trace_file": p.trace_file if p is not None else None,
            "reason": p.reason if p is not None else None,
            "ok": d.check_ok(c),
        })
    return {
        "id": d.row.id,
        "file": d.row.file,
        "spec": d.row.spec,
        "description": d.row.description,
        "engine": d.outcome.engine,
        "consts": {name: plain_value(value) for name, _, value in d.outcome.model.consts},
        "ok": d.ok,
        "checks": checks,
        "expect_counts": dict(d.row.counts) or None,
        "counts_ok": d.counts_ok,
        "distinct_states": result.stats.distinct_states,
        "generated_states": result.stats.generated_states,
        "depth": result.stats.depth,
        "elapsed_s": round(result.stats.elapsed_s, 3),
        "complete": result.complete,
        "reason": result.reason,
        "error": (error_json(result.error, d.outcome.error_trace_file)
                  if result.error is not None else None),
    }
