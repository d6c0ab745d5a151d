"""Human-readable output of ``modelcheck check``: the per-property summary,
the search figures, action coverage, and the traces.  Every function here
writes to the rich console it is given; user text is never read as markup."""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.text import Text

from modelcheck.cli.trace_render import deadlock_hint, render_lasso_report, render_trace
from modelcheck.diagnostics import Diagnostic, render_diagnostic
from modelcheck.errors import CompileError, EvalError, ModelcheckError, UsageError
from modelcheck.engines.base import CheckResult, PropertyResult, Status
from modelcheck.ir.nodes import Model, PropertyKind
from modelcheck.ir.values import render_value
from modelcheck.trace.deadlock import is_deadlock_trace
from modelcheck.trace.lasso import analyse_lasso, lasso_phrase
from modelcheck.trace.trace import Trace
from modelcheck.trace.view import step_window

__all__ = ["verdict_phrase", "status_phrase", "status_style", "kind_name", "consts_text", "print_summary",
           "print_trace", "print_traces", "print_run_error", "print_write_errors", "source_for", "render_error", "figures_text", "format_seconds", "steps_text"]


def steps_text(n: int) -> str:
    return f"{n} step" if n == 1 else f"{n} steps"


def kind_name(prop: PropertyResult) -> str:
    """The property's kind as the language writes it; ``deadlock`` for the
    deadlock check."""
    return prop.kind.value if prop.kind is not None else "deadlock"


def verdict_phrase(kind: PropertyKind | None, status: Status, steps: int | None,
                   reason: str | None = None) -> str:
    """holds / violated in K steps / reachable in K steps / unknown: reason..."""
    sometimes = kind is PropertyKind.SOMETIMES
    if status is Status.HOLDS:
        if sometimes and steps is not None:
            return f"reachable in {steps_text(steps)}"
        return "holds"
    if status is Status.VIOLATED:
        if sometimes:
            return "violated: never reachable"
        if kind is PropertyKind.LIVENESS and steps is not None:
            # the counterexample is a lasso: its steps are the prefix and
            # the first time round the cycle (status_phrase says more)
            return f"violated: a lasso of {steps_text(steps)}"
        if steps is not None:
            return f"violated in {steps_text(steps)}"
        return "violated"
    if status is Status.HOLDS_UP_TO_BOUND:
        if reason and reason.startswith("holds"):
            return reason            # the engine already put it in words ("holds up to depth 7")
        return f"holds up to bound: {reason}" if reason else "holds up to bound"
    return f"unknown: {reason}" if reason else "unknown"


def status_phrase(prop: PropertyResult) -> str:
    if prop.status is Status.VIOLATED and prop.trace is not None and prop.trace.loop is not None:
        # A liveness counterexample is a lasso: its length alone misleads.
        return f"violated: {lasso_phrase(prop.trace)}"
    return verdict_phrase(prop.kind, prop.status, prop.steps, prop.reason)


def status_style(prop: PropertyResult) -> str:
    if prop.status is Status.VIOLATED:
        return "bold red"
    if prop.status is Status.HOLDS:
        return "green"
    return "yellow"


def consts_text(consts: Sequence[tuple[str, Any, Any]]) -> str:
    """``N=3, mode=manual`` from ``Model.consts``; ``(none)`` when there are none."""
    if not consts:
        return "(none)"
    return ", ".join(f"{name}={render_value(ctype, value)}" for name, ctype, value in consts)


def format_seconds(seconds: float) -> str:
    return f"{seconds:.2f} s"


def print_summary(console: Console, model: Model, engine: str, result: CheckResult,
                  spec: str, notes_shown: Sequence[str] = ()) -> None:
    """Per property its verdict and trace file, then the search figures, the
    action coverage, and the engine's notes (less those already shown live)."""
    head = Text()
    head.append(f"{model.name}", style="bold")
    head.append(f"  ({spec}; engine {engine}; consts {consts_text(model.consts)})")
    console.print(head)
    if result.properties:
        _print_property_lines(console, result.properties)
    else:
        console.print(Text("no properties checked"))
    console.print(Text(figures_text(result)))
    if result.reason is not None:
        console.print(Text(f"search incomplete: {result.reason}", style="yellow"))
    _print_coverage(console, model, result)
    for note in result.notes:
        if note not in notes_shown:
            console.print(Text(f"note: {note}"))


def figures_text(result: CheckResult) -> str:
    """``16 distinct states, 97 generated, depth 8, 0.01 s``.  A symbolic engine
    (bmc) reaches a depth without enumerating states: it shows no counts."""
    stats = result.stats
    tail = f"depth {stats.depth}, {format_seconds(stats.elapsed_s)}"
    if stats.distinct_states == 0 and stats.generated_states == 0 and stats.depth > 0:
        return tail
    return (f"{stats.distinct_states:,} distinct states, {stats.generated_states:,} generated, "
            + tail)


