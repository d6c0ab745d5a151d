"""The fuzzing tier: a bounded slice of ``make fuzz`` in the slow tier, and
the runner's own judgement (what counts as a hang, an internal error, a
disagreement) in the fast one."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from . import run_fuzz
from .run_fuzz import Campaign, Worker, classify, disagreement

RUNNER = Path(run_fuzz.__file__)


def _result(complete: bool, distinct: int, **props: tuple[str, int | None]) -> dict:
    return {"complete": complete, "distinct_states": distinct,
            "properties": {k: {"status": s, "steps": n} for k, (s, n) in props.items()}}


def test_outcomes_are_classified_by_exit_code_and_traceback():
    assert classify({"rc": 0, "err": ""}) == "answered"
    assert classify({"rc": 2, "err": "error[MC1001]: ..."}) == "diagnostic"
    assert classify({"rc": 3, "err": ""}) == "unknown"
    assert classify({"rc": 4, "err": "internal error: ValueError"}) == "internal"
    assert classify({"rc": 2, "err": "Traceback (most recent call last):"}) == "internal"
    assert classify({"rc": -9, "err": ""}) == "internal"


def test_a_wrong_verdict_is_a_disagreement():
    ref = _result(True, 5, P=("holds", None))
    assert disagreement(ref, _result(True, 5, P=("holds", None)), "compiled", None) is None
    assert disagreement(ref, _result(True, 5, P=("violated", 1)), "compiled", None)
    assert disagreement(ref, _result(True, 4, P=("holds", None)), "compiled", None)
    # An engine that did not finish contradicts nothing.
    assert disagreement(ref, _result(False, 2, P=("unknown", None)), "compiled", None) is None


def test_bmc_is_judged_within_its_bound():
    deep = _result(True, 9, P=("violated", 5))
    assert disagreement(deep, _result(False, 0, P=("holds_up_to_bound", None)), "bmc", 2) is None
    shallow = _result(True, 9, P=("violated", 1))
    assert disagreement(shallow, _result(False, 0, P=("holds_up_to_bound", None)), "bmc", 2)
    stopped = _result(False, 0, P=("holds_up_to_bound", None))
    stopped["properties"]["P"]["reason"] = "holds up to depth 0 (timeout after 5 s at depth 1)"
    assert disagreement(shallow, stopped, "bmc", 2) is None
    holds = _result(True, 9, P=("holds", None))
    assert disagreement(holds, _result(False, 0, P=("violated", 2)), "bmc", 2)


def test_a_hang_is_killed_counted_and_kept(tmp_path):
    campaign = Campaign(tmp_path / "failures")
    worker = Worker({"PATH": "/usr/bin:/bin", "PYTHONPATH": str(run_fuzz.ROOT)})
    spec = "module s\nvar x: 0..1 = 0\naction A() { x := 1 - x }\ninvariant P: x >= 0\n"
    try:
        # A limit of 0 s: no answer can be there yet, so this counts as a hang.
        assert run_fuzz.run_one(campaign, worker, "part", "slow", ["parse", "{dir}/s.mc"],
                                {"s.mc": spec}, 0.0) is None
        answer = run_fuzz.run_one(campaign, worker, "part", "quick", ["parse", "{dir}/s.mc"],
                                  {"s.mc": spec}, 60.0)
    finally:
        worker.stop()
    assert campaign.counts["part"]["hang"] == 1 and campaign.bad() == 1
    assert (tmp_path / "failures" / "hang-slow" / "s.mc").read_text() == spec
    assert answer is not None and answer["rc"] == 0


@pytest.mark.slow
def test_a_slice_of_the_campaign(tmp_path):
    done = subprocess.run([sys.executable, str(RUNNER), "--specs", "400", "--extreme", "60",
                           "--traces", "30", "--seed", "3", "--compiled-every", "15",
                           "--failures", str(tmp_path / "failures")],
                          capture_output=True, text=True, timeout=600)
    report = done.stdout + done.stderr
    assert "front end" in report and "engines: compiled" in report and "trace explain" in report
    assert done.returncode == 0, report
    assert not (tmp_path / "failures").exists()
