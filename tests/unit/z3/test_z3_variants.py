"""Variants in the Z3 engines: a tag plus one canonical record per case,
shortest counterexamples through a ``match``, decoded traces that the
reference replays, variants inside sets, maps, options, records and
sequences, and a field past its declared bound inside a set (MC5001)."""
from __future__ import annotations

import pytest
import z3

from modelcheck import api
from modelcheck.engines.base import CheckOptions, Status
from modelcheck.engines.z3.encoding import Encoding
from modelcheck.engines.z3.induction import prove
from modelcheck.ir.values import FrozenDict, Variant, domain
from modelcheck.pipeline import load_source
from modelcheck.trace.replay import replay

from z3_harness import ENCODINGS

PINGS = """
module pings

type Msg = variant {
    Ping(n: 0..3),
    Pong(n: 0..3, ok: bool),
    Quit,
}

var net: set[Msg] = {}
var sent: 0..3 = 0
var last: option[Msg] = none

action Send() {
    require sent < 3
    net := net | {Ping(n=sent)}
    sent := sent + 1
}

action Answer() {
    pick m in net
    match m {
        Ping as p { net := (net - {m}) | {Pong(n=p.n, ok=p.n >= 1)} }
        Pong as p {
            require p.ok and p.n == 2
            net := net | {Quit}
        }
        Quit { net := net - {m} }
    }
    last := some(m)
}

def n_of(m: Msg) -> 0..3 = match m {
    Ping as p => p.n,
    Pong as p => p.n,
    _ => 0,
}

invariant NoQuit: not (Quit in net)
invariant Small: all(n_of(m) <= 2 for m in net)
invariant LastNotQuit: not (is_some(last) and last.value is Quit)
"""

BOXES = """
module boxes

type Node = enum { a, b }
type Msg = variant {
    Ping(n: 0..2),
    Pong(n: 0..2),
    Quit,
}
type Env = record { to: Node, msg: Msg }

var box: map[Node, option[Msg]] = {k: none for k in Node}
var log: seq[Env, 2] = []

action Deliver(k: Node, n: 0..2) {
    require is_none(box[k])
    box := box with [k] = some(Ping(n=n))
}

action Put(k: Node, m: Msg) {
    require is_none(box[k]) and not (m is Ping)
    box := box with [k] = some(m)
}

action Answer(k: Node) {
    require is_some(box[k]) and len(log) < 2
    let m = box[k].value
    match m {
        Ping as p {
            box := box with [k] = some(Pong(n=p.n))
            log := append(log, Env(to=k, msg=m))
        }
        Pong as p {
            require p.n == 2
            box := box with [k] = some(Quit)
        }
        Quit { box := box with [k] = none }
    }
}

invariant NoQuitInA: box[a] != some(Quit)
invariant LogPings: all(log[i].msg is Ping for i in 0..len(log) - 1)
"""


def check(model, depth, enc=None):
    extra = {} if enc is None else {"z3_encoding": enc}
    return api.check(model, "bmc", CheckOptions(depth=depth, extra=extra))


def verdicts(result):
    return {p.name: (p.status, p.steps if p.trace is not None else None)
            for p in result.properties}


@pytest.mark.parametrize("enc", ENCODINGS, ids=lambda e: f"{e.ints}-{e.sets}-{e.params}")
def test_bmc_finds_the_shortest_counterexamples_through_a_match(enc):
    model = load_source(PINGS, "pings.mc")
    got = verdicts(check(model, 6, enc))
    # The reference: Quit is in the net after 3 sends and 2 answers, and
    # is the last message taken one answer later.
    assert got["NoQuit"] == (Status.VIOLATED, 5)
    assert got["LastNotQuit"] == (Status.VIOLATED, 6)
    assert got["Small"] == (Status.HOLDS_UP_TO_BOUND, None)
    ref = api.check(model, "reference", CheckOptions())
    assert {n: s for n, (s, _) in verdicts(ref).items() if s is Status.VIOLATED} == {
        "NoQuit": Status.VIOLATED, "LastNotQuit": Status.VIOLATED}
    assert ref.get_property("NoQuit").steps == 5