def _print_property_lines(console: Console, props: Sequence[PropertyResult]) -> None:
    # Plain aligned lines, never wrapped: a trace path must stay whole to be
    # copied, and the text must not depend on the terminal width.
    rows = [(p.name, kind_name(p), status_phrase(p), p.trace_file or "", status_style(p))
            for p in props]
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    for name, kind, phrase, trace_file, style in rows:
        line = Text("  ")
        line.append(name.ljust(widths[0] + 2))
        line.append(kind.ljust(widths[1] + 2))
        line.append(phrase.ljust(widths[2] + 2) if trace_file else phrase, style=style)
        line.append(trace_file)
        console.print(line)


def _print_coverage(console: Console, model: Model, result: CheckResult) -> None:
    counts = result.stats.action_counts
    if not counts and not result.stats.never_enabled:
        return
    line = Text("successors per action: ")
    names = [a.name for a in model.actions]
    ordered = names + sorted(set(counts) - set(names))
    line.append(", ".join(f"{name} {counts.get(name, 0):,}" for name in ordered))
    console.print(line)
    # Only a finished search may say an action is never enabled: a cut-short
    # one has not seen every state.
    if result.stats.never_enabled and result.complete:
        console.print(Text("never enabled: " + ", ".join(result.stats.never_enabled),
                           style="yellow"))


def source_for(diag: Diagnostic, sources: Mapping[str, str]) -> str | None:
    """The text of the file a diagnostic points into: from ``sources`` when it
    is there, else read from disk (the file may be gone: no caret then)."""
    if diag.span is None:
        return None
    if diag.span.file in sources:
        return sources[diag.span.file]
    try:
        return Path(diag.span.file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def print_write_errors(console: Console, errors: Sequence[Any]) -> None:
    """Each result file that could not be written (``runner.WriteError``),
    as an error beside the verdict, which stands."""
    for e in errors:
        console.print(Text(f"error[{e.code}]: {e.message()}", style="red"), soft_wrap=True)
        console.print(Text("   = hint: free some space, or give --out a folder that can be "
                           "written"), soft_wrap=True)


def print_run_error(console: Console, model: Model, error: Any,
                    trace_file: str | None, *, with_trace: bool = True) -> None:
    """A run-time error (MC5xxx) the search hit, with the trace that leads to it."""
    diag = error.diagnostic
    console.print(Text(render_diagnostic(diag, source_for(diag, dict(model.sources))),
                       style="red"))
    trace = getattr(error, "trace", None)
    if trace is not None and with_trace:
        print_trace(console, model, trace, trace_file)


def print_traces(console: Console, model: Model, result: CheckResult) -> None:
    """Every counterexample and witness, step by step."""
    for prop in result.properties:
        if prop.trace is not None:
            print_trace(console, model, prop.trace, prop.trace_file)


def print_trace(console: Console, model: Model, trace: Trace, trace_file: str | None) -> None:
    """The trace step by step (the trace view of ``modelcheck trace show``),
    and the file it was written to.  A long trace written to a file shows its
    first and last steps: a witness of half a million steps would otherwise
    take minutes to print and bury the verdicts."""
    console.print()
    window = None
    if trace_file and trace.loop is None:     # a lasso is read whole: its cycle
        window = dataclasses.replace(
            step_window(len(trace.steps)),
            hint=f"every step: modelcheck trace show {trace_file} --all (or --steps A:B)")
    console.print(render_trace(trace, model, window=window))
    if trace.loop is not None:
        # Verified already (api.check): the report names the actions that
        # stay enabled round the cycle, the usual misreading of a violation.
        console.print(render_lasso_report(analyse_lasso(model, trace), fairness=False))
    if trace_file:
        console.print(Text(f"written to {trace_file}; see it again with: "
                           f"modelcheck trace show {trace_file}", style="dim"))
    if is_deadlock_trace(trace):
        console.print(deadlock_hint(trace_file))


def render_error(exc: ModelcheckError) -> str:
    """A modelcheck error as the user sees it: diagnostics with the source line
    and a caret, or ``error: ...`` with a hint."""
    if isinstance(exc, CompileError):
        parts = [render_diagnostic(d, source_for(d, exc.sources)) for d in exc.diagnostics]
        if len(exc.diagnostics) > 1:
            parts.append(f"{len(exc.diagnostics)} errors")
        return "\n\n".join(parts)
    if isinstance(exc, EvalError):
        return render_diagnostic(exc.diagnostic, source_for(exc.diagnostic, {}))
    lines = [f"error: {exc}"]
    if isinstance(exc, UsageError) and exc.hint:
        lines.append(f"   = hint: {exc.hint}")
    return "\n".join(lines)
