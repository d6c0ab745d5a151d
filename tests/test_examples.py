"""The example specs give TLC's figures under the reference engine (the
figures come from TLC on the TLA+ DieHard, TwoPhase, raft.tla and Paxos
models; bench/tla/ holds the last two)."""
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
    result = modelcheck.check(model, engine="reference")
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
    """TLC's counts (TwoPhase.tla has no SYMMETRY): the reduction off."""
    model = modelcheck.load(str(EXAMPLES / "two_phase.mc"), consts={"N": str(n)})
    result = modelcheck.check(model, engine="reference", options=CheckOptions(symmetry=False))
    assert result.complete
    assert (result.stats.distinct_states, result.stats.depth) == (distinct, depth)
    assert result.get_property("Consistent").status is Status.HOLDS
    assert result.exit_code == 0


@pytest.mark.slow
def test_two_phase_seven():
    model = modelcheck.load(str(EXAMPLES / "two_phase.mc"), consts={"N": "7"})
    result = modelcheck.check(model, engine="reference", options=CheckOptions(symmetry=False))
    assert result.complete
    assert (result.stats.distinct_states, result.stats.depth) == (296_448, 23)
    assert result.get_property("Consistent").status is Status.HOLDS


def test_two_phase_simulation_finds_no_violation_and_claims_nothing():
    model = modelcheck.load(str(EXAMPLES / "two_phase.mc"))
    result = modelcheck.check(model, options=CheckOptions(simulate=20, sim_depth=30, seed=3))
    assert result.get_property("Consistent").status is Status.UNKNOWN
    assert result.exit_code == 3


# Raft (raft.tla) and Paxos (Paxos.tla) on small instances, against TLC's
# figures: bench/tla/raft/MCraft_s2_*.cfg and bench/tla/paxos/MCPaxos*.cfg
# give them (TLC 2.15, -workers 1); the full instances are rows of
# specs/examples/verdicts.toml and bench/raft_vs_tlc.py.
RAFT_INVARIANTS = ("ElectionSafety", "LogMatching", "StateMachineSafety")
PAXOS_INVARIANTS = ("Inv2", "Inv3", "Inv4")


def _check_counts(spec, consts, invariants, distinct, generated, depth):
    model = modelcheck.load(str(EXAMPLES / spec), consts={k: str(v) for k, v in consts.items()})
    result = modelcheck.check(model, engine="reference")
    assert result.complete
    assert (result.stats.distinct_states, result.stats.generated_states,
            result.stats.depth) == (distinct, generated, depth)
    for name in (*invariants, "deadlock"):
        assert result.get_property(name).status is Status.HOLDS, name


@pytest.mark.parametrize("consts,distinct,generated,depth", [
    ({"Servers": 3, "MaxTerm": 1, "MaxLogLen": 1, "MaxMsgs": 1}, 2, 13, 2),
    ({"Servers": 2, "MaxTerm": 2, "MaxLogLen": 0, "MaxMsgs": 1}, 1_340, 10_537, 20),
    ({"Servers": 2, "MaxTerm": 2, "MaxLogLen": 1, "MaxMsgs": 1}, 1_760, 13_797, 28),
])
def test_raft_matches_tlc(consts, distinct, generated, depth):
    _check_counts("raft.mc", consts, RAFT_INVARIANTS, distinct, generated, depth)


@pytest.mark.slow
@pytest.mark.parametrize("consts,distinct,generated,depth", [
    ({"Servers": 2, "MaxTerm": 2, "MaxLogLen": 0, "MaxMsgs": 2}, 12_990, 125_613, 24),
    ({"Servers": 2, "MaxTerm": 3, "MaxLogLen": 0, "MaxMsgs": 1}, 10_312, 80_751, 30),
])
def test_raft_matches_tlc_larger(consts, distinct, generated, depth):
    _check_counts("raft.mc", consts, RAFT_INVARIANTS, distinct, generated, depth)


@pytest.mark.parametrize("consts,distinct,generated,depth", [
    # MCPaxos.cfg of the TLA+ examples: the manifest's figures.
    ({"Acceptors": 1, "Values": 1, "MaxBallot": 1}, 25, 82, 9),
    ({"Acceptors": 2, "Values": 2, "MaxBallot": 2}, 1_501, 8_222, 19),
])
def test_paxos_matches_tlc(consts, distinct, generated, depth):
    _check_counts("paxos.mc", consts, PAXOS_INVARIANTS, distinct, generated, depth)


@pytest.mark.slow
@pytest.mark.parametrize("consts,distinct,generated,depth", [
    ({"Acceptors": 3, "Values": 1, "MaxBallot": 1}, 1_681, 10_005, 17),
    ({"Acceptors": 3, "Values": 2, "MaxBallot": 1}, 3_921, 23_839, 17),
])
def test_paxos_matches_tlc_larger(consts, distinct, generated, depth):
    _check_counts("paxos.mc", consts, PAXOS_INVARIANTS, distinct, generated, depth)


def test_raft_election_safety_fails_without_quorums(tmp_path):
    """The invariants can fail: a Raft whose leaders need no votes elects two
    leaders in one term, and the counterexample round-trips through ITF with
    its variant messages."""
    source = (EXAMPLES / "raft.mc").read_text(encoding="utf-8")
    broken = source.replace("require is_quorum(votesGranted[i])", "require true")
    assert broken != source
    spec = tmp_path / "raft_no_quorum.mc"
    spec.write_text(broken, encoding="utf-8")
    model = modelcheck.load(str(spec), consts={"Servers": "2", "MaxTerm": "2",
                                               "MaxLogLen": "0", "MaxMsgs": "1"})
    result = modelcheck.check(model, engine="reference")
    safety = result.get_property("ElectionSafety")
    assert safety.status is Status.VIOLATED
    assert safety.steps == 4  # both servers time out, then both become leader
    path = write_trace(safety.trace, model, tmp_path)
    assert modelcheck.replay(model, read_itf(path, model)).ok
