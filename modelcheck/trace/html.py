"""The trace page: one self-contained HTML file (inline CSS, JS and SVG; no
network) showing a trace as a list of steps, a swimlane diagram and the state
at the selected step, its changes highlighted.  Arrow keys move between steps.

The swimlane diagram has one lane per value of a model-value type (see
``modelcheck.trace.lanes``): each step is a row, with a dot on every lane it
touches and its messages drawn as arrows, from the sender's lane at the step
that sent the message to the receiver's lane at the step that took it out of
the network (a horizontal dashed arrow while it is still in flight).

A lasso (a liveness counterexample) gets its cycle drawn: the row where
the cycle starts and the last row are marked, an arrow on the right of the
diagram goes from the last step back to the cycle's first state (a small
loop on the last row when it stutters forever), and a panel says why the
lasso violates its property, how its cycle meets each fairness condition,
and which actions stay enabled round it but never fire.

A long trace is shown through a ``StepWindow`` (by default its first and last
``EDGE_STEPS`` steps), so that the page stays bounded whatever the trace's length.

``render_html`` returns the page as a string; writing it is up to the caller.
Every value reaches the page escaped: ``_e`` for HTML text and attributes,
``_script_json`` for the JSON inside a ``<script>`` element.
"""
from __future__ import annotations

import html
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

from modelcheck.ir.nodes import Model
from modelcheck.ir.types import MapType, Type
from modelcheck.trace.lanes import Lanes, Message, build_lanes
from modelcheck.trace.lasso import LassoReport, analyse_lasso, cycle_end_phrase, lasso_phrase
from modelcheck.trace.replay import TraceReplayError
from modelcheck.trace.trace import Trace
from modelcheck.trace.view import (Change, StepWindow, format_lines, format_value, loop_back_changes,
                                   param_texts, step_changes, step_label, step_window, var_names,
                                   var_types)

__all__ = ["render_html", "page_title", "ROW_HEIGHT", "LANE_WIDTH"]

ROW_HEIGHT = 30
HEADER_HEIGHT = 36
LANE_WIDTH = 112
#: Room on the right of the diagram for a lasso's return arrow.
LOOP_MARGIN = 44
#: Width of a value in a per-node table cell before it goes over several lines.
CELL_WIDTH = 44
#: Lane shown when a spec has no model-value type to lay out by.
WHOLE_STATE = "state"
#: Lane for steps that touch none of the nodes (global actions).
GLOBAL_LANE = "global"

_PALETTE = ("#2563eb", "#d97706", "#059669", "#dc2626", "#7c3aed", "#0891b2", "#be185d",
            "#4d7c0f", "#b45309", "#4338ca")


def _asset(name: str) -> str:
    return resources.files("modelcheck.trace").joinpath("templates", name).read_text(encoding="utf-8")


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _script_json(data: Any) -> str:
    """JSON to embed in a ``<script>`` element: ``<``, ``>`` and ``&`` as
    \\u escapes, so that no value (``</script>``, ``<!--<script>``) can end
    the element early or put the parser in its escaped state, which would
    swallow the page's own script; U+2028/9 for old JavaScript parsers."""
    text = json.dumps(data, ensure_ascii=False)
    for char, escape in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                         ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(char, escape)
    return text


def _colors(trace: Trace, window: StepWindow) -> dict[str | None, str]:
    """One colour per action, in order of first appearance, so that the
    actions of a short trace never share one."""
    colors: dict[str | None, str] = {None: "#6b7280"}
    for i in window:
        step = trace.steps[i]
        if step.action not in colors:
            colors[step.action] = _PALETTE[(len(colors) - 1) % len(_PALETTE)]
    return colors


def page_title(trace: Trace) -> str:
    """``counterexample to NotFour in die_hard (6 steps)``."""
    kind = trace.kind or "trace"
    if trace.property_name:
        joiner = "to" if kind == "counterexample" else "for"
        what = f"{kind} {joiner} {trace.property_name}"
    else:
        what = kind
    where = f" in {trace.model_name}" if trace.model_name else ""
    n = len(trace)
    if trace.loop is not None:
        return f"{what}{where}: {lasso_phrase(trace)}"
    return f"{what}{where} ({n} step{'s' if n != 1 else ''})"


