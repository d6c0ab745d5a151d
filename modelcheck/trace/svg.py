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

An arrow carries a label (``modelcheck.trace.msglabel``: ``Replicate
idx=1``), written along it just above the line: the longest of its labels
that fits its length and runs into no dot and no label placed before it,
at its middle or a little to either side; an arrow with no room for any
goes without (its tooltip and its step's panel, one tap away, have the
message in full).
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from modelcheck.ir.nodes import Model
from modelcheck.trace.lanes import Lanes, Message
from modelcheck.trace.lasso import cycle_end_phrase
from modelcheck.trace.msglabel import action_labels
from modelcheck.trace.trace import Trace
from modelcheck.trace.view import StepWindow, format_value, step_label

__all__ = ["Arrow", "Diagram", "Label", "Mark", "diagram", "lane_columns", "ROW_HEIGHT", "HEADER_HEIGHT",
           "LANE_WIDTH", "LOOP_MARGIN", "WHOLE_STATE", "GLOBAL_LANE"]

ROW_HEIGHT = 30
HEADER_HEIGHT = 36
# Room for a label such as "Replicate idx=1" on an arrow between neighbouring lanes.
LANE_WIDTH = 128
#: Room on the right of the diagram for a lasso's return arrow.
LOOP_MARGIN = 44
#: Lane shown when a spec has no model-value type to lay out by.
WHOLE_STATE = "state"
#: Lane for steps that touch none of the nodes (global actions).
GLOBAL_LANE = "global"
#: How far the arcs of a fan rise above their row: the nearest, and each next one more.
_FAN_RISE, _FAN_STEP = 10, 8
#: A label's characters (10px monospace, trace.css) and its height, in pixels.
LABEL_CHAR, LABEL_HEIGHT = 6.1, 11
#: Where along a sloping arrow its label may go, in order of preference.
_ALONG = (0.5, 0.35, 0.65, 0.25, 0.75)

_Box = tuple[float, float, float, float]


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
    # Where a label may go (centre x, baseline y, angle), best first; its room; its texts.
    spots: tuple[tuple[float, float, float], ...] = field(default=(), compare=False)
    room: int = field(default=0, compare=False)
    labels: tuple[str, ...] = field(default=(), compare=False)


@dataclass(frozen=True)
class Label:
    """The text on a message's arrow (``full``: the whole message), turned
    by ``angle`` degrees about its anchor to lie along a sloping arrow."""
    step: int
    x: float
    y: float
    text: str
    full: str
    angle: float = 0.0


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
    labels: tuple[Label, ...] = ()
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
    arrows = tuple(_arrows(_pair(lanes, window), x_of, y, label))
    return Diagram(width, height, tuple((i, HEADER_HEIGHT + r * ROW_HEIGHT) for i, r in row_of.items()),
                   tuple(x_of.items()), tuple(marks), arrows, receives, loop,
                   _place_labels(arrows, marks))


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

    labels = s.msg.labels or (action_labels(s.msg.var) if s.direct else ())

    def make(line: tuple[int, int, int, int] | None = None, path: str | None = None,
             spots: tuple[tuple[float, float, float], ...] = (), room: float = 0) -> Arrow:
        return Arrow(s.sent, src, dst, title, classes, line, path, fan, spots, round(room), labels)

    if src == dst:
        y2 = y(s.received) - 4 if s.received is not None else y1 + ROW_HEIGHT // 2
        return make(path=f"M{x1 + 8},{y1} C{x1 + 40},{y1} {x1 + 40},{y2} {x1 + 9},{y2}")
    # the head stops at the receiver's dot, on the side the arrow comes from
    x2 = x_of[dst] + (-9 if x_of[dst] > x1 else 9)
    y2 = y(s.received) - 4 if s.received is not None and not s.direct else y1
    mid = (x_of[src] + x_of[dst]) // 2
    if fan > 1 and y2 == y1:
        rise = _FAN_RISE + _FAN_STEP * rank
        # the arc's top is half its control point's rise above the row
        return make(path=f"M{x1},{y1 - 4} Q{(x1 + x2) // 2},{y1 - 4 - 2 * rise} {x2},{y2 - 2}",
                    spots=((mid, y1 - 6 - rise, 0.0),), room=abs(x2 - x1) - 12)
    return make(line=(x1, y1, x2, y2), spots=_along(x1, y1, x2, y2),
                room=math.hypot(x2 - x1, y2 - y1) - 10)


