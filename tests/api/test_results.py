"""The result classes as a test writer meets them (a short repr, ``ok``,
``violations``), ``Trace.to_itf``/``save``, and what ``modelcheck`` exports."""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

import modelcheck
from modelcheck import CheckOptions, Status
from modelcheck.trace.itf import read_itf
from modelcheck.trace.replay import TraceReplayError

DIE_HARD = Path(__file__).resolve().parents[2] / "specs" / "examples" / "die_hard.mc"


@pytest.fixture(scope="module")
def die_hard():
    model = modelcheck.load(str(DIE_HARD))
    return model, modelcheck.check(model, engine="reference")


def test_reprs_are_short(die_hard):
    _, result = die_hard
    assert repr(result) == "CheckResult(die_hard, engine=reference, NotFour=violated, deadlock=holds)"
    assert repr(result.get_property("NotFour")) == "PropertyResult(NotFour, violated, steps=6)"
    assert repr(result.get_property("deadlock")) == "PropertyResult(deadlock, holds)"


def test_repr_says_when_the_search_stopped_early(die_hard):
    model, _ = die_hard
    cut = modelcheck.check(model, engine="reference", options=CheckOptions(max_states=3))
    assert repr(cut).endswith(", incomplete)")


def test_ok_and_violations(die_hard):
    model, result = die_hard
    assert not result.ok
    assert [p.name for p in result.violations] == ["NotFour"]
    deadlock_only = modelcheck.check(model, engine="reference", options=CheckOptions(invariants=()))
    assert deadlock_only.ok and deadlock_only.violations == []


def test_ok_needs_holds_not_unknown(die_hard):
    _, result = die_hard
    unknown = dataclasses.replace(result, properties=[
        dataclasses.replace(result.get_property("deadlock"), status=Status.UNKNOWN, reason="timeout")])
    assert not unknown.ok and unknown.violations == []


def test_to_itf_is_json_ready_and_matches_the_trace(die_hard):
    model, result = die_hard
    trace = result.get_property("NotFour").trace
    data = trace.to_itf(model)
    assert json.loads(json.dumps(data)) == data
    assert set(data["vars"]) == {"big", "small"}
    assert len(data["states"]) == len(trace.steps) == 7
    assert data["states"][-1]["big"] == 4
    assert data["#meta"]["property"] == "NotFour"


def test_save_round_trips(die_hard, tmp_path):
    model, result = die_hard
    trace = result.get_property("NotFour").trace
    path = trace.save(tmp_path / "new" / "not_four.itf.json", model)
    assert path == tmp_path / "new" / "not_four.itf.json"
    back = read_itf(path, model)
    assert back.steps == trace.steps
    assert back.property_name == "NotFour"
    assert modelcheck.replay(model, back).ok
    assert json.loads(path.read_text())["states"] == trace.to_itf(model)["states"]


def test_save_refuses_a_trace_that_is_not_a_behaviour(die_hard, tmp_path):
    model, result = die_hard
    trace = result.get_property("NotFour").trace
    bad = dataclasses.replace(trace, steps=list(trace.steps))
    bad.steps[2] = dataclasses.replace(bad.steps[2], state={"small": 2, "big": 2})
    with pytest.raises(TraceReplayError):
        bad.save(tmp_path / "bad.itf.json", model)
    assert not (tmp_path / "bad.itf.json").exists()


def test_the_public_types_are_exported():
    for name in ("CheckOptions", "CheckResult", "PropertyResult", "Status", "Trace", "Step",
                 "load", "load_source", "check", "assert_holds", "assert_violated",
                 "assert_reachable"):
        assert name in modelcheck.__all__
        assert getattr(modelcheck, name) is not None
