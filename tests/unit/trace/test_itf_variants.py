"""ITF for variants (Quint's encoding) and capped sets: exact round trips over
whole domains, and bad variants as coded trace-file errors."""
from __future__ import annotations

import json

import pytest

from hand_models import const, model
from modelcheck.ir import nodes as ir
from modelcheck.ir.types import (BagType, EnumType, IntType, ModelType, OptionType, RecordType,
                                 SetType, VariantType)
from modelcheck.ir.values import FrozenDict, Variant, domain
from modelcheck.trace.itf import decode_generic, decode_value, encode_value, from_itf, to_itf
from modelcheck.trace.itf_json import TraceFileError
from modelcheck.trace.replay import replay
from modelcheck.trace.trace import Step, Trace

NODE = ModelType("Node", ("n1", "n2"))
MSG = VariantType("Msg", (
    ("Req", RecordType("Req", (("term", IntType(0, 1)), ("src", NODE)))),
    ("Ack", RecordType("Ack", (("ok", OptionType(EnumType("Vote", ("yes", "no")))),))),
    ("Stop", RecordType("Stop", ())),
))


def req(term, src):
    return Variant("Req", FrozenDict({"term": term, "src": src}))


STOP = Variant("Stop", FrozenDict())


def through_json(t, v):
    return decode_value(t, json.loads(json.dumps(encode_value(t, v))))


@pytest.mark.parametrize("t", [MSG, SetType(MSG, 2), BagType(MSG, 2), OptionType(MSG)],
                         ids=["variant", "capped set", "bag", "option"])
def test_every_value_of_a_small_type_round_trips(t):
    values = domain(t)
    assert len(values) > 5
    for v in values:
        assert through_json(t, v) == v


def test_quint_encoding_of_cases_with_and_without_fields():
    assert encode_value(MSG, req(1, "n2")) == {"tag": "Req", "value": {"term": 1, "src": "n2"}}
    assert encode_value(MSG, STOP) == {"tag": "Stop", "value": {"#tup": []}}
    # An empty record is the same nothing as Quint's unit.
    assert decode_value(MSG, {"tag": "Stop", "value": {}}) == STOP


def test_generic_reading_keeps_the_case_and_its_fields():
    assert decode_generic(encode_value(MSG, req(0, "n1"))) == req(0, "n1")
    # Written like an enum member, so read like one.
    assert decode_generic(encode_value(MSG, STOP)) == "Stop"


@pytest.mark.parametrize("bad,message,hint", [
    ({"tag": "Reqq", "value": {"term": 1, "src": "n1"}}, "Msg has no case 'Reqq'",
     "did you mean 'Req'?"),
    ({"tag": "Zzz", "value": {}}, "Msg has no case 'Zzz'", "the cases of Msg: Req, Ack, Stop"),
    ({"tag": "Req"}, 'expected a Msg as {"tag": case, "value": ...}', None),
    ({"tag": 3, "value": {}}, 'expected a Msg as {"tag": case, "value": ...}', None),
    ("Stop", 'expected a Msg as {"tag": case, "value": ...}', None),
    ({"tag": "Stop", "value": {"#tup": [1]}}, "the case Stop of Msg has no fields", None),
    ({"tag": "Req", "value": {"term": 1}}, "the record Req has no field 'src'", None),
    ({"tag": "Req", "value": {"term": 1, "src": "n1", "dst": "n2"}},
     "the record Req has an unknown field 'dst'", None),
])
def test_a_bad_variant_is_a_coded_error_at_its_place(bad, message, hint):
    m = model("variants", [ir.VarDecl("m", MSG, ir.InitKind.EQ, const(STOP, MSG))], [])
    text = json.dumps({"vars": ["m"], "states": [{"m": bad}]}, indent=1)
    with pytest.raises(TraceFileError) as info:
        from_itf(json.loads(text), m, "bad.itf.json", text)
    d = info.value.diagnostic
    assert d.code == "MC3201"
    assert d.message.startswith(f"states[0].m: {message}")
    assert d.hint == hint
    assert d.span is not None and d.span.line > 1


def test_a_set_over_its_capacity_is_read_and_then_refused_by_replay():
    t = SetType(MSG, 1)
    m = model("capped", [ir.VarDecl("seen", t, ir.InitKind.EQ, const(frozenset(), t))], [])
    two = {"#set": [encode_value(MSG, req(0, "n1")), encode_value(MSG, STOP)]}
    trace = from_itf({"vars": ["seen"], "states": [{"seen": two}]}, m)
    assert trace.steps[0].state["seen"] == frozenset({req(0, "n1"), STOP})
    result = replay(m, trace)
    assert not result.ok
    assert "not a value of its type set[Msg, 1] (2 elements, at most 1)" in result.reason
    assert "{Req(term=0, src=n1), Stop}" in result.reason


