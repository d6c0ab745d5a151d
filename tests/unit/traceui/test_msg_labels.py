"""Message arrows carry labels as sequence diagrams write them: the variant
case and its key fields, the ends left out; long ones shortened; no two
labels, and no label and a dot, overlap; the full message stays one tap away."""
from __future__ import annotations

import itertools

import modelcheck
from modelcheck.ir.types import IntType, RecordType, VariantType
from modelcheck.ir.values import FrozenDict, Variant
from modelcheck.trace.html import render_html
from modelcheck.trace.lanes import build_lanes
from modelcheck.trace.msglabel import message_labels, shorten
from modelcheck.trace.scenario import parse_scenario
from modelcheck.trace.scenario_run import run_scenario
from modelcheck.trace.svg import _turned_box, _overlap, diagram
from modelcheck.trace.view import step_window

SPEC = """\
module relay
type Node = model { lead, f1, f2, f3 }
type Msg = variant {
    Replicate(src: Node, dst: Node, idx: 1..2, term: 1..9),
    Ack(src: Node, dst: Node, idx: 1..2),
}
var net: bag[Msg, 6] = {}
action Broadcast() {
    require net == {}
    net := {Replicate(src=lead, dst=f1, idx=1, term=7), Replicate(src=lead, dst=f2, idx=1, term=7),
            Replicate(src=lead, dst=f3, idx=1, term=7)}
}
action Reply(f: Node) {
    require Replicate(src=lead, dst=f, idx=1, term=7) in net
    net := put(take(net, Replicate(src=lead, dst=f, idx=1, term=7)), Ack(src=f, dst=lead, idx=1))
}
"""


def test_a_variant_is_labelled_by_its_case_and_fields_without_its_ends():
    t = VariantType("Msg", (("Ack", RecordType("Ack", (("src", IntType(0, 3)), ("dst", IntType(0, 3)),
                                                       ("idx", IntType(1, 2))))),))
    value = Variant("Ack", FrozenDict({"src": 1, "dst": 2, "idx": 2}))
    labels = message_labels(value, ("src", "dst"), t)
    assert labels[0] == "Ack idx=2" and "Ack" in labels
    assert all(len(b) < len(a) for a, b in itertools.pairwise(labels))


def test_shorten_marks_the_cut():
    assert shorten("Replicate", 20) == "Replicate"
    assert shorten("Replicate", 6) == "Repli…"


def _diagram():
    model = modelcheck.load_source(SPEC, "relay.mc")
    trace = run_scenario(model, parse_scenario("Broadcast\nReply(f=f1)\nReply(f=f3)\n",
                                               "s.scenario")).trace
    window = step_window(len(trace.steps))
    lanes = build_lanes(trace, model)
    colors = {s.action: "#000" for s in trace.steps}
    return model, trace, diagram(trace, model, lanes, colors, window)


def test_labels_are_placed_without_overlapping_each_other_or_a_dot():
    _, _, d = _diagram()
    texts = [label.text for label in d.labels]
    assert "Ack idx=1" in texts
    assert any(t.startswith("Replicate") for t in texts)
    boxes = [_turned_box(lb.x, lb.y, len(lb.text) * 6.1 / 2, lb.angle) for lb in d.labels]
    for a, b in itertools.combinations(boxes, 2):
        assert not _overlap(a, b)
    for label in d.labels:
        # the label is one the message offers, and the full message goes with it
        assert label.full.split(": ", 1)[-1].startswith(label.text.split(" ")[0].rstrip("…"))


def test_the_page_shows_the_labels_and_keeps_the_full_message_in_a_tooltip():
    model, trace, _ = _diagram()
    page = render_html(trace, model)
    assert 'class="msg-label" data-step="2"' in page
    assert "<title>net: Ack(src=f1, dst=lead, idx=1)</title>Ack idx=1</text>" in page
