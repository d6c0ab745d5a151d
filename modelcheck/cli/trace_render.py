"""A trace for the terminal, as rich renderables: per step the action and its
parameters and what changed (old -> new, highlighted), nested values laid out
over lines when they do not fit on one.  ``--by Node`` turns the variables
keyed by a model-value type into a table, one column per node.

``render_trace`` returns renderables and never prints: ``check`` shows
counterexamples with it, ``trace show`` shows files with it.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text

from modelcheck.diagnostics import did_you_mean
from modelcheck.errors import UsageError
from modelcheck.ir.nodes import Model
from modelcheck.ir.types import MapType, Type
from modelcheck.trace.lanes import LaneSet, choose_lane_set
from modelcheck.trace.deadlock import DeadlockExplanation
from modelcheck.trace.lasso import Advice, LassoReport, advice_condition, cycle_end_phrase, lasso_phrase
from modelcheck.trace.trace import Trace
from modelcheck.trace.view import (Change, StepWindow, format_lines, format_value, param_texts,
                                   loop_back_changes, step_changes, step_label, var_names,
                                   var_types)

__all__ = ["render_trace", "render_step_title", "loop_start_line", "loop_end_line", "LOOP_STYLE",
           "render_lasso_report", "render_deadlock", "deadlock_hint", "text_table", "render_changes", "two_columns", "select_vars", "trace_title",
           "OLD_STYLE", "NEW_STYLE", "NAME_STYLE"]

OLD_STYLE = "red"
NEW_STYLE = "bold green"
NAME_STYLE = "cyan"
ACTION_STYLE = "bold yellow"
ARROW = " → "
#: Width a value may take on one line before it is laid out over several.
VALUE_WIDTH = 60
#: A table cell's width before its value goes over several lines.
CELL_WIDTH = 28
#: How far a step's changes are indented under its title.
INDENT = "    "
#: The lines that mark a lasso's cycle.
LOOP_STYLE = "bold magenta"


def _names(value: str | Sequence[str] | None) -> list[str] | None:
    if value is None:
        return None
    parts = value.split(",") if isinstance(value, str) else [p for v in value for p in v.split(",")]
    names = [p.strip() for p in parts if p.strip()]
    return names or None


def select_vars(all_names: Sequence[str], vars: str | Sequence[str] | None = None,
                hide: str | Sequence[str] | None = None) -> list[str]:
    """The variables to show: ``vars`` (in the order given) or all, less ``hide``.
    An unknown name is a ``UsageError`` naming the variables there are."""
    keep, drop = _names(vars), _names(hide)
    for flag, names in (("--vars", keep), ("--hide", drop)):
        for name in names or ():
            if name not in all_names:
                raise UsageError(f"{flag}: no state variable '{name}' in this trace",
                                 hint=did_you_mean(name, all_names)
                                 or "the variables are: " + ", ".join(all_names))
    chosen = list(keep) if keep else list(all_names)
    return [n for n in chosen if n not in set(drop or ())]


def trace_title(trace: Trace) -> Text:
    """``counterexample to NotFour in die_hard: 6 steps``."""
    kind = trace.kind or "trace"
    what = f"{kind} to {trace.property_name}" if trace.property_name and kind == "counterexample" \
        else f"{kind} for {trace.property_name}" if trace.property_name else kind
    steps = len(trace)
    text = Text(what, style="bold")
    text.append(f" in {trace.model_name}" if trace.model_name else "")
    if trace.loop is not None:
        text.append(f": {lasso_phrase(trace)}")
        return text
    text.append(f": {steps} step{'s' if steps != 1 else ''}")
    return text


def loop_start_line(trace: Trace) -> Text:
    """The line above the state where a lasso's cycle starts."""
    if trace.loop_back is None:
        return Text(f"↻ from state {trace.loop} on, the behaviour stays here forever", style=LOOP_STYLE)
    return Text(f"↻ the cycle starts here: states {trace.loop} to {len(trace.steps) - 1} repeat "
                f"forever", style=LOOP_STYLE)


def loop_end_line(trace: Trace, model: Model | None = None) -> Text:
    """The line after a lasso's last step: where it goes back to, and how."""
    back = None if trace.loop_back is None else step_label(trace.loop_back, model, 1)
    return Text(cycle_end_phrase(trace, back), style=LOOP_STYLE)


