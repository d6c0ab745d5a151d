"""``modelcheck.check()`` picks its engine as ``modelcheck check`` does, and
the result names the engine that ran."""
from __future__ import annotations

import io
import sys
import types
from pathlib import Path

import pytest
from rich.console import Console

import modelcheck
from modelcheck import CheckOptions, api
from modelcheck.cli.options import choose_engine
from modelcheck.cli.options import CheckFlags
from modelcheck.engines.reference import ReferenceEngine

DIE_HARD = Path(__file__).resolve().parents[2] / "specs" / "examples" / "die_hard.mc"
COMPILED = "modelcheck.engines.compiled.engine"


@pytest.fixture(scope="module")
def model():
    return modelcheck.load(str(DIE_HARD))


@pytest.fixture
def asked(monkeypatch):
    """The engine names ``check`` asks for; each is run by the reference
    engine, so that no numba compile is paid."""
    names: list[str] = []

    def get_engine(name):
        names.append(name)
        return ReferenceEngine()
    monkeypatch.setattr(api, "get_engine", get_engine)
    return names


def _cli_choice() -> str:
    return choose_engine(None, CheckFlags(), Console(file=io.StringIO()))


def test_the_default_is_the_command_lines_auto_engine(monkeypatch, model, asked):
    fake = types.ModuleType(COMPILED)
    fake.available = lambda: True
    monkeypatch.setitem(sys.modules, COMPILED, fake)
    modelcheck.check(model)
    assert asked == ["auto"] == [_cli_choice()]


def test_without_the_compiled_engine_both_fall_back_with_a_notice(monkeypatch, model):
    monkeypatch.setitem(sys.modules, COMPILED, None)
    result = modelcheck.check(model)
    assert result.engine == "reference" == _cli_choice()
    assert result.notes[0].startswith("the compiled engine is not available (")
    assert result.get_property("NotFour").steps == 6


def test_a_simulation_runs_on_the_reference_engine(model, asked):
    modelcheck.check(model, options=CheckOptions(simulate=2, sim_depth=5))
    assert asked == ["reference"]


def test_a_named_engine_is_used(model, asked):
    modelcheck.check(model, engine="bmc")
    assert asked == ["bmc"]


def test_the_result_names_the_engine_that_ran(model):
    # The compiled engine hands a simulation to the reference engine.
    result = modelcheck.check(model, engine="compiled", options=CheckOptions(simulate=2, sim_depth=5))
    assert result.engine == "reference"
    assert any("using the reference explorer" in note for note in result.notes)


WIDE = Path(__file__).resolve().parents[2] / "tests" / "cli" / "specs" / "wide_range.mc"


def test_a_named_engine_that_hands_the_spec_on_is_not_named_as_the_one_that_ran():
    # A range beyond 64 bits: the compiled engine's kernels cannot hold it.
    result = modelcheck.check(modelcheck.load(WIDE), engine="compiled",
                              options=CheckOptions(deadlock=False))
    assert result.engine == "reference"
    assert result.requested_engine == "compiled"
    assert any(note.startswith("compiled engine unavailable (")
               and note.endswith("using the reference explorer") for note in result.notes)
    assert modelcheck.assert_holds(result, "I").status.value == "holds"


def test_the_engine_asked_for_is_kept(model):
    assert modelcheck.check(model, engine="reference").requested_engine == "reference"
