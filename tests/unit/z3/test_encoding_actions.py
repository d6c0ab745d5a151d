"""Statements and the transition relation: from random states, the Z3
encoding allows exactly the steps (action, parameters, next state) the
reference evaluator computes, flags a run-time error exactly where the
reference raises one, and agrees on enabledness; the initial states agree."""
from __future__ import annotations

import random

import pytest

from modelcheck.pipeline import load_source

from z3_harness import ENCODINGS, Probe, random_states

SPEC = """
module actions
type Node = model(3)
type Color = enum {red, green}
type Entry = record {term: 0..2, node: Node}

var x: 0..3 in {0, 2}
var k: -1..1 = 0
var s: set[Node] = {}
var m: map[Node, 0..2] = {n: 0 for n in Node}
var log: seq[Entry, 2] = []
var box: bag[Color, 2] = {}
var leader: option[Node] = none
var e: Entry = Entry(term=0, node=node1)

# require, let and a write that may leave the declared type (MC5001)
action Inc(n: Node) {
    require n in s or x == 0
    let y = x + m[n]
    x := y
}

# nested lvalues: m[n] and e.term
action Bump(n: Node) {
    require m[n] < 2
    m[n] := m[n] + 1
    e.term := if e.term < 2 then e.term + 1 else 0
}

# pick from a state-dependent set, then branch on it
action Elect() {
    pick n in s
    if m[n] > 0 {
        leader := some(n)
    } else {
        leader := none
        k := -1
    }
}

# either: several outcomes, one assigning a variable the other leaves alone
action Choose(c: Color) {
    either {
        box := put(box, c)
    } or {
        require c in box
        box := take(box, c)
        k := 1
    } or {
        s := s | {node2}
    }
}

# sequences: append may overflow (MC5001); head fails on empty (MC5003)
action Append(n: Node) {
    require is_some(leader)
    log := append(log, Entry(term=e.term, node=leader.value))
}

action Pop() {
    require len(log) > 0 or x == 3
    e := head(log)
    log := tail(log)
}

# division by a value that may be zero (MC5002), inside an if
action Divide() {
    if k != 1 {
        x := 3 // (k + 1)
    }
}

# pick from a bag, then require on the picked element
action Drain() {
    pick c in distinct(box)
    require c == green or x > 1
    box := take(box, c)
}

# option value of none raises MC5004 when leader is none and x == 1
action Follow() {
    require x == 1 or is_some(leader)
    s := s | {leader.value}
}

invariant Inv: x <= 3
terminal Done: x == 3
"""


@pytest.fixture(scope="module")
def model():
    return load_source(SPEC, "actions.mc")


@pytest.mark.parametrize("options", ENCODINGS, ids=lambda o: f"{o.ints}-{o.sets}-{o.params}")
def test_successors_errors_and_enabledness_agree(model, options):
    probe = Probe(model, options)
    rng = random.Random(99)
    outcomes = {"error": 0, "steps": 0, "stuck": 0}
    for values in random_states(model, rng, 20):
        want = probe.ref_successors(values)
        assert probe.z3_faults(values) == (want == "error"), values
        if want == "error":
            outcomes["error"] += 1
            continue
        got = probe.z3_successors(values)
        assert got == want, values
        assert probe.z3_enabled(values) == bool(want), values
        outcomes["steps" if want else "stuck"] += 1
    assert outcomes["error"] > 0 and outcomes["steps"] > 0, outcomes


@pytest.mark.parametrize("options", ENCODINGS[:2], ids=lambda o: f"{o.ints}-{o.sets}")
def test_initial_states_agree(model, options):
    probe = Probe(model, options)
    assert probe.z3_initial() == probe.ref_initial()
    assert len(probe.ref_initial()) == 2
