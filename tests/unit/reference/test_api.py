"""``modelcheck.check``: every trace an engine returns is replayed first."""
from __future__ import annotations

import dataclasses

import pytest

import modelcheck
from hand_models import die_hard
from modelcheck import api
from modelcheck.engines.base import CheckOptions
from modelcheck.engines.reference import ReferenceEngine
from modelcheck.errors import UsageError
from modelcheck.trace.replay import TraceReplayError


class TamperingEngine:
    """An engine whose counterexample has one state changed."""
    name = "tampering"

    def check(self, model, options, reporter):
        result = ReferenceEngine().check(model, options, reporter)
        trace = result.get_property("NotFour").trace
        trace.steps[2] = dataclasses.replace(trace.steps[2], state={"small": 2, "big": 2})
        return result


def test_check_runs_the_named_engine():
    result = modelcheck.check(die_hard(), engine="reference")
    assert result.engine == "reference"
    assert result.get_property("NotFour").steps == 6


def test_a_trace_that_does_not_replay_is_an_internal_error(monkeypatch):
    monkeypatch.setattr(api, "get_engine", lambda name: TamperingEngine())
    with pytest.raises(TraceReplayError) as info:
        api.check(die_hard(), engine="tampering")
    message = str(info.value)
    assert "tampering engine's trace for property 'NotFour'" in message
    assert "step 2" in message


def test_unknown_property_names_are_usage_errors_for_every_engine():
    with pytest.raises(UsageError):
        api.check(die_hard(), engine="reference", options=CheckOptions(invariants=("NotFive",)))


def test_unknown_engine():
    with pytest.raises(ValueError, match="unknown engine"):
        api.check(die_hard(), engine="quantum")


def test_public_api():
    assert set(modelcheck.__all__) == {
        "load", "load_source", "check", "default_engine", "CheckOptions", "CheckResult",
        "PropertyResult", "Status", "Trace", "Step", "replay", "assert_holds", "assert_violated",
        "assert_reachable", "CompileError", "EvalError", "UsageError", "ModelcheckError"}
    model = modelcheck.load_source("module m\nvar x: 0..1 = 0\naction A() { x := 1 - x }\n", "m.mc")
    assert modelcheck.check(model, engine="reference").stats.distinct_states == 2
