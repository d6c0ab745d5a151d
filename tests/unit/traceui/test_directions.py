"""Who sends to whom when an action passes a message straight across
(modelcheck.trace.lanes, docs/traces.md "Who sends to whom"): parameter
names, else the first two parameters of the lane type with the message going
to the lane whose state changed, sets of lanes as broadcasts; and how the
page draws it (a head at the receiver, a fan for a broadcast)."""
from __future__ import annotations

import re

import pytest

import modelcheck
from modelcheck.trace.html import render_html
from modelcheck.trace.lanes import build_lanes
from modelcheck.trace.scenario import parse_scenario
from modelcheck.trace.scenario_run import run_scenario

SPEC = """\
module raftish
const N: 2..4 = 3
type Node = 1..N
type Msg = 1..N
var term: map[Node, 0..3] = {n: 0 for n in Node}
var log: map[Node, 0..3] = {n: 0 for n in Node}
var box: map[Msg, 0..1] = {m: 0 for m in Msg}
type Pkt = record { src: Node, dst: Node }
var net: set[Pkt] = {}
action Append(l: Node, f: Node) {
    require l != f and log[l] < 3
    log := {x: (if x == l or x == f then log[x] + 1 else log[x]) for x in Node}
}
action Learn(n: Node, s: Node) {
    require term[s] > term[n]
    term[n] := term[s]
}
action Bump(n: Node) {
    require term[n] < 3
    term[n] := term[n] + 1
}
action Ping(dst: Node, src: Node) {
    require src != dst and log[dst] < 3
    log[dst] := log[dst] + 1
}
action Elect(c: Node, q: set[Node]) {
    require c in q and len(q) == N
    term := {v: (if v in q then 3 else term[v]) for v in Node}
}
action Drop(m: Msg, n: Node) {
    require box[m] == 0
    box[m] := 1
}
action Send(a: Node, b: Node) {
    require a != b
    net := net | {Pkt(src=a, dst=b)}
}
action Crash(n: Node) {
    require term[n] == 3
    term := {x: (if x == n then 0 else 2) for x in Node}
}
"""

STEPS = """\
Bump(n=2)
Learn(n=1, s=2)
Append(l=1, f=3)
Ping(dst=2, src=3)
Elect(c=2, q={1, 2, 3})
Drop(m=1, n=2)
Send(a=1, b=3)
Crash(n=1)
"""


@pytest.fixture(scope="module")
def model():
    return modelcheck.load_source(SPEC, "raftish.mc")


@pytest.fixture(scope="module")
def trace(model):
    trace = run_scenario(model, parse_scenario(STEPS, "steps.scenario")).trace
    assert len(trace) == len(STEPS.splitlines())     # every step of the scenario ran
    return trace


def _direct(model, trace) -> dict[str, list[tuple[int, int]]]:
    lanes = build_lanes(trace, model)
    return {trace.steps[i].action: [(m.src, m.dst) for m in s.direct]
            for i, s in enumerate(lanes.steps) if i}


def test_the_message_goes_to_the_lane_whose_state_changed(model, trace):
    direct = _direct(model, trace)
    assert direct["Learn"] == [(2, 1)]          # n learns s's term: s -> n
    assert direct["Append"] == [(1, 3)]         # both change: the first sends to the second
    assert direct["Bump"] == []                 # one lane, nothing else changed


def test_parameter_names_say_who_sends_whatever_their_order(model, trace):
    assert _direct(model, trace)["Ping"] == [(3, 2)]


def test_a_set_of_lanes_is_a_broadcast_from_the_sender(model, trace):
    assert _direct(model, trace)["Elect"] == [(2, 1), (2, 3)]   # never to itself


def test_a_parameter_of_another_named_type_is_not_a_lane(model, trace):
    # Msg = 1..N equals Node = 1..N, but m is declared a Msg
    assert _direct(model, trace)["Drop"] == []
    lanes = build_lanes(trace, model)
    assert "box" not in lanes.lane_set.keyed_vars


def test_a_network_message_is_drawn_instead_and_one_lane_tells_the_others(model, trace):
    lanes = build_lanes(trace, model)
    send = lanes.steps[7]
    assert [(m.src, m.dst) for m in send.sent] == [(1, 3)] and send.direct == ()
    assert _direct(model, trace)["Crash"] == [(1, 2), (1, 3)]


def _arrows(page: str) -> list[dict[str, str]]:
    out = []
    for tag in re.findall(r"<(?:line|path) class=\"msg[^>]*>", page):
        out.append(dict(re.findall(r'([\w-]+)="([^"]*)"', tag)))
    return out


def _end(arrow: dict[str, str]) -> tuple[float, float]:
    if "x2" in arrow:
        return float(arrow["x2"]), float(arrow["y2"])
    x, y = arrow["d"].split()[-1].split(",")
    return float(x), float(y)


def test_every_arrow_ends_with_its_head_at_the_receiver(model, trace):
    page = render_html(trace, model)
    lanes = {name: float(x) for name, x in
             re.findall(r'class="lane-name" data-lane="([^"]+)" x="(\d+)"', page)}
    arrows = _arrows(page)
    assert {(a["data-step"], a["data-from"], a["data-to"]) for a in arrows} >= {
        ("2", "Node 2", "Node 1"), ("4", "Node 3", "Node 2")}
    for a in arrows:
        assert a["marker-end"] == "url(#arrowhead)"
        assert abs(_end(a)[0] - lanes[a["data-to"]]) < 12


def test_a_broadcast_fans_out_instead_of_reading_as_a_chain(model, trace):
    page = render_html(trace, model)
    fan = [a for a in _arrows(page) if a["data-step"] == "5"]
    assert len(fan) == 2 and all(a["data-fan"] == "2" and "fan" in a["class"] for a in fan)
    # arcs of different heights from the sender: the one to the far lane
    # passes above the near receiver, not through it
    rises = sorted(float(a["d"].split()[1].split(",")[1][0:]) for a in fan)
    assert rises[0] != rises[1]
    assert len({a["data-from"] for a in fan}) == 1
