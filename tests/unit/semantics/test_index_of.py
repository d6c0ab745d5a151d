"""``index_of(s, x)``: the first position of x in s, ``none`` when x is not
in s (docs/language.md, "Sequences"), lowered in the front end."""
from __future__ import annotations

import pytest

from modelcheck import api
from modelcheck.engines.base import Status
from modelcheck.errors import CompileError
from modelcheck.ir import types as T

SPEC = """module idx
var q: seq[0..3, 3] = []
var found: option[0..2] = none

action Push(v: 0..3) {
    require len(q) < 3
    q := append(q, v)
}

action Find(v: 0..3) {
    found := index_of(q, v)
}

action FindComputed() {
    found := index_of([x for x in q if x > 0], len(q))
}

invariant Missing: all(is_none(index_of(q, v)) == (v not in q) for v in 0..3)
invariant Earliest: all(q[index_of(q, v).value] == v
                        and all(q[j] != v for j in 0..index_of(q, v).value - 1)
                        for v in 0..3 if v in q)
invariant Literal: index_of([2, 1, 2], 2) == some(0) and index_of([2, 1, 2], 1) == some(1)
                   and index_of([2, 1, 2], 3) == none
"""


@pytest.mark.parametrize("engine", ["reference", "compiled"])
def test_index_of_finds_the_first_position(tmp_path, engine):
    path = tmp_path / "idx.mc"
    path.write_text(SPEC)
    result = api.check(api.load(str(path)), engine=engine)
    assert result.error is None, result.error
    assert result.stats.distinct_states == 265
    assert all(p.status is Status.HOLDS for p in result.properties), result.properties


def test_index_of_types_and_errors(tmp_path):
    path = tmp_path / "idx.mc"
    path.write_text(SPEC)
    model = api.load(str(path))
    find = next(a for a in model.actions if a.name == "Find")
    assert find.body[-1].value.type == T.OptionType(T.IntType(0, 2))
    path.write_text(SPEC + "invariant Bad: index_of(q, true) == none\n")
    with pytest.raises(CompileError) as info:
        api.load(str(path))
    assert info.value.diagnostics[0].code in ("MC3001", "MC3002")


def test_a_spec_may_declare_index_of(tmp_path):
    path = tmp_path / "own.mc"
    path.write_text("""module own
var q: seq[0..3, 3] = [1]
def index_of(s: seq[0..3, 3], x: 0..3) -> 0..3 = x
invariant Own: index_of(q, 2) == 2
""")
    result = api.check(api.load(str(path)), engine="reference")
    assert all(p.status is Status.HOLDS for p in result.properties if p.name == "Own")
