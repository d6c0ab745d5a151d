"""Swimlanes: lane sets, networks, what each step touches and sends."""
from __future__ import annotations

import pytest

from modelcheck.errors import UsageError
from modelcheck.ir.values import FrozenDict
from modelcheck.trace.lanes import build_lanes, choose_lane_set, find_networks, lane_sets
from modelcheck.trace.trace import Step, Trace


def test_lane_set_is_the_model_type_keying_map_variables(mini_model, mini_trace):
    [lanes] = lane_sets(mini_trace, mini_model)
    assert lanes.name == "Node"
    assert lanes.members == ("node1", "node2")
    assert lanes.keyed_vars == ("up", "store")


def test_network_is_a_set_of_records_with_two_lane_fields(mini_model, mini_trace):
    lanes = choose_lane_set(mini_trace, mini_model)
    [net] = find_networks(mini_trace, lanes, mini_model)
    assert (net.var, net.src, net.dst) == ("net", "src", "dst")


def test_each_step_touches_its_parameters_and_changed_keys(mini_model, mini_trace):
    lanes = build_lanes(mini_trace, mini_model)
    write1 = lanes.steps[1]
    assert write1.touched == ("node1",)
    [msg] = write1.sent
    assert (msg.src, msg.dst) == ("node1", "node2")
    confirm = lanes.steps[3]
    assert confirm.touched == () and confirm.sent == ()
    assert lanes.steps[5].touched == ("node2",)


def test_delivered_messages_are_received_at_their_destination(mini_model):
    from modelcheck.trace.scenario import parse_scenario
    from modelcheck.trace.scenario_run import run_scenario
    text = "Write(n=node1, v=1)\nDeliver(m=Msg(src=node1, dst=node2, val=1))\n"
    trace = run_scenario(mini_model, parse_scenario(text, "s.scenario")).trace
    lanes = build_lanes(trace, mini_model)
    [got] = lanes.steps[2].received
    assert (got.src, got.dst) == ("node1", "node2")
    assert lanes.steps[2].touched == ("node1", "node2")   # the parameter names both


def _untyped(keys: tuple[str, ...]) -> Trace:
    a, b = keys
    s0 = {"role": FrozenDict({a: "f", b: "f"}), "rec": FrozenDict(kind="x", n=1),
          "msgs": frozenset()}
    s1 = {"role": FrozenDict({a: "l", b: "f"}), "rec": FrozenDict(kind="y", n=1),
          "msgs": frozenset({FrozenDict({"from": a, "to": b, "t": 1})})}
    return Trace("other", [Step(None, (), s0), Step(None, (), s1)])


@pytest.mark.parametrize("keys, name", [(("n1", "n2"), "N"), (("node1", "node2"), "Node"),
                                        (("1_OF_NODE", "2_OF_NODE"), "Node")])
def test_lanes_are_inferred_from_untyped_traces(keys, name):
    trace = _untyped(keys)
    [lanes] = lane_sets(trace)
    assert lanes.name == name and lanes.members == keys and lanes.keyed_vars == ("role",)
    built = build_lanes(trace)
    assert built.networks[0].src == "from" and built.networks[0].dst == "to"
    assert built.steps[1].touched == (keys[0],)
    assert [m.dst for m in built.steps[1].sent] == [keys[1]]


def test_by_names_a_type_a_variable_or_fails_with_the_choices(mini_model, mini_trace):
    assert choose_lane_set(mini_trace, mini_model, "node").name == "Node"
    by_var = choose_lane_set(mini_trace, mini_model, "store")
    assert by_var.members == ("node1", "node2")
    with pytest.raises(UsageError) as info:
        choose_lane_set(mini_trace, mini_model, "Nodes")
    assert "Node" in (info.value.hint or "")


def test_no_lanes_without_model_values(die_hard_model, die_hard_trace):
    lanes = build_lanes(die_hard_trace, die_hard_model)
    assert lanes.lane_set is None
    assert len(lanes.steps) == len(die_hard_trace.steps)


INT_NODES = """\
module ints
type Node = 1..2
type Msg = 1..3
var store: map[Node, set[Msg]] = {n: {} for n in Node}
var sent: map[Msg, bool] = {m: false for m in Msg}
action Put(m: Msg, n: Node) {
    store[n] := store[n] | {m}
    sent[m] := true
}
"""


def test_a_named_int_type_keying_maps_gives_the_lanes():
    import modelcheck
    model = modelcheck.load_source(INT_NODES, "ints.mc")
    trace = Trace("ints", [Step(None, (), {"store": FrozenDict({1: frozenset(), 2: frozenset()}),
                                           "sent": FrozenDict({1: False, 2: False, 3: False})}),
                           Step("Put", (("m", 1), ("n", 2)),
                                {"store": FrozenDict({1: frozenset(), 2: frozenset({1})}),
                                 "sent": FrozenDict({1: True, 2: False, 3: False})})])
    lanes = build_lanes(trace, model)
    assert lanes.lane_set.name == "Node" and lanes.members == (1, 2)
    # m=1 is a message, not node 1: only the Node-typed parameter counts
    assert lanes.steps[1].touched == (2,)
    assert lanes.lane_set.label(2) == "Node 2"
    assert choose_lane_set(trace, model, "Msg").members == (1, 2, 3)
