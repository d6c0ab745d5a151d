"""``modelcheck trace``: look at trace files (ITF JSON, ours or another
tool's).  ``show`` prints a trace step by step, ``diff`` says where two traces
part, ``explain`` says why an invariant failed, ``html`` writes the trace
page, ``serve`` serves the pages of a folder of traces on 127.0.0.1.

A trace is read with the types of its spec when the spec is known: given
with ``--spec``, or named in the file's ``#meta`` and found from here, from
the trace's folder or at its absolute path (``trace.spec_source``, which also
tells an edited spec by its hash).  The spec's consts are those the file
records, overridden by ``-D``.  A spec named but not found is said in one
line, with ``--spec``, by every command.  With a spec, the trace is replayed
first (filling in the actions of traces that do not name them); without one,
values are shown by their shape.
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click
from rich.console import Group, RenderableType
from rich.text import Text

from modelcheck.cli.console import out_console
from modelcheck.cli.options import parse_defines
from modelcheck.cli.trace_load import SPEC_HINT, LoadedTrace, load_trace
from modelcheck.cli.trace_render import (NAME_STYLE, NEW_STYLE, OLD_STYLE, render_changes, render_deadlock,
                                         render_lasso_report, render_trace, select_vars, two_columns)
from modelcheck.errors import UsageError
from modelcheck.fsutil import write_atomic
from modelcheck.ir.nodes import Model, PropertyKind
from modelcheck.trace.diff import TraceDiff, diff_traces
from modelcheck.trace.derived import with_lane_defs
from modelcheck.trace.explain import Explanation, Finding, explain
from modelcheck.trace.deadlock import explain_deadlock, is_deadlock_trace
from modelcheck.trace.lasso import analyse_lasso, lasso_problem
from modelcheck.trace.view import EDGE_STEPS, KeptSteps, step_window, var_names

__all__ = ["trace", "render_diff", "render_explanation"]

def _notes(console: Any, loaded: LoadedTrace) -> None:
    for note in loaded.notes:
        console.print(Text(f"note: {loaded.path}: {note}", style="yellow"))


_spec_option = click.option("--spec", type=click.Path(dir_okay=False), default=None,
                            help="The spec the trace is from (default: the one the file names).")
#: Which steps of a long trace ``show`` and ``html`` show (``step_window``).
_all_option = click.option("--all", "show_all", is_flag=True,
                           help=f"Show every step (a long trace shows its first and last "
                                f"{EDGE_STEPS}).")
_steps_option = click.option("--steps", default=None, metavar="A:B",
                             help="Show steps A to B only (A: to the end, :B from the start).")
_define_option = click.option("-D", "defines", multiple=True, metavar="NAME=VALUE",
                              help="Set a const of the spec (overrides the file's).")


@click.group("trace")
def trace() -> None:
    """Look at trace files: show, diff, explain, html, serve."""


@trace.command("show")
@click.argument("file", type=click.Path(dir_okay=False))
@_spec_option
@_define_option
@click.option("--vars", "vars_", default=None, metavar="A,B", help="Show only these variables.")
@click.option("--hide", default=None, metavar="A,B", help="Do not show these variables.")
@click.option("--full", is_flag=True, help="Show the whole state at every step.")
@click.option("--by", default=None, metavar="NAME",
              help="Lay out the variables keyed by this model-value type as a table, one column per value.")
@_all_option
@_steps_option
def show_cmd(file: str, spec: str | None, defines: Sequence[str], vars_: str | None,
             hide: str | None, full: bool, by: str | None, show_all: bool, steps: str | None) -> None:
    """Show a trace step by step: each action and what it changed.  A long
    trace shows its first and last steps (--all: every step)."""
    # --by lays out lanes from every step, so it keeps them all.
    keep = None if by is not None else (lambda: KeptSteps(steps, show_all))
    loaded = load_trace(file, spec, parse_defines(defines), keep=keep)
    window = step_window(len(loaded.trace.steps), steps, show_all)
    # --by keeps every step, so the defs of one node (a server's membership
    # configuration) can be worked out at each and shown in the table.
    traced = with_lane_defs(loaded.trace, loaded.model) if by is not None else loaded.trace
    with _spec_needed_for(loaded, by):
        shown = render_trace(traced, loaded.model, vars=vars_, hide=hide, full=full, by=by,
                             window=window)
    console = out_console()
    _notes(console, loaded)
    console.print(shown)


@contextmanager
def _spec_needed_for(loaded: LoadedTrace, by: str | None) -> Iterator[None]:
    """A ``--by`` that names nothing in a trace read without its spec because
    the spec was not found: say that, in one line, rather than that the
    trace has no such type."""
    try:
        yield
    except UsageError:
        if by is None or loaded.missing_spec is None:
            raise
        raise UsageError(f"--by {by}: {loaded.path}: {loaded.missing_spec}", hint=SPEC_HINT) from None


# ------------------------------------------------------------------ diff

def render_diff(d: TraceDiff, name_a: str, name_b: str) -> RenderableType:
    """Where the traces part, in words."""
    if d.same:
        return Text(f"The traces are the same ({d.steps_a} steps).")
    parts: list[RenderableType] = []
    if d.consts:
        parts.append(Text("The traces are made under other consts (A → B):", style="bold"))
        parts.append(render_changes(d.consts, "    "))
    if d.index is None and d.loops is not None:
        parts.append(Text(f"Their steps are the same ({d.steps_a} steps); what follows the last "
                          f"one is not:", style="bold"))
        for tag, name, words in (("A", name_a, d.loops[0]), ("B", name_b, d.loops[1])):
            line = Text(f"  {tag} ", style="bold")
            line.append(f"{name}: ", style="dim")
            line.append(words, style="yellow")
            parts.append(line)
        return Group(*parts)
    if d.index is None:
        parts.append(Text(f"Their steps are the same ({d.steps_a} steps)."))
        return Group(*parts)
    if d.index == 0:
        head = "The traces part in the initial state."
    elif d.index == 1:
        head = "The traces part at step 1 (the initial states are the same)."
    else:
        agree = "step 1" if d.index == 2 else f"steps 1 to {d.index - 1}"
        head = f"The traces part at step {d.index} (the initial state and {agree} are the same)."
    parts.append(Text(head, style="bold"))
    for tag, name, label, steps in (("A", name_a, d.label_a, d.steps_a), ("B", name_b, d.label_b, d.steps_b)):
        line = Text(f"  {tag} ", style="bold")
        line.append(f"{name} ({steps} steps): ", style="dim")
        line.append(label if label is not None else f"(ends after step {steps})",
                    style="yellow" if label is not None else "dim")
        parts.append(line)
    if d.action_differs and not d.changes:
        parts.append(Text("  The actions differ; they reach the same state."))
    if d.changes:
        parts.append(Text("  The states there differ (A → B):"))
        parts.append(render_changes(d.changes, "    "))
    if d.rejoin is not None:
        a, b = d.rejoin
        parts.append(Text(f"  They reach the same state again at A's step {a} and B's step {b}."))
    return Group(*parts)


@trace.command("diff")
@click.argument("file_a", type=click.Path(dir_okay=False))
@click.argument("file_b", type=click.Path(dir_okay=False))
@_spec_option
@_define_option
def diff_cmd(file_a: str, file_b: str, spec: str | None, defines: Sequence[str]) -> None:
    """Where two traces part: the first step that differs, and how.

    Exit 0 when they are the same, 1 when they differ."""
    consts = parse_defines(defines)
    a = load_trace(file_a, spec, consts)
    b = load_trace(file_b, spec, consts)
    console = out_console()
    _notes(console, a)
    _notes(console, b)
    names = (a.trace.model_name, b.trace.model_name)
    if all(names) and names[0] != names[1]:
        # Steps of two specs share no variables to compare: every state would
        # read as changed.
        console.print(Text(f"The traces come from different specs: {file_a} from {names[0]}, "
                           f"{file_b} from {names[1]}; there is nothing to compare step by step."))
        raise click.exceptions.Exit(1)
    d = diff_traces(a.trace, b.trace, a.model, b.model, consts_a=a.consts, consts_b=b.consts)
    console.print(render_diff(d, file_a, file_b))
    if not d.same:
        raise click.exceptions.Exit(1)


# ------------------------------------------------------------------ explain

def _finding_label(f: Finding) -> Text:
    text = Text()
    text.append("✗ " if f.failed else "✓ ", style=OLD_STYLE if f.failed else NEW_STYLE)
    text.append(f.text, style="bold")
    text.append(f"  is {f.value}", style=OLD_STYLE if f.failed else "dim")
    if f.reason and f.reason not in (f"is {f.value}", "holds as needed"):
        text.append(f": {f.reason}", style="dim")
    if f.span is not None:
        text.append(f"  ({f.span})", style="dim")
    return text


def _grow(lines: list[Text], f: Finding, prefix: str, last: bool, top: bool = False) -> None:
    """The finding and its sub-findings as tree lines.  Built as plain lines
    (not a rich Tree) so that long sub-formulas stay whole: the console does
    not wrap them."""
    branch = "" if top else ("└── " if last else "├── ")
    line = Text(prefix + branch, style="dim")
    line.append_text(_finding_label(f))
    lines.append(line)
    inner = prefix + ("" if top else ("    " if last else "│   "))
    details: list[Text] = []
    for name, value in f.bindings:
        if f"{name} = {value}" in f.reason:
            continue  # already named by the reason ("fails for v = 0")
        detail = Text("with ", style="dim")
        detail.append(name, style=NAME_STYLE)
        detail.append(f" = {value}")
        details.append(detail)
    for text, value in f.operands:
        detail = Text(text, style=NAME_STYLE)
        detail.append(" = ")
        detail.append(value, style="bold")
        details.append(detail)
    count = len(details) + len(f.children)
    for k, detail in enumerate(details):
        end = k == count - 1
        row = Text(inner + ("└── " if end else "├── "), style="dim")
        row.append_text(detail)
        lines.append(row)
    for k, child in enumerate(f.children):
        _grow(lines, child, inner, len(details) + k == count - 1)


def render_explanation(e: Explanation) -> RenderableType:
    """The failing step and the tree of sub-formulas down to the ones that failed."""
    if e.step is None:
        what = "is never reached" if e.kind is PropertyKind.SOMETIMES else "holds at every step"
        return Text(f"{e.property_name} {what} on this trace: nothing to explain.")
    if e.kind is PropertyKind.SOMETIMES:
        head = f"{e.property_name} first holds in state {e.step}"
    elif e.kind is PropertyKind.STEP:
        head = f"The step invariant {e.property_name} fails on step {e.step}"
    else:
        head = f"{e.property_name} is false in state {e.step}"
    lead = _lead_lines(e)
    title = Text(head, style="bold")
    if e.step > 0:
        title.append(f", reached by step {e.step}: ", style="bold")
        title.append(e.label or "", style="yellow")
    else:
        title.append(", the initial state", style="bold")
    lines = [title]
    if e.root is not None:
        _grow(lines, e.root, "", True, top=True)
    parts: list[RenderableType] = lead + list(lines)
    if e.variables:
        parts.append(Text("The variables it reads there:", style="bold"))
        parts.append(two_columns([(Text(name, style=NAME_STYLE), Text(value)) for name, value in e.variables],
                                 "  "))
    return Group(*parts)


def _lead_lines(e: Explanation) -> list[RenderableType]:
    """The witness of a quantified invariant and the step that broke it,
    before the tree: ``Msg 1 (m = 1): lost(m) became true at step 5:
    NodeDown(n=1, how=crash)``, then since when each of its conditions held."""
    lead = e.lead
    if lead is None:
        return []
    names = ", ".join(f"{n} = {v}" for n, v in lead.witness)
    if lead.kind is not None and len(lead.witness) == 1:
        who = f"{lead.kind} {lead.witness[0][1]} ({names})"
    else:
        who = names
    line = Text(who, style="bold")
    line.append(": ")
    line.append(lead.body, style=NAME_STYLE)
    if lead.since > 0:
        line.append(f" became {lead.value} at step {lead.since}: ")
        line.append(lead.since_label or "", style="yellow")
    else:
        line.append(f" is {lead.value} from the initial state")
    rows = []
    for text, value, k, label in lead.parts:
        when = Text(f"{value} since " + (f"step {k}: " if k > 0 else "the initial state"), style="dim")
        if k > 0:
            when.append(label or "", style="yellow")
        rows.append((Text(text, style=NAME_STYLE), when))
    out: list[RenderableType] = [line]
    if rows:
        out.append(two_columns(rows, "  "))
    return out


@trace.command("explain")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--property", "--invariant", "name", default=None, metavar="NAME",
              help="The property to explain (an invariant, a step invariant, or a sometimes "
                   "property).  Default: the one the trace is about.")
@_spec_option
@_define_option
def explain_cmd(file: str, name: str | None, spec: str | None, defines: Sequence[str]) -> None:
    """Why a property failed: the step where it turned false, and the
    smallest sub-formula that made it false, with its values.

    Exit 0 with an explanation, 1 when the property never fails on the trace."""
    loaded = load_trace(file, spec, parse_defines(defines), need_model=True)
    assert loaded.model is not None
    console = out_console()
    if loaded.trace.loop is not None and name in (None, loaded.trace.property_name):
        _explain_lasso(console, loaded, loaded.model)
        return
    if name is not None and any(t.name == name for t in loaded.model.temporals):
        raise UsageError(f"{loaded.path}: {name} is a liveness property: only a lasso that "
                         f"violates it (a trace written by check) can explain it")
    if name == "deadlock" and not is_deadlock_trace(loaded.trace):
        raise UsageError(f"{loaded.path}: the trace is no deadlock counterexample, so there is "
                         f"no deadlock to explain", hint="leave out --property to explain what "
                         "the trace is about")
    if name in (None, "deadlock") and is_deadlock_trace(loaded.trace):
        _notes(console, loaded)
        console.print(render_deadlock(explain_deadlock(loaded.trace, loaded.model)))
        return
    name = name if name is not None else _traced_property(loaded, loaded.model)
    _notes(console, loaded)
    result = explain(loaded.trace, loaded.model, name)
    console.print(render_explanation(result))
    if result.step is None:
        raise click.exceptions.Exit(1)


def _explain_lasso(console: Any, loaded: LoadedTrace, model: Model) -> None:
    """A liveness counterexample: why the lasso violates its property, how
    its cycle is fair, and what stays enabled round it without firing."""
    problem = lasso_problem(model, loaded.trace)
    if problem is not None:
        raise UsageError(f"{loaded.path}: this lasso {problem}")
    _notes(console, loaded)
    console.print(render_lasso_report(analyse_lasso(model, loaded.trace)))


def _traced_property(loaded: LoadedTrace, model: Model) -> str:
    """The property the trace is about, when it is one ``explain`` can take."""
    name = loaded.trace.property_name
    declared = [p.name for p in model.properties]
    if name in declared:
        return name
    hint = "name one with --property NAME" + (f" ({', '.join(declared)})" if declared else "")
    if name == "deadlock" or loaded.trace.kind == "error":
        end = "a deadlock" if name == "deadlock" else "a run-time error"
        raise UsageError(f"{loaded.path}: the trace ends in {end}, which is no formula to explain",
                         hint=hint)
    if name is None:
        raise UsageError(f"{loaded.path}: the trace does not name the property it is about", hint=hint)
    raise UsageError(f"{loaded.path}: the trace is about '{name}', which {model.name} does not declare",
                     hint=hint)


# ------------------------------------------------------------------ html and serve

def _default_html_path(file: str) -> str:
    p = Path(file)
    name = p.name
    for suffix in (".itf.json", ".json"):
        if name.endswith(suffix):
            name = name[:-len(suffix)]
            break
    return str(p.with_name(name + ".html"))


@trace.command("html")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("-o", "--output", default=None, type=click.Path(dir_okay=False),
              help="The page to write (default: FILE with .html).")
@_spec_option
@_define_option
@click.option("--by", default=None, metavar="NAME",
              help="One lane per value of this model-value type "
                   "(default: the first that keys map variables).")
@click.option("--vars", "vars_", default=None, metavar="A,B", help="Show only these variables.")
@click.option("--hide", default=None, metavar="A,B", help="Do not show these variables.")
@_all_option
@_steps_option
def html_cmd(file: str, output: str | None, spec: str | None, defines: Sequence[str], by: str | None,
             vars_: str | None, hide: str | None, show_all: bool, steps: str | None) -> None:
    """Write the trace page: one self-contained HTML file (steps, swimlanes,
    the state at the selected step); arrow keys move between steps.  A long
    trace shows its first and last steps (--all: every step).  The page is
    written whole or not at all."""
    from modelcheck.trace.html import render_html
    loaded = load_trace(file, spec, parse_defines(defines))
    window = step_window(len(loaded.trace.steps), steps, show_all)
    traced = with_lane_defs(loaded.trace, loaded.model)
    names = select_vars(var_names(traced, loaded.model), vars_, hide)
    with _spec_needed_for(loaded, by):
        page = render_html(traced, loaded.model, by=by, names=names, source=file, window=window,
                           notes=loaded.notes)
    target = Path(output or _default_html_path(file))
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(target, page)
    except OSError as err:
        raise UsageError(f"cannot write {target}: {err.strerror or err}") from None
    console = out_console()
    _notes(console, loaded)
    console.print(Text(f"wrote {target}"))


@trace.command("serve")
@click.argument("directory", default="counterexamples", type=click.Path(file_okay=False))
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535),
              help="The port on 127.0.0.1 (0: any free port).")
@_spec_option
@_define_option
def serve_cmd(directory: str, port: int, spec: str | None, defines: Sequence[str]) -> None:
    """Serve the page of every trace in DIRECTORY (default counterexamples/),
    with an index, on 127.0.0.1 only.  Pages are made on request; Ctrl-C stops."""
    from modelcheck.cli.trace_serve import make_server
    if not Path(directory).is_dir():
        raise UsageError(f"{directory}: no such folder",
                         hint="`modelcheck check` writes traces to counterexamples/")
    console = out_console()
    server = make_server(directory, port, spec, parse_defines(defines),
                         log=lambda line: console.print(Text(line, style="dim")))
    host, bound = server.server_address[:2]
    console.print(Text(f"serving the traces in {directory} at http://{host}:{bound}/ (Ctrl-C stops)"))
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        console.print(Text("stopped"))
    finally:
        server.server_close()