def render_step_title(trace: Trace, index: int, model: Model | None = None) -> Text:
    """``Step 3  Crash(n=node1)``; the initial state is ``State 0  Init``."""
    step = trace.steps[index]
    text = Text()
    if index == 0:
        text.append("State 0  ", style="bold")
        text.append("Init", style=ACTION_STYLE)
        return text
    text.append(f"Step {index}  ", style="bold")
    if step.action is None:
        text.append("(action not recorded)", style="dim")
        return text
    text.append(step.action, style=ACTION_STYLE)
    params = param_texts(step, model)
    if params:
        text.append("(")
        for j, (name, value) in enumerate(params):
            if j:
                text.append(", ")
            text.append(f"{name}=", style="dim")
            text.append(value)
        text.append(")")
    return text


def _value_text(lines: list[str], style: str | None = None) -> Text:
    return Text("\n".join(lines), style=style or "")


def two_columns(rows: Sequence[tuple[Text, Text]], indent: str = "") -> Group:
    """Rows of (name, value) as plain lines: names padded to one width, a
    value over several lines indented under its first.  Plain lines rather
    than a table, so the console (which does not wrap) keeps values whole."""
    width = max((len(name.plain) for name, _ in rows), default=0)
    lines: list[Text] = []
    for name, value in rows:
        for k, part in enumerate(value.split("\n")):
            line = Text(indent)
            if k == 0:
                line.append_text(name)
                line.append(" " * (width - len(name.plain) + 1))
            else:
                line.append(" " * (width + 1))
            line.append_text(part)
            lines.append(line)
    return Group(*lines)


def render_changes(changes: Iterable[Change], indent: str = "") -> Group:
    """One row per change: where, then ``old → new``, ``+ elem`` or ``- elem``;
    values too long for one line go below, one item per line."""
    rows: list[tuple[Text, Text]] = []
    last_where = None
    for ch in changes:
        # consecutive elements added to (or taken from) one place share its name
        where = Text(ch.where if ch.where != last_where else "", style=NAME_STYLE)
        last_where = ch.where
        if ch.kind == "added":
            body = Text("+ ", style=NEW_STYLE)
            body.append_text(_value_text(format_lines(ch.new_value, ch.type, VALUE_WIDTH)
                                         if ch.new_value is not None else [ch.new or ""], NEW_STYLE))
        elif ch.kind == "removed":
            body = Text("- ", style=OLD_STYLE)
            body.append_text(_value_text(format_lines(ch.old_value, ch.type, VALUE_WIDTH)
                                         if ch.old_value is not None else [ch.old or ""], OLD_STYLE))
        else:
            body = _old_new(ch)
        rows.append((where, body))
    return two_columns(rows, indent)


def _old_new(ch: Change) -> Text:
    old = ch.old if ch.old is not None else "(absent)"
    new = ch.new or ""
    if len(old) + len(new) + len(ARROW) <= VALUE_WIDTH:
        text = Text(old, style=OLD_STYLE)
        text.append(ARROW)
        text.append(new, style=NEW_STYLE)
        return text
    text = _value_text(format_lines(ch.old_value, ch.type, VALUE_WIDTH)
                       if ch.old is not None else [old], OLD_STYLE)
    text.append("\n" + ARROW.strip() + " ")
    text.append_text(_value_text(format_lines(ch.new_value, ch.type, VALUE_WIDTH), NEW_STYLE))
    return text


def _state_grid(state: Mapping[str, Any], names: Sequence[str], types: Mapping[str, Type | None],
                changed: set[str], marks: bool, indent: str) -> Group:
    rows: list[tuple[Text, Text]] = []
    for name in names:
        if name not in state:
            continue
        hot = name in changed
        mark = ("* " if hot else "  ") if marks else ""
        rows.append((Text(mark + name, style=NAME_STYLE + (" bold" if hot else "")),
                     _value_text(format_lines(state[name], types.get(name), VALUE_WIDTH),
                                 NEW_STYLE if hot else None)))
    return two_columns(rows, indent)


