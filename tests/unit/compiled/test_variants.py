"""Variants and capped sets in the compiled engine: the same counts, verdicts
and shortest trace lengths as the reference explorer, with and without
symmetry (test_symmetry also counts the orbits of ``variants``); writes over
a capacity are MC5001 as in the reference; collections it cannot lay out are
declined (the reference answers, with a notice)."""
from __future__ import annotations

import pytest

from modelcheck import api
from modelcheck.engines.base import CheckOptions

pytest.importorskip("numba")


def _summary(r):
    return ({p.name: (p.status, p.steps) for p in r.properties},
            (r.stats.distinct_states, r.stats.generated_states, r.stats.depth))


def test_variants_agree_with_the_reference(load):
    model = load("variants")
    ref = api.check(model, "reference", CheckOptions(symmetry=False))
    ref_on = api.check(model, "reference")                  # brute-force orbits
    off = api.check(model, "compiled", CheckOptions(symmetry=False))
    on = api.check(model, "compiled", CheckOptions(symmetry=True))
    assert off.engine == on.engine == "compiled"
    assert _summary(off) == _summary(ref)
    assert _summary(on) == _summary(ref_on)
    assert _summary(on)[0] == _summary(ref)[0]
    assert on.stats.distinct_states < ref.stats.distinct_states


def test_variant_keys_and_non_canonical_payloads_agree_with_the_reference(load):
    model = load("variants_nested")
    ref = api.check(model, "reference", CheckOptions(deadlock=False))
    got = api.check(model, "compiled", CheckOptions(deadlock=False))
    assert got.engine == "compiled"
    assert _summary(got) == _summary(ref)


CAPPED = """
module capped
var s: set[0..5, 2] = {}
var n: 0..6 = 0
action Add(x: 0..5) {
    require n < 3
    s := s | {x}
    n := n + 1
}
invariant Small: len(s) <= 2
"""


def test_a_set_over_its_capacity_is_mc5001_as_in_the_reference():
    model = api.load_source(CAPPED)
    ref = api.check(model, "reference")
    got = api.check(model, "compiled")
    assert got.engine == "compiled"
    assert got.error.diagnostic.code == ref.error.diagnostic.code == "MC5001"
    assert len(got.error.trace.steps) == len(ref.error.trace.steps)


BIG = """
module big
type Rec = record { a: 0..999, b: 0..999 }
var s: set[Rec, 2] = {}
action Add(x: 0..1) { require len(s) < 2  s := s | {Rec(a=x, b=x)} }
"""


def test_a_capped_collection_over_a_large_type_is_laid_out_sparsely():
    model = api.load_source(BIG)
    got = api.check(model, "compiled")
    assert got.engine == "compiled" and got.stats.distinct_states == 4


def test_a_large_collection_without_a_capacity_falls_back_with_a_hint():
    model = api.load_source(BIG.replace("set[Rec, 2]", "set[Rec]"))
    got = api.check(model, "compiled")
    assert got.engine == "reference" and got.stats.distinct_states == 4
    assert any("give it a capacity" in n for n in got.notes)


WIDE_FIELD = """
module wide_field
type Msg = variant { Req(term: 0..1), Stop }
var t: 0..2 = 0
var flag: bool = false
action Tick() { require t < 2  t := t + 1 }
action Probe() { flag := Req(term=t) is Req }
"""


def test_a_variant_built_from_a_wider_value_is_mc5001_on_both_engines():
    # Req(term=2): a variant's fields are checked when it is built, so the
    # error comes at Probe, though the value is never stored.
    model = api.load_source(WIDE_FIELD)
    ref = api.check(model, "reference", CheckOptions(deadlock=False))
    got = api.check(model, "compiled", CheckOptions(deadlock=False))
    assert got.engine == "compiled"
    assert got.error.diagnostic.code == ref.error.diagnostic.code == "MC5001"
    assert "field term of Req" in got.error.diagnostic.message
    assert len(got.error.trace.steps) == len(ref.error.trace.steps) == 3


PROBE = """
module probe
type Msg = variant { Req(term: 0..1), Stop }
var sent: set[Msg] = {}
var t: 0..2 = 0
var hit: bool = false
var pend: bag[Msg, 1] = {}
var c: 0..1 = 0
action Tick() { require t < 2  t := t + 1 }
action Send(x: 0..1) { sent := sent | {Req(term=x)} }
action Probe() { hit := Req(term=t) in sent }
action Put(x: 0..1) { require len(pend) < 1  pend := put(pend, Req(term=x)) }
action Count() { c := count(pend, Req(term=t)) }
"""


def test_looking_up_a_variant_with_a_wider_field_is_mc5001_on_both_engines():
    # Building Req(term=2) to look it up is already the error.
    model = api.load_source(PROBE)
    ref = api.check(model, "reference", CheckOptions(deadlock=False))
    got = api.check(model, "compiled", CheckOptions(deadlock=False))
    assert got.engine == "compiled"
    assert got.error.diagnostic.code == ref.error.diagnostic.code == "MC5001"
    assert len(got.error.trace.steps) == len(ref.error.trace.steps)
