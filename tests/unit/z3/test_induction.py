"""k-induction with lemmas: proofs, counterexamples to induction naming the
action and the conjunct, real counterexamples from the base case, lemmas
that are themselves false, and bad requests."""
from __future__ import annotations

from pathlib import Path

import pytest

from modelcheck import api
from modelcheck.engines.z3.induction import prove
from modelcheck.engines.z3.proofs import ProofStatus
from modelcheck.errors import UsageError
from modelcheck.pipeline import load_source

ROOT = Path(__file__).resolve().parents[3]
TWO_PHASE = ROOT / "specs" / "examples" / "two_phase.mc"

#: Lemmas that make two_phase's Consistent inductive (written for this test:
#: the example spec itself stays as the TLA+ original).
TWO_PHASE_LEMMAS = """
invariant CommitMsgMeansCommitted:
    Message(kind=msg_commit, rm=none) in msgs => tmState == tm_committed
invariant AbortMsgMeansAborted:
    Message(kind=msg_abort, rm=none) in msgs => tmState == tm_aborted
invariant CommittedMeansAllPrepared: tmState == tm_committed => tmPrepared == RM
invariant PreparedWasSent: all(Message(kind=msg_prepared, rm=some(r)) in msgs for r in tmPrepared)
invariant SentMeansNotWorking:
    all(Message(kind=msg_prepared, rm=some(r)) in msgs => rmState[r] != working for r in RM)
invariant CommittedRmHasCommitMsg:
    all(rmState[r] == committed => Message(kind=msg_commit, rm=none) in msgs for r in RM)
invariant NoAbortAfterCommit: tmState == tm_committed => all(rmState[r] != aborted for r in RM)
invariant PreparedAbortedMeansAbortMsg:
    all(Message(kind=msg_prepared, rm=some(r)) in msgs and rmState[r] == aborted
        => Message(kind=msg_abort, rm=none) in msgs for r in RM)
"""
LEMMA_NAMES = ["CommitMsgMeansCommitted", "AbortMsgMeansAborted", "CommittedMeansAllPrepared",
               "PreparedWasSent", "SentMeansNotWorking", "CommittedRmHasCommitMsg",
               "NoAbortAfterCommit", "PreparedAbortedMeansAbortMsg"]


@pytest.fixture(scope="module")
def two_phase_with_lemmas():
    return load_source(TWO_PHASE.read_text() + TWO_PHASE_LEMMAS, str(TWO_PHASE))


def test_two_phase_consistent_alone_is_not_inductive():
    model = api.load(str(TWO_PHASE))
    result = prove(model, ["Consistent"])
    proof = result.get("Consistent")
    assert proof.status is ProofStatus.CTI
    assert result.exit_code == 1
    breakers = {o.action for o in proof.failed}
    assert "RMChooseToAbort" in breakers
    assert all(o.conjunct == "Consistent" for o in proof.failed)
    cti = proof.trace
    assert cti.kind == "cti" and len(cti) == 1
    assert cti.meta["conjunct"] == "Consistent"
    assert cti.steps[1].action in breakers


def test_two_phase_consistent_is_proved_with_lemmas(two_phase_with_lemmas):
    result = prove(two_phase_with_lemmas, ["Consistent"], LEMMA_NAMES)
    proof = result.get("Consistent")
    assert proof.status is ProofStatus.PROVED, proof.reason
    assert result.exit_code == 0
    # one initiation and one consecution per (action, conjunct)
    conjuncts = 1 + len(LEMMA_NAMES)
    assert len(result.obligations) == conjuncts * (1 + len(two_phase_with_lemmas.actions))


def test_one_lemma_short_is_a_cti_naming_the_pair(two_phase_with_lemmas):
    lemmas = [n for n in LEMMA_NAMES if n != "PreparedAbortedMeansAbortMsg"]
    result = prove(two_phase_with_lemmas, ["Consistent"], lemmas)
    proof = result.get("Consistent")
    assert proof.status is ProofStatus.CTI
    assert proof.reason == "not inductive: TMCommit breaks NoAbortAfterCommit"
    # The CTI shown is the lemma's: the target's own conjunct was preserved.
    assert proof.trace.meta["conjunct"] == "NoAbortAfterCommit"