def _lane_table(trace: Trace, index: int, lanes: LaneSet, names: Sequence[str],
                types: Mapping[str, Type | None], full: bool) -> Group | None:
    """Rows: the lane-keyed variables (those that changed, unless ``full``),
    columns: the lanes; changed cells show old → new."""
    cur = trace.steps[index].state
    prev = trace.steps[index - 1].state if index > 0 else None
    rows = [n for n in names if n in lanes.keyed_vars and n in cur
            and (full or prev is None or prev.get(n) != cur[n])]
    if not rows:
        return None
    table: list[list[Text]] = [[Text("")] + [Text(lanes.label(m), style="bold") for m in lanes.members]]
    for name in rows:
        t = types.get(name)
        vt = t.value if isinstance(t, MapType) else None
        cells: list[Text] = []
        for member in lanes.members:
            new = cur[name].get(member) if isinstance(cur[name], Mapping) else None
            old = prev[name].get(member) if prev is not None and isinstance(prev.get(name), Mapping) \
                else new
            if old != new:
                old_text, new_text = format_value(old, vt), format_value(new, vt)
                if len(old_text) + len(new_text) + len(ARROW) <= CELL_WIDTH:
                    cell = Text(old_text, style=OLD_STYLE)
                    cell.append(ARROW)
                    cell.append(new_text, style=NEW_STYLE)
                else:
                    cell = _value_text(format_lines(new, vt, CELL_WIDTH), NEW_STYLE)
            else:
                cell = _value_text(format_lines(new, vt, CELL_WIDTH), "dim" if prev is not None else None)
            cells.append(cell)
        table.append([Text(name, style=NAME_STYLE), *cells])
    return text_table(table, INDENT)


def text_table(rows: Sequence[Sequence[Text]], indent: str = "", gap: int = 2) -> Group:
    """Rows of cells as plain lines: each column padded to its widest line,
    ``gap`` spaces between columns, a cell over several lines going down its
    column, and no line ending in spaces (a table rich draws pads its last
    column, which golden files and copied text then carry)."""
    split = [[cell.split("\n") for cell in row] for row in rows]
    ncols = max((len(r) for r in split), default=0)
    widths = [max((len(part.plain) for r in split if k < len(r) for part in r[k]), default=0)
              for k in range(ncols)]
    lines: list[Text] = []
    for row in split:
        for depth in range(max((len(c) for c in row), default=1)):
            line = Text(indent)
            for k, cell in enumerate(row):
                part = cell[depth] if depth < len(cell) else Text("")
                line.append_text(part)
                if k < len(row) - 1:
                    line.append(" " * (widths[k] - len(part.plain) + gap))
            line.rstrip()
            lines.append(line)
    return Group(*lines)


def render_trace(trace: Trace, model: Model | None = None, *, vars: str | Sequence[str] | None = None,
                 hide: str | Sequence[str] | None = None, full: bool = False,
                 by: str | None = None, window: StepWindow | None = None) -> RenderableType:
    """The whole trace: a title, then the initial state in full and, for each
    step, its action and what changed (``full``: the whole state, changes
    starred).  ``vars``/``hide`` keep or drop variables (comma lists or
    sequences).  ``by`` names a model-value type (or a map variable): the
    variables keyed by it become a table with one column per value.
    ``window`` picks the steps shown (default: every step); the first step
    of each run of it shows the whole state, so what follows a gap reads on
    its own.  Raises ``UsageError`` for an unknown variable or ``by`` name."""
    names = var_names(trace, model)
    shown = select_vars(names, vars, hide)
    types = var_types(trace, model)
    lanes = choose_lane_set(trace, model, by, types) if by is not None else None
    window = window if window is not None else StepWindow((range(len(trace.steps)),), len(trace.steps))
    parts: list[RenderableType] = [trace_title(trace)]
    after = 0
    for run in window.runs:
        if run.start > after:
            parts.append(Text(window.omitted_note(run.start - after), style="dim"))
        for index in run:
            if index == trace.loop and trace.loop_back is not None:
                parts.append(loop_start_line(trace))
            parts.append(render_step_title(trace, index, model))
            parts.append(_step_body(trace, index, shown, types, lanes, full or 0 < index == run.start))
        after = run.stop
    if after < window.total:
        parts.append(Text(window.omitted_note(window.total - after), style="dim"))
    if trace.loop is not None:
        parts.append(loop_end_line(trace, model))
        keep = set(shown)
        back = [c for c in loop_back_changes(trace, types) if c.var in keep]
        if back:
            parts.append(render_changes(back, INDENT))
    return Group(*parts)


