"""PDR with Spacer on small specs: proofs with the inductive invariant
printed back as spec conditions (and re-proved by induction from the
printed text), refutations with a shortest counterexample, properties that
need no lemma, and timeouts."""
from __future__ import annotations

from pathlib import Path

import z3

from modelcheck import api
from modelcheck.engines.z3.induction import prove
from modelcheck.engines.z3.pdr import pdr
from modelcheck.engines.z3.proofs import ProofStatus, lemma_declarations
from modelcheck.pipeline import load_source

ROOT = Path(__file__).resolve().parents[3]

NEEDS_LEMMA = """
module twice
var x: 0..3 = 0
var y: 0..6 = 0
action Inc() {
    require x < 3
    x := x + 1
    y := y + 2
}
action Reset() {
    require x == 3
    x := 0
    y := 0
}
invariant NotFive: y != 5
"""


def test_pdr_finds_an_invariant_that_proves_the_property_again_by_induction():
    model = load_source(NEEDS_LEMMA, "twice.mc")
    # Not inductive alone: y == 3 is a CTI.
    assert prove(model, ["NotFive"]).get("NotFive").status is ProofStatus.CTI
    result = pdr(model, ["NotFive"])
    proof = result.get("NotFive")
    assert proof.status is ProofStatus.PROVED
    assert proof.invariant, "Spacer's invariant was printed"
    assert result.notes == []            # the printed lemmas re-proved it (checked inside pdr)
    # And independently: the printed declarations compile and make the proof go through.
    decls = lemma_declarations("NotFive", proof.invariant)
    again = load_source(NEEDS_LEMMA + "\n".join(decls) + "\n", "twice.mc")
    names = [f"NotFive_pdr{i}" for i in range(1, len(decls) + 1)]
    assert prove(again, ["NotFive"], names).get("NotFive").status is ProofStatus.PROVED
    assert result.exit_code == 0


def test_pdr_refutes_die_hard_with_the_shortest_counterexample():
    model = api.load(str(ROOT / "specs" / "examples" / "die_hard.mc"))
    result = pdr(model, ["NotFour"])
    proof = result.get("NotFour")
    assert proof.status is ProofStatus.REFUTED
    assert len(proof.trace) == 6
    assert result.exit_code == 1


def test_an_inductive_property_needs_no_lemma():
    model = load_source(NEEDS_LEMMA.replace("y != 5", "x <= 3"), "twice.mc")
    proof = pdr(model, ["NotFive"]).get("NotFive")
    assert proof.status is ProofStatus.PROVED
    assert proof.invariant == [] and "inductive by itself" in proof.reason


def test_pdr_timeout_is_unknown():
    model = api.load(str(ROOT / "specs" / "examples" / "two_phase.mc"))
    proof = pdr(model, ["Consistent"], timeout=0.05).get("Consistent")
    assert proof.status is ProofStatus.UNKNOWN


def test_a_spelling_that_means_something_else_is_caught_and_replaced():
    # The printer once spelled Spacer's wrapping bit-vector sums as plain
    # arithmetic; every printed conjunct is now compiled back and compared.
    from modelcheck.engines.z3.encoding import Encoding
    from modelcheck.engines.z3.lemmas import LemmaPrinter
    from modelcheck.engines.z3.pdr import PDR_ENCODING, _Spacer

    model = load_source(NEEDS_LEMMA, "twice.mc")
    enc = Encoding(model, PDR_ENCODING)
    spacer = _Spacer(enc, model, model.get_property("NotFive"), None)
    x = enc.state("x:")
    by = {leaf.text: leaf.term for leaf in x.leaves}
    xs, ys = by["x"], by["y"]
    wraps = xs + 3 <= 2                   # 3-bit x: x + 3 wraps to a negative for x >= 1
    parts = [ys <= 4, wraps, ys != 5]
    texts = ["y <= 4", "x + 3 <= 2", "y == 5"]
    assert spacer.misspelled(parts, texts, x) == [1, 2]
    assert spacer.misspelled(parts, ["y <= 4", "x <= (", "y != 5"], x) == [1]
    # What the printer now writes for them is what they mean.
    printer = LemmaPrinter(x.leaves)
    spelled = [printer.boolean(p) for p in parts]
    assert spelled[1] == "x != 0"
    assert spacer.misspelled(parts, spelled, x) == []


