"""``modelcheck replay SPEC SCENARIO``: replay a scenario (the steps of an
incident report or a Jepsen history) against a spec.  The answer: feasible
or not (and at which step, with the guard that was false), which properties
break along the way, and whether the scenario's ``expect`` lines are met.
An ITF trace's recorded states must also be what its actions give.

Exit 0 when the scenario is feasible (or expected not to be), its recorded
states agree and every expectation is met, 1 otherwise, 2 on bad input.
"""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import click
from rich.console import Group, RenderableType
from rich.text import Text

from modelcheck.cli.console import out_console
from modelcheck.cli.options import parse_defines
from modelcheck.cli.trace_render import NEW_STYLE, OLD_STYLE, render_trace
from modelcheck.diagnostics import Diagnostic, Span
from modelcheck.errors import CompileError, UsageError
from modelcheck.ir.nodes import Model, PropertyKind
from modelcheck.ir.values import render_value
from modelcheck.trace.itf import to_itf
from modelcheck.trace.lasso import lasso_phrase
from modelcheck.trace.scenario import Scenario, load_scenario
from modelcheck.trace.scenario_run import Guard, ReplayReport, run_scenario
from modelcheck.trace.view import step_label

__all__ = ["replay", "render_report", "report_json", "scenario_model"]


def scenario_model(spec: str, scenario: Scenario, defines: Mapping[str, str]) -> Model:
    """The spec loaded with the scenario's consts, ``-D`` taking precedence.
    A bad const line is reported at that line (MC2101)."""
    from modelcheck.cli.options import const_key
    from modelcheck.cli.runner import load_model
    consts = {const_key(c.name): c.value for c in scenario.consts}
    try:
        return load_model(spec, {**consts, **defines})
    except UsageError as err:
        for line in scenario.consts:
            key = const_key(line.name)
            if key in defines:
                continue
            try:
                load_model(spec, {key: line.value})
            except UsageError as own:
                raise CompileError([Diagnostic("MC2101", str(own), line.span, hint=own.hint)],
                                   {scenario.path: scenario.source}) from None
        raise err


def _source_line(span: Span | None, sources: Mapping[str, str], indent: str = "") -> list[Text]:
    """``--> file:line:col``, the line and a caret under the span.  Plain
    indented lines, so that the console (which does not wrap) keeps them whole."""
    if span is None:
        return []
    lines = [Text(f"{indent}--> {span}", style="dim")]
    text = sources.get(span.file)
    if text is None:
        try:
            with open(span.file, encoding="utf-8") as f:
                text = f.read()
        except OSError:
            return lines
    src = text.splitlines()
    if 1 <= span.line <= len(src):
        line = src[span.line - 1].expandtabs(4)
        gutter = str(span.line)
        width = span.end_col - span.col if span.end_line == span.line else len(line) - span.col + 1
        lines.append(Text(f"{indent}{gutter} | {line}"))
        lines.append(Text(f"{indent}{' ' * len(gutter)} | {' ' * (span.col - 1)}{'^' * max(1, width)}",
                          style="red"))
    return lines


def _guard(g: Guard, sources: Mapping[str, str]) -> list[Text]:
    head = Text("  the guard ")
    head.append(f"require {g.text}", style="bold")
    head.append(" is false")
    return [head, *_source_line(g.span, sources, "    ")]


