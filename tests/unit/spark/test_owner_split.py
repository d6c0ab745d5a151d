"""The expand's hand-over (owner_split): the native dedup-and-split passes give
exactly the plain numpy definition, on random pieces with duplicates within
and across pieces, empty pieces and batches, and every owner."""
from __future__ import annotations

import numpy as np
import pytest

from modelcheck.engines.spark import owner_split
from modelcheck.engines.spark.owner_split import (Scratch, reference_blocks,
                                                  split_by_owner)

U64 = np.uint64

pytestmark = pytest.mark.skipif(owner_split.njit is None, reason="needs numba")


def _pieces(rng, sizes, distinct, words):
    base = rng.integers(0, 2**64 - 1, max(1, distinct), dtype=U64, endpoint=True)
    out = []
    for n in sizes:
        pick = rng.integers(0, len(base), n)
        fp = base[pick]
        parent = rng.integers(0, 2**64 - 1, n, dtype=U64, endpoint=True)
        # A state is a function of its fingerprint (as for real successors).
        states = np.stack([fp * U64(w + 3) for w in range(words)], axis=1) if words \
            else np.empty((n, 0), U64)
        out.append((fp, parent, states))
    return out


def _same(got, want):
    assert [o for o, _ in got] == [o for o, _ in want]
    for (_, a), (_, b) in zip(got, want):
        assert a.dtype == U64 and a.flags.c_contiguous
        assert np.array_equal(a, b)


def _reference(pieces, partitions, words):
    rows = sum(len(p[0]) for p in pieces)
    if not rows:
        return []
    return reference_blocks(np.concatenate([p[0] for p in pieces]),
                            np.concatenate([p[1] for p in pieces]),
                            np.concatenate([p[2] for p in pieces]), partitions)


@pytest.mark.parametrize("seed", range(16))
def test_agrees_with_the_numpy_definition(seed):
    rng = np.random.default_rng(seed)
    partitions = int(rng.choice([1, 2, 3, 7, 16]))
    words = int(rng.integers(1, 5))
    sizes = [int(rng.integers(0, 60_000)) for _ in range(int(rng.integers(1, 6)))]
    # From all distinct to nearly one fingerprint, in one bucket or many.
    distinct = max(1, sum(sizes) >> int(rng.integers(0, 14)))
    pieces = _pieces(rng, sizes, distinct, words)
    _same(split_by_owner(pieces, partitions, words), _reference(pieces, partitions, words))


def test_every_owner_gets_its_rows_and_only_them():
    rng = np.random.default_rng(5)
    partitions = 13
    pieces = _pieces(rng, [50_000, 20_000], 40_000, 2)
    got = split_by_owner(pieces, partitions, 2)
    assert [o for o, _ in got] == list(range(partitions))
    for part, block in got:
        owners = ((block[:, 0] >> U64(32)) * U64(partitions)) >> U64(32)
        assert bool(np.all(owners == part))
    _same(got, _reference(pieces, partitions, 2))


def test_empty_batches_and_empty_pieces():
    assert split_by_owner([], 4, 3) == []
    empty = (np.empty(0, U64), np.empty(0, U64), np.empty((0, 3), U64))
    assert split_by_owner([empty, empty], 4, 3) == []
    rng = np.random.default_rng(1)
    pieces = [empty] + _pieces(rng, [100], 10, 3) + [empty]
    _same(split_by_owner(pieces, 4, 3), _reference(pieces, 4, 3))


def test_fingerprint_zero_and_the_extremes_are_ordinary_keys():
    fp = np.array([0, 2**64 - 1, 0, 5, 2**64 - 1, 0], dtype=U64)
    parent = np.array([9, 8, 3, 7, 9, 4], dtype=U64)
    states = fp[:, None].copy()
    got = split_by_owner([(fp[:3], parent[:3], states[:3]), (fp[3:], parent[3:], states[3:])],
                         2, 1)
    # One bucket a half of the space: 0 and 5 (owner 0) by first occurrence.
    want = [(0, np.array([[0, 3, 0], [5, 7, 5]], U64)),
            (1, np.array([[2**64 - 1, 8, 2**64 - 1]], U64))]
    _same(got, want)


def test_the_smallest_parent_wins_across_pieces():
    fp = np.full(3, 42, U64)
    pieces = [(fp[:1], np.array([parent], U64), fp[:1, None]) for parent in (7, 2, 5)]
    (_, block), = split_by_owner(pieces, 1, 1)
    assert block.tolist() == [[42, 2, 42]]


def test_a_fingerprint_keeps_the_row_of_its_first_occurrence():
    rng = np.random.default_rng(11)
    fp = rng.integers(0, 50, 5_000).astype(U64)
    rows = np.arange(len(fp), dtype=U64)[:, None]      # a state that names its row
    pieces = [(fp[:1_000], fp[:1_000] * U64(3), rows[:1_000]),
              (fp[1_000:], fp[1_000:] * U64(3), rows[1_000:])]
    _same(split_by_owner(pieces, 3, 1), _reference(pieces, 3, 1))


def test_flushes_sharing_a_scratch_give_what_fresh_arrays_give():
    rng = np.random.default_rng(9)
    scratch = Scratch()
    for sizes in ([40_000, 30_000], [500], [90_000], []):
        pieces = _pieces(rng, sizes, 20_000, 2)
        _same(split_by_owner(pieces, 5, 2, scratch), _reference(pieces, 5, 2))