def _step_body(trace: Trace, index: int, shown: Sequence[str], types: Mapping[str, Type | None],
               lanes: LaneSet | None, full: bool) -> RenderableType:
    state = trace.steps[index].state
    in_table = set(lanes.keyed_vars) if lanes is not None else set()
    rest = [n for n in shown if n not in in_table]
    pieces: list[RenderableType] = []
    if lanes is not None:
        table = _lane_table(trace, index, lanes, shown, types, full or index == 0)
        if table is not None:
            pieces.append(table)
    if index == 0 or full:
        changed = set()
        if index > 0:
            prev = trace.steps[index - 1].state
            changed = {n for n in state if prev.get(n) != state[n]}
        if rest:
            pieces.append(_state_grid(state, rest, types, changed, full, INDENT))
    else:
        keep = set(rest)
        changes = [c for c in step_changes(trace, index, types) if c.var in keep]
        if changes:
            pieces.append(render_changes(changes, INDENT))
    if not pieces:
        pieces.append(Text(INDENT + "(no change to the variables shown)", style="dim"))
    return Group(*pieces)


def _advice_line(a: Advice, indent: str) -> Text:
    line = Text(indent)
    line.append(a.subject, style=ACTION_STYLE)
    line.append(" " + a.says)
    if a.declare is not None:
        line.append(": declare ")
        line.append(f"`{a.declare}`", style="bold")
        line.append(" " + advice_condition(a))
    return line


def render_lasso_report(report: LassoReport, *, fairness: bool = True) -> RenderableType:
    """Why a lasso violates its property and is fair: how the cycle meets
    each fairness condition (``fairness``), and the actions that stay
    enabled round the cycle but never fire, with the declaration that would
    rule the cycle out."""
    parts: list[RenderableType] = []
    title = Text(f"{report.property_label} ({report.kind.value}) is violated: ", style="bold")
    title.append(report.violation)
    parts.append(title)
    if fairness:
        if report.fairness:
            parts.append(Text("The cycle is fair:", style="bold"))
            parts.append(two_columns([(Text(f.label, style=NAME_STYLE), Text(f.how))
                                      for f in report.fairness], "  "))
        else:
            parts.append(Text("No fairness is declared: any cycle is fair.", style="dim"))
    advice = [a for a in report.advice if a.kind != "repeats"]
    if advice:
        parts.append(Text("No fairness declared rules the cycle out:", style="bold"))
    parts.extend(_advice_line(a, "  ") for a in advice)
    if report.starved_more:
        parts.append(Text(f"  ... and {report.starved_more} more action bindings that stay enabled "
                          f"but never fire", style="dim"))
    parts.extend(_advice_line(a, "") for a in report.advice if a.kind == "repeats")
    return Group(*parts)


def deadlock_hint(trace_file: str | None) -> Text:
    """What to do about a deadlock: most are states where the system is
    meant to stop, which a ``terminal`` declaration says."""
    explain = f"; `modelcheck trace explain {trace_file}` names the require that stops each " \
        f"action there" if trace_file else ""
    return Text("hint: if the system is meant to stop there, say so with `terminal NAME: "
                "condition` (a state satisfying it is no deadlock), or check without deadlocks "
                f"with --no-deadlock{explain}", style="dim")


def render_deadlock(e: DeadlockExplanation) -> RenderableType:
    """The last state of a deadlock trace and, per action, what stops it there."""
    at = f"state {e.step}, reached by step {e.step}: " if e.step else "the initial state"
    title = Text(f"deadlock in {at}", style="bold")
    if e.step:
        title.append(e.label, style="yellow")
    title.append(": no action can take a step there", style="bold")
    lines: list[RenderableType] = [title]
    for s in e.stopped:
        line = Text("✗ ", style=OLD_STYLE)
        who = s.action if s.every and len(s.bindings) <= 1 else \
            f"{s.action}, every binding" if s.every else ", ".join(s.bindings)
        line.append(who, style="yellow")
        if s.more and not s.every:
            line.append(f" and {s.more} more")
        if s.guard is not None:
            line.append(": ")
            line.append(f"require {s.guard}", style="bold")
            line.append(f" {s.reason}", style=OLD_STYLE)
        else:
            line.append(f": {s.reason}", style=OLD_STYLE)
        if s.span is not None:
            line.append(f"  ({s.span})", style="dim")
        lines.append(line)
    if e.variables:
        lines.append(Text("The variables they read there:", style="bold"))
        lines.append(two_columns([(Text(n, style=NAME_STYLE), Text(v)) for n, v in e.variables], "  "))
    if e.terminals:
        lines.append(Text(f"No terminal declaration holds there ({', '.join(e.terminals)}).",
                          style="dim"))
    lines.append(deadlock_hint(None))
    return Group(*lines)
