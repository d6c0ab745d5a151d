"""``modelcheck replay`` of an ITF trace compares its recorded states with
what its actions give, by the replay ``trace show`` and ``trace explain``
use: a file whose states were edited is not a behaviour of the spec, even
when every action can still be taken."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

import modelcheck
from modelcheck.cli.main import cli
from modelcheck.trace.itf import dumps_itf

DIE_HARD = Path(__file__).resolve().parents[3] / "specs" / "examples" / "die_hard.mc"
ENV = {"COLUMNS": "300", "NO_COLOR": "1", "MODELCHECK_PROGRESS_EVERY": "off"}


@pytest.fixture
def folder(tmp_path: Path, monkeypatch) -> Path:
    """die_hard.mc and its NotFour counterexample (Init, FillBig, BigToSmall,
    EmptySmall, BigToSmall, FillBig, BigToSmall), as check writes it."""
    monkeypatch.chdir(tmp_path)
    shutil.copy(DIE_HARD, "die_hard.mc")
    model = modelcheck.load("die_hard.mc")
    trace = modelcheck.check(model, engine="reference").get_property("NotFour").trace
    Path("cex.itf.json").write_text(dumps_itf(trace, model))
    return tmp_path


def _edited(name: str, index: int, var: str, value: int) -> str:
    data = json.loads(Path("cex.itf.json").read_text())
    data["states"][index][var] = value
    Path(name).write_text(json.dumps(data, indent=1))
    return name


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args), env=ENV, catch_exceptions=False)


def test_the_trace_as_written_agrees(folder):
    out = invoke("replay", "die_hard.mc", "cex.itf.json", "--no-trace")
    assert out.exit_code == 0, out.output
    assert "recorded states" not in out.output and "OK: feasible" in out.output
    data = json.loads(invoke("replay", "die_hard.mc", "cex.itf.json", "--json").output)
    assert data["ok"] and data["recorded"] == {"compared": True, "differ": False, "step": None,
                                               "reason": None}


def test_an_edited_middle_state_fails_at_its_step(folder):
    # after EmptySmall the small jug is empty: 1 is not what the step gives
    edited = _edited("mid.itf.json", 3, "small", 1)
    out = invoke("replay", "die_hard.mc", edited, "--no-trace")
    assert out.exit_code == 1, out.output
    assert "feasible: all 6 steps can be taken" in out.output
    assert ("recorded states: this trace is not a behaviour of die_hard: step 3 (EmptySmall) "
            "does not lead to the recorded state: 'small' is 1 in the trace but the action "
            "gives 0") in out.output
    assert "NOT OK: the recorded states are not a behaviour of die_hard (from step 3)" \
        in out.output


def test_an_edited_last_state_that_no_longer_violates_fails(folder):
    edited = _edited("last.itf.json", 6, "big", 3)
    out = invoke("replay", "die_hard.mc", edited, "--no-trace")
    assert out.exit_code == 1, out.output
    assert ("step 6 (BigToSmall) does not lead to the recorded state: 'big' is 3 in the trace "
            "but the action gives 4") in out.output
    data = json.loads(invoke("replay", "die_hard.mc", edited, "--json").output)
    assert not data["ok"] and data["feasible"]
    assert data["recorded"]["compared"] and data["recorded"]["differ"]
    assert data["recorded"]["step"] == 6 and "'big' is 3" in data["recorded"]["reason"]


def test_an_edited_first_state_is_not_an_initial_state(folder):
    edited = _edited("first.itf.json", 0, "big", 2)
    out = invoke("replay", "die_hard.mc", edited, "--no-trace")
    assert out.exit_code == 1, out.output
    assert "the first state is not an initial state: 'big' is 2 in the trace" in out.output
    assert "(from step 0)" in out.output


@pytest.mark.parametrize("index, var, value, step", [(3, "small", 1, 3), (6, "big", 3, 6)],
                         ids=["middle", "last"])
def test_trace_show_notes_the_same(folder, index, var, value, step):
    edited = _edited(f"edited-{step}.itf.json", index, var, value)
    out = invoke("trace", "show", edited, "--spec", "die_hard.mc")
    assert out.exit_code == 0, out.output
    assert (f"note: {edited}: this trace is not a behaviour of die_hard: step {step} "
            f"({'EmptySmall' if step == 3 else 'BigToSmall'}) does not lead to the recorded "
            f"state: '{var}' is {value} in the trace") in out.output


def test_a_trace_of_other_variables_is_replayed_by_its_actions(folder):
    # Another tool's model of the same puzzle: its own variable names.
    data = json.loads(Path("cex.itf.json").read_text())
    for state in data["states"]:
        state["s"], state["b"] = state.pop("small"), state.pop("big")
    Path("other.itf.json").write_text(json.dumps(data))
    out = invoke("replay", "die_hard.mc", "other.itf.json", "--no-trace")
    assert out.exit_code == 0, out.output
    assert ("recorded states not compared: its first state records no value for the variable "
            "'small' of die_hard") in out.output
    data = json.loads(invoke("replay", "die_hard.mc", "other.itf.json", "--json").output)
    assert data["ok"] and data["recorded"]["compared"] is False