NOT_INDUCTIVE = """
module tiny
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


def test_tiny_spec_cti_names_action_and_conjunct():
    model = load_source(NOT_INDUCTIVE, "tiny.mc")
    result = prove(model, ["Even"])
    proof = result.get("Even")
    assert proof.status is ProofStatus.CTI
    [failed] = proof.failed
    assert (failed.action, failed.conjunct) == ("Step", "Even#2")
    assert proof.trace.meta["conjunct_text"] == "y != 5"
    assert proof.trace.steps[1].state["y"] == 5
    # With the lemma x == y it is inductive.
    assert prove(model, ["Even"], ["Same"]).get("Even").status is ProofStatus.PROVED


SWAP = """
module swap
var a: 0..1 = 0
var b: 0..1 = 0
action Swap() {
    a := b
    b := a
}
invariant AZero: a == 0
"""


def test_k_induction_proves_what_one_step_cannot():
    model = load_source(SWAP, "swap.mc")
    assert prove(model, ["AZero"], k=1).get("AZero").status is ProofStatus.CTI
    assert prove(model, ["AZero"], k=2).get("AZero").status is ProofStatus.PROVED


def test_base_case_finds_a_real_counterexample():
    model = api.load(str(ROOT / "specs" / "examples" / "die_hard.mc"))
    assert prove(model, ["NotFour"], k=1).get("NotFour").status is ProofStatus.CTI
    proof = prove(model, ["NotFour"], k=7).get("NotFour")
    assert proof.status is ProofStatus.REFUTED
    assert len(proof.trace) == 6 and proof.trace.kind == "counterexample"


FALSE_LEMMA = """
module lemma
var x: 0..3 = 0
action Up() { require x < 3  x := x + 1 }
invariant Small: x <= 3
invariant Zero: x == 0
invariant One: x == 1
"""


def test_a_false_lemma_cannot_support_a_proof():
    model = load_source(FALSE_LEMMA, "lemma.mc")
    # One is false initially: the proof has nothing to stand on.
    proof = prove(model, ["Small"], ["One"]).get("Small")
    assert proof.status is ProofStatus.UNKNOWN
    assert "lemma One is violated in 0 steps" in proof.reason
    # Zero holds initially but is not preserved: a CTI of the lemma.
    proof = prove(model, ["Small"], ["Zero"]).get("Small")
    assert proof.status is ProofStatus.CTI
    assert proof.reason == "not inductive: Up breaks Zero"


ERROR_STEP = """
module err
var x: 0..2 = 0
var d: 0..1 = 1
action Div() { x := 2 // d }
action Zero() { require x == 2  d := 0 }
invariant Bounded: x <= 2
"""


def test_a_step_that_can_fail_is_noted():
    model = load_source(ERROR_STEP, "err.mc")
    result = prove(model, ["Bounded"])
    assert result.get("Bounded").status is ProofStatus.PROVED
    assert any("MC5002" in n for n in result.notes)


def test_bad_requests_are_usage_errors():
    model = load_source(NOT_INDUCTIVE, "tiny.mc")
    with pytest.raises(UsageError):
        prove(model, ["Nope"])
    with pytest.raises(UsageError):
        prove(model, ["Even"], k=0)
    reach = load_source("module r\nvar x: 0..1 = 0\nsometimes S: x == 1\n", "r.mc")
    with pytest.raises(UsageError):
        prove(reach, ["S"])


def test_a_spent_timeout_gives_unknown():
    model = api.load(str(TWO_PHASE))
    proof = prove(model, ["Consistent"], timeout=1e-9).get("Consistent")
    assert proof.status is ProofStatus.UNKNOWN
    assert proof.reason == "timeout"


def test_default_targets_are_the_invariants_that_are_not_lemmas():
    model = load_source(NOT_INDUCTIVE, "tiny.mc")
    result = prove(model, None, ["Same"])
    assert [p.name for p in result.invariants] == ["Even"]


def test_an_invariant_that_raises_a_run_time_error_in_a_reachable_state_is_unknown():
    # Not a violation (the reference explorer stops with MC5002) and not a crash.
    model = load_source("""
module fails
var x: 0..1 = 0
action A() { x := 1 - x }
invariant Ends: x == 0 or 1 // (x - 1) == 3
""", "fails.mc")
    proof = prove(model, k=3).get("Ends")
    assert proof.status is ProofStatus.UNKNOWN
    assert "MC5002" in proof.reason and len(proof.trace) == 1