def test_a_trace_of_variants_round_trips_through_to_itf():
    t = SetType(MSG, 2)
    m = model("capped", [ir.VarDecl("m", MSG, ir.InitKind.EQ, const(STOP, MSG)),
                         ir.VarDecl("seen", t, ir.InitKind.EQ, const(frozenset(), t))], [])
    both = frozenset({STOP, req(1, "n2")})
    trace = Trace("capped", [Step(None, (), {"m": STOP, "seen": frozenset()}),
                             Step(None, (), {"m": req(1, "n2"), "seen": both})])
    data = json.loads(json.dumps(to_itf(trace, m)))
    assert data["#meta"]["var-types"] == {"m": "Msg", "seen": "set[Msg, 2]"}
    assert from_itf(data, m).steps == trace.steps


VARIANT_SPEC = """module vtrace
type Node = model(2)
type Msg = variant {
    Req(term: 0..1, src: Node, dst: Node),
    Stop,
}
var net: set[Msg, 2] = {}
var last: Msg = Stop

action Send(a: Node, b: Node) {
    require a != b and len(net) < 2
    net := net | {Req(term=len(net) % 2, src=a, dst=b)}
    last := Req(term=0, src=a, dst=b)
}

action Halt() {
    net := net | {Stop}
    last := Stop
}

invariant Quiet: not (Stop in net) or len(net) < 2
"""

#: Hostile variant values, each put in place of ``last`` in step 1.
HOSTILE = {
    "tag-not-a-string": {"tag": ["Req"], "value": {}},
    "tag-unknown": {"tag": "Requ", "value": {"term": 0, "src": "node1", "dst": "node2"}},
    "value-missing": {"tag": "Req"},
    "value-a-list": {"tag": "Req", "value": [0, "node1", "node2"]},
    "extra-key": {"tag": "Stop", "value": {"#tup": []}, "more": 1},
    "field-wrong-type": {"tag": "Req", "value": {"term": "zero", "src": "node1", "dst": "node2"}},
    "field-out-of-range": {"tag": "Req", "value": {"term": 7, "src": "node1", "dst": "node2"}},
    "not-an-object": "Req",
}


@pytest.fixture(scope="module")
def variant_files(tmp_path_factory):
    import modelcheck
    from modelcheck.trace.itf import dumps_itf
    folder = tmp_path_factory.mktemp("variants")
    spec = folder / "vtrace.mc"
    spec.write_text(VARIANT_SPEC)
    m = modelcheck.load(str(spec))
    result = modelcheck.check(m, engine="reference")
    [trace] = [p.trace for p in result.properties if p.name == "Quiet"]
    good = folder / "good.itf.json"
    good.write_text(dumps_itf(trace, m))
    return spec, good


def test_every_trace_command_reads_a_variant_trace(variant_files):
    from click.testing import CliRunner

    from modelcheck.cli.main import cli
    spec, good = variant_files
    runner = CliRunner()
    shown = runner.invoke(cli, ["trace", "show", str(good), "--spec", str(spec)])
    assert shown.exit_code == 0, shown.output
    assert "Stop" in shown.output and "Req(term=" in shown.output
    for args in (["trace", "explain", str(good), "--invariant", "Quiet", "--spec", str(spec)],
                 ["trace", "html", str(good), "--spec", str(spec), "-o", str(good.parent / "p.html")],
                 ["trace", "show", str(good)],
                 ["replay", str(spec), str(good), "--no-trace"]):
        result = runner.invoke(cli, args)
        assert result.exit_code == 0, (args, result.output)


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_hostile_variant_is_a_coded_error_for_every_command(variant_files, name, tmp_path):
    from click.testing import CliRunner

    from modelcheck.cli.main import cli
    spec, good = variant_files
    doc = json.loads(good.read_text())
    doc["states"][1]["last"] = HOSTILE[name]
    bad = tmp_path / f"{name}.itf.json"
    bad.write_text(json.dumps(doc, indent=1))
    runner = CliRunner()
    for args in (["trace", "show", str(bad), "--spec", str(spec)],
                 ["trace", "show", str(bad)],
                 ["trace", "html", str(bad), "-o", str(tmp_path / "p.html")],
                 ["trace", "explain", str(bad), "--invariant", "Quiet", "--spec", str(spec)],
                 ["trace", "diff", str(good), str(bad), "--spec", str(spec)],
                 ["replay", str(spec), str(bad), "--no-trace"]):
        result = runner.invoke(cli, args)
        where = f"{' '.join(args[:2])}: exit {result.exit_code}\n{result.output[-1500:]}"
        assert result.exit_code in (0, 1, 2), where
        assert "Traceback" not in result.output and "internal error" not in result.output, where
        if "--spec" in args and args[1] in ("show", "explain", "diff") and name != "field-out-of-range":
            # read by the spec's types: the value's place and what is wrong
            assert result.exit_code == 2 and "states[1].last" in result.output, where
