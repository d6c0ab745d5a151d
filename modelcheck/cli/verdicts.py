"""``modelcheck verdicts FILE.toml...``: run every row of verdict files and
compare each property's verdict with the one expected."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import click
from rich.console import Console
from rich.table import Table
from rich.text import Text

from modelcheck.engines import ENGINES
from modelcheck.engines.auto import KERNEL_WANTED
from modelcheck.engines.base import CheckOptions, Status
from modelcheck.ir.nodes import Model, PropertyKind
from modelcheck.cli.console import err_console, out_console
from modelcheck.cli.json_out import dumps, error_json, plain_value
from modelcheck.cli.heap import settle
from modelcheck.cli.options import CheckFlags, choose_engine
from modelcheck.cli.render import consts_text, print_run_error, print_write_errors, verdict_phrase
from modelcheck.cli.verdict_file import Expectation, Row, read_verdict_file, select_rows
from modelcheck.cli.verdict_jobs import JobResult, RowJob, default_jobs, run_jobs
from modelcheck.cli.verdict_rows import RowOutcome, check_row, load_row, row_options
from modelcheck.cli.mutants import (NO_MUTANT, SHOWN, TOO_SMALL, MutantOutcome,
                                    held_properties, load_mutant, mutant_json)

__all__ = ["verdicts_cmd", "RowOutcome", "check_row", "row_options", "load_row", "row_mismatches",
           "mutant_mismatch", "adequacy_warnings"]


@click.command("verdicts")
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("--engine", type=click.Choice(list(ENGINES)), default=None,
              help="Engine for rows that name none. Default: the default engine of check.")
@click.option("--only", multiple=True, metavar="ID", help="Run only this row (repeatable).")
@click.option("--large", is_flag=True, help="Also run the rows marked large = true.")
@click.option("--no-mutants", is_flag=True,
              help="Do not run the rows' mutants (their adequacy reads 'not run').")
@click.option("--json", "json_mode", is_flag=True, help="Print one JSON list on stdout.")
@click.option("--jobs", "jobs_count", type=click.IntRange(min=0), default=0, metavar="N",
              help="Rows run at once, each in a worker process. Default 0: one per core; "
                   "1: one at a time in this process, with live progress.")
@click.option("--out", type=click.Path(file_okay=False), default="counterexamples",
              show_default=True, help="Folder for the traces (<ID>-<property>.itf.json).")
@click.option("--compile-after/--no-compile-after", default=True, show_default=True,
              envvar="MODELCHECK_COMPILE_AFTER",
              help="After the run, compile in the background the kernels of the rows that "
                   "the default engine answered on the reference explorer, for the next run.")
@click.pass_context
def verdicts_cmd(ctx: click.Context, files: tuple[str, ...], engine: str | None,
                 only: tuple[str, ...], large: bool, no_mutants: bool, json_mode: bool,
                 jobs_count: int, out: str, compile_after: bool) -> None:
    """Run the rows of verdict FILES and compare each verdict with the one
    expected; run each HOLDS row's mutants and report whether one of them
    fails (its bounds are adequate) or all hold (a warning: bounds too small).
    Exit code: 0 every row as expected, 1 a row not as expected, 2 bad input,
    3 interrupted."""
    out_c, err = out_console(), err_console()
    rows: list[Row] = []
    for path in files:
        rows.extend(read_verdict_file(path))
    chosen, skipped = select_rows(rows, only, large)
    # Compile every row first: a typo in a spec or a const fails before hours of search.
    models: list[Model] = []
    mutant_models: list[list[Model]] = []
    for r in chosen:
        m = load_row(r)
        row_options(r, m)
        held = held_properties(r, m)
        models.append(m)
        mutant_models.append([] if no_mutants else [load_mutant(r, x, held) for x in r.mutants])
        # The models stay until the end: set aside as they come, so that the
        # collections the next row's front end sets off do not walk them
        # (loading make check's rows: 5.9 s of CPU, 3.4 s set aside).
        settle()
    # The default engine is looked up (and its notice printed) only if a row needs it.
    default = engine
    if default is None and any(r.engine is None for r in chosen):
        default = choose_engine(None, CheckFlags(), err)
    jobs = [RowJob(i, len(chosen), row, model, row.engine or str(default),
                   None if no_mutants else list(zip(row.mutants, m_models)), out)
            for i, (row, model, m_models) in enumerate(zip(chosen, models, mutant_models),
                                                       start=1)]
    workers = default_jobs() if jobs_count == 0 else jobs_count
    if jobs_count == 0 and any(job.engine == "spark" for job in jobs):
        # Spark spreads one search over every core, with a JVM a process.
        workers = 1
    parallel = workers > 1 and len(jobs) > 1
    if parallel and not json_mode:
        err.print(Text(f"running {len(jobs)} rows on {min(workers, len(jobs))} worker "
                       "processes (--jobs 1: one at a time, with live progress)"))

    def row_done(job: RowJob, result: JobResult) -> None:
        if result.notes:
            err.print(Text(result.notes), end="")
        if parallel and not json_mode:
            err.print(_row_done_line(job, result))

    results, interrupted = run_jobs(jobs, workers, err, not json_mode, row_done)
    done = [r.outcome for r in results]
    wanted = _kernels_wanted(done) if compile_after and not interrupted else []
    if wanted:
        from modelcheck.engines.compiled.cache.background import compile_after_run
        try:
            pid = compile_after_run(wanted).pid
        except OSError as exc:      # no process to be had: only the next run's speed is lost
            err.print(Text(f"the kernels of {len(wanted)} configurations are not compiled "
                           f"after the run ({exc})"))
        else:
            err.print(Text(f"compiling the kernels of {len(wanted)} configurations in the "
                           f"background for the next run (process {pid}; --no-compile-after: "
                           "not)"))
    if json_mode:
        click.echo(dumps([row_json(d) for d in done]))
    else:
        print_verdict_table(out_c, done)
        print_footer(out_c, done, chosen, skipped, interrupted)
    print_write_errors(err, [e for d in done
                             for o in (d.outcome, *(m.outcome for m in d.mutants or ()))
                             for e in o.write_errors])
    if interrupted:
        ctx.exit(3)
    ctx.exit(0 if all(d.ok for d in done) else 1)


def _kernels_wanted(done: Sequence[RowOutcome]) -> list[tuple[Model, CheckOptions]]:
    """The configurations, rows and mutants, whose results the default
    engine marked ``KERNEL_WANTED``: rows are run again, and the next run
    takes a compiled kernel at its start."""
    outcomes = [d.outcome for d in done] + [m.outcome for d in done for m in d.mutants or ()]
    return [(o.model, o.options) for o in outcomes
            if o.options is not None and o.result.stats.extras.get(KERNEL_WANTED)]


def _row_done_line(job: RowJob, result: JobResult) -> Text:
    """The line a finished row prints when rows run in workers."""
    d = result.outcome
    assert isinstance(d, RowOutcome)
    ran = "" if d.mutants is None else f", {len(d.mutants)} mutants"
    word, style = ("as expected", "green") if d.ok else ("not as expected", "bold red")
    if result.interrupted:
        word, style = "interrupted", "yellow"
    return Text.assemble((f"{job.label()} ", ""), (word, style),
                         f" ({result.wall_s:.1f} s, {d.outcome.engine}{ran})")


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
    for name in ("row", "configuration", "property", "expected", "obtained", "ok", "adequacy"):
        # Only the free-text configuration may wrap: a verdict reads best whole.
        if name == "configuration":
            table.add_column(name, min_width=20)
        else:
            table.add_column(name, no_wrap=True, min_width=_MIN_WIDTHS.get(name))
    for d in done:
        config = d.row.description or consts_text(d.outcome.model.consts)
        for n, c in enumerate(d.row.checks):
            good = d.check_ok(c)
            table.add_row(Text(d.row.id if n == 0 else ""), Text(config if n == 0 else ""),
                          Text(c.property), Text(_expected_text(d, c)),
                          Text(_obtained_text(d, c), style="green" if good else "bold red"),
                          Text("✓" if good else "✗", style="green" if good else "bold red"),
                          _adequacy_cell(d) if n == 0 else Text(""))
        got = d.obtained_counts()
        complete = d.outcome.result.error is None and d.outcome.result.complete
        for key, value in d.row.counts:
            # one line a figure keeps the table narrow; an incomplete search
            # meets none of them (its figures are only as far as it went)
            good = complete and got[key] == value
            table.add_row(Text(""), Text(""), Text(_COUNT_LABELS[key]), Text(f"{value:,}"),
                          Text(f"{got[key]:,}", style="green" if good else "bold red"),
                          Text("✓" if good else "✗", style="green" if good else "bold red"),
                          Text(""))
        for m in d.mutants or ():
            mark, style = _mutant_mark(m)
            table.add_row(Text(""), Text(f"mutant {m.mutant.index}: without {m.mutant.removes}"),
                          Text(m.mutant.property or "any held"),
                          Text(verdict_phrase(None, Status.VIOLATED, m.mutant.steps)),
                          Text(_mutant_obtained(m), style=style), Text(mark, style=style),
                          Text(""))
    out.print(table)


_MIN_WIDTHS = {"ok": 2, "adequacy": 9}

#: how the adequacy column reads
_ADEQUACY_CELLS = {SHOWN: ("adequate", "green"), TOO_SMALL: ("too small", "yellow"),
                   NO_MUTANT: ("no mutant", "yellow"), "not_run": ("not run", "")}


def _adequacy_cell(d: RowOutcome) -> Text:
    state = d.adequacy
    if state is None:
        return Text("")
    word, style = _ADEQUACY_CELLS[state]
    return Text(word, style=style)


def _mutant_mark(m: MutantOutcome) -> tuple[str, str]:
    if not m.ok:
        return "✗", "bold red"
    return ("✓", "green") if m.shown else ("!", "yellow")


def _mutant_obtained(m: MutantOutcome) -> str:
    error = m.outcome.result.error
    if error is not None:
        return f"error {error.diagnostic.code}"
    violated = m.violated
    if violated:
        p = violated[0]
        if p.trace is not None and p.trace.loop is not None:
            phrase = f"violated: {p.steps}-step lasso"    # as _obtained_text says it
        else:
            phrase = verdict_phrase(p.kind, p.status, p.steps, p.reason)
        return phrase if m.mutant.property is not None else f"{p.name} {phrase}"
    if m.mutant.property is not None:
        p = m.prop(m.mutant.property)
        if p is not None:
            return verdict_phrase(p.kind, p.status, p.steps, p.reason)
    return "all hold" if m.outcome.result.complete else "none violated"


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
    for m in d.mutants or ():
        if not m.ok:
            lines.append(mutant_mismatch(m))
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


def mutant_mismatch(m: MutantOutcome) -> str:
    """What differs from a mutant's expectations (its run failed, or its
    trace has another length), one line."""
    head = f"{m.name} (without {m.mutant.removes})"
    error = m.outcome.result.error
    if error is not None:
        return f"{head}: run-time error: {error}"
    return (f"{head}: {m.mutant.property}: expected "
            f"{verdict_phrase(None, Status.VIOLATED, m.mutant.steps)}, "
            f"obtained {_mutant_obtained(m)}")


def adequacy_warnings(d: RowOutcome) -> list[str]:
    """The warnings a row's adequacy gives (printed, never failing the run)."""
    state = d.adequacy
    if state == NO_MUTANT:
        return [f"{d.row.id}: HOLDS with no mutant: nothing shows that its bounds can "
                "catch a missing safety mechanism"]
    lines = []
    for m in d.mutants or ():
        if m.ok and not m.shown:
            ran = ("" if m.outcome.result.complete
                   else f" (search incomplete: {m.outcome.result.reason})")
            lines.append(f"{d.row.id}: bounds too small to show {m.mutant.removes}: "
                         f"{m.name} holds{ran}")
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
        for m in d.mutants or ():
            for p in m.outcome.result.properties:
                if p.trace_file:
                    label = (p.trace.meta.get("instance") if p.trace is not None else None) or p.name
                    out.print(Text(f"{m.name}: {label}: {p.trace_file}"))
            if m.outcome.result.error is not None:
                out.print(Text(f"{m.name}: run-time error:"))
                print_run_error(out, m.outcome.model, m.outcome.result.error,
                                m.outcome.error_trace_file)
    for d in done:
        for line in adequacy_warnings(d):
            out.print(Text(f"warning: {line}", style="yellow"))
    holds_rows = [d for d in done if d.adequacy is not None]
    if holds_rows:
        shown = [d for d in holds_rows if d.adequacy == SHOWN]
        out.print(Text(f"adequacy: {len(shown)} of {len(holds_rows)} HOLDS rows shown adequate "
                       "by a failing mutant",
                       style="green" if len(shown) == len(holds_rows) else "yellow"))
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
        "adequacy": d.adequacy,
        "mutants": ([mutant_json(m) for m in d.mutants] if d.mutants is not None else None),
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