def render_report(report: ReplayReport, model: Model, scenario: Scenario, *,
                  show_trace: bool = True) -> RenderableType:
    """The answer for a person: feasibility, properties, expectations, steps."""
    sources = {**dict(model.sources), scenario.path: scenario.source}
    parts: list[RenderableType] = []
    title = Text(f"scenario {scenario.path} on {model.name}", style="bold")
    if model.consts:
        title.append(" (" + ", ".join(f"{n}={render_value(t, v)}" for n, t, v in model.consts) + ")",
                     style="dim")
    parts.append(title)
    if report.feasible:
        parts.append(Text(f"feasible: all {report.steps} steps can be taken", style=NEW_STYLE))
    else:
        line = Text(f"infeasible: step {report.failed_step} ", style=OLD_STYLE)
        line.append(report.failed_label or "", style="bold")
        line.append(" cannot be taken", style=OLD_STYLE)
        parts.append(line)
        parts.extend(_source_line(report.failed_span, sources, "  "))
        if report.blocked:
            for g in report.blocked:
                parts.extend(_guard(g, sources))
        else:
            parts.append(Text("  no guard failed: a pick over an empty set leaves no outcome"))
    recorded = report.recorded
    if recorded is not None and recorded.note is not None:
        parts.append(Text(f"recorded states: {recorded.note}", style=OLD_STYLE))
    elif recorded is not None and recorded.unchecked is not None:
        parts.append(Text(f"recorded states not compared: {recorded.unchecked}", style="dim"))
    if report.branching:
        steps = ", ".join(str(k) for k in report.branching)
        where = "in the initial state" if report.branching == (0,) else \
            f"after step{'s' if len(report.branching) > 1 else ''} {steps}"
        parts.append(Text(f"the spec chose among several states {where}; a property counts "
                          "as broken (or reached) when one of the choices gets there", style="dim"))
    parts.append(Text(""))
    parts.append(Text("properties along the way:", style="bold"))
    rows = []
    for p in report.properties:
        if p.kind is PropertyKind.LIVENESS:
            # a lasso's property: violated by the whole behaviour, not at a step
            words = f"violated: {lasso_phrase(p.trace)}" if p.trace is not None \
                else f"not shown by this lasso: it {p.reason}"
            rows.append((p.name, p.kind.value, words, OLD_STYLE if p.status == "violated" else "yellow"))
        elif p.status in ("violated", "reached"):
            style = OLD_STYLE if p.status == "violated" else NEW_STYLE
            label = step_label(p.trace.steps[p.step], model, p.step) \
                if p.step and p.trace is not None else None
            where = f"{p.status} at step {p.step}" + (f" ({label})" if label else "") \
                if p.step else f"{p.status} in the initial state"
            rows.append((p.name, p.kind.value, where, style))
        else:
            rows.append((p.name, p.kind.value, p.status, "dim"))
    parts.extend(_aligned([(Text(n, style="bold"), Text(k, style="dim"), Text(w, style=st))
                           for n, k, w, st in rows]))
    if report.expectations:
        parts.append(Text(""))
        parts.append(Text("expectations:", style="bold"))
        parts.extend(_aligned([
            (Text("✓ met" if r.met else "✗ not met", style=NEW_STYLE if r.met else OLD_STYLE),
             Text(r.expectation.text()), Text(f"({r.actual})", style="dim"))
            for r in report.expectations]))
    if show_trace:
        parts.append(Text(""))
        parts.append(render_trace(report.trace, model))
        for p in report.properties:
            if p.trace is not None and not _is_prefix(p.trace, report.trace):
                what = "reached" if p.kind is PropertyKind.SOMETIMES else "violated"
                parts.append(Text(""))
                parts.append(Text(f"{p.name} is {what} on another of the spec's choices:", style="bold"))
                parts.append(render_trace(p.trace, model))
    verdict = "OK" if report.ok else "NOT OK"
    parts.append(Text(""))
    parts.append(Text(f"{verdict}: " + _verdict_words(report), style=NEW_STYLE if report.ok else OLD_STYLE))
    return Group(*parts)


def _aligned(rows: Sequence[tuple[Text, ...]]) -> list[Text]:
    """Rows of cells as lines, the columns aligned and indented by two.  Plain
    lines rather than a table: the console does not wrap them."""
    if not rows:
        return []
    widths = [max(len(row[k].plain) for row in rows) for k in range(len(rows[0]) - 1)]
    lines = []
    for row in rows:
        line = Text("  ")
        for k, cell in enumerate(row):
            line.append_text(cell)
            if k < len(widths):
                line.append(" " * (widths[k] - len(cell.plain) + 2))
        lines.append(line)
    return lines


def _is_prefix(short: Any, long: Any) -> bool:
    return len(short.steps) <= len(long.steps) and all(
        a.state == b.state and a.action == b.action for a, b in zip(short.steps, long.steps))


