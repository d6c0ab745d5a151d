"""Type and name errors that Python and TLA+ habits cause carry a hint with the
language's form, in the spec's own names (semantics/hints.py)."""
from __future__ import annotations

import pytest

BAG = "var net: bag[Color, 3] = {}\n"
SEQ = "var q: seq[0..3, 3] = [1]\n"
OPT = "var leader: option[Node] = none\n"


@pytest.mark.parametrize("body, code, message, hint", [
    (BAG + "action A(c: Color) { net := net - {c} }", "MC3002",
     "'-' needs two ints or two sets, found bag[Color, 3] and bag[Color, 1]",
     "a bag removes one copy of an element with take: take(net, c)"),
    (BAG + "action A(c: Color) { net := net + {c} }", "MC3002",
     "'+' needs two ints or two sequences, found bag[Color, 3] and bag[Color, 1]",
     "a bag adds one copy of an element with put: put(net, c)"),
    (BAG + "action A() { net := net | {red} }", "MC3002",
     "'|' (union) needs two sets, found bag[Color, 3] and bag[Color, 1]",
     "a bag adds one copy of an element with put: put(net, red)"),
    ("action A(n: Node) { s := put(s, n) }", "MC3002", "put() needs a bag, found set[Node]",
     "a set adds an element with '|': s | {n}"),
    ("action A(n: Node) { s := take(s, n) }", "MC3002", "take() needs a bag, found set[Node]",
     "a set removes an element with '-': s - {n}"),
    (OPT + "invariant P: leader == node1", "MC3002",
     "cannot compare option[Node] with Node",
     "an option is none or some(v): compare with some(...), leader == some(node1), or "
     "compare its value, leader.value == node1 (when is_some(leader))"),
    (OPT + "invariant P: node2 != leader", "MC3002",
     "cannot compare Node with option[Node]",
     "an option is none or some(v): compare with some(...), some(node2) != leader, or "
     "compare its value, leader.value != node2 (when is_some(leader))"),
    (SEQ + "invariant P: q[-1] == 1", "MC3008",
     "sequence index -1 is negative: there are no negative indexes",
     "indexes count from 0, so the last element is q[len(q) - 1]"),
    (SEQ + "invariant P: q[-x - 1] == 1", "MC3008",
     "this sequence index is always negative (-4..-1): there are no negative indexes",
     "indexes count from 0, so the last element is q[len(q) - 1]"),
    ("action Inc() { x := 1 }\naction B() {\n    require Inc()\n}", "MC3009",
     "'Inc' is an action, not a function", "cannot be called"),
    ("var leader: Node = node1\ninvariant P: leader == Node1", "MC2001",
     "unknown name 'Node1'", "did you mean 'node1'?"),
    ("invariant P: Red == red", "MC2001", "unknown name 'Red'", "did you mean 'red'?"),
])
def test_habit_hint(spec_errors, body, code, message, hint):
    (d,) = spec_errors(body)
    assert (d.code, d.message) == (code, message)
    assert hint in (d.hint or "")


def test_a_negative_index_that_may_be_valid_is_left_to_run_time(compile_spec):
    compile_spec(SEQ + "invariant P: len(q) == 0 or q[len(q) - 1] >= 0")


def test_a_misspelt_model_value_is_offered_the_value(spec_errors):
    (d,) = spec_errors("invariant P: nod1 == node1")
    assert d.hint == "did you mean 'node1'?"
