"""The trace page: one self-contained HTML file (inline CSS, JS and SVG; no
network) showing a trace as a list of steps, a swimlane diagram and the state
at the selected step, its changes highlighted.  Arrow keys move between steps.

Under the title, the page says why the trace is a counterexample
(``modelcheck.trace.why``): ``trace explain``'s tree for the step where the
property fails, the property as written in the spec and the consts the trace
was made under; a lasso (a liveness counterexample) gets its cycle and
fairness panel instead of the tree.

The swimlane diagram (``modelcheck.trace.svg``) has one lane per value of a
model-value type (see ``modelcheck.trace.lanes``): each step is a row, with
a dot on every lane it touches and its messages drawn as arrows from sender
to receiver.  A collection that changed shows the elements added and
removed (the keys that changed), not the whole value struck through.

A long trace is shown through a ``StepWindow`` (by default its first and last
``EDGE_STEPS`` steps), so that the page stays bounded whatever the trace's length.

The markup is in Jinja2 templates (``templates/*.j2``) with autoescape on:
every value reaches the page escaped; only the page's own CSS and script
and the step data made safe for a ``<script>`` element (``_script_json``)
are passed as markup.  ``render_html`` returns the page as a string; writing
it is up to the caller.
"""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import jinja2
from markupsafe import Markup

from modelcheck.ir.nodes import Model
from modelcheck.ir.types import MapType, Type
from modelcheck.trace.lanes import Lanes, build_lanes
from modelcheck.trace.lasso import LassoReport, advice_condition, analyse_lasso, cycle_end_phrase, lasso_phrase
from modelcheck.trace.replay import TraceReplayError
from modelcheck.trace.svg import LANE_WIDTH, ROW_HEIGHT, diagram, lane_columns
from modelcheck.trace.trace import Trace
from modelcheck.trace.view import (Change, StepWindow, format_lines, format_value, loop_back_changes,
                                   param_texts, step_changes, step_label, step_window, value_changes,
                                   var_names, var_types)
from modelcheck.trace.why import Why, why

__all__ = ["render_html", "page_title", "ROW_HEIGHT", "LANE_WIDTH"]

#: Width of a value in a per-node table cell before it goes over several lines.
CELL_WIDTH = 44
#: Width of a value in the table of other variables.
VAR_WIDTH = 64

_PALETTE = ("#2563eb", "#d97706", "#059669", "#dc2626", "#7c3aed", "#0891b2", "#be185d",
            "#4d7c0f", "#b45309", "#4338ca")


@cache
def _environment() -> jinja2.Environment:
    """The templates, loaded once per process (they do not change while it runs)."""
    return jinja2.Environment(loader=jinja2.PackageLoader("modelcheck.trace", "templates"),
                              autoescape=True, trim_blocks=True, lstrip_blocks=True,
                              undefined=jinja2.StrictUndefined, keep_trailing_newline=True)


def _asset(name: str) -> str:
    return resources.files("modelcheck.trace").joinpath("templates", name).read_text(encoding="utf-8")


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


# ------------------------------------------------------------------ values in state tables

@dataclass(frozen=True)
class _Cell:
    """A value in a state table: ``new`` its lines; when it changed, either
    ``elems`` (the elements or keys that changed: a collection) or ``old``."""
    new: list[str]
    changed: bool = False
    old: list[str] | None = None
    elems: tuple[Change, ...] = ()


def _cell(old: Any, new: Any, t: Type | None, width: int, had_old: bool = True) -> _Cell:
    new_lines = format_lines(new, t, width)
    if not had_old or old == new:
        return _Cell(new_lines, changed=had_old and old != new)
    changes = value_changes("", old, new, t)
    whole = len(changes) == 1 and not changes[0].path and changes[0].kind == "changed"
    if changes and not whole:
        return _Cell(new_lines, changed=True, elems=tuple(changes))
    return _Cell(new_lines, changed=True, old=format_lines(old, t, width))


def _lane_table(trace: Trace, i: int, lanes: Lanes, names: Sequence[str],
                types: Mapping[str, Type | None]) -> tuple[dict[str, Any] | None, set[str]]:
    lane_set = lanes.lane_set
    if lane_set is None or not lane_set.keyed_vars:
        return None, set()
    cur = trace.steps[i].state
    rows = [n for n in names if n in lane_set.keyed_vars and isinstance(cur.get(n), Mapping)]
    if not rows:
        return None, set()
    prev = trace.steps[i - 1].state if i > 0 else None
    out = []
    for name in rows:
        t = types.get(name)
        vt = t.value if isinstance(t, MapType) else None
        before = prev.get(name) if prev is not None and isinstance(prev.get(name), Mapping) else None
        cells = []
        for m in lane_set.members:
            new = cur[name].get(m)
            old = before.get(m) if before is not None else new
            cells.append((lane_set.label(m), _cell(old, new, vt, CELL_WIDTH)))
        out.append({"var": name, "cells": cells, "changed": any(c.changed for _, c in cells)})
    table = {"name": lane_set.name, "lanes": [lane_set.label(m) for m in lane_set.members], "rows": out}
    return table, set(rows)


