"""Values as text and the changes a step made (modelcheck.trace.view)."""
from __future__ import annotations

from modelcheck.ir.types import (BagType, EnumType, IntType, MapType, ModelType, OptionType,
                                 RecordType, SeqType, SetType)
from modelcheck.ir.values import FrozenDict
from modelcheck.trace.trace import Step, Trace
from modelcheck.trace.view import (format_lines, format_value, step_changes, step_label,
                                   value_changes, var_names, var_types)

NODE = ModelType("Node", ("node1", "node2", "node10"))
ROLE = EnumType("Role", ("follower", "leader"))
MSG = RecordType("Msg", (("src", NODE), ("dst", NODE), ("term", IntType(0, 3))))


def test_typed_values_are_written_as_the_spec_writes_them():
    assert format_value(None, OptionType(IntType(0, 3))) == "none"
    assert format_value(2, OptionType(IntType(0, 3))) == "some(2)"
    assert format_value(frozenset({"node10", "node1"}), SetType(NODE)) == "{node1, node10}"
    assert format_value(FrozenDict(src="node1", dst="node2", term=1), MSG) == \
        "Msg(src=node1, dst=node2, term=1)"


def test_untyped_values_are_written_by_their_shape_in_a_stable_order():
    assert format_value(frozenset({"node10", "node2", "node1"})) == "{node1, node2, node10}"
    assert format_value((1, 2)) == "[1, 2]"
    assert format_value(FrozenDict({"a": True, "b": None})) == "{a: true, b: none}"


def test_a_value_that_does_not_fit_its_type_falls_back_to_its_shape():
    assert format_value("x", IntType(0, 3)) == "x"


def test_long_values_are_laid_out_one_item_per_line():
    t = MapType(NODE, SeqType(MSG, 3))
    m = FrozenDict(src="node1", dst="node2", term=1)
    value = FrozenDict({"node1": (m, m), "node2": (), "node10": (m,)})
    lines = format_lines(value, t, width=40)
    assert lines[0] == "{"
    assert lines[-1] == "}"
    assert "  node2: []," in lines
    assert any(line.strip().startswith("Msg(src=node1") for line in lines)
    assert format_lines(value, t, width=1000) == [format_value(value, t)]


def test_map_changes_name_the_key():
    t = MapType(NODE, ROLE)
    old = FrozenDict({"node1": "follower", "node2": "follower", "node10": "follower"})
    new = old.set("node2", "leader")
    [change] = value_changes("role", old, new, t)
    assert change.where == "role[node2]"
    assert (change.kind, change.old, change.new) == ("changed", "follower", "leader")


def test_set_changes_are_elements_added_and_removed():
    t = SetType(IntType(0, 5))
    changes = value_changes("s", frozenset({1, 2}), frozenset({2, 3, 4}), t)
    assert [(c.kind, c.old, c.new) for c in changes] == [
        ("removed", "1", None), ("added", None, "3"), ("added", None, "4")]


def test_sequence_that_grew_at_the_end_lists_the_new_elements():
    t = SeqType(IntType(0, 5), 4)
    changes = value_changes("log", (1,), (1, 2, 3), t)
    assert [(c.kind, c.new) for c in changes] == [("added", "2"), ("added", "3")]
    [whole] = value_changes("log", (1, 2), (3, 2), SeqType(IntType(0, 5), 4))
    assert whole.where == "log[0]" and (whole.old, whole.new) == ("1", "3")


def test_bag_changes_count_each_copy():
    t = BagType(IntType(0, 3), 4)
    changes = value_changes("b", FrozenDict({1: 1}), FrozenDict({1: 3}), t)
    assert [(c.kind, c.new) for c in changes] == [("added", "1"), ("added", "1")]


def test_record_fields_nested_in_maps():
    t = MapType(NODE, MSG)
    m = FrozenDict(src="node1", dst="node2", term=1)
    old = FrozenDict({"node1": m, "node2": m, "node10": m})
    new = old.set("node10", m.set("term", 2))
    [change] = value_changes("last", old, new, t)
    assert change.where == "last[node10].term"


def test_untyped_maps_keyed_by_ids_use_brackets_and_records_use_fields():
    old = FrozenDict({"n1": FrozenDict(term=1), "n2": FrozenDict(term=1)})
    new = FrozenDict({"n1": FrozenDict(term=1), "n2": FrozenDict(term=2)})
    [change] = value_changes("s", old, new)
    assert change.where == "s[n2].term"


def test_option_some_to_some_descends():
    t = OptionType(MSG)
    m = FrozenDict(src="node1", dst="node2", term=1)
    [change] = value_changes("o", m, m.set("term", 3), t)
    assert change.where == "o.value.term"
    [whole] = value_changes("o", None, m, t)
    assert whole.old == "none"


def test_step_changes_and_labels():
    trace = Trace("t", [Step(None, (), {"x": 0, "y": 0}),
                        Step("Inc", (("n", "node1"),), {"x": 1, "y": 0}),
                        Step(None, (), {"x": 1, "y": 5})])
    types = var_types(trace)
    assert [c.where for c in step_changes(trace, 1, types)] == ["x"]
    assert step_changes(trace, 0, types) == []
    assert step_label(trace.steps[0]) == "Init"
    assert step_label(trace.steps[1]) == "Inc(n=node1)"
    # a trace from another tool does not name its actions
    assert step_label(trace.steps[2], None, 2) == "step 2"


def test_var_types_come_from_the_model_then_from_the_trace_meta(mini_model, mini_trace):
    types = var_types(mini_trace, mini_model)
    assert isinstance(types["store"], MapType)
    bare = Trace("t", [Step(None, (), {"a": 1})], meta={"var_types": {"a": IntType(0, 3), "b": "junk"}})
    assert var_types(bare) == {"a": IntType(0, 3)}
    assert var_names(mini_trace, mini_model) == ["up", "store", "net", "confirmed"]
