"""Set capacities (``set[T, cap]``) in the Z3 engines: a write past the
capacity is the reference's MC5001, states hold at most ``cap`` elements
(so an invariant about it is inductive), and a set over more elements than
the encoding enumerates without a capacity, or a bag over one, is declined
with the reason (UNKNOWN), never answered wrongly (tests/unit/z3/
test_z3_sparse_sets.py has the sets over large types that have one)."""
from __future__ import annotations

import pytest

from modelcheck import api
from modelcheck.engines.base import CheckOptions, Status
from modelcheck.engines.z3.induction import prove
from modelcheck.engines.z3.pdr import pdr
from modelcheck.pipeline import load_source

from z3_harness import ENCODINGS

CAPPED = """
module capped

type Msg = variant {
    Ping(n: 0..2),
    Quit,
}

var seen: set[0..7, 2] = {}
var msgs: set[Msg, 2] = {}

action Add(x: 0..7) {
    require len(seen) < 2 or x in seen
    seen := seen | {x}
}

action Post(n: 0..2) {
    msgs := msgs | {Ping(n=n)}
}

invariant Two: len(seen) <= 2 and len(msgs) <= 2
"""

BIG = """
module big

type Big = record { a: 0..99, b: 0..99 }

var s: set[Big] = {}
var g: bag[Big, 2] = {}

action Add(x: 0..9) {
    require len(s) < 2
    s := s | {Big(a=x, b=x)}
}

action Keep(x: 0..9) {
    require len(g) < 2
    g := put(g, Big(a=x, b=x))
}

invariant Two: len(s) <= 2
"""


@pytest.mark.parametrize("enc", ENCODINGS, ids=lambda e: f"{e.ints}-{e.sets}-{e.params}")
def test_a_write_past_the_capacity_is_the_references_mc5001(enc):
    model = load_source(CAPPED, "capped.mc")
    ref = api.check(model, "reference", CheckOptions())
    got = api.check(model, "bmc", CheckOptions(depth=4, extra={"z3_encoding": enc}))
    assert ref.error.diagnostic.code == got.error.diagnostic.code == "MC5001"
    # The third Post: msgs would hold three pings.
    assert len(got.error.trace) == len(ref.error.trace) == 2
    assert "'msgs'" in got.error.diagnostic.message


def test_states_hold_at_most_the_capacity():
    # Sum is inductive only over states within the capacities: from seen
    # with three elements and one message, Post would make it 5.
    model = load_source(CAPPED.replace("msgs := msgs | {Ping(n=n)}",
                                       "require len(msgs) < 2\n    msgs := msgs | {Ping(n=n)}")
                        + "invariant Sum: len(seen) + len(msgs) <= 4\n", "capped.mc")
    assert api.check(model, "bmc", CheckOptions(depth=3)).error is None
    assert prove(model, ["Sum"]).get("Sum").status.name == "PROVED"
    assert pdr(model, ["Sum"], timeout=30).get("Sum").status.name == "PROVED"


def test_a_set_over_a_large_type_without_a_capacity_is_declined_with_the_reason():
    model = load_source(BIG, "big.mc")
    got = api.check(model, "bmc", CheckOptions(depth=2))
    prop = got.get_property("Two")
    assert prop.status is Status.UNKNOWN
    # The details once, as the run's reason; each property names the refusal only.
    assert "set[Big] is over 10,000 elements and has no capacity" in got.reason
    assert prop.reason == "the Z3 encoding does not support this spec"
    proof = prove(model).get("Two")
    assert proof.status.name == "UNKNOWN" and "give it one (set[Big, cap])" in proof.reason
    # The reference answers it.
    assert api.check(model, "reference", CheckOptions()).get_property("Two").status is Status.HOLDS


def test_a_bag_over_a_large_type_is_checked():
    # Sorted copies (sparsebags.py): see test_z3_sparse_bags.py.
    model = load_source(BIG.replace("var s: set[Big] = {}", "var s: set[Big, 2] = {}")
                        + "invariant Few: len(g) <= 1\n", "big.mc")
    got = api.check(model, "bmc", CheckOptions(depth=3))
    assert got.get_property("Two").status is Status.HOLDS_UP_TO_BOUND
    few = got.get_property("Few")
    assert (few.status, few.steps) == (Status.VIOLATED, 2)
    assert prove(model, ["Two"]).get("Two").status.name == "PROVED"
