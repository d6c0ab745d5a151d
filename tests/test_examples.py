"""The example specs give TLC's figures under the reference engine (the
figures come from TLC on the TLA+ DieHard and TwoPhase examples)."""
from __future__ import annotations

from pathlib import Path

import pytest

import modelcheck
from modelcheck import CheckOptions, Status
from modelcheck.trace.itf import read_itf
from modelcheck.trace.store import write_trace

EXAMPLES = Path(__file__).resolve().parent.parent / "specs" / "examples"


def test_die_hard(tmp_path):
    model = modelcheck.load(str(EXAMPLES / "die_hard.mc"))
    result = modelcheck.check(model)
    assert result.complete
    assert result.stats.distinct_states == 16
    assert result.stats.depth == 8
    not_four = result.get_property("NotFour")
    assert not_four.status is Status.VIOLATED
    assert not_four.steps == 6
    assert not_four.trace.steps[-1].state["big"] == 4
    path = write_trace(not_four.trace, model, tmp_path)
    back = read_itf(path, model)
    assert back.steps == not_four.trace.steps
    assert modelcheck.replay(model, back).ok
    assert result.exit_code == 1


@pytest.mark.parametrize("n,distinct,depth", [(3, 288, 11), (5, 8_832, 17)])
def test_two_phase(n, distinct, depth):
    model = modelcheck.load(str(EXAMPLES / "two_phase.mc"), consts={"N": str(n)})
    result = modelcheck.check(model)
    assert result.complete
    assert (result.stats.distinct_states, result.stats.depth) == (distinct, depth)
    assert result.get_property("Consistent").status is Status.HOLDS
    assert result.exit_code == 0


@pytest.mark.slow
def test_two_phase_seven():
    model = modelcheck.load(str(EXAMPLES / "two_phase.mc"), consts={"N": "7"})
    result = modelcheck.check(model)
    assert result.complete
    assert (result.stats.distinct_states, result.stats.depth) == (296_448, 23)
    assert result.get_property("Consistent").status is Status.HOLDS


def test_two_phase_simulation_finds_no_violation_and_claims_nothing():
    model = modelcheck.load(str(EXAMPLES / "two_phase.mc"))
    result = modelcheck.check(model, options=CheckOptions(simulate=20, sim_depth=30, seed=3))
    assert result.get_property("Consistent").status is Status.UNKNOWN
    assert result.exit_code == 3
