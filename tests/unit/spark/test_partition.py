"""The search's per-level steps on numpy arrays: deduplication, the merge
against a seen table, constraints and properties on new states
(``settle_fresh``)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from modelcheck.engines.spark.kernels import plan_properties
from modelcheck.engines.spark.inprocess import InProcessLevels
from modelcheck.engines.spark.partition import (_merge_sorted, _merge_sorted_numpy,
                                                INSIDE, OUTSIDE, UNDECIDED, Candidates,
                                                LevelReport, Part, concat_parts, expand_part,
                                                initial_candidates, merge_into, settle_fresh)
from modelcheck.engines.spark.seen_table import SeenTable
from evaluator_kernels import EvaluatorKernels
from many_parts import owner
from spark_specs import load_example, load_spec

U64 = np.uint64


def _kernels(model):
    return EvaluatorKernels(model, plan_properties(list(model.properties)))


def _cands(fps, parents, words=1):
    fps = np.array(fps, dtype=U64)
    return Candidates(fps, np.array(parents, dtype=U64), np.stack([fps] * words, axis=1))


def test_owner_is_in_range_and_spreads():
    fps = np.random.default_rng(1).integers(0, 2**63, 20000, dtype=np.int64).astype(U64) * U64(2)
    for p in (1, 2, 3, 7, 64):
        own = owner(fps, p)
        assert own.min() >= 0 and own.max() < p
        counts = np.bincount(own, minlength=p)
        assert counts.min() > 0.8 * len(fps) / p
    assert owner(np.array([2**64 - 1], dtype=U64), 5)[0] == 4


def _merge(kernels, plan, table, level, pieces, commit=True):
    report = LevelReport()
    fp = np.concatenate([c.fp for c in pieces])
    parent = np.concatenate([c.parent for c in pieces])
    states = np.concatenate([c.states for c in pieces])
    out = merge_into(kernels, plan, table, level, fp, parent, states, commit, report)
    return out, report


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 40), st.integers(1, 40)), min_size=1, max_size=60),
       st.lists(st.integers(0, 40), max_size=30, unique=True))
def test_merge_adds_exactly_the_unseen_with_the_smallest_parent(pairs, seen):
    # Fingerprint 0 is included: the table keeps it apart from its slots.
    seen_fp = np.array(sorted(seen), dtype=U64)
    table = SeenTable.build(seen_fp, seen_fp.copy(), 0)
    kernels = _kernels(load_example("die_hard"))
    half = len(pairs) // 2
    incoming = [_cands([f for f, _ in chunk], [p for _, p in chunk])
                for chunk in (pairs[:half], pairs[half:]) if chunk]
    plan = plan_properties([])
    (fp, parent, _), report = _merge(kernels, plan, table, 1, incoming)
    expected_new = sorted({f for f, _ in pairs} - set(seen))
    assert report.new_states == len(expected_new)
    assert fp.tolist() == expected_new
    all_fp, all_parent = table.items()
    assert all_fp.tolist() == sorted(set(seen) | set(expected_new))
    parents = dict(zip(all_fp.tolist(), all_parent.tolist()))
    for f in expected_new:
        assert parents[f] == min(p for g, p in pairs if g == f)
    for f in seen:
        assert parents[f] == f
    # The merge of the same level again (a task that Spark runs twice) sees
    # what the first saw: the same states, and the table holds them once.
    (again, _, _), report = _merge(kernels, plan, table, 1, incoming)
    assert again.tolist() == expected_new and len(table) == len(all_fp)
    # The next level sees them as seen.
    (nxt, _, _), _ = _merge(kernels, plan, table, 2, incoming)
    assert nxt.tolist() == []


def test_merge_without_commit_leaves_the_table():
    table = SeenTable.build(np.array([5], dtype=U64), np.array([5], dtype=U64), 0)
    kernels = _kernels(load_example("die_hard"))
    (fp, _, _), report = _merge(kernels, plan_properties([]), table, 1,
                                [_cands([7, 5], [5, 5])], commit=False)
    assert report.new_states == 1 and fp.tolist() == [7] and len(table) == 1


def test_expand_flushes_distinct_groups():
    model = load_spec("tokens")
    kernels = _kernels(model)
    plan = plan_properties(list(model.properties))
    local = InProcessLevels(kernels, plan)
    initial, generated = initial_candidates(kernels)
    local.seed(initial)
    for _ in range(2):
        local.step(True, True)
    part = local.part
    report = LevelReport()
    groups = list(expand_part(kernels, plan, part.frontier_fp, part.frontier, True, report,
                              flush_rows=5, batch_rows=2))
    assert len(groups) > 1                     # flushed as it went
    for cands in groups:
        assert (np.diff(cands.fp.astype(np.float64)) > 0).all()
    assert report.expanded == len(part.frontier_fp)
    assert report.generated == int(report.action_counts.sum())


def test_concat_of_disjoint_parts_is_sorted():
    rng = np.random.default_rng(7)
    fps = np.unique(rng.integers(1, 2**62, 500, dtype=np.int64).astype(U64))
    part = Part(fps, fps[::-1].copy(), fps[:50], np.stack([fps[:50], fps[:50]], axis=1))
    own, front_own = owner(fps, 4), owner(fps[:50], 4)
    pieces = [Part(fps[own == i], part.seen_parent[own == i], fps[:50][front_own == i],
                   part.frontier[front_own == i]) for i in range(4)]
    back = concat_parts(pieces, 2)
    assert back.seen_fp.tolist() == part.seen_fp.tolist()
    assert back.seen_parent.tolist() == part.seen_parent.tolist()
    assert back.frontier_fp.tolist() == part.frontier_fp.tolist()
    assert back.frontier.tolist() == part.frontier.tolist()


def test_lookup_finds_held_parents_only():
    fps = np.array([3, 9, 12], dtype=U64)
    table = SeenTable.build(fps, np.array([3, 3, 9], dtype=U64), 0)
    assert table.parents_of(np.array([12, 4, 3], dtype=U64)) == {12: 9, 3: 3}


def test_report_add_sums_and_keeps_minimums():
    a = LevelReport(1, 2, 3, np.array([1, 0]), {0: 9}, {0: (5, 6)}, 8, None)
    b = LevelReport(1, 1, 1, np.array([0, 2]), {0: 4, 1: 7}, {0: (5, 2)}, None, 3)
    a.add(b)
    assert (a.expanded, a.generated, a.new_states) == (2, 3, 4)
    assert a.action_counts.tolist() == [1, 2]
    assert a.state_hits == {0: 4, 1: 7} and a.step_hits == {0: (5, 2)}
    assert (a.deadlock, a.failed) == (8, 3)


def test_initial_states_are_their_own_parents():
    kernels = _kernels(load_spec("stuck"))
    initial, generated = initial_candidates(kernels)
    assert generated == 2
    assert len(initial.fp) == 2 and (initial.fp == initial.parent).all()


def test_settle_fresh_keeps_inside_and_undecided_and_counts_them():
    model = load_example("die_hard")
    kernels = _kernels(model)
    plan = plan_properties([])
    fp = np.array([4, 5, 6, 7], dtype=U64)
    inside = np.array([INSIDE, OUTSIDE, UNDECIDED, INSIDE], dtype=np.int8)
    report = LevelReport()
    keep = settle_fresh(kernels, plan, fp, fp.copy(), np.zeros((4, kernels.words), U64),
                        inside, True, report)
    assert keep.tolist() == [True, False, True, True]
    assert report.new_states == 3 and report.failed == 6


@pytest.mark.parametrize("seed", range(6))
def test_the_folds_native_merge_agrees_with_numpy(seed):
    rng = np.random.default_rng(seed)
    keys = np.unique(rng.integers(0, 2**64 - 1, 20_000, dtype=np.uint64, endpoint=True))
    side = rng.random(len(keys)) < rng.random()
    for a, b in ((keys[side], keys[~side]), (keys[:0], keys), (keys, keys[:0])):
        got = _merge_sorted(a, a ^ np.uint64(1), b, b ^ np.uint64(2))
        if len(a) and len(b):
            want = _merge_sorted_numpy(a, a ^ np.uint64(1), b, b ^ np.uint64(2))
        else:
            want = (a, a ^ np.uint64(1)) if len(a) else (b, b ^ np.uint64(2))
        assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
