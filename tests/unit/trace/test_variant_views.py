"""The trace views on variants and capped sets: values as the spec writes them,
a changed field of a case as a field change, lanes over variant messages,
explanations printed from the IR, and scenarios that name variant values."""
from __future__ import annotations

import pytest

from hand_models import model
from modelcheck.errors import CompileError
from modelcheck.ir import nodes as ir
from modelcheck.ir.types import BOOL, IntType, MapType, ModelType, RecordType, SetType, VariantType
from modelcheck.ir.values import FrozenDict, Variant
from modelcheck.trace.diff import diff_traces
from modelcheck.trace.explain import expr_text
from modelcheck.trace.html import render_html
from modelcheck.trace.lanes import build_lanes
from modelcheck.trace.scenario import bind, parse_scenario, scenario_from_json
from modelcheck.trace.trace import Step, Trace
from modelcheck.trace.view import format_lines, format_value, step_changes, value_changes

NODE = ModelType("Node", ("n1", "n2"))
REQ = RecordType("Req", (("term", IntType(0, 2)), ("src", NODE), ("dst", NODE)))
STOP_T = RecordType("Stop", ())
MSG = VariantType("Msg", (("Req", REQ), ("Ack", RecordType("Ack", (("ok", BOOL), ("src", NODE),
                                                                  ("dst", NODE)))),
                          ("Stop", STOP_T)))
NET = SetType(MSG, 3)
TYPES = {"net": NET, "last": MSG, "term": MapType(NODE, IntType(0, 2))}


def req(term, src="n1", dst="n2"):
    return Variant("Req", FrozenDict({"term": term, "src": src, "dst": dst}))


STOP = Variant("Stop", FrozenDict())


def test_values_print_as_the_spec_writes_them():
    assert format_value(req(1), MSG) == "Req(term=1, src=n1, dst=n2)"
    assert format_value(STOP, MSG) == "Stop"
    assert format_value(frozenset({STOP, req(0)}), NET) == "{Req(term=0, src=n1, dst=n2), Stop}"
    # Without types (a trace from another tool) the shape is the same.
    assert format_value(req(1)) == "Req(term=1, src=n1, dst=n2)"
    assert format_value(STOP) == "Stop"


def test_a_long_set_of_variants_opens_element_by_element_and_a_case_by_field():
    lines = format_lines(frozenset({req(0), req(1), STOP}), NET, width=20)
    assert lines[0] == "{" and lines[-1] == "}"
    assert "  Stop" in lines
    assert "  Req(" in lines and "    term=0," in lines


def test_a_changed_field_of_the_same_case_is_a_field_change():
    [change] = value_changes("last", req(0), req(2), MSG)
    assert (change.where, change.old, change.new) == ("last.term", "0", "2")
    [untyped] = value_changes("last", req(0), req(2))
    assert (untyped.where, untyped.old, untyped.new) == ("last.term", "0", "2")


def test_another_case_is_a_new_value_shown_whole():
    [change] = value_changes("last", req(0), STOP, MSG)
    assert (change.where, change.kind, change.old, change.new) == \
        ("last", "changed", "Req(term=0, src=n1, dst=n2)", "Stop")


def test_a_set_of_variants_changes_by_element():
    changes = value_changes("net", frozenset({req(0)}), frozenset({STOP}), NET)
    assert [(c.kind, c.old or c.new) for c in changes] == \
        [("removed", "Req(term=0, src=n1, dst=n2)"), ("added", "Stop")]


def _trace(with_types: bool) -> Trace:
    term = FrozenDict({"n1": 0, "n2": 0})
    states = [
        {"net": frozenset(), "last": STOP, "term": term},
        {"net": frozenset({req(1), STOP}), "last": req(1), "term": term.set("n1", 1)},
        {"net": frozenset({STOP}), "last": req(1), "term": term.set("n1", 1).set("n2", 1)},
    ]
    meta = {"var_types": TYPES} if with_types else {}
    return Trace("variants", [Step(None if i == 0 else f"A{i}", (), s) for i, s in enumerate(states)],
                 meta=meta)


