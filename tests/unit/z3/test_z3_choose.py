"""``choose`` in the Z3 engines: the first element in the canonical order of
its type (Op.CHOOSE, the reference's ops._choose), over ints, enums, model
values, records and variants, with MC5008 on an empty set; every engine's
verdicts and shortest trace lengths are the reference explorer's."""
from __future__ import annotations

import pytest

from modelcheck import api
from modelcheck.engines.base import CheckOptions, Status
from modelcheck.engines.z3.induction import prove
from modelcheck.pipeline import load_source
from modelcheck.trace.replay import replay

from z3_harness import ENCODINGS

#: Each invariant holds exactly when choose takes the canonical first element;
#: ``Later`` is violated once the first element present is not the smallest.
ORDERS = """
module orders

type Node = model(3)
type Color = enum { red, green, blue }
type Cell = record { c: Color, k: 0..2 }
type Msg = variant { Ping(n: 0..2), Quit }

var nodes: set[Node] = Node
var colors: set[Color] = {}
var cells: set[Cell] = {}
var msgs: set[Msg] = {}
var x: 0..3 = 0

action Drop(n: Node) {
    require n in nodes and len(nodes) > 1
    nodes := nodes - {n}
}

action Paint(c: Color, k: 0..2) {
    require len(cells) < 2
    colors := colors | {c}
    cells := cells | {Cell(c=c, k=k)}
}

action Send(n: 0..2) {
    require len(msgs) < 2
    msgs := msgs | {Ping(n=n)}
}

action Stop() {
    require x < 3
    msgs := msgs | {Quit}
    x := x + 1
}

invariant FirstNode: all(choose(nodes) == n or choose(m for m in nodes if m != n) != n for n in nodes)
invariant FirstColor: len(colors) == 0 or all(choose(colors) == c or not (c in colors) or choose(colors) != c for c in Color)
invariant RedFirst: not (red in colors) or choose(colors) == red
invariant CellOrder: len(cells) == 0 or all(choose(cells).c == e.c or (choose(cells).c == red or e.c != red) for e in cells)
invariant PingFirst: not (Quit in msgs) or len(msgs) == 1 or choose(msgs) is Ping
invariant Later: len(colors) == 0 or choose(colors) != blue
"""

EMPTY = """
module empty_choice
var x: 0..2 = 0

action Inc() {
    require x < 2
    x := x + 1
}

invariant Chosen: choose(v for v in 0..2 if v > x) > x
"""


def verdicts(result):
    return {p.name: (p.status, p.steps) for p in result.properties}


@pytest.mark.parametrize("enc", ENCODINGS, ids=lambda e: f"{e.ints}-{e.sets}-{e.params}")
def test_bmc_chooses_as_the_reference_does(enc):
    model = load_source(ORDERS, "orders.mc")
    ref = verdicts(api.check(model, "reference", CheckOptions()))
    got = api.check(model, "bmc", CheckOptions(depth=3, extra={"z3_encoding": enc}))
    assert not any("choose" in (p.reason or "") for p in got.properties)
    for name, (status, steps) in verdicts(got).items():
        if name == "deadlock":
            continue
        if ref[name][0] is Status.VIOLATED and ref[name][1] <= 3:
            assert (status, steps) == ref[name], name
        else:
            assert status is Status.HOLDS_UP_TO_BOUND, name
    later = got.get_property("Later")
    assert later.status is Status.VIOLATED and replay(model, later.trace).ok


def test_choose_from_an_empty_set_is_mc5008_at_the_reference_depth():
    model = load_source(EMPTY, "empty.mc")
    ref = api.check(model, "reference", CheckOptions())
    got = api.check(model, "bmc", CheckOptions(depth=4))
    assert ref.error is not None and got.error is not None
    assert got.error.diagnostic.code == ref.error.diagnostic.code == "MC5008"
    assert len(got.error.trace) == len(ref.error.trace) == 2


def test_induction_proves_invariants_that_hold_by_the_canonical_order():
    # Each holds in every state, reachable or not, exactly when choose takes
    # the first element in the declared order (enum members, variant cases):
    # a proof of it is a proof of the encoding's order.
    model = load_source(ORDERS, "orders.mc")
    proof = prove(model, ["RedFirst", "PingFirst"])
    assert proof.get("RedFirst").status.name == "PROVED"
    assert proof.get("PingFirst").status.name == "PROVED"
