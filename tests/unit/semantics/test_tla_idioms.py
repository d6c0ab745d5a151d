"""TLA+ idioms: sequences (comprehensions, membership, elems, last), choose
(TLC's CHOOSE) and narrowing to one case of a variant (docs/tla.md)."""
from __future__ import annotations

import pytest

from modelcheck import api
from modelcheck.engines.base import Status
from modelcheck.errors import CompileError
from modelcheck.ir import nodes as ir
from modelcheck.ir import visit
from modelcheck.ir.ops import Op

HEADER = """module idioms
type Node = model(3)
type Msg = variant { Req(term: 0..2, src: Node), Ack(ok: bool), Stop }
var q: seq[0..3, 3] = [3, 1, 3]
var msgs: set[Msg, 3] = {Ack(ok=true), Req(term=2, src=node2), Req(term=1, src=node3)}
var n: 0..3 = 0
action Tick() {
    require n < 1
    n := n + 1
}
"""


def _load(tmp_path, text, name="idioms.mc"):
    path = tmp_path / name
    path.write_text(HEADER + text)
    return api.load(str(path))


def _holds(tmp_path, *invariants):
    text = "".join(f"invariant P{i}: {inv}\n" for i, inv in enumerate(invariants))
    result = api.check(_load(tmp_path, text), engine="reference")
    assert result.error is None, result.error
    bad = [p.name for p in result.properties if p.name != "deadlock" and p.status is not Status.HOLDS]
    assert not bad, [invariants[int(b[1:])] for b in bad]


def _error(tmp_path, text):
    with pytest.raises(CompileError) as info:
        _load(tmp_path, text)
    return [d.code for d in info.value.diagnostics]


def test_sequence_operations(tmp_path):
    _holds(tmp_path,
           "last(q) == 3 and elems(q) == {1, 3}",
           "1 in q and 2 not in q and (n * 2 + 1) in q",
           "[2 * x for x in q if x != 1] == [6, 6]",
           "[x for x in q] == q and [i * i for i in 1..3] == [1, 4, 9]",
           "[i for i in {2, 0, 1}] == [0, 1, 2]",
           "sum(x for x in q) == 7 and sum(x for x in elems(q)) == 4",
           "all(x % 2 == 1 for x in q) and any(x == 1 for x in tail(q))",
           "{x + y for x in q for y in q} == {2, 4, 6}",
           "[x for x in append(q, 0) if x < 3] == [1, 0]",
           "len([x for x in q if x > 5]) == 0")


def test_pick_from_a_sequence_takes_each_distinct_element(tmp_path):
    model = _load(tmp_path, "action Take() {\n pick x in q\n require n == 0\n n := x }\n")
    result = api.check(model, engine="reference")
    assert result.stats.action_counts["Take"] == 2   # 3 and 1, once each


def test_choose_is_the_first_in_canonical_order(tmp_path):
    _holds(tmp_path,
           "choose(Node) == node1 and choose({node3, node2}) == node2",
           "choose(m for m in msgs if m is Req) == Req(term=1, src=node3)",
           "choose(msgs) == Req(term=1, src=node3)",
           "choose(x * 10 for x in elems(q) if x > 1) == 30")


def test_choose_from_an_empty_set_is_a_runtime_error(tmp_path):
    model = _load(tmp_path, "invariant P: choose(x for x in elems(q) if x > n + 2) > 0\n")
    result = api.check(model, engine="reference")
    assert result.error is not None and result.error.diagnostic.code == "MC5008"
    assert len(result.error.trace.steps) == 2   # the initial state and Tick


def test_choose_lowers_to_one_op(tmp_path):
    expr = _load(tmp_path, "invariant P: choose(Node) == node1\n").get_property("P").expr
    assert [e.op for e in visit.walk(expr) if isinstance(e, ir.Apply)][:2] == [Op.EQ, Op.CHOOSE]


def test_narrowing_reads_the_case_fields(tmp_path):
    _holds(tmp_path,
           "all(m.term >= 1 for m: Req in msgs)",
           "sum(m.term for m: Req in msgs) == 3 and {m.src for m: Req in msgs if m.term > 1} == {node2}",
           "choose(m.src for m: Req in msgs) == node3 and any(m.ok for m: Ack in msgs)")


def test_pick_of_a_case_and_if_is_as(tmp_path):
    text = """action Answer() {
    pick m: Req in msgs
    require n == 0
    if m.src is node3 { n := m.term } else { n := 3 }
}
action Read() {
    pick m in msgs
    if m is Ack as a {
        require a.ok and n == 0
        n := 2
    } else {
        require m is Req as r
        require r.term == 2 and n == 0
        n := 3
    }
}
"""
    # 'm.src is node3' is not a variant test: write it as a comparison
    text = text.replace("if m.src is node3", "if m.src == node3")
    result = api.check(_load(tmp_path, text), engine="reference")
    assert result.stats.action_counts["Answer"] == 2
    assert result.stats.action_counts["Read"] == 2


def test_narrowing_errors(tmp_path):
    assert _error(tmp_path, "invariant P: msgs != {} and (choose(msgs) is Req as r)\n") == ["MC3009"]
    assert _error(tmp_path, "invariant P: all(true for m: Nope in msgs)\n") == ["MC2001"]
    assert _error(tmp_path, "invariant P: all(true for x: Req in q)\n") == ["MC3002"]
    assert _error(tmp_path, "invariant P: any(m.term == 1 for m in msgs)\n") == ["MC3014"]


def test_last_and_elems_give_way_to_a_declaration(tmp_path):
    model = _load(tmp_path, "var last: 0..3 = 0\ndef elems(x: 0..3) -> 0..3 = x\n"
                  "invariant P: last == elems(0)\n")
    assert api.check(model, engine="reference").properties[0].status is Status.HOLDS


def test_a_sequence_comprehension_is_bounded(tmp_path):
    assert _error(tmp_path, "invariant P: len([i for i in 0..300]) > 0\n") == ["MC3011"]
    assert _error(tmp_path, "invariant P: len([(x, y) for x in q for y in q]) > 0\n") == ["MC3011"]
