"""The value layer every engine shares: domains, canonical order, type membership."""
from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from modelcheck.ir.types import (BOOL, BagType, EnumType, IntType, MapType, ModelType, OptionType,
                                 RecordType, SeqType, SetType, TupleType, join, render_type)
from modelcheck.ir.values import (FrozenDict, domain, domain_size, in_type, order_key,
                                  render_value, sort_values)

NODE = ModelType("Node", ("node1", "node2", "node3"), symmetric=True)
COLOR = EnumType("Color", ("red", "green"))
MSG = RecordType("Msg", (("term", IntType(0, 2)), ("to", NODE)))

SMALL_TYPES = [
    BOOL, IntType(-1, 2), COLOR, NODE, OptionType(IntType(0, 2)), SetType(COLOR),
    SetType(NODE), MapType(COLOR, BOOL), SeqType(COLOR, 2), BagType(COLOR, 2),
    TupleType((BOOL, COLOR)), MSG, MapType(NODE, OptionType(NODE)),
]


@pytest.mark.parametrize("t", SMALL_TYPES, ids=render_type)
def test_domain_matches_size_and_is_in_type(t):
    values = domain(t)
    assert len(values) == domain_size(t)
    assert len(set(values)) == len(values), "domain has duplicates"
    assert all(in_type(t, v) for v in values)


@pytest.mark.parametrize("t", SMALL_TYPES, ids=render_type)
def test_domain_is_in_canonical_order_for_atomic_types(t):
    values = list(domain(t))
    if isinstance(t, (IntType, EnumType, ModelType)) or t == BOOL:
        assert sort_values(t, values) == values
    # every type: sorting is a total, deterministic order
    assert sort_values(t, reversed(values)) == sort_values(t, values)


def test_in_type_checks_bounds_and_capacities_deeply():
    assert not in_type(IntType(0, 3), 4)
    assert not in_type(IntType(0, 3), True), "bools are not ints"
    assert not in_type(SeqType(COLOR, 1), ("red", "red"))
    assert not in_type(BagType(COLOR, 2), FrozenDict({"red": 3}))
    assert not in_type(MSG, FrozenDict({"term": 3, "to": "node1"}))
    assert not in_type(MapType(COLOR, BOOL), FrozenDict({"red": True}))
    assert in_type(MapType(COLOR, BOOL), FrozenDict({"red": True, "green": False}))


def test_frozendict_is_hashable_and_compares_by_content():
    a = FrozenDict({"x": 1, "y": frozenset({1})})
    b = FrozenDict({"y": frozenset({1}), "x": 1})
    assert a == b and hash(a) == hash(b)
    assert a.set("x", 2) == FrozenDict({"x": 2, "y": frozenset({1})})
    assert a["x"] == 1, "set() must not mutate"


def test_render_value_writes_the_language():
    assert render_value(SetType(NODE), frozenset({"node2", "node1"})) == "{node1, node2}"
    assert render_value(OptionType(IntType(0, 3)), None) == "none"
    assert render_value(OptionType(IntType(0, 3)), 2) == "some(2)"
    assert render_value(MSG, FrozenDict({"term": 1, "to": "node3"})) == "Msg(term=1, to=node3)"
    assert render_value(BagType(COLOR, 3), FrozenDict({"green": 1, "red": 2})) == "bag{red, red, green}"
    assert render_value(TupleType((BOOL,)), (True,)) == "(true,)"


def test_join_widens_ints_and_rejects_other_shapes():
    assert join(IntType(0, 2), IntType(-1, 1)) == IntType(-1, 2)
    assert join(SetType(IntType(0, 1)), SetType(IntType(3, 4))) == SetType(IntType(0, 4))
    assert join(SeqType(BOOL, 2), SeqType(BOOL, 5)) == SeqType(BOOL, 5)
    assert join(SetType(BOOL), SeqType(BOOL, 1)) is None
    assert join(COLOR, NODE) is None


@given(st.frozensets(st.sampled_from(NODE.members)), st.frozensets(st.sampled_from(NODE.members)))
def test_order_key_is_consistent_with_equality(a, b):
    t = SetType(NODE)
    assert (order_key(t, a) == order_key(t, b)) == (a == b)
