"""ITF JSON: type-directed writing, exact round trips, reading other tools' files."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hand_models import const, die_hard, model, two_phase
from modelcheck.engines.base import CheckOptions
from modelcheck.engines.reference import ReferenceEngine
from modelcheck.errors import UsageError
from modelcheck.ir import nodes as ir
from modelcheck.ir.types import (BOOL, BagType, BoolType, EnumType, IntType, MapType, ModelType,
                                 OptionType, RecordType, SeqType, SetType, TupleType, VariantType)
from modelcheck.ir.values import FrozenDict, Variant, domain
from modelcheck.trace.itf import (decode_generic, decode_value, encode_value, from_itf, read_itf,
                                  to_itf)
from modelcheck.trace.replay import replay
from modelcheck.trace.trace import Step, Trace

DATA = Path(__file__).parent / "data"

NODE = ModelType("Node", ("node1", "node2"))
COLOR = EnumType("Color", ("red", "green"))
MSG = RecordType("Msg", (("term", IntType(0, 3)), ("to", OptionType(NODE))))
# Every case has fields: a case without them reads generically as its name
# (tests/unit/trace/test_itf_variants.py covers those).
PACKET = VariantType("Packet", (
    ("Data", RecordType("Data", (("seq", IntType(0, 3)), ("to", OptionType(NODE))))),
    ("Nack", RecordType("Nack", (("seq", IntType(0, 3)), ("from", NODE)))),
))
TYPES = {
    "flag": BOOL,
    "big": IntType(-(2 ** 60), 2 ** 60),
    "color": COLOR,
    "leader": OptionType(NODE),
    "nodes": SetType(NODE),
    "terms": MapType(NODE, IntType(0, 3)),
    "inbox": SeqType(MSG, 3),
    "pair": TupleType((NODE, BOOL)),
    "log": BagType(MSG, 4),
    "sets": SetType(SetType(IntType(0, 2))),
    "msg": MSG,
    "packet": PACKET,
    "inflight": SetType(PACKET, 2),
}


def values_of(t):
    if isinstance(t, BoolType):
        return st.booleans()
    if isinstance(t, IntType):
        return st.integers(t.lo, t.hi)
    if isinstance(t, (EnumType, ModelType)):
        return st.sampled_from(t.members)
    if isinstance(t, OptionType):
        return st.none() | values_of(t.elem)
    if isinstance(t, SetType):
        return st.frozensets(values_of(t.elem), max_size=min(4, t.capacity or 4))
    if isinstance(t, MapType):
        keys = domain(t.key)
        return st.tuples(*[values_of(t.value) for _ in keys]).map(lambda vs: FrozenDict(zip(keys, vs)))
    if isinstance(t, SeqType):
        return st.lists(values_of(t.elem), max_size=t.capacity).map(tuple)
    if isinstance(t, TupleType):
        return st.tuples(*[values_of(e) for e in t.elems])
    if isinstance(t, RecordType):
        return st.fixed_dictionaries({n: values_of(f) for n, f in t.fields}).map(FrozenDict)
    if isinstance(t, BagType):
        return st.dictionaries(values_of(t.elem), st.integers(1, 2), max_size=2).map(FrozenDict)
    if isinstance(t, VariantType):
        return st.one_of([values_of(p).map(lambda fields, case=case: Variant(case, fields))
                          for case, p in t.cases])
    raise TypeError(t)


def every_type_model():
    decls = [ir.VarDecl(n, t, ir.InitKind.EQ, const(None, t)) for n, t in TYPES.items()]
    return model("every_type", decls, [], consts=[("K", IntType(0, 9), 4)])


def states():
    return st.fixed_dictionaries({n: values_of(t) for n, t in TYPES.items()})


@settings(max_examples=60, deadline=None)
@given(st.lists(states(), min_size=1, max_size=3))
def test_round_trip_is_exact_with_a_model(state_dicts):
    m = every_type_model()
    trace = Trace("every_type", [Step(None, (), s) for s in state_dicts], kind="scenario")
    data = json.loads(json.dumps(to_itf(trace, m)))
    back = from_itf(data, m)
    assert back.steps == trace.steps
    assert (back.model_name, back.kind) == ("every_type", "scenario")


@settings(max_examples=60, deadline=None)
@given(states())
def test_generic_reading_of_our_own_itf_gives_the_same_values(state):
    m = every_type_model()
    data = json.loads(json.dumps(to_itf(Trace("every_type", [Step(None, (), state)]), m)))
    assert from_itf(data).steps[0].state == state


@pytest.mark.parametrize("t,value,expected", [
    (IntType(0, 9), 3, 3),
    (IntType(-(2 ** 60), 2 ** 60), 2 ** 60, {"#bigint": str(2 ** 60)}),
    (IntType(-(2 ** 60), 2 ** 60), -(2 ** 53), {"#bigint": str(-(2 ** 53))}),
    (SetType(NODE), frozenset({"node2", "node1"}), {"#set": ["node1", "node2"]}),
    (MapType(NODE, BOOL), FrozenDict({"node2": True, "node1": False}),
     {"#map": [["node1", False], ["node2", True]]}),
    (SeqType(IntType(0, 3), 3), (2, 1), [2, 1]),
    (TupleType((NODE, BOOL)), ("node1", True), {"#tup": ["node1", True]}),
    (OptionType(NODE), None, {"tag": "None", "value": {"#tup": []}}),
    (OptionType(NODE), "node1", {"tag": "Some", "value": "node1"}),
    (BagType(IntType(0, 3), 4), FrozenDict({3: 1, 1: 2}), {"#map": [[1, 2], [3, 1]]}),
    (MSG, FrozenDict({"term": 1, "to": None}), {"term": 1, "to": {"tag": "None", "value": {"#tup": []}}}),
    (PACKET, Variant("Nack", FrozenDict({"seq": 2, "from": "node1"})),
     {"tag": "Nack", "value": {"seq": 2, "from": "node1"}}),
    (SetType(PACKET, 2), frozenset({Variant("Nack", FrozenDict({"seq": 0, "from": "node2"})),
                                    Variant("Data", FrozenDict({"seq": 3, "to": None}))}),
     {"#set": [{"tag": "Data", "value": {"seq": 3, "to": {"tag": "None", "value": {"#tup": []}}}},
               {"tag": "Nack", "value": {"seq": 0, "from": "node2"}}]}),
])
def test_encodings(t, value, expected):
    assert encode_value(t, value) == expected
    assert decode_value(t, expected) == value


def test_meta_records_spec_property_kind_consts_and_types():
    m = two_phase(2)
    trace = ReferenceEngine().check(die_hard(), CheckOptions()).get_property("NotFour").trace
    data = to_itf(trace, die_hard())
    meta = data["#meta"]
    assert meta["format"] == "ITF"
    assert (meta["spec"], meta["property"], meta["kind"]) == ("die_hard", "NotFour", "counterexample")
    assert meta["var-types"] == {"small": "0..3", "big": "0..5"}
    assert data["vars"] == ["small", "big"]
    assert data["states"][0]["#meta"] == {"index": 0}
    assert data["states"][1]["#meta"] == {"index": 1, "action": "FillBig", "params": {}}
    tp = to_itf(Trace("two_phase", [Step(None, (), {
        "rmState": FrozenDict({"rm1": "working", "rm2": "working"}), "tmState": "init",
        "tmPrepared": frozenset(), "msgs": frozenset()})]), m)
    assert tp["#meta"]["consts"] == {"N": 2}
    assert tp["#meta"]["var-types"]["rmState"] == "map[RM, RMState]"


def test_parameters_round_trip():
    m = two_phase(2)
    init = {"rmState": FrozenDict({"rm1": "working", "rm2": "working"}), "tmState": "init",
            "tmPrepared": frozenset(), "msgs": frozenset()}
    after = dict(init, rmState=FrozenDict({"rm1": "working", "rm2": "aborted"}))
    trace = Trace("two_phase", [Step(None, (), init), Step("RMChooseToAbort", (("r", "rm2"),), after)])
    data = json.loads(json.dumps(to_itf(trace, m)))
    assert data["states"][1]["#meta"]["params"] == {"r": "rm2"}
    assert from_itf(data, m).steps == trace.steps


def test_reading_an_apalache_trace_fills_in_the_actions():
    m = die_hard()
    trace = read_itf(DATA / "die_hard_apalache.itf.json", m)
    assert [s.state["big"] for s in trace.steps] == [0, 5, 2, 2, 0, 5, 4]
    assert all(s.action is None for s in trace.steps)
    result = replay(m, trace)
    assert result.ok
    assert [s.label() for s in trace.steps] == [
        "Init", "FillBig", "BigToSmall", "EmptySmall", "BigToSmall", "FillBig", "BigToSmall"]


def test_reading_an_apalache_trace_without_a_model():
    trace = read_itf(DATA / "die_hard_apalache.itf.json")
    assert trace.steps[6].state == {"big": 4, "small": 3}
    assert trace.model_name == "DieHard.tla"


def test_reading_a_quint_trace_with_actions_and_picks():
    m = two_phase(2)
    trace = read_itf(DATA / "two_phase_quint.itf.json", m)
    assert trace.steps[1].action == "RMPrepare" and trace.steps[1].params == (("r", "rm2"),)
    assert trace.steps[2].action is None          # "step" says nothing: replay fills it in
    assert trace.steps[0].state["rmState"] == FrozenDict({"rm1": "working", "rm2": "working"})
    assert replay(m, trace).ok
    assert trace.steps[2].label() == "TMRcvPrepared(r=rm2)"
    generic = read_itf(DATA / "two_phase_quint.itf.json")
    assert generic.steps[1].state["msgs"] == frozenset(
        {FrozenDict({"kind": "msg_prepared", "rm": "rm2"})})
    assert "mbt::actionTaken" not in generic.steps[0].state


def test_bad_itf_gives_a_clear_error(tmp_path):
    m = die_hard()
    bad = tmp_path / "bad.itf.json"
    bad.write_text('{"vars": ["small", "big"], "states": [{"small": 0, "big": {"#set": []}}]}')
    with pytest.raises(UsageError) as info:
        read_itf(bad, m)
    assert str(info.value) == (f"{bad}:1:59: error[MC3201]: states[0].big: expected an integer, "
                               'found {"#set": []}')
    broken = tmp_path / "broken.itf.json"
    broken.write_text('{"states": [')
    with pytest.raises(UsageError, match="not valid JSON"):
        read_itf(broken, m)
    with pytest.raises(UsageError, match="no value for the variable 'big'"):
        from_itf({"states": [{"small": 0}]}, m)
    with pytest.raises(UsageError, match="not an ITF trace"):
        from_itf({"vars": []}, m)
    with pytest.raises(UsageError, match="cannot read"):
        read_itf(tmp_path / "missing.itf.json")


def test_generic_reading_of_other_values():
    assert decode_generic({"#bigint": "123456789012345678901"}) == 123456789012345678901
    assert decode_generic({"#unserializable": "Nat"}) == "Nat"
    assert decode_generic({"tag": "Leader", "value": {"#tup": []}}) == "Leader"
    assert decode_generic({"tag": "Msg", "value": 3}) == FrozenDict({"tag": "Msg", "value": 3})
