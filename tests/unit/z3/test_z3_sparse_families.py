"""Capped sets of records small enough for bits, but far larger than their
capacity, are encoded sparsely (``sparse.sparse_families``); actions with too
many bindings to expand take their parameters as unknowns
(``stmts.EXPAND_BINDINGS``).  Both as the reference explorer answers."""
from __future__ import annotations

import pytest

from modelcheck import api
from modelcheck.engines.base import CheckOptions, Status
from modelcheck.engines.z3 import encoding as encoding_module
from modelcheck.engines.z3 import sparse, stmts
from modelcheck.engines.z3.encoding import Encoding
from modelcheck.engines.z3.sparse import family, sparse_families
from modelcheck.engines.z3.symbolic import SSet, SSparse
from modelcheck.ir.nodes import PropertyKind
from modelcheck.ir.types import IntType
from modelcheck.pipeline import load_source

# 3,000 possible messages, at most 3 at a time.  As 3,000 bits this took
# over 10 minutes to depth 1; the same spec with ``val: 0..1`` 0.1 s.
WIDE = """
module wide
type Node = model(3)
type Msg = record { src: Node, val: 0..999 }

var msgs: set[Msg, 3] = {}
var sent: 0..5 = 0

action Send(n: Node, v: 0..999) {
    require sent < 5 and len(msgs) < 3
    msgs := msgs | {Msg(src=n, val=v)}
    sent := sent + 1
}

action Drop(m: Msg) {
    require m in msgs
    msgs := msgs - {m}
}

invariant Few: len(msgs) <= 3
"""

SMALL = """
module small
type Node = model(2)
type Msg = record { src: Node, val: 0..2 }

var msgs: set[Msg, 2] = {}
var sent: 0..3 = 0

action Send(n: Node, v: 0..1) {
    require sent < 3 and len(msgs) < 2
    msgs := msgs | {Msg(src=n, val=v)}
    sent := sent + 1
}

action Bump(m: Msg) {
    require m in msgs and m.val < 2
    msgs := (msgs - {m}) | {m with .val = m.val + 1}
}

action Drop(m: Msg) {
    require m in msgs and m.val == 2
    msgs := msgs - {m}
}

invariant Low: all(m.val < 2 for m in msgs)
invariant Single: len(msgs) <= 1
sometimes Both: len({m.src for m in msgs}) == 2
"""


def bmc(model, **kw):
    return api.check(model, engine="bmc", options=CheckOptions(**kw))


def test_a_capped_set_of_records_with_a_wide_field_is_encoded_by_its_elements() -> None:
    model = load_source(WIDE, "wide.mc")
    assert isinstance(Encoding(model).state("s:").vars["msgs"], SSparse)
    # The timeout bounds a hang (before: UNKNOWN, "timeout"), it is no measure.
    result = bmc(model, depth=3, timeout_s=120)
    assert result.reason == "bounded model checking up to depth 3"
    assert {p.name: p.status for p in result.properties} == {
        "Few": Status.HOLDS_UP_TO_BOUND, "deadlock": Status.HOLDS_UP_TO_BOUND}


def test_which_families_are_sparse() -> None:
    model = load_source(WIDE, "wide.mc")
    msg = next(v for v in model.vars if v.name == "msgs").type.elem
    assert sparse_families(model) == {family(msg)}
    # The shapes a message takes in expressions are of its family.
    wider = type(msg)(None, (("src", msg.fields[0][1]), ("val", IntType(0, 1000))))
    assert family(wider) == family(msg)
    for change in ("set[Msg]",          # no capacity: a sparse set needs one
                   "set[Msg, 500]"):    # bits cost less than 500 slots
        other = load_source(WIDE.replace("set[Msg, 3]", change), "wide.mc")
        assert sparse_families(other) == frozenset()
    # One declaration without a capacity keeps the whole family in bits.
    both = load_source(WIDE.replace("var sent", "var seen: set[Msg] = {}\nvar sent"), "wide.mc")
    assert sparse_families(both) == frozenset()


@pytest.mark.parametrize("forced", [False, True])
def test_sparse_records_and_unknown_parameters_agree_with_the_reference(forced, monkeypatch):
    if forced:
        # This spec's 9 messages and 4 bindings, encoded as a wide one is.
        monkeypatch.setattr(sparse, "SPARSE_MIN_DOMAIN", 1)
        monkeypatch.setattr(sparse, "SPARSE_RATIO", 1)
        monkeypatch.setattr(stmts, "EXPAND_BINDINGS", 1)
        monkeypatch.setattr(encoding_module, "EXPAND_BINDINGS", 1)
    model = load_source(SMALL, "small.mc")
    state = Encoding(model).state("s:")
    assert isinstance(state.vars["msgs"], SSparse if forced else SSet)
    ref = api.check(model, engine="reference")
    depth = max([p.steps for p in ref.properties if p.steps is not None] + [ref.stats.depth - 1])
    got = bmc(model, depth=depth)
    assert got.error is None and ref.error is None
    for want in ref.properties:
        have = got.get_property(want.name)
        if want.trace is not None:
            assert (have.status, have.steps) == (want.status, want.steps), want.name
        elif want.kind is not PropertyKind.SOMETIMES:
            assert have.status is Status.HOLDS_UP_TO_BOUND, want.name
