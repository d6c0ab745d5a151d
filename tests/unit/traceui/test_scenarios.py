"""specs/scenarios/: one scenario per row of the replication scenario table
(CMQ-1..9, QQ-1..5), each replayed against its spec: feasible (or ruled out,
where the row says the spec must rule it out), with the expected property
outcomes."""
from __future__ import annotations

from pathlib import Path

import pytest

from modelcheck.cli.replay_cmd import scenario_model
from modelcheck.trace.replay import replay
from modelcheck.trace.scenario import load_scenario
from modelcheck.trace.scenario_run import run_scenario

ROOT = Path(__file__).resolve().parents[3]
SCENARIOS = ROOT / "specs" / "scenarios"
SPECS = {"cmq": ROOT / "specs" / "classic_mirrored_queue.mc", "qq": ROOT / "specs" / "quorum_queue.mc"}
ROWS = [f"cmq-{i}" for i in range(1, 10)] + [f"qq-{i}" for i in range(1, 6)]
FILES = sorted(p.name for p in SCENARIOS.glob("*.scenario"))


def test_every_row_of_the_table_has_a_scenario():
    missing = [row for row in ROWS if f"{row}.scenario" not in FILES]
    assert missing == []


@pytest.mark.parametrize("name", FILES)
def test_scenario_replays_as_expected(name):
    spec = SPECS[name.split("-")[0]]
    scenario = load_scenario(SCENARIOS / name)
    assert scenario.expectations, "a scenario states the outcome it shows"
    assert any(e.name is not None for e in scenario.expectations)
    model = scenario_model(str(spec), scenario, {})
    report = run_scenario(model, scenario)
    unmet = [(r.expectation.text(), r.actual) for r in report.expectations if not r.met]
    assert unmet == []
    assert report.ok
    expects_infeasible = any(e.name is None and e.outcome == "infeasible" for e in scenario.expectations)
    assert report.feasible is not expects_infeasible
    assert replay(model, report.trace).ok
    for outcome in report.properties:
        if outcome.trace is not None:
            assert replay(model, outcome.trace).ok