# ------------------------------------------------------------------ swimlanes

@dataclass(frozen=True)
class _Arrow:
    msg: Message
    sent: int
    received: int | None


def _arrows(lanes: Lanes, window: StepWindow) -> list[_Arrow]:
    """Pair each message sent at a shown step with the first later step that
    takes it out."""
    taken: set[tuple[int, int]] = set()
    out: list[_Arrow] = []
    for i in window:
        for msg in lanes.steps[i].sent:
            received = None
            for j in range(i + 1, len(lanes.steps)):
                for k, got in enumerate(lanes.steps[j].received):
                    if (j, k) not in taken and got.var == msg.var and got.text == msg.text:
                        taken.add((j, k))
                        received = j
                        break
                if received is not None:
                    break
            out.append(_Arrow(msg, i, received))
    return out


def _lane_columns(trace: Trace, lanes: Lanes, window: StepWindow) -> list[str]:
    if lanes.lane_set is None:
        return [WHOLE_STATE]
    cols = [lanes.lane_set.label(m) for m in lanes.members]
    idle = any(not lanes.steps[i].touched and i > 0 and trace.steps[i].state != trace.steps[i - 1].state
               for i in window)
    return ([GLOBAL_LANE] if idle else []) + cols


def _rows(window: StepWindow) -> dict[int, int]:
    """The diagram row of each shown step: a gap row stands for the steps
    left out between two runs."""
    rows: dict[int, int] = {}
    row = 0
    for k, run in enumerate(window.runs):
        row += 1 if k else 0
        for i in run:
            rows[i] = row
            row += 1
    return rows


