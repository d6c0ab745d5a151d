"""The packed layout: every value of every type round-trips, fields fit their
words, and defaults are stored as zero bits (so a state has one packing)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from modelcheck.engines.compiled.codegen.layout import Layout, slot_fields
from modelcheck.engines.compiled.reps import (default, flatten, rank, rank_is_canonical,
                                              unflatten, unrank, width)
from modelcheck.ir.types import (BOOL, BagType, EnumType, IntType, MapType, ModelType,
                                 OptionType, RecordType, SeqType, SetType, TupleType)
from modelcheck.ir.values import domain, domain_size, sort_values

NODE = ModelType("Node", ("node1", "node2", "node3"), symmetric=True)
COLOR = EnumType("Color", ("red", "green"))

atoms = st.one_of(
    st.just(BOOL),
    st.builds(lambda lo, span: IntType(lo, lo + span), st.integers(-5, 5), st.integers(0, 6)),
    st.just(COLOR), st.just(NODE),
)


def _compound(inner):
    return st.one_of(
        st.builds(OptionType, atoms),
        st.builds(SetType, atoms),
        st.builds(MapType, st.sampled_from([COLOR, NODE, IntType(0, 1)]), inner),
        st.builds(SeqType, inner, st.integers(0, 2)),
        st.builds(BagType, st.sampled_from([COLOR, IntType(1, 2)]), st.integers(0, 2)),
        st.builds(lambda a, b: TupleType((a, b)), inner, inner),
        st.builds(lambda a, b: RecordType("R", (("f", a), ("g", b))), inner, atoms),
    )


types = st.recursive(atoms, _compound, max_leaves=4).filter(lambda t: domain_size(t) <= 4000)


@st.composite
def typed_values(draw):
    t = draw(types)
    return t, draw(st.sampled_from(domain(t)))


@settings(max_examples=300, deadline=None)
@given(typed_values())
def test_flatten_round_trips_and_has_the_declared_width(tv):
    t, v = tv
    slots = flatten(t, v)
    assert len(slots) == width(t)
    assert unflatten(t, slots) == v


@settings(max_examples=300, deadline=None)
@given(st.lists(typed_values(), min_size=1, max_size=4))
def test_pack_unpack_round_trips(tvs):
    layout = Layout([(f"v{i}", t) for i, (t, _) in enumerate(tvs)])
    state = tuple(v for _, v in tvs)
    words = layout.pack(state)
    assert words.dtype == np.uint64 and words.shape == (layout.words,)
    assert layout.unpack(words) == state


@settings(max_examples=200, deadline=None)
@given(st.lists(types, min_size=1, max_size=4))
def test_fields_fit_their_words_and_defaults_pack_to_zero(ts):
    layout = Layout([(f"v{i}", t) for i, t in enumerate(ts)])
    for f in layout.fields:
        assert 0 <= f.shift and f.shift + f.bits <= 64 and f.word < layout.words
    assert not layout.pack(tuple(default(t) for t in ts)).any()


@pytest.mark.parametrize("t", [BOOL, IntType(-2, 3), COLOR, OptionType(NODE), SetType(COLOR),
                               MapType(COLOR, IntType(0, 2)), SeqType(BOOL, 2), BagType(COLOR, 2),
                               TupleType((BOOL, NODE)), SetType(SetType(COLOR))],
                         ids=str)
def test_ranks_are_dense_and_canonical_where_claimed(t):
    values = domain(t)
    ranks = [rank(t, v) for v in values]
    assert sorted(ranks) == list(range(len(values)))
    assert all(unrank(t, rank(t, v)) == v for v in values)
    if rank_is_canonical(t):
        assert [unrank(t, r) for r in range(len(values))] == sort_values(t, values)


def test_two_phase_nine_fits_one_word():
    rm = ModelType("RM", tuple(f"rm{i}" for i in range(1, 10)), symmetric=True)
    msg = RecordType("Message", (("kind", EnumType("Kind", ("p", "c", "a"))),
                                 ("rm", OptionType(rm))))
    layout = Layout([("rmState", MapType(rm, EnumType("S", ("w", "p", "c", "a")))),
                     ("tmState", EnumType("T", ("i", "c", "a"))), ("tmPrepared", SetType(rm)),
                     ("msgs", SetType(msg))])
    assert layout.words == 1 and layout.bits_used == 59


def test_wide_sets_span_several_words():
    t = SetType(IntType(0, 99))
    layout = Layout([("s", t)])
    assert [bits for bits, _ in slot_fields(t)] == [64, 36]
    state = (frozenset({0, 63, 64, 99}),)
    assert layout.unpack(layout.pack(state)) == state


def test_a_one_value_slot_after_a_full_word_has_a_shift_below_64():
    # 32 two-bit slots fill word 0 exactly; the one-value slot after them
    # stores nothing, and its shift must not be 64: a shift by 64 is
    # undefined in the generated code and once made a whole word poison
    # (a Raft state lost its server states that way).
    layout = Layout([("xs", MapType(IntType(0, 31), IntType(0, 3))), ("k", IntType(5, 5)),
                     ("b", BOOL)])
    assert all(f.shift < 64 for f in layout.fields)
    from modelcheck.ir.values import FrozenDict
    state = (FrozenDict({i: i % 4 for i in range(32)}), 5, True)
    assert layout.unpack(layout.pack(state)) == state


FULL_WORD = """
module full_word
var xs: map[0..31, 0..3] = {i: 0 for i in 0..31}
var k: 5..5 = 5
var flag: bool = false
action Bump(i: 0..1) { require xs[i] < 3  xs[i] := xs[i] + 1 }
action Flip() { flag := not flag }
invariant KStays: k == 5
"""


def test_a_one_value_slot_after_a_full_word_keeps_the_counts():
    pytest.importorskip("numba")
    from modelcheck import api
    model = api.load_source(FULL_WORD)
    ref = api.check(model, "reference")
    got = api.check(model, "compiled")
    assert got.engine == "compiled"
    assert (got.stats.distinct_states, got.stats.generated_states) == \
        (ref.stats.distinct_states, ref.stats.generated_states) == (32, 81)