def _panel(trace: Trace, i: int, model: Model | None, lanes: Lanes, names: Sequence[str],
           types: Mapping[str, Type | None], colors: Mapping[str | None, str], first: bool,
           violation: str | None) -> dict[str, Any]:
    step = trace.steps[i]
    cur = step.state
    prev = trace.steps[i - 1].state if i > 0 else None
    shown = set(names)
    label = lanes.lane_set.label if lanes.lane_set is not None else format_value
    lane_step = lanes.steps[i] if i < len(lanes.steps) else None
    messages = [] if lane_step is None else \
        [(label(m.src), label(m.dst), m.text) for m in (*lane_step.sent, *lane_step.direct)]
    table, in_table = _lane_table(trace, i, lanes, names, types)
    rows = [(name, _cell(prev.get(name) if prev is not None else None, cur[name], types.get(name),
                         VAR_WIDTH, had_old=prev is not None and name in prev))
            for name in names if name not in in_table and name in cur]
    return {"index": i, "first": first, "heading": "State" if i == 0 else "Step",
            "label": step_label(step, model, i), "color": colors[step.action],
            "params": param_texts(step, model), "violation": violation,
            "changes": [c for c in step_changes(trace, i, types) if c.var in shown],
            "messages": messages, "lane_table": table, "vars": rows}


def _step_items(trace: Trace, model: Model | None, types: Mapping[str, Type | None],
                colors: Mapping[str | None, str], window: StepWindow,
                failing: int | None, opened: int) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    after = 0
    for i in window:
        if i > after:
            items.append({"omitted": window.omitted_note(i - after)})
        after = i + 1
        step = trace.steps[i]
        changed = [] if i == 0 else sorted({c.var for c in step_changes(trace, i, types)},
                                          key=list(step.state).index)
        classes = "step" + (" selected" if i == opened else "") + _loop_marks(trace, i) \
            + (" violation" if i == failing else "")
        items.append({"omitted": None, "index": i, "classes": classes, "color": colors[step.action],
                      "label": step_label(step, model, i), "summary": ", ".join(changed)})
    if after < window.total:
        items.append({"omitted": window.omitted_note(window.total - after)})
    return items


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


# ------------------------------------------------------------------ the why

def _lasso_report(trace: Trace, model: Model | None) -> LassoReport | None:
    """The lasso's report, when it is one the model shows to be a fair
    violation of its property (a page of a bad lasso says so in a note)."""
    if trace.loop is None or model is None:
        return None
    try:
        return analyse_lasso(model, trace)
    except TraceReplayError:
        return None


def _lasso(trace: Trace, model: Model | None, names: Sequence[str],
           types: Mapping[str, Type | None]) -> dict[str, Any]:
    back = None if trace.loop_back is None else step_label(trace.loop_back, model, 1)
    report = _lasso_report(trace, model)
    shown = set(names)
    return {"cycle": cycle_end_phrase(trace, back), "report": report,
            "changes": [c for c in loop_back_changes(trace, types) if c.var in shown],
            "conditions": [advice_condition(a) for a in report.advice if a.kind != "repeats"]
            if report is not None else []}


def _failing(reason: Why | None) -> tuple[int | None, str | None]:
    """The step the property fails at, and what its panel says about it."""
    if reason is None or reason.explanation is None or reason.explanation.step is None:
        return None, None
    return reason.explanation.step, reason.headline


def _opening_step(trace: Trace, window: StepWindow, failing: int | None) -> int:
    """The step the page opens at: where the property fails, the start of a
    lasso's cycle, the last state of a counterexample that explain has no
    formula for (a deadlock, a run-time error); else the first state.  A
    reader who follows a link wants the violation first, on a phone most of all."""
    shown = list(window)
    if failing is None and trace.loop is not None:
        failing = trace.loop
    if failing is None and trace.kind in ("counterexample", "error"):
        failing = len(trace.steps) - 1
    if failing in shown:
        return failing
    return shown[0] if shown else 0     # a trace of no state: an empty page


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
    page has no lanes), shown under the title.  The why panel and the consts
    come from ``model`` (the one the trace was read with).
    Raises ``UsageError`` for an unknown ``by`` name."""
    window = window if window is not None else step_window(len(trace.steps))
    lanes = build_lanes(trace, model, by)
    types = var_types(trace, model)
    shown = list(names) if names is not None else var_names(trace, model)
    lane_note = f"lanes: one per {lanes.lane_set.name}" if lanes.lane_set is not None \
        else "no model-value type to lay out by: one lane for the whole state"
    nets = ", ".join(n.var for n in lanes.networks)
    if nets:
        lane_note += f"; messages from {nets}"
    colors = _colors(trace, window)
    reason = why(trace, model)
    failing, failing_words = _failing(reason)
    opened = _opening_step(trace, window, failing)
    data = {"steps": len(trace.steps), "shown": list(window),
            "lanes": lane_columns(trace, lanes, window), "failing": failing, "open": opened}
    panels = [_panel(trace, i, model, lanes, shown, types, colors, i == opened,
                     failing_words if i == failing else None)
              for i in window]
    return _environment().get_template("page.html.j2").render(
        title=page_title(trace), source=source, notes=list(notes), why=reason,
        lasso=_lasso(trace, model, shown, types) if trace.loop is not None else None,
        lane_note=lane_note, step_items=_step_items(trace, model, types, colors, window, failing, opened),
        svg=diagram(trace, model, lanes, colors, window), panels=panels,
        # already safe: the page's own files, and JSON with <, > and & escaped
        css=Markup(_asset("trace.css")), js=Markup(_asset("trace.js")),
        data_json=Markup(_script_json(data)))