def test_an_invariant_that_does_not_print_as_a_proof_is_asked_for_again(monkeypatch):
    # Spacer's answer shifts with the terms the process made before (once in
    # CI, TwoPhase's printed invariant did not re-prove); PDR then asks again
    # with the next settings and keeps the answer that prints as a proof.
    from modelcheck.engines.z3 import pdr as pdr_module

    asked, checked = [], []
    spacer_init = pdr_module._Spacer.__init__
    verify = pdr_module._verify

    def spy_init(self, *args, **kwargs):
        spacer_init(self, *args, **kwargs)
        asked.append(dict(self.settings))

    def failing_first(model, name, lemmas, deadline):
        checked.append(list(lemmas))
        if len(checked) == 1:
            return f"{name}: the printed invariant does not re-prove it by induction (planted)"
        return verify(model, name, lemmas, deadline)

    monkeypatch.setattr(pdr_module._Spacer, "__init__", spy_init)
    monkeypatch.setattr(pdr_module, "_verify", failing_first)
    model = load_source(NEEDS_LEMMA, "twice.mc")
    result = pdr(model, ["NotFive"])
    proof = result.get("NotFive")
    assert proof.status is ProofStatus.PROVED
    assert asked == list(pdr_module._SETTINGS)
    assert result.notes == []
    assert proof.invariant == checked[1]


def test_a_wrong_answer_from_spacer_is_asked_for_again(monkeypatch):
    # Once in CI Spacer's invariant for TwoPhase failed the check in its own
    # encoding (not inductive): that answer is UNKNOWN, never PROVED, and
    # PDR asks again with the next setting rather than giving up.
    from modelcheck.engines.z3 import pdr as pdr_module

    asked = []
    spacer = pdr_module._Spacer.spacer

    def wrong_first(self, *args, **kwargs):
        asked.append(dict(self.settings))
        if len(asked) == 1:
            return pdr_module.InvariantProof(self.target.name, ProofStatus.UNKNOWN,
                                             reason=f"{pdr_module._FLAWED} is not inductive"), None
        return spacer(self, *args, **kwargs)

    monkeypatch.setattr(pdr_module._Spacer, "spacer", wrong_first)
    result = pdr(load_source(NEEDS_LEMMA, "twice.mc"), ["NotFive"])
    assert result.get("NotFive").status is ProofStatus.PROVED
    assert asked == list(pdr_module._SETTINGS)
    assert result.notes == []


def test_when_every_answer_is_wrong_the_proof_stays_unknown(monkeypatch):
    from modelcheck.engines.z3 import pdr as pdr_module

    def always_wrong(self, *args, **kwargs):
        return pdr_module.InvariantProof(self.target.name, ProofStatus.UNKNOWN,
                                         reason=f"{pdr_module._FLAWED} is not inductive"), None

    monkeypatch.setattr(pdr_module._Spacer, "spacer", always_wrong)
    proof = pdr(load_source(NEEDS_LEMMA, "twice.mc"), ["NotFive"]).get("NotFive")
    assert proof.status is ProofStatus.UNKNOWN
    assert proof.reason == f"{pdr_module._FLAWED} is not inductive"


def test_when_no_setting_prints_a_proof_the_first_answer_and_its_note_stay(monkeypatch):
    from modelcheck.engines.z3 import pdr as pdr_module

    checked = []

    def always_failing(model, name, lemmas, deadline):
        checked.append(list(lemmas))
        return f"{name}: the printed invariant does not re-prove it by induction (planted)"

    monkeypatch.setattr(pdr_module, "_verify", always_failing)
    model = load_source(NEEDS_LEMMA, "twice.mc")
    result = pdr(model, ["NotFive"])
    assert len(checked) == len(pdr_module._SETTINGS)
    assert result.get("NotFive").invariant == checked[0]
    assert result.notes == ["NotFive: the printed invariant does not re-prove it by induction "
                            "(planted)"]


def test_an_answer_spacer_gave_once_prints_as_a_proof():
    # Spacer's invariant for TwoPhase's Consistent after one particular set
    # of terms made before it (saved as SMT-LIB): one conjunct compares a bit
    # of rmState[rm3] with the element of msgs at bit 4, a set too large to
    # list whole.  The printer once left it out, and the other lemmas did not
    # re-prove Consistent; listed by that element, the invariant prints whole
    # and re-proves.
    from modelcheck.engines.z3 import pdr as pdr_module
    from modelcheck.engines.z3.encoding import Encoding
    from modelcheck.engines.z3.slicing import freeze, slice_model

    model = api.load(str(ROOT / "specs" / "examples" / "two_phase.mc"))
    reduced, _ = freeze(model)
    sliced = slice_model(reduced, [reduced.get_property("Consistent")])
    enc = Encoding(sliced, pdr_module.PDR_ENCODING)
    x = enc.state("x:")
    text = (ROOT / "tests" / "unit" / "z3" / "data" / "two_phase_spacer_answer.smt2").read_text()
    found = z3.parse_smt2_string(f"(assert {text})",
                                 decls={t.decl().name(): t.decl() for t in x.terms})[0]
    spacer = pdr_module._Spacer(enc, model, sliced.get_property("Consistent"), None)
    proof = spacer.proved(found, x)
    assert proof.reason is None
    assert any("in msgs" in lemma for lemma in proof.invariant)
    assert pdr_module._verify(model, "Consistent", proof.invariant, None) is None