def _svg(trace: Trace, model: Model | None, lanes: Lanes, colors: Mapping[str | None, str],
         window: StepWindow) -> str:
    columns = _lane_columns(trace, lanes, window)
    x_of = {name: LANE_WIDTH // 2 + k * LANE_WIDTH for k, name in enumerate(columns)}
    width = LANE_WIDTH * len(columns) + (LOOP_MARGIN if trace.loop is not None else 0)
    row_of = _rows(window)
    rows = max(row_of.values(), default=-1) + 1
    label = lanes.lane_set.label if lanes.lane_set is not None else format_value
    height = HEADER_HEIGHT + rows * ROW_HEIGHT + 8

    def y(i: int) -> int:
        # A message taken out at a step not shown ends at the bottom edge.
        row = row_of.get(i, rows)
        return HEADER_HEIGHT + row * ROW_HEIGHT + ROW_HEIGHT // 2

    parts = [f'<svg id="lanes-svg" xmlns="http://www.w3.org/2000/svg" width="{width}" '
             f'height="{height}" viewBox="0 0 {width} {height}" role="img" '
             f'aria-label="swimlane diagram">',
             '<defs><marker id="arrowhead" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
             'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" '
             'fill="#374151"/></marker><marker id="loophead" viewBox="0 0 10 10" refX="9" refY="5" '
             'markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" '
             'fill="#c026d3"/></marker></defs>']
    for i, row in row_of.items():
        parts.append(f'<rect class="row-bg" data-step="{i}" x="0" y="{HEADER_HEIGHT + row * ROW_HEIGHT}" '
                     f'width="{width}" height="{ROW_HEIGHT}"/>')
    for name in columns:
        x = x_of[name]
        parts.append(f'<text class="lane-name" data-lane="{_e(name)}" x="{x}" y="{HEADER_HEIGHT - 14}" '
                     f'text-anchor="middle">{_e(name)}</text>')
        parts.append(f'<line class="lane-line" x1="{x}" y1="{HEADER_HEIGHT - 6}" x2="{x}" '
                     f'y2="{height - 4}"/>')
    for i in window:
        if i == 0:
            continue
        step = trace.steps[i]
        touched = [label(m) for m in lanes.steps[i].touched]
        if lanes.lane_set is None:
            touched = [WHOLE_STATE] if step.state != trace.steps[i - 1].state else []
        elif not touched and GLOBAL_LANE in x_of and step.state != trace.steps[i - 1].state:
            touched = [GLOBAL_LANE]
        color = colors[step.action]
        title = _e(step_label(step, model, i))
        parts.append(f'<g class="step-mark" data-step="{i}"><title>{i}: {title}</title>')
        if len(touched) > 1:
            xs = [x_of[t] for t in touched]
            parts.append(f'<line class="span" x1="{min(xs)}" y1="{y(i)}" x2="{max(xs)}" y2="{y(i)}" '
                         f'stroke="{color}"/>')
        for t in touched:
            parts.append(f'<circle class="touch" data-lane="{_e(t)}" cx="{x_of[t]}" cy="{y(i)}" r="7" '
                         f'fill="{color}"/>')
        parts.append('</g>')
    for arrow in _arrows(lanes, window):
        parts.append(_arrow_svg(arrow, x_of, y, label))
    if trace.loop is not None:
        # A cycle whose first state a long trace leaves out returns to the
        # first row shown after it.
        back_row = min((i for i in row_of if i >= trace.loop), default=len(trace.steps) - 1)
        parts.append(_loop_svg(trace, model, width, y, back_row))
    for i in window:
        for msg in lanes.steps[i].received:
            name = label(msg.dst)
            if name in x_of:
                parts.append(f'<circle class="receive" data-step="{i}" cx="{x_of[name]}" cy="{y(i)}" '
                             f'r="10"><title>received {_e(msg.text)}</title></circle>')
    parts.append('</svg>')
    return "\n".join(parts)


def _arrow_svg(arrow: _Arrow, x_of: Mapping[str, int], y: Any, label: Any) -> str:
    src, dst = label(arrow.msg.src), label(arrow.msg.dst)
    if src not in x_of or dst not in x_of:
        return ""
    x1, y1 = x_of[src], y(arrow.sent) + 4
    title = f"<title>{_e(arrow.msg.var)}: {_e(arrow.msg.text)}</title>"
    common = f'class="msg{" in-flight" if arrow.received is None else ""}" data-step="{arrow.sent}" ' \
             f'data-from="{_e(src)}" data-to="{_e(dst)}" marker-end="url(#arrowhead)"'
    if src == dst:
        y2 = y(arrow.received) - 4 if arrow.received is not None else y1 + ROW_HEIGHT // 2
        return (f'<path {common} d="M{x1 + 8},{y1} C{x1 + 40},{y1} {x1 + 40},{y2} {x1 + 9},{y2}">'
                f'{title}</path>')
    x2 = x_of[dst] + (-9 if x_of[dst] > x1 else 9)
    y2 = y(arrow.received) - 4 if arrow.received is not None else y1
    return f'<line {common} x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}">{title}</line>'


def _loop_svg(trace: Trace, model: Model | None, width: int, y: Any, back_row: int) -> str:
    """A lasso's return: an arrow in the right margin from the last row up to
    the row of the state the cycle starts in, or a small loop on the last
    row when the last state stutters forever."""
    last = len(trace.steps) - 1
    x = width - LOOP_MARGIN + 8
    words = _e(cycle_end_phrase(trace, None if trace.loop_back is None
                                else step_label(trace.loop_back, model, 1)))
    if trace.loop_back is None:
        y0 = y(last)
        return (f'<path class="loop-back stutter" data-from="{last}" data-to="{last}" '
                f'marker-end="url(#loophead)" d="M{x},{y0 - 6} C{x + 30},{y0 - 18} {x + 30},{y0 + 18} '
                f'{x + 2},{y0 + 7}"><title>{words}</title></path>')
    y1, y2 = y(last), y(back_row)
    xr = x + 24
    return (f'<path class="loop-back" data-from="{last}" data-to="{trace.loop}" '
            f'marker-end="url(#loophead)" d="M{x},{y1} L{xr - 8},{y1} Q{xr},{y1} {xr},{y1 - 8} '
            f'L{xr},{y2 + 8} Q{xr},{y2} {xr - 8},{y2} L{x + 2},{y2}"><title>{words}</title></path>')


def _lasso_report(trace: Trace, model: Model | None) -> LassoReport | None:
    """The lasso's report, when it is one the model shows to be a fair
    violation of its property (a page of a bad lasso says so in a note)."""
    if trace.loop is None or model is None:
        return None
    try:
        return analyse_lasso(model, trace)
    except TraceReplayError:
        return None


def _lasso_panel(trace: Trace, model: Model | None, report: LassoReport | None,
                 names: Sequence[str], types: Mapping[str, Type | None]) -> str:
    """What the cycle is and why it is a counterexample, under the title."""
    back = None if trace.loop_back is None else step_label(trace.loop_back, model, 1)
    parts = ['<section id="lasso" aria-label="the cycle">',
             f'<p class="cycle">{_e(cycle_end_phrase(trace, back))}</p>']
    changes = [c for c in loop_back_changes(trace, types) if c.var in set(names)]
    if changes:
        parts.append('<ul class="changes">' + "".join(_change_item(c) for c in changes) + "</ul>")
    if report is not None:
        parts.append(f'<p class="violation"><b>{_e(report.property_label)}</b> '
                     f'({_e(report.kind.value)}) is violated: {_e(report.violation)}</p>')
        if report.fairness:
            parts.append('<p>The cycle is fair:</p><ul class="fairness">' + "".join(
                f'<li><span class="cond">{_e(f.label)}</span> {_e(f.how)}</li>'
                for f in report.fairness) + "</ul>")
        else:
            parts.append('<p class="nofair">No fairness is declared: any cycle is fair.</p>')
        if report.starved:
            parts.append('<p>No fairness declared rules the cycle out:</p><ul class="starved">' + "".join(
                f'<li><span class="action">{_e(label)}</span> stays enabled but never fires: '
                f'declare <code>{_e(suggestion)}</code> if the system guarantees it runs</li>'
                for label, suggestion in zip(report.starved, report.suggestions)) + "</ul>")
        if report.starved_more:
            parts.append(f'<p>... and {report.starved_more} more action bindings that stay '
                         f'enabled but never fire</p>')
    parts.append("</section>")
    return "".join(parts)


# ------------------------------------------------------------------ state panels

def _pre(lines: Sequence[str], cls: str = "") -> str:
    return f'<pre class="{cls}">{_e(chr(10).join(lines))}</pre>'


def _change_item(ch: Change) -> str:
    where = f'<span class="where">{_e(ch.where)}</span> '
    if ch.kind == "added":
        body = f'<span class="sign">+</span> <span class="new">{_e(ch.new)}</span>'
    elif ch.kind == "removed":
        body = f'<span class="sign">−</span> <span class="old">{_e(ch.old)}</span>'
    else:
        old = ch.old if ch.old is not None else "(absent)"
        body = (f'<span class="old">{_e(old)}</span> <span class="arrow">→</span> '
                f'<span class="new">{_e(ch.new)}</span>')
    return f'<li class="change {ch.kind}">{where}{body}</li>'


def _lane_table(trace: Trace, i: int, lanes: Lanes, names: Sequence[str],
                types: Mapping[str, Type | None]) -> tuple[str, set[str]]:
    lane_set = lanes.lane_set
    if lane_set is None or not lane_set.keyed_vars:
        return "", set()
    rows = [n for n in names if n in lane_set.keyed_vars and isinstance(trace.steps[i].state.get(n), Mapping)]
    if not rows:
        return "", set()
    cur = trace.steps[i].state
    prev = trace.steps[i - 1].state if i > 0 else None
    head = "".join(f'<th class="lane">{_e(lane_set.label(m))}</th>' for m in lane_set.members)
    out = [f'<table class="by-lane"><thead><tr><th>{_e(lane_set.name)}</th>{head}</tr></thead><tbody>']
    for name in rows:
        t = types.get(name)
        vt = t.value if isinstance(t, MapType) else None
        cells = []
        for m in lane_set.members:
            lane = _e(lane_set.label(m))
            new = cur[name].get(m)
            old = prev[name].get(m) if prev is not None and isinstance(prev.get(name), Mapping) else new
            new_text = format_lines(new, vt, CELL_WIDTH)
            if old != new:
                old_text = format_lines(old, vt, CELL_WIDTH)
                cells.append(f'<td class="changed" data-lane="{lane}">'
                             f'{_pre(old_text, "old")}{_pre(new_text, "new")}</td>')
            else:
                cells.append(f'<td data-lane="{lane}">{_pre(new_text)}</td>')
        row_class = ' class="changed-row"' if any('class="changed"' in c for c in cells) else ""
        out.append(f'<tr data-var="{_e(name)}"{row_class}><th>{_e(name)}</th>{"".join(cells)}</tr>')
    out.append("</tbody></table>")
    return "".join(out), set(rows)


def _state_panel(trace: Trace, i: int, model: Model | None, lanes: Lanes, names: Sequence[str],
                 types: Mapping[str, Type | None], colors: Mapping[str | None, str],
                 first: bool) -> str:
    step = trace.steps[i]
    cur = step.state
    prev = trace.steps[i - 1].state if i > 0 else None
    label = step_label(step, model, i)
    params = param_texts(step, model)
    head = f'<h2><span class="idx">{"State" if i == 0 else "Step"} {i}</span> ' \
           f'<span class="action" style="color:{colors[step.action]}">{_e(label)}</span></h2>'
    parts = [f'<div class="state" id="state-{i}" data-step="{i}"{"" if first else " hidden"}>', head]
    if params:
        parts.append('<p class="params">' + " ".join(
            f'<span class="param"><span class="k">{_e(k)}</span>=<span class="v">{_e(v)}</span></span>'
            for k, v in params) + '</p>')
    changes = [c for c in step_changes(trace, i, types) if c.var in set(names)]
    if changes:
        parts.append('<h3>Changes</h3><ul class="changes">' + "".join(_change_item(c) for c in changes)
                     + "</ul>")
    elif i > 0:
        parts.append('<p class="nochange">No variable shown changed.</p>')
    sent = lanes.steps[i].sent if i < len(lanes.steps) else ()
    label = lanes.lane_set.label if lanes.lane_set is not None else format_value
    if sent:
        parts.append('<h3>Messages sent</h3><ul class="messages">' + "".join(
            f'<li><span class="where">{_e(label(m.src))} → {_e(label(m.dst))}</span> '
            f'{_e(m.text)}</li>' for m in sent) + "</ul>")
    table, in_table = _lane_table(trace, i, lanes, names, types)
    parts.append("<h3>State</h3>")
    parts.append(table)
    parts.append('<table class="vars"><tbody>')
    for name in names:
        if name in in_table or name not in cur:
            continue
        changed = prev is not None and prev.get(name) != cur[name]
        value = _pre(format_lines(cur[name], types.get(name), 64), "new" if changed else "")
        old = _pre(format_lines(prev[name], types.get(name), 64), "old") \
            if changed and prev is not None and name in prev else ""
        row_class = ' class="changed"' if changed else ""
        parts.append(f'<tr data-var="{_e(name)}"{row_class}><th>{_e(name)}</th><td>{old}{value}</td></tr>')
    parts.append("</tbody></table></div>")
    return "\n".join(parts)


def _step_list(trace: Trace, model: Model | None, types: Mapping[str, Type | None],
               colors: Mapping[str | None, str], window: StepWindow) -> str:
    items = []
    after = 0
    for i in window:
        if i > after:
            items.append(f'<li class="omitted">{_e(window.omitted_note(i - after))}</li>')
        after = i + 1
        step = trace.steps[i]
        label = step_label(step, model, i)
        changed = [] if i == 0 else sorted({c.var for c in step_changes(trace, i, types)},
                                          key=list(step.state).index)
        summary = ", ".join(changed)
        marks = _loop_marks(trace, i)
        items.append(f'<li class="step{" selected" if i == window.runs[0].start else ""}{marks}" '
                     f'data-step="{i}" id="step-{i}" '
                     f'title="{_e(label)}"><span class="idx">{i}</span>'
                     f'<span class="dot" style="background:{colors[step.action]}"></span>'
                     f'<span class="label">{_e(label)}</span>'
                     f'<span class="summary">{_e(summary)}</span></li>')
    if after < window.total:
        items.append(f'<li class="omitted">{_e(window.omitted_note(window.total - after))}</li>')
    return '<ol id="steps">' + "".join(items) + "</ol>"


def _loop_marks(trace: Trace, i: int) -> str:
    """The classes that mark a lasso's cycle in the step list (its rows line
    up with the diagram's, so the marks are styles, not rows)."""
    if trace.loop is None:
        return ""
    marks = ""
    if i == trace.loop:
        marks += " loop-start"
    if i == len(trace.steps) - 1:
        marks += " loop-end"
    if i >= trace.loop:
        marks += " in-cycle"
    return marks


# ------------------------------------------------------------------ the page

def render_html(trace: Trace, model: Model | None = None, *, by: str | None = None,
                names: Sequence[str] | None = None, source: str | None = None,
                window: StepWindow | None = None, notes: Sequence[str] = ()) -> str:
    """The trace page.  ``by`` picks the lanes (a model-value type or a map
    variable; default: the first model-value type that keys map variables);
    ``names`` the variables shown (default all); ``source`` the file the trace
    came from, shown under the title; ``window`` the steps shown (default:
    the first and last ``EDGE_STEPS`` of a long trace, see ``step_window``);
    ``notes`` what the reader should know (the spec was not found, so the
    page has no lanes), shown under the title.
    Raises ``UsageError`` for an unknown ``by`` name."""
    window = window if window is not None else step_window(len(trace.steps))
    lanes = build_lanes(trace, model, by)
    types = var_types(trace, model)
    shown = list(names) if names is not None else var_names(trace, model)
    title = page_title(trace)
    lane_note = f"lanes: one per {lanes.lane_set.name}" if lanes.lane_set is not None \
        else "no model-value type to lay out by: one lane for the whole state"
    nets = ", ".join(n.var for n in lanes.networks)
    if nets:
        lane_note += f"; messages from {nets}"
    data = {"steps": len(trace.steps), "shown": list(window),
            "lanes": _lane_columns(trace, lanes, window)}
    colors = _colors(trace, window)
    panels = "\n".join(_state_panel(trace, i, model, lanes, shown, types, colors, first=k == 0)
                       for k, i in enumerate(window))
    sub = f'<p class="sub">{_e(source)}</p>' if source else ""
    sub += "".join(f'\n<p class="note">note: {_e(note)}</p>' for note in notes)
    if trace.loop is not None:
        sub += "\n" + _lasso_panel(trace, model, _lasso_report(trace, model), shown, types)
    data_json = _script_json(data)
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="modelcheck">
<title>{_e(title)}</title>
<style>
{_asset("trace.css")}
</style>
</head>
<body>
<header>
<h1>{_e(title)}</h1>{sub}
<p class="keys">{_e(lane_note)} · <kbd>↑</kbd><kbd>↓</kbd> or <kbd>←</kbd><kbd>→</kbd>
move between steps, <kbd>Home</kbd> <kbd>End</kbd></p>
</header>
<main>
<section id="timeline" aria-label="steps">
<div class="timeline-body">
<div class="timeline-head">Step</div>
{_step_list(trace, model, types, colors, window)}
<div id="lanes">{_svg(trace, model, lanes, colors, window)}</div>
</div>
</section>
<section id="states" aria-live="polite">
{panels}
</section>
</main>
<script type="application/json" id="trace-data">{data_json}</script>
<script>
{_asset("trace.js")}
</script>
</body>
</html>
"""
