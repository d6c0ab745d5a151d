"""Replaying scenarios (modelcheck.trace.scenario_run)."""
from __future__ import annotations

import pytest

from modelcheck.errors import EvalError
from modelcheck.trace.replay import replay
from modelcheck.trace.scenario import parse_scenario
from modelcheck.trace.scenario_run import run_scenario


def run(model, text):
    return run_scenario(model, parse_scenario(text, "s.scenario"))


def test_feasible_scenario_with_violations_along_the_way(mini_model):
    report = run(mini_model, "expect NoLoss violated at step 5\nexpect AllUp violated\n"
                             "Write(n=node1, v=0)\nWrite(n=node2, v=0)\nConfirm(v=0)\n"
                             "Crash(n=node1)\nCrash(n=node2)\n")
    assert report.feasible and report.failed_step is None
    outcome = {p.name: p for p in report.properties}
    assert (outcome["NoLoss"].status, outcome["NoLoss"].step) == ("violated", 5)
    assert (outcome["AllUp"].status, outcome["AllUp"].step) == ("violated", 4)
    assert outcome["NeverForget"].status == "holds"
    assert outcome["TwoConfirmed"].status == "not reached"
    assert all(r.met for r in report.expectations) and report.exit_code == 0
    assert len(report.trace) == 5 and replay(mini_model, report.trace).ok
    assert len(outcome["AllUp"].trace) == 4


def test_infeasible_step_names_the_false_guard(mini_model):
    report = run(mini_model, "Write(n=node1, v=1)\nCrash(n=node2)\n"
                             "Deliver(m=Msg(src=node1, dst=node2, val=1))\n")
    assert not report.feasible and report.failed_step == 3
    assert report.failed_label == "Deliver(m=Msg(src=node1, dst=node2, val=1))"
    [guard] = report.blocked
    assert guard.text == "up[m.dst]"
    assert (guard.span.file, guard.span.line) == ("mini.mc", 20)
    assert len(report.trace) == 2       # the steps that could be taken
    assert report.exit_code == 1


def test_expected_infeasibility_is_ok(mini_model):
    report = run(mini_model, "expect infeasible at step 1\nRestart(n=node1)\n")
    assert not report.feasible and report.ok
    assert report.blocked[0].text == "not up[n]"
    wrong_step = run(mini_model, "expect infeasible at step 2\nRestart(n=node1)\nCrash(n=node1)\n")
    assert not wrong_step.ok


def test_unmet_expectations_fail(mini_model):
    report = run(mini_model, "expect NoLoss violated\nexpect TwoConfirmed holds\nWrite(n=node1, v=0)\n")
    assert report.feasible
    assert [r.met for r in report.expectations] == [False, False]
    assert [r.actual for r in report.expectations] == ["holds", "not reached"]
    assert report.exit_code == 1


def test_the_specs_choices_are_all_followed(choice_model):
    report = run(choice_model, "expect Small violated at step 2\nexpect FirstIsThree holds\n"
                               "Step\nStep()\nRecord\n")
    assert report.feasible and report.ok
    assert report.branching == (1, 2, 3)
    small = next(p for p in report.properties if p.name == "Small")
    assert small.step == 2 and small.trace.steps[-1].state["x"] == 3
    assert replay(choice_model, small.trace).ok


def test_a_run_time_error_on_the_way_carries_its_trace():
    import modelcheck
    model = modelcheck.load_source("module e\nvar x: 0..2 = 0\naction Inc() { x := x + 2 }\n", "e.mc")
    with pytest.raises(EvalError) as info:
        run(model, "Inc\nInc\n")
    assert info.value.diagnostic.code == "MC5001"
    assert len(info.value.trace) == 1
