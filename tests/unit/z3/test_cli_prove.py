"""``modelcheck prove`` on the command line: exit codes, the text shown for a
proof and for a counterexample to induction, --json, and bad input."""
from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from modelcheck.cli.main import cli

ROOT = Path(__file__).resolve().parents[3]
TWO_PHASE = str(ROOT / "specs" / "examples" / "two_phase.mc")
DIE_HARD = str(ROOT / "specs" / "examples" / "die_hard.mc")

TINY = """module tiny
var x: 0..7 = 0
var y: 0..7 = 0
action Step() {
    require x < 6
    x := x + 2
    y := y + 2
}
invariant Even: x % 2 == 0 and y != 5
invariant Same: x == y
"""


def run(*args):
    return CliRunner().invoke(cli, list(args))


def test_cti_is_shown_with_action_and_conjunct(tmp_path):
    spec = tmp_path / "tiny.mc"
    spec.write_text(TINY)
    res = run("prove", str(spec), "--invariant", "Even")
    assert res.exit_code == 1, res.output
    assert "not inductive" in res.output
    assert "Step breaks Even#2" in res.output
    assert "counterexample to induction: Step breaks Even#2 (y != 5)" in res.output


def test_proof_with_a_lemma_exits_zero(tmp_path):
    spec = tmp_path / "tiny.mc"
    spec.write_text(TINY)
    res = run("prove", str(spec), "--invariant", "Even", "--lemma", "Same")
    assert res.exit_code == 0, res.output
    assert "proved" in res.output and "with lemmas Same" in res.output


def test_json_output_is_one_object():
    res = run("prove", TWO_PHASE, "--json")
    assert res.exit_code == 1
    data = json.loads(res.output)
    assert data["engine"] == "induction" and data["exit_code"] == 1
    [inv] = data["invariants"]
    assert inv["name"] == "Consistent" and inv["status"] == "cti"
    assert inv["trace"]["kind"] == "cti" and len(inv["trace"]["steps"]) == 2
    assert data["consts"] == {"N": 3}


def test_pdr_refutes_die_hard():
    res = run("prove", DIE_HARD, "--engine", "pdr")
    assert res.exit_code == 1, res.output
    assert "refuted" in res.output


def test_bad_input_exits_two():
    res = run("prove", TWO_PHASE, "--invariant", "Nope")
    assert res.exit_code == 2
    assert "no invariant named 'Nope'" in res.output
    res = run("prove", TWO_PHASE, "--engine", "pdr", "--lemma", "Consistent")
    assert res.exit_code == 2
    assert "--engine pdr finds its own lemmas" in res.output
