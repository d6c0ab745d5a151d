"""The swimlane diagram's geometry: where each lane, row, dot and arrow of the
trace page's SVG goes.  Markup is the template's job (templates/lanes.svg.j2);
this module only places things.

Each step is a row, with a dot on every lane it touches.  A message is an
arrow from the sender's lane to the receiver's, its head (the ``arrowhead``
marker) at the receiver: a network message runs from the row of the step
that sent it to the row of the step that took it out of the network (a
horizontal dashed arrow while it is still in flight), a message an action
passes straight across stays on its step's row.  Several messages one step
sends from one lane (a broadcast) fan out from the sender: arcs of growing
height, so that the arrow to a far lane does not run through a nearer
receiver and read as a chain.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from modelcheck.ir.nodes import Model
from modelcheck.trace.lanes import Lanes, Message
from modelcheck.trace.lasso import cycle_end_phrase
from modelcheck.trace.trace import Trace
from modelcheck.trace.view import StepWindow, format_value, step_label

__all__ = ["Arrow", "Diagram", "Mark", "diagram", "lane_columns", "ROW_HEIGHT", "HEADER_HEIGHT",
           "LANE_WIDTH", "LOOP_MARGIN", "WHOLE_STATE", "GLOBAL_LANE"]

ROW_HEIGHT = 30
HEADER_HEIGHT = 36
LANE_WIDTH = 112
#: Room on the right of the diagram for a lasso's return arrow.
LOOP_MARGIN = 44
#: Lane shown when a spec has no model-value type to lay out by.
WHOLE_STATE = "state"
#: Lane for steps that touch none of the nodes (global actions).
GLOBAL_LANE = "global"
#: How far the arcs of a fan rise above their row: the nearest, and each next one more.
_FAN_RISE, _FAN_STEP = 10, 8


@dataclass(frozen=True)
class Mark:
    """A step's dots: ``touches`` are (lane, x); ``span`` the x range joining them."""
    step: int
    y: int
    title: str
    color: str
    touches: tuple[tuple[str, int], ...]
    span: tuple[int, int] | None


@dataclass(frozen=True)
class Arrow:
    """A message's arrow: a straight line (``line``: x1, y1, x2, y2) or a path
    (``path``: its ``d``), from lane ``src`` to lane ``dst``.  ``fan``: how
    many arrows leave the sender on this step (more than 1: a broadcast)."""
    step: int
    src: str
    dst: str
    title: str
    classes: str
    line: tuple[int, int, int, int] | None = None
    path: str | None = None
    fan: int = 1


@dataclass(frozen=True)
class Diagram:
    width: int
    height: int
    rows: tuple[tuple[int, int], ...]                  # (step, top y)
    lanes: tuple[tuple[str, int], ...]                 # (name, x)
    marks: tuple[Mark, ...]
    arrows: tuple[Arrow, ...]
    receives: tuple[tuple[int, int, int, str], ...]    # (step, x, y, message)
    loop: dict[str, Any] | None = None
    lane_top: int = HEADER_HEIGHT - 6
    name_y: int = HEADER_HEIGHT - 14
    row_height: int = ROW_HEIGHT


@dataclass(frozen=True)
class _Sent:
    msg: Message
    sent: int
    received: int | None
    direct: bool


def _pair(lanes: Lanes, window: StepWindow) -> list[_Sent]:
    """Each message sent at a shown step, with the first later step that takes
    it out of the network (a message an action passes across is taken at once)."""
    taken: set[tuple[int, int]] = set()
    out: list[_Sent] = []
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
            out.append(_Sent(msg, i, received, False))
        out.extend(_Sent(msg, i, i, True) for msg in lanes.steps[i].direct)
    return out


def lane_columns(trace: Trace, lanes: Lanes, window: StepWindow) -> list[str]:
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