@pytest.mark.parametrize("with_types", [True, False], ids=["typed", "untyped"])
def test_lanes_draw_the_cases_sent_between_lanes_and_not_the_others(with_types):
    lanes = build_lanes(_trace(with_types))
    assert [(n.var, n.src, n.dst) for n in lanes.networks] == [("net", "src", "dst")]
    [sent] = lanes.steps[1].sent            # Stop went in too, but between no lanes
    assert (sent.src, sent.dst, sent.text) == ("n1", "n2", "Req(term=1, src=n1, dst=n2)")
    [received] = lanes.steps[2].received
    assert received.dst == "n2" and "n2" in lanes.steps[2].touched


def test_the_page_and_diff_show_variants():
    trace = _trace(True)
    page = render_html(trace)
    assert "Req(term=1, src=n1, dst=n2)" in page
    other = Trace("variants", trace.steps[:1] + [Step("A1", (), {**trace.steps[1].state,
                                                                 "last": req(2)})])
    diff = diff_traces(trace, other)
    assert diff.index == 1
    assert [(c.where, c.old, c.new) for c in diff.changes] == [("last.term", "1", "2")]
    assert [c.where for c in step_changes(trace, 1, TYPES)] == ["net", "net", "last", "term[n1]"]


def test_explanations_print_variant_nodes_as_the_spec_writes_them():
    m = ir.Var("m", MSG)
    lit = ir.VariantLit("Req", ir.RecordLit((("term", ir.Const(1, IntType(0, 2))),
                                              ("src", ir.Const("n1", NODE)),
                                              ("dst", ir.Var("d", NODE))), REQ), MSG)
    assert expr_text(lit) == "Req(term=1, src=n1, dst=d)"
    assert expr_text(ir.VariantLit("Stop", ir.RecordLit((), STOP_T), MSG)) == "Stop"
    assert expr_text(ir.Apply(ir.Op.NOT, (ir.CaseTest(m, "Stop"),), BOOL)) == "not (m is Stop)"
    field = ir.FieldGet(ir.CasePayload(m, "Req", REQ), "term", IntType(0, 2))
    assert expr_text(field) == "m.term"


def _send_model():
    action = ir.Action("Send", (ir.Param("m", MSG), ir.Param("seen", NET)), ())
    return model("variants", [], [action])


def test_scenarios_name_cases_with_and_without_fields():
    text = "Send(m=Req(term=1, src=n1, dst=n2), seen={Stop, Req(term=0, src=n2, dst=n1)})\n" \
           "Send(m=Stop(), seen={})\n"
    [first, second] = bind(parse_scenario(text, "s.scenario"), _send_model())
    assert first.params == (("m", req(1)), ("seen", frozenset({STOP, req(0, "n2", "n1")})))
    assert second.params == (("m", STOP), ("seen", frozenset()))


def test_json_scenarios_read_quint_variants():
    source = ('{"steps": [{"action": "Send", "params": {'
              '"m": {"tag": "Req", "value": {"term": 2, "src": "n2", "dst": "n1"}}, '
              '"seen": {"#set": [{"tag": "Stop", "value": {"#tup": []}}]}}}]}')
    [step] = bind(scenario_from_json(source, "s.json"), _send_model())
    assert step.params == (("m", req(2, "n2", "n1")), ("seen", frozenset({STOP})))


@pytest.mark.parametrize("arg,message,hint", [
    ("m=Reqq(term=1, src=n1, dst=n2)", "'Reqq' is not a case of Msg", "did you mean 'Req'?"),
    ("m=Req", "the case Req of Msg has fields", "for example Req(term=..., src=..., dst=...)"),
    ("m=Req(term=1, src=n1)", "missing field dst of Req", None),
    ("m=3", "expected a value of type Msg",
     "one of its cases, for example Req(term=..., src=..., dst=...)"),
])
def test_a_bad_variant_in_a_scenario_is_a_coded_error(arg, message, hint):
    text = f"Send({arg}, seen={{}})\n"
    with pytest.raises(CompileError) as info:
        bind(parse_scenario(text, "s.scenario"), _send_model())
    [d] = info.value.diagnostics
    assert (d.code, d.message) == ("MC3102", message)
    if hint is not None:
        assert d.hint == hint


def test_a_scenario_set_over_its_capacity_is_refused():
    text = "Send(m=Stop, seen={Stop, Req(term=0, src=n1, dst=n2), Req(term=1, src=n1, dst=n2), " \
           "Req(term=2, src=n1, dst=n2)})\n"
    with pytest.raises(CompileError) as info:
        bind(parse_scenario(text, "s.scenario"), _send_model())
    assert [d.message for d in info.value.diagnostics] == ["4 elements do not fit set[Msg, 3]"]
