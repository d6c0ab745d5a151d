"""Defs of one node shown per node (modelcheck.trace.derived): a server's
membership configuration, read off its log, in `trace show --by` and in the
page's state panel, for any spec, by the def's shape and not its name."""
from __future__ import annotations

import pytest
from click.testing import CliRunner

import modelcheck
from modelcheck.cli.main import cli
from modelcheck.trace.derived import lane_defs, with_lane_defs
from modelcheck.trace.html import render_html
from modelcheck.trace.scenario import parse_scenario
from modelcheck.trace.scenario_run import run_scenario

SPEC = """\
module members
type Node = model(3)
var log: map[Node, seq[Node, 3]] = {n: [] for n in Node}
var up: map[Node, bool] = {n: true for n in Node}
def members_of(n: Node) -> set[Node] = {node1} | {x for x in Node if x in log[n]}
def alive(n: Node) -> bool = up[n]
def width(n: Node) -> 0..3 = len(log[n])
action AddMember(l: Node, n: Node) {
    require len(log[l]) < 3 and not (n in members_of(l))
    log[l] := append(log[l], n)
}
action Copy(l: Node, f: Node) {
    require l != f
    log[f] := log[l]
}
"""

STEPS = "AddMember(l=node1, n=node2)\nCopy(l=node1, f=node3)\n"


@pytest.fixture(scope="module")
def model():
    return modelcheck.load_source(SPEC, "members.mc")


@pytest.fixture(scope="module")
def trace(model):
    return run_scenario(model, parse_scenario(STEPS, "steps.scenario")).trace


def test_defs_of_one_node_with_a_value_are_found_bool_ones_are_not(model):
    assert [d.name for d in lane_defs(model)] == ["members_of(n)", "width(n)"]


def test_each_state_gets_the_defs_value_for_every_node(model, trace):
    shown = with_lane_defs(trace, model)
    last = shown.steps[-1].state["members_of(n)"]
    assert {k: sorted(v) for k, v in last.items()} == {
        "node1": ["node1", "node2"], "node2": ["node1"], "node3": ["node1", "node2"]}
    assert "members_of(n)" not in trace.steps[-1].state           # the trace itself is left alone


def test_a_spec_without_such_defs_keeps_its_trace(trace):
    plain = modelcheck.load_source(SPEC.replace("def members_of", "def members_of_all")
                                   .replace("(n: Node) -> set[Node]", "(n: Node, m: Node) -> set[Node]")
                                   .replace("members_of(l)", "members_of_all(l, l)")
                                   .replace("def width(n: Node) -> 0..3 = len(log[n])\n", ""),
                                   "plain.mc")
    assert with_lane_defs(trace, plain) is trace


def test_show_by_node_and_the_page_have_a_row_for_it(model, trace, tmp_path):
    spec = tmp_path / "members.mc"
    spec.write_text(SPEC, encoding="utf-8")
    loaded = modelcheck.load(spec)
    path = tmp_path / "t.itf.json"
    trace.save(path, loaded)
    result = CliRunner().invoke(cli, ["trace", "show", str(path), "--by", "Node", "--spec", str(spec)],
                                env={"COLUMNS": "120", "NO_COLOR": "1"})
    assert result.exit_code == 0, result.output
    step1 = result.output.split("Step 1", 1)[1].split("Step 2", 1)[0]
    row = next(line for line in step1.splitlines() if line.strip().startswith("members_of(n)"))
    assert "{node1} → {node1, node2}" in row
    page = render_html(with_lane_defs(trace, model), model)
    assert 'data-var="members_of(n)"' in page
