"""A step that stays on one node is a local event, not a message
(modelcheck.trace.lanes, docs/traces.md "Who sends to whom"): a leader
appending a membership change to its own log names the new member but reads
nothing of its state; a message a node puts in the network for itself."""
from __future__ import annotations

import pytest

import modelcheck
from modelcheck.trace.html import render_html
from modelcheck.trace.lanes import build_lanes
from modelcheck.trace.scenario import parse_scenario
from modelcheck.trace.scenario_run import run_scenario

SPEC = """\
module members
type Node = 1..3
type Pkt = record { src: Node, dst: Node }
var log: map[Node, seq[Node, 3]] = {n: [] for n in Node}
var term: map[Node, 0..2] = {n: 0 for n in Node}
var net: set[Pkt] = {}
action AddMember(l: Node, n: Node) {
    require len(log[l]) < 3 and l != n
    log[l] := append(log[l], n)
}
action Learn(n: Node, s: Node) {
    require term[s] < 2 and term[n] <= term[s]
    term[n] := term[s] + 1
}
action Note(n: Node) {
    require not (Pkt(src=n, dst=n) in net)
    net := net | {Pkt(src=n, dst=n)}
}
action Tell(a: Node, b: Node) {
    require a != b
    net := net | {Pkt(src=a, dst=b)}
}
"""

STEPS = """\
AddMember(l=1, n=3)
Learn(n=2, s=1)
Note(n=2)
Tell(a=1, b=2)
"""


@pytest.fixture(scope="module")
def model():
    return modelcheck.load_source(SPEC, "members.mc")


@pytest.fixture(scope="module")
def trace(model):
    trace = run_scenario(model, parse_scenario(STEPS, "steps.scenario")).trace
    assert len(trace) == 4
    return trace


def test_a_change_to_the_leaders_own_log_is_a_dot_on_its_lane(model, trace):
    step = build_lanes(trace, model).steps[1]
    assert step.direct == () and step.sent == ()
    assert step.touched == (1,)              # node 3 is only named


def test_reading_the_other_ends_state_is_still_a_message(model, trace):
    step = build_lanes(trace, model).steps[2]
    assert [(m.src, m.dst) for m in step.direct] == [(1, 2)]   # n learns s's term


def test_a_message_to_itself_is_a_local_event(model, trace):
    lanes = build_lanes(trace, model)
    assert lanes.steps[3].sent == () and lanes.steps[3].touched == (2,)
    assert [(m.src, m.dst) for m in lanes.steps[4].sent] == [(1, 2)]


def test_the_page_draws_no_arrow_for_a_local_event(model, trace):
    page = render_html(trace, model)
    assert 'class="msg' in page                       # Tell's arrow
    for step in ("1", "3"):
        assert f'data-step="{step}" data-from=' not in page
