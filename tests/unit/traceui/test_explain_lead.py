"""`trace explain` on a quantified invariant leads with its witness and the
step that made its instance go wrong, before the formula tree
(modelcheck.trace.explain.Lead)."""
from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

import modelcheck
from modelcheck.cli.main import cli
from modelcheck.trace.explain import explain
from modelcheck.trace.scenario import parse_scenario
from modelcheck.trace.scenario_run import run_scenario

REPO = Path(__file__).resolve().parents[3]

SPEC = """\
module queue
type Msg = 1..2
type Node = 1..2
var confirmed: set[Msg] = {}
var stored: map[Node, set[Msg]] = {n: {} for n in Node}
var up: map[Node, bool] = {n: true for n in Node}
action Store(m: Msg) { stored := {n: stored[n] | {m} for n in Node} }
action Confirm(m: Msg) {
    require m in stored[1]
    confirmed := confirmed | {m}
}
action Wipe(n: Node) { stored[n] := {} }
action Crash(n: Node) { up[n] := false }
invariant Kept: all(m in confirmed => any(m in stored[n] and up[n] for n in Node) for m in Msg)
"""

STEPS = "Store(m=2)\nConfirm(m=2)\nWipe(n=2)\nStore(m=1)\nCrash(n=1)\n"


def test_the_witness_and_the_step_that_lost_it():
    model = modelcheck.load_source(SPEC, "queue.mc")
    trace = run_scenario(model, parse_scenario(STEPS, "s.scenario")).trace
    lead = explain(trace, model, "Kept").lead
    assert lead is not None
    assert lead.witness == (("m", "2"),) and lead.kind == "Msg"
    assert (lead.value, lead.since, lead.since_label) == ("false", 5, "Crash(n=1)")
    premise, conclusion = lead.parts
    assert premise[:3] == ("m in confirmed", "true", 2)          # confirmed at step 2
    assert conclusion[1:3] == ("false", 5)


def test_explain_prints_the_lead_before_the_tree():
    result = CliRunner().invoke(cli, ["trace", "explain",
                                      str(REPO / "counterexamples" / "CMQ-1-NoLostConfirmed.itf.json")],
                                env={"COLUMNS": "200", "NO_COLOR": "1"})
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "Msg 1 (m = 1): lost(m) became true at step 5: NodeDown(n=1, how=crash)"
    assert lines[1].split()[:3] == ["m", "in", "confirmed"]
    assert "true since step 3: Confirm(m=1, l=1)" in lines[1]
    tree = next(k for k, line in enumerate(lines) if line.startswith("NoLostConfirmed is false in state 5"))
    assert tree == 4 and lines[tree + 1].startswith("✗ not any(lost(m) for m in Msg)")


def test_no_lead_for_an_invariant_without_a_quantifier():
    model = modelcheck.load_source(SPEC + "invariant Up: up[1]\n", "queue.mc")
    trace = run_scenario(model, parse_scenario(STEPS, "s.scenario")).trace
    assert explain(trace, model, "Up").lead is None