def _along(x1: int, y1: int, x2: int, y2: int) -> tuple[tuple[float, float, float], ...]:
    """Label anchors on a line, 4px above it, with the angle that writes the
    text along it left to right."""
    angle = math.degrees(math.atan2(y2 - y1, x2 - x1))
    if angle > 90 or angle < -90:
        angle -= math.copysign(180, angle)
    up = math.radians(angle - 90)          # the normal on the text's upper side
    dx, dy = 4 * math.cos(up), 4 * math.sin(up)
    ts = (0.5,) if y1 == y2 else _ALONG
    return tuple((round(x1 + t * (x2 - x1) + dx, 1), round(y1 + t * (y2 - y1) + dy, 1),
                  round(angle, 1)) for t in ts)


def _place_labels(arrows: tuple[Arrow, ...], marks: list[Mark]) -> tuple[Label, ...]:
    """Each arrow's label: the longest that fits its room at a spot where it
    overlaps no dot and no label placed before it; none when there is none."""
    dots = [(x, m.y) for m in marks for _, x in m.touches]
    taken: list[_Box] = []
    out: list[Label] = []
    for a in arrows:
        placed = _place(a, taken, dots)
        if placed is not None:
            box, x, y, text, angle = placed
            taken.append(box)
            out.append(Label(a.step, x, y, text, a.title, angle))
    return tuple(out)


def _place(a: Arrow, taken: list[_Box], dots: list[tuple[int, int]]
           ) -> tuple[_Box, float, float, str, float] | None:
    for text in a.labels:
        half = len(text) * LABEL_CHAR / 2
        if 2 * half > a.room:
            continue
        for x, y, angle in a.spots:
            box = _turned_box(x, y, half, angle)
            if not any(_overlap(box, other) for other in taken) and \
                    not any(_hits_dot(x, y, half, angle, dot) for dot in dots):
                return box, x, y, text, angle
    return None


def _turned_box(x: float, y: float, half: float, angle: float) -> _Box:
    """The upright box around a label turned by ``angle`` about its anchor."""
    a = math.radians(angle)
    cos, sin = math.cos(a), math.sin(a)
    xs, ys = [], []
    for u, v in ((-half - 1, -LABEL_HEIGHT + 3), (half + 1, -LABEL_HEIGHT + 3), (-half - 1, 2),
                 (half + 1, 2)):
        xs.append(x + u * cos - v * sin)
        ys.append(y + u * sin + v * cos)
    return min(xs), min(ys), max(xs), max(ys)


def _hits_dot(x: float, y: float, half: float, angle: float, dot: tuple[int, int]) -> bool:
    """Whether a dot (radius 7) touches the label, in the label's own frame."""
    a = math.radians(angle)
    dx, dy = dot[0] - x, dot[1] - y
    u = dx * math.cos(a) + dy * math.sin(a)
    v = -dx * math.sin(a) + dy * math.cos(a)
    nearest_u = min(max(u, -half - 1), half + 1)
    nearest_v = min(max(v, -LABEL_HEIGHT + 3), 2)
    return math.hypot(u - nearest_u, v - nearest_v) < 7


def _overlap(a: _Box, b: _Box, gap: float = 4) -> bool:
    """Whether two boxes come closer than ``gap``: two labels end to end
    would read as one."""
    return a[0] < b[2] + gap and b[0] < a[2] + gap and a[1] < b[3] and b[1] < a[3]


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
