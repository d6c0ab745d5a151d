"""Fixtures for the trace views: small models and their traces."""
from __future__ import annotations

import pytest

import modelcheck
from modelcheck.ir.nodes import Model
from modelcheck.trace.trace import Trace

from .mini_specs import CHOICE, MINI


@pytest.fixture(scope="session")
def mini_model() -> Model:
    return modelcheck.load_source(MINI, "mini.mc")


@pytest.fixture(scope="session")
def choice_model() -> Model:
    return modelcheck.load_source(CHOICE, "choice.mc")


@pytest.fixture(scope="session")
def mini_trace(mini_model: Model) -> Trace:
    """NoLoss's counterexample: two writes, a confirm, both nodes crash."""
    from modelcheck.trace.scenario import parse_scenario
    from modelcheck.trace.scenario_run import run_scenario
    text = ("Write(n=node1, v=0)\nWrite(n=node2, v=0)\nConfirm(v=0)\n"
            "Crash(n=node1)\nCrash(n=node2)\n")
    report = run_scenario(mini_model, parse_scenario(text, "mini.scenario"))
    trace = report.trace
    trace.kind, trace.property_name = "counterexample", "NoLoss"
    return trace


@pytest.fixture(scope="session")
def die_hard_model(repo_root_session) -> Model:
    return modelcheck.load(str(repo_root_session / "specs" / "examples" / "die_hard.mc"))


@pytest.fixture(scope="session")
def repo_root_session():
    from pathlib import Path
    return Path(__file__).resolve().parents[3]


@pytest.fixture(scope="session")
def die_hard_trace(die_hard_model: Model) -> Trace:
    result = modelcheck.check(die_hard_model, engine="reference")
    return result.get_property("NotFour").trace