def _verdict_words(report: ReplayReport) -> str:
    unmet = [r for r in report.expectations if not r.met]
    if unmet:
        return f"{len(unmet)} of {len(report.expectations)} expectations not met"
    if not report.feasible and report.ok:
        return "infeasible, as expected"
    if not report.feasible:
        return "the scenario is not feasible"
    if report.recorded is not None and report.recorded.differ:
        return (f"the recorded states are not a behaviour of {report.model_name} "
                f"(from step {report.recorded.step})")
    if report.expectations:
        return "feasible, every expectation met"
    return "feasible"


def _span_json(span: Span | None) -> dict[str, Any] | None:
    if span is None:
        return None
    return {"file": span.file, "line": span.line, "col": span.col}


def _recorded_json(report: ReplayReport) -> dict[str, Any] | None:
    """How an ITF trace's recorded states agree; None for a scenario."""
    r = report.recorded
    if r is None:
        return None
    return {"compared": r.unchecked is None, "differ": r.differ, "step": r.step,
            "reason": r.note or r.unchecked}


def report_json(report: ReplayReport, model: Model) -> dict[str, Any]:
    """The answer as JSON (``--json``); traces in ITF."""
    return {
        "spec": model.name,
        "source": model.path,
        "scenario": report.scenario_path,
        "consts": {n: v for n, _, v in model.consts if isinstance(v, (bool, int, str))},
        "ok": report.ok,
        "feasible": report.feasible,
        "steps": report.steps,
        "failed_step": report.failed_step,
        "failed_action": report.failed_label,
        "blocked": [{"require": g.text, "at": _span_json(g.span)} for g in report.blocked],
        "branching": list(report.branching),
        "recorded": _recorded_json(report),
        "properties": [{"name": p.name, "kind": p.kind.value, "status": p.status, "step": p.step,
                        **({"reason": p.reason} if p.reason is not None else {})}
                       for p in report.properties],
        "expectations": [{"expect": r.expectation.text(), "met": r.met, "actual": r.actual}
                         for r in report.expectations],
        "trace": to_itf(report.trace, model),
    }


@click.command("replay")
@click.argument("spec", type=click.Path(dir_okay=False))
@click.argument("scenario_file", metavar="SCENARIO", type=click.Path(dir_okay=False))
@click.option("-D", "defines", multiple=True, metavar="NAME=VALUE",
              help="Set a const (overrides the scenario's const lines).")
@click.option("--json", "as_json", is_flag=True, help="Print the answer as JSON.")
@click.option("--no-trace", is_flag=True, help="Do not print the steps taken.")
@click.option("-o", "--output", default=None, type=click.Path(dir_okay=False),
              help="Also write the steps taken as an ITF trace file (for `modelcheck trace ...`).")
def replay(spec: str, scenario_file: str, defines: Sequence[str], as_json: bool, no_trace: bool,
           output: str | None) -> None:
    """Replay SCENARIO (a .scenario file, or JSON/ITF) against SPEC: is it
    feasible, which properties break along the way, are its expectations met.
    An ITF trace's recorded states must be what its actions give.

    Exit 0 when feasible, its recorded states agree and every expectation is
    met, 1 otherwise, 2 on bad input."""
    try:
        scenario = load_scenario(scenario_file)
    except OSError as err:
        raise UsageError(f"cannot read {scenario_file}: {err.strerror or err}") from None
    model = scenario_model(spec, scenario, parse_defines(defines))
    report = run_scenario(model, scenario)
    if output is not None:
        from pathlib import Path

        from modelcheck.trace.store import write_trace
        target = Path(output)
        try:
            write_trace(report.trace, model, target.parent, target.name)
        except OSError as err:
            raise UsageError(f"cannot write {output}: {err.strerror or err}") from None
    console = out_console()
    if as_json:
        click.echo(json.dumps(report_json(report, model), indent=2, default=str))
    else:
        console.print(render_report(report, model, scenario, show_trace=not no_trace))
    if report.exit_code:
        raise click.exceptions.Exit(report.exit_code)