def test_the_trace_holds_variant_values_and_replays():
    model = load_source(PINGS, "pings.mc")
    prop = check(model, 6).get_property("LastNotQuit")
    assert replay(model, prop.trace).ok
    last = prop.trace.steps[-1].state
    assert last["last"] == Variant("Quit", FrozenDict())
    assert Variant("Pong", FrozenDict({"n": 2, "ok": True})) in prop.trace.steps[-2].state["net"]


@pytest.mark.parametrize("enc", ENCODINGS[:2], ids=lambda e: f"{e.ints}-{e.sets}")
def test_variants_in_maps_options_records_and_sequences_agree_with_the_reference(enc):
    model = load_source(BOXES, "boxes.mc")
    ref = api.check(model, "reference", CheckOptions())
    got = check(model, 4, enc)
    for p in ref.properties:
        mine = got.get_property(p.name)
        if p.status is Status.VIOLATED and p.steps <= 4:
            assert mine.status is Status.VIOLATED and mine.steps == p.steps, p.name
            assert replay(model, mine.trace).ok
        else:
            assert mine.status is Status.HOLDS_UP_TO_BOUND, p.name
    # Put(a, Quit) puts it there in one step.
    assert got.get_property("NoQuitInA").steps == 1


def test_induction_proves_an_invariant_over_variants():
    model = load_source(PINGS, "pings.mc")
    proof = prove(model, ["Small"]).get("Small")
    assert proof.status.name == "PROVED"
    boxes = load_source(BOXES, "boxes.mc")
    assert prove(boxes, ["LogPings"]).get("LogPings").status.name == "PROVED"


def test_a_field_past_its_bound_inside_a_set_is_the_references_mc5001():
    # Ping(n=3) is sent third and is not a Msg: the reference stops there.
    text = PINGS.replace("Ping(n: 0..3)", "Ping(n: 0..2)").replace("{Ping(n=sent)}",
                                                                  "{Ping(n=sent + 1)}")
    model = load_source(text, "pings.mc")
    ref = api.check(model, "reference", CheckOptions())
    got = check(model, 6)
    assert got.error is not None and got.error.diagnostic.code == "MC5001"
    assert ref.error.diagnostic.code == "MC5001"
    assert len(got.error.trace) == len(ref.error.trace)
    assert got.error.diagnostic.message == ref.error.diagnostic.message


LOOKED_UP = """
module looked_up
type Msg = variant { Req(term: 0..1), Stop }
var t: 0..2 = 0
var seen: bool = false
action Tick() { require t < 2  t := t + 1 }
action Look() { seen := Req(term=t) is Req }
invariant Bounded: t <= 2
"""


def test_a_field_past_its_bound_is_mc5001_where_the_variant_is_built():
    # Req(term=2) is never stored, only tested: the error is at its building.
    model = load_source(LOOKED_UP, "looked_up.mc")
    ref = api.check(model, "reference", CheckOptions(deadlock=False))
    got = check(model, 4)
    assert got.error is not None and got.error.diagnostic.code == ref.error.diagnostic.code
    assert len(got.error.trace) == len(ref.error.trace)
    assert got.error.diagnostic.message == ref.error.diagnostic.message


def test_equal_values_have_equal_fields():
    # The cases not taken hold their defaults, so equality by meaning and
    # equality field by field agree on well-formed values.
    model = load_source(PINGS, "pings.mc")
    enc = Encoding(model)
    msg = model.var("last").type.elem
    sy = enc.sy
    wf: list = []
    x, y = sy.fresh(msg, "x", wf), sy.fresh(msg, "y", wf)
    s = z3.Solver()
    s.add(*wf, sy.eq(x, y), z3.Not(sy.same(x, y)))
    assert s.check() == z3.unsat
    values = domain(msg)
    for v in values:
        for w in values:
            same = z3.simplify(sy.eq(sy.const(v, msg), sy.const(w, msg)))
            assert z3.is_true(same) == (v == w)
    s = z3.Solver()
    s.add(*wf, z3.Not(sy.eq(x, sy.const(Variant("Quit", FrozenDict()), msg))),
          z3.Not(sy.eq(x, sy.const(Variant("Ping", FrozenDict({"n": 0})), msg))))
    assert s.check() == z3.sat
    assert sy.decode(s.model(), x) in values
