"""``pick each x in S: y in T if P`` (docs/language.md, "A witness for each
element"): TLA+'s ``\\A x \\in S : \\E y \\in T : P`` in an action, with TLC's
successors (one per combination of witnesses), lowered to existing
statements."""
from __future__ import annotations

import pytest

from modelcheck import api
from modelcheck.engines.base import Status
from modelcheck.errors import CompileError
from modelcheck.ir import nodes as ir
from modelcheck.ir import visit

HEADER = """module each_test
type Node = model(3)
var val: map[Node, 0..2] = {n: 0 for n in Node}
var up: set[Node] = {}
var q: seq[0..2, 3] = []
var done: bool = false
"""


def _load(tmp_path, text):
    path = tmp_path / "each_test.mc"
    path.write_text(HEADER + text)
    return api.load(str(path))


def _generated(tmp_path, init: str, guard: str) -> int:
    """States generated from one initial state by one action with the guard."""
    text = f"""
action Go() {{
    require not done and {init}
    {guard}
    done := true
}}
terminal Done: done
"""
    result = api.check(_load(tmp_path, text.replace("HEADER", "")), engine="reference")
    assert result.error is None, result.error
    return result.stats.generated_states


def _spec(tmp_path, body: str):
    text = f"""
action Go() {{
    require not done
    {body}
    done := true
}}
terminal Done: done
"""
    return _load(tmp_path, text)


@pytest.mark.parametrize("body,successors", [
    # over a type: the product of the witness counts (1 * 1 * 1 with val all 0)
    ("pick each n in Node: v in 0..2 if v <= val[n]", 1),
    ("pick each n in Node: v in 0..2 if true", 27),
    ("pick each n in Node: m in Node if m != n", 8),
    # a witness domain that depends on x
    ("pick each n in Node: m in Node - {n} if true", 8),
    # an x without a witness disables the action
    ("pick each n in Node: v in 0..2 if v > 2", 0),
    # an empty set: one successor
    ("pick each n in up: v in 0..2 if true", 1),
    # over a constant set and over a sequence's elements
    ("pick each i in {0, 2}: v in 0..i if true", 3),
    ("pick each i in [1, 2, 1]: v in 0..i if true", 6),
])
def test_successors_are_the_product_of_witness_counts(tmp_path, body, successors):
    result = api.check(_spec(tmp_path, body), engine="reference")
    assert result.error is None, result.error
    assert result.stats.generated_states == 1 + successors
    assert result.stats.distinct_states == (2 if successors else 1)


def test_a_set_read_from_the_state(tmp_path):
    # up grows one node at a time; Go counts val[n] + 1 witnesses per node up
    text = """
action Up(n: Node) {
    require n not in up and not done
    up := up | {n}
}
action Bump(n: Node) {
    require n in up and val[n] < 1 and not done
    val[n] := val[n] + 1
}
action Go() {
    require not done and len(up) == 2
    pick each n in up: v in 0..2 if v <= val[n]
    done := true
}
terminal Done: done
"""
    model = _load(tmp_path, text)
    ref = api.check(model, engine="reference")
    plain = api.check(_load(tmp_path, text.replace(
        "pick each n in up: v in 0..2 if v <= val[n]",
        "require all(any(v <= val[n] for v in 0..2) for n in up)")), engine="reference")
    assert ref.error is None and plain.error is None
    assert ref.stats.distinct_states == plain.stats.distinct_states
    # Go from each of the 3 pairs of nodes up with val in {0,1}^2: sum of
    # (a + 1)(b + 1) over a, b in {0, 1} is 9 per pair, 27 against 12
    assert ref.stats.generated_states - plain.stats.generated_states == 27 - 12


def test_names_do_not_leak_and_binders_stay_unique(tmp_path):
    model = _spec(tmp_path, "pick each n in Node: m in Node if m != n and val[m] >= val[n]")
    go = next(a for a in model.actions if a.name == "Go")
    names = visit.binders(go)
    assert len(names) == len(set(names))
    assert sum(isinstance(s, ir.Pick) for s in visit.walk_stmts(go.body)) == 3
    with pytest.raises(CompileError) as info:
        _spec(tmp_path, "pick each n in Node: m in Node if m != n\n    require m == n")
    assert info.value.diagnostics[0].code == "MC2001"


def test_each_is_still_a_name_and_the_filter_is_required(tmp_path):
    result = api.check(_load(tmp_path, "var each: bool = true\ninvariant E: each\n"),
                       engine="reference")
    assert all(p.status is Status.HOLDS for p in result.properties if p.name == "E")
    with pytest.raises(CompileError) as info:
        _spec(tmp_path, "pick each n in Node: m in Node\n    require true")
    assert info.value.diagnostics[0].code.startswith("MC1")


def test_a_state_set_over_a_large_type_is_mc4007(tmp_path):
    text = """
var big: set[0..99, 2] = {}
action Go() {
    require not done
    pick each i in big: v in 0..1 if true
    done := true
}
"""
    with pytest.raises(CompileError) as info:
        _load(tmp_path, text)
    assert info.value.diagnostics[0].code == "MC4007"
