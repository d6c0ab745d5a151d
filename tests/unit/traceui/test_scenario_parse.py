"""Scenario files: syntax, JSON and ITF forms, binding to a model."""
from __future__ import annotations

import json

import pytest

from modelcheck.errors import CompileError
from modelcheck.ir.values import FrozenDict
from modelcheck.trace.scenario import bind, load_scenario, parse_scenario, scenario_from_json

TEXT = """\
# a comment line
const N = 3          # the configuration
const ha-mode = all
expect NoLoss violated at step 2
expect infeasible
Write(n=node1, v=0)   # trailing comment

Crash(n=node2)
Deliver(m=Msg(src=node1, dst=node2, val=1))
"""


def test_text_scenario_parts():
    s = parse_scenario(TEXT, "x.scenario")
    assert [(c.name, c.value) for c in s.consts] == [("N", "3"), ("ha-mode", "all")]
    assert [(e.name, e.outcome, e.at_step) for e in s.expectations] == [
        ("NoLoss", "violated", 2), (None, "infeasible", None)]
    assert [st.action for st in s.steps] == ["Write", "Crash", "Deliver"]
    assert s.steps[1].span.line == 8
    name, lit, _ = s.steps[2].args[0]
    assert name == "m" and lit.kind == "record" and lit.value == "Msg"


def diag(fn, *args):
    with pytest.raises(CompileError) as info:
        fn(*args)
    return info.value.diagnostics


@pytest.mark.parametrize("text, code, line, col, words", [
    ("Write(n=node1, v=0\n", "MC1101", 1, 19, "expected ',' or ')'"),
    ("Write(n=node1) junk\n", "MC1101", 1, 16, "unexpected 'junk'"),
    ("Crash(n=$)\n", "MC1101", 1, 9, "unexpected character '$'"),
    ("expect NoLoss maybe\n", "MC1101", 1, 15, "expected 'holds' or 'violated'"),
    ("Write(n=node1)\nconst N = 2\n", "MC1102", 2, 1, "const line after the first step"),
])
def test_syntax_errors_point_at_the_place(text, code, line, col, words):
    [d] = diag(parse_scenario, text, "bad.scenario")
    assert (d.code, d.span.file, d.span.line, d.span.col) == (code, "bad.scenario", line, col)
    assert words in d.message


def test_bind_reads_values_by_parameter_type(mini_model):
    s = parse_scenario(TEXT, "x.scenario")
    steps = bind(s, mini_model)
    assert steps[0].params == (("n", "node1"), ("v", 0))
    assert steps[2].params == (("m", FrozenDict(src="node1", dst="node2", val=1)),)


def test_bind_reports_every_problem_with_a_hint(mini_model):
    text = ("expect NoLos violated\nWrit(n=node1, v=0)\nWrite(n=node3, v=7)\n"
            "Write(n=node1, w=0)\nDeliver(m=Msg(src=node1, dst=node2))\nCrash(n={node1})\n")
    problems = diag(bind, parse_scenario(text, "b.scenario"), mini_model)
    found = sorted((d.span.line, d.code, d.message, d.hint) for d in problems)
    assert found == [
        (1, "MC2101", "unknown property 'NoLos'", "did you mean 'NoLoss'?"),
        (2, "MC2101", "unknown action 'Writ'", "did you mean 'Write'?"),
        (3, "MC3102", "'node3' is not a value of Node", "did you mean 'node2'?"),
        (3, "MC3102", "7 is outside 0..1", None),
        (4, "MC3101", "Write has no parameter 'w'", "its parameters are: n, v"),
        (4, "MC3101", "Write needs v", "Write(n: Node, v: 0..1)"),
        (5, "MC3102", "missing field val of Msg", "a record gives every field"),
        (6, "MC3102", "expected a value of type Node", "one of: node1, node2"),
    ]


def test_json_scenario_with_itf_values(mini_model):
    data = {"const": {}, "expect": [{"property": "NoLoss", "outcome": "violated"}],
            "steps": [{"action": "Write", "params": {"n": "node1", "v": {"#bigint": "1"}}},
                      {"action": "Deliver", "params": {"m": {"src": "node1", "dst": "node2", "val": 1}}}]}
    s = scenario_from_json(json.dumps(data), "s.json")
    steps = bind(s, mini_model)
    assert steps[0].params == (("n", "node1"), ("v", 1))
    assert steps[1].params[0][1]["dst"] == "node2"
    assert s.expectations[0].name == "NoLoss"


def test_itf_with_actions_is_a_scenario(tmp_path, mini_model, mini_trace):
    from modelcheck.trace.itf import dumps_itf
    path = tmp_path / "t.itf.json"
    path.write_text(dumps_itf(mini_trace, mini_model))
    s = load_scenario(path)
    assert [st.action for st in s.steps] == ["Write", "Write", "Confirm", "Crash", "Crash"]
    assert bind(s, mini_model)[3].params == (("n", "node1"),)


def test_bad_json_is_reported():
    [d] = diag(scenario_from_json, "{\"steps\": [", "x.json")
    assert d.code == "MC1201" and "not valid JSON" in d.message   # as for any trace file
    [d] = diag(scenario_from_json, json.dumps({"steps": [{"params": {}}]}), "x.json")
    assert "not a scenario" in d.message
    itf = {"states": [{"x": 1}, {"x": 2}]}
    [d] = diag(scenario_from_json, json.dumps(itf), "x.json")
    assert "does not record the action" in d.message


@pytest.mark.parametrize("expect", [{"property": "NoLoss", "outcome": "maybe"},
                                    {"property": "NoLoss", "outcome": "violated", "at_step": "2"},
                                    {"outcome": "violated"}])
def test_bad_json_expectations_are_reported(expect):
    text = json.dumps({"expect": [expect], "steps": []})
    [d] = diag(scenario_from_json, text, "x.json")
    assert d.code == "MC1101"