def diagram(trace: Trace, model: Model | None, lanes: Lanes, colors: Mapping[str | None, str],
            window: StepWindow) -> Diagram:
    """The swimlane diagram of the steps in ``window``."""
    columns = lane_columns(trace, lanes, window)
    x_of = {name: LANE_WIDTH // 2 + k * LANE_WIDTH for k, name in enumerate(columns)}
    width = LANE_WIDTH * len(columns) + (LOOP_MARGIN if trace.loop is not None else 0)
    row_of = _rows(window)
    rows = max(row_of.values(), default=-1) + 1
    label = lanes.lane_set.label if lanes.lane_set is not None else format_value
    height = HEADER_HEIGHT + rows * ROW_HEIGHT + 8

    def y(i: int) -> int:
        # A message taken out at a step not shown ends at the bottom edge.
        return HEADER_HEIGHT + row_of.get(i, rows) * ROW_HEIGHT + ROW_HEIGHT // 2

    marks = []
    for i in window:
        if i == 0:
            continue
        step = trace.steps[i]
        touched = [label(m) for m in lanes.steps[i].touched]
        if lanes.lane_set is None:
            touched = [WHOLE_STATE] if step.state != trace.steps[i - 1].state else []
        elif not touched and GLOBAL_LANE in x_of and step.state != trace.steps[i - 1].state:
            touched = [GLOBAL_LANE]
        xs = [x_of[t] for t in touched]
        marks.append(Mark(i, y(i), f"{i}: {step_label(step, model, i)}", colors[step.action],
                          tuple((t, x_of[t]) for t in touched),
                          (min(xs), max(xs)) if len(xs) > 1 else None))
    receives = tuple((i, x_of[label(msg.dst)], y(i), msg.text)
                     for i in window for msg in lanes.steps[i].received if label(msg.dst) in x_of)
    loop = None
    if trace.loop is not None:
        # A cycle whose first state a long trace leaves out returns to the
        # first row shown after it.
        back_row = min((i for i in row_of if i >= trace.loop), default=len(trace.steps) - 1)
        loop = _loop(trace, model, width, y, back_row)
    return Diagram(width, height, tuple((i, HEADER_HEIGHT + r * ROW_HEIGHT) for i, r in row_of.items()),
                   tuple(x_of.items()), tuple(marks), tuple(_arrows(_pair(lanes, window), x_of, y, label)),
                   receives, loop)


def _arrows(sent: list[_Sent], x_of: Mapping[str, int], y: Callable[[int], int],
            label: Callable[[Any], str]) -> list[Arrow]:
    fans: dict[tuple[int, str], list[_Sent]] = {}
    for s in sent:
        src, dst = label(s.msg.src), label(s.msg.dst)
        if src in x_of and dst in x_of:
            fans.setdefault((s.sent, src), []).append(s)
    out = []
    for (_, src), group in fans.items():
        # nearest receiver first: its arc is the lowest
        group.sort(key=lambda s: abs(x_of[label(s.msg.dst)] - x_of[src]))
        for rank, s in enumerate(group):
            out.append(_arrow(s, src, label(s.msg.dst), x_of, y, rank, len(group)))
    return out


def _arrow(s: _Sent, src: str, dst: str, x_of: Mapping[str, int], y: Callable[[int], int],
           rank: int, fan: int) -> Arrow:
    x1, y1 = x_of[src], y(s.sent) + (0 if s.direct else 4)
    title = f"{s.msg.var}: {s.msg.text}" if not s.direct else s.msg.text
    classes = "msg" + (" direct" if s.direct else "") + \
        (" in-flight" if s.received is None else "") + (" fan" if fan > 1 else "")

    def make(line: tuple[int, int, int, int] | None = None, path: str | None = None) -> Arrow:
        return Arrow(s.sent, src, dst, title, classes, line, path, fan)

    if src == dst:
        y2 = y(s.received) - 4 if s.received is not None else y1 + ROW_HEIGHT // 2
        return make(path=f"M{x1 + 8},{y1} C{x1 + 40},{y1} {x1 + 40},{y2} {x1 + 9},{y2}")
    # the head stops at the receiver's dot, on the side the arrow comes from
    x2 = x_of[dst] + (-9 if x_of[dst] > x1 else 9)
    y2 = y(s.received) - 4 if s.received is not None and not s.direct else y1
    if fan > 1 and y2 == y1:
        rise = _FAN_RISE + _FAN_STEP * rank
        return make(path=f"M{x1},{y1 - 4} Q{(x1 + x2) // 2},{y1 - 4 - 2 * rise} {x2},{y2 - 2}")
    return make(line=(x1, y1, x2, y2))


def _loop(trace: Trace, model: Model | None, width: int, y: Callable[[int], int],
          back_row: int) -> dict[str, Any]:
    """A lasso's return: an arrow in the right margin from the last row up to
    the row of the state the cycle starts in, or a small loop on the last
    row when the last state stutters forever."""
    last = len(trace.steps) - 1
    x = width - LOOP_MARGIN + 8
    words = cycle_end_phrase(trace, None if trace.loop_back is None
                             else step_label(trace.loop_back, model, 1))
    if trace.loop_back is None:
        y0 = y(last)
        return {"classes": "loop-back stutter", "src": last, "dst": last, "title": words,
                "d": f"M{x},{y0 - 6} C{x + 30},{y0 - 18} {x + 30},{y0 + 18} {x + 2},{y0 + 7}"}
    y1, y2 = y(last), y(back_row)
    xr = x + 24
    return {"classes": "loop-back", "src": last, "dst": trace.loop, "title": words,
            "d": f"M{x},{y1} L{xr - 8},{y1} Q{xr},{y1} {xr},{y1 - 8} "
                 f"L{xr},{y2 + 8} Q{xr},{y2} {xr - 8},{y2} L{x + 2},{y2}"}
