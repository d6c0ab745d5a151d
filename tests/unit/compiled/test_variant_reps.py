"""Flat representations of variants and of sets with a capacity: every value
round-trips through slots, packed words and ranks; ranks are dense and, where
``rank_is_canonical`` says so, in canonical order; defaults pack to zero bits."""
from __future__ import annotations

import pytest

from modelcheck.engines.compiled.codegen.layout import Layout
from modelcheck.engines.compiled.reps import (Unsupported, default, flatten, rank,
                                              rank_is_canonical, unflatten, unrank, width)
from modelcheck.ir.types import (BOOL, BagType, IntType, MapType, ModelType, OptionType,
                                 RecordType, SeqType, SetType, VariantType, render_type)
from modelcheck.ir.values import FrozenDict, Variant, domain, domain_size, sort_values

NODE = ModelType("Node", ("n1", "n2"), symmetric=True)
MSG = VariantType("Msg", (
    ("Req", RecordType("Req", (("term", IntType(0, 2)), ("src", NODE)))),
    ("Ack", RecordType("Ack", (("term", IntType(0, 2)), ("ok", BOOL), ("src", NODE)))),
    ("Stop", RecordType("Stop", ())),
))
WRAP = VariantType("Wrap", (
    ("None_", RecordType("None_", ())),
    ("Many", RecordType("Many", (("s", SetType(IntType(0, 2))),))),
))

TYPES = [
    MSG, WRAP, OptionType(MSG), SetType(WRAP), SetType(MSG, 3), BagType(MSG, 2), SeqType(MSG, 2),
    MapType(NODE, MSG), RecordType("R", (("m", MSG), ("k", IntType(1, 2)))),
    SetType(IntType(0, 4), 2), SetType(IntType(0, 2), 5), SetType(SetType(IntType(0, 3), 2), 2),
    SetType(NODE, 0),
]


@pytest.mark.parametrize("t", TYPES, ids=render_type)
def test_every_value_round_trips_through_slots_and_words(t):
    layout = Layout([("x", t)])
    for v in domain(t):
        slots = flatten(t, v)
        assert len(slots) == width(t)
        assert unflatten(t, slots) == v
        assert layout.unpack(layout.pack((v,))) == (v,)
    assert not layout.pack((default(t),)).any(), "defaults are zero bits"


@pytest.mark.parametrize("t", TYPES, ids=render_type)
def test_ranks_are_dense_and_canonical_where_claimed(t):
    values = domain(t)
    ranks = [rank(t, v) for v in values]
    assert sorted(ranks) == list(range(domain_size(t)))
    assert [unrank(t, r) for r in ranks] == list(values)
    if rank_is_canonical(t):
        assert ranks == sorted(ranks), "canonical order is ascending rank"


def test_variant_slots_hold_defaults_in_the_cases_not_taken():
    v = Variant("Ack", FrozenDict(term=2, ok=True, src="n2"))
    # tag, Req(term, src), Ack(term, ok, src), Stop()
    assert flatten(MSG, v) == [1, 0, 0, 2, 1, 1]
    assert rank(MSG, v) == 6 + (2 * 4 + 1 * 2 + 1)


def test_capped_set_ranks_follow_canonical_order():
    t = SetType(IntType(0, 3), 2)
    assert [unrank(t, r) for r in range(domain_size(t))] == sort_values(t, domain(t))


def test_a_set_without_capacity_over_a_large_type_is_declined_with_the_fix():
    big = RecordType("Big", (("a", IntType(0, 999)), ("b", IntType(0, 999))))
    with pytest.raises(Unsupported, match=r"give it a capacity: set\[Big, cap\]"):
        width(SetType(big))
