"""A merge's unseen candidates (fresh_rows.fresh_distinct): the probe, bucket
and sort passes give exactly the numpy definition, on random tables and
candidates with duplicates, entries of this level (a re-run merge),
fingerprint 0, empty and small batches."""
from __future__ import annotations

import numpy as np
import pytest

from modelcheck.engines.spark import owner_split
from modelcheck.engines.spark.fresh_rows import fresh_distinct, fresh_inserted, reference_fresh_rows
from modelcheck.engines.spark.owner_split import Scratch
from modelcheck.engines.spark.seen_table import SeenTable

U64 = np.uint64

pytestmark = pytest.mark.skipif(owner_split.njit is None, reason="needs numba")


def _case(rng, seen_n, cand_n, distinct, level):
    pool = rng.integers(0, 2**64 - 1, max(1, distinct), dtype=U64, endpoint=True)
    pool[0] = 0                                       # fingerprint 0 is a key like any other
    table = SeenTable.build(pool[rng.random(len(pool)) < 0.4][:seen_n], None, 0,
                            with_parents=False)
    # Some entries stamped with this level: a merge run a second time sees them as unseen.
    again = pool[rng.random(len(pool)) < 0.1]
    table.add(again, None, level)
    block = np.empty((cand_n, 4), U64)                # a candidate block: fp, parent, state
    block[:, 0] = pool[rng.integers(0, len(pool), cand_n)]
    block[:, 1] = rng.integers(0, 2**64 - 1, cand_n, dtype=U64, endpoint=True)
    block[:, 2] = block[:, 0] * U64(3)
    block[:, 3] = block[:, 0] ^ U64(7)
    return table, block


def _check(table, block, level, scratch=None):
    fp, parent = block[:, 0], block[:, 1]            # strided, as merge_into hands them
    rows, best = fresh_distinct(table, level, fp, parent, scratch)
    want_rows, want_best = reference_fresh_rows(table.fresh(fp, level), fp, parent)
    assert rows.dtype.kind == "i" and best.dtype == U64
    assert np.array_equal(block[rows, 0], block[want_rows, 0])
    assert np.array_equal(block[rows, 2:], block[want_rows, 2:])
    assert np.array_equal(best, want_best)
    assert bool(np.all(block[rows, 0][1:] > block[rows, 0][:-1]))


@pytest.mark.parametrize("seed", range(12))
def test_agrees_with_the_numpy_definition(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 120_000))
    distinct = max(1, n >> int(rng.integers(0, 10)))
    table, block = _case(rng, int(rng.integers(0, 50_000)), n, distinct, level=3)
    _check(table, block, 3)


def test_every_candidate_seen_and_none_seen():
    rng = np.random.default_rng(2)
    table, block = _case(rng, 0, 5_000, 2_000, level=1)
    _check(table, block, 1)                           # nothing seen before level 1
    table.add(np.unique(block[:, 0]), None, 0)
    rows, best = fresh_distinct(table, 1, block[:, 0], block[:, 1])
    assert len(rows) == 0 and len(best) == 0


def test_empty_and_small_batches():
    table = SeenTable.empty(with_parents=False)
    rows, best = fresh_distinct(table, 1, np.empty(0, U64), np.empty(0, U64))
    assert len(rows) == 0 and len(best) == 0
    rng = np.random.default_rng(4)
    for n in (1, 3, 1023, 1024, 1025):
        table, block = _case(rng, 10, n, max(1, n // 2), level=2)
        _check(table, block, 2)


def test_merges_sharing_a_scratch():
    rng = np.random.default_rng(8)
    scratch = Scratch()
    for n in (60_000, 2_000, 90_000):
        table, block = _case(rng, 20_000, n, n // 3, level=5)
        _check(table, block, 5, scratch)



def _check_inserted(table, block, level):
    """fresh_inserted gives fresh_distinct's rows and parents, and leaves the
    table as fresh_distinct followed by the insert of its rows does."""
    fp, parent = block[:, 0], block[:, 1]
    twin = SeenTable(table.keys.copy(), table.stamps.copy(), None, table.meta.copy())
    want_rows, want_best = fresh_distinct(twin, level, fp, parent)
    twin.add(fp[want_rows], None, level)
    got = fresh_inserted(table, level, fp, parent)
    assert got is not None
    rows, best = got
    assert np.array_equal(block[rows, 0], block[want_rows, 0])
    assert np.array_equal(block[rows, 2:], block[want_rows, 2:])
    assert np.array_equal(best, want_best)
    assert len(table) == len(twin)
    held = np.sort(table.keys[table.keys != 0])
    assert np.array_equal(held, np.sort(twin.keys[twin.keys != 0]))
    # every fingerprint of the candidates is now seen by the next level,
    # and the new ones carry this level's stamp
    assert not table.fresh(fp, level + 1).any()
    assert table.fresh(fp[rows], level).all()
    return rows


@pytest.mark.parametrize("seed", range(8))
def test_the_insert_in_the_probe_agrees_with_probe_then_insert(seed):
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(1024, 120_000))
    table, block = _case(rng, int(rng.integers(0, 50_000)), n,
                         max(1, n >> int(rng.integers(0, 8))), level=3)
    block = block[block[:, 0] != 0]
    _check_inserted(table, block, 3)


def test_the_insert_in_the_probe_runs_again_exactly():
    # A second attempt at the level (Spark re-runs a task) on the table the
    # first one changed emits the same rows.
    rng = np.random.default_rng(7)
    table, block = _case(rng, 30_000, 80_000, 20_000, level=4)
    block = block[block[:, 0] != 0]
    first = _check_inserted(table, block, 4)
    again = fresh_inserted(table, 4, block[:, 0], block[:, 1])
    assert np.array_equal(block[again[0], 0], block[first, 0])


def test_the_insert_in_the_probe_leaves_what_it_cannot_take():
    rng = np.random.default_rng(9)
    table, block = _case(rng, 100, 5_000, 2_000, level=2)
    with_zero = block.copy()
    with_zero[0, 0] = 0
    assert fresh_inserted(table, 2, with_zero[:, 0], with_zero[:, 1]) is None
    assert fresh_inserted(table, 2, block[:100, 0], block[:100, 1]) is None     # small
    parents = SeenTable.empty(with_parents=True)
    assert fresh_inserted(parents, 2, block[:, 0][block[:, 0] != 0],
                          block[:, 1][block[:, 0] != 0]) is None


def test_the_insert_in_the_probe_stops_at_a_damaged_full_table():
    table = SeenTable.empty(4_000, with_parents=False)        # room for the candidates
    # every slot taken while the count says empty: files a crash left half-written
    table.keys[:] = np.arange(1, len(table.keys) + 1, dtype=U64) << U64(40)
    fp = np.random.default_rng(3).integers(1, 2**40, 2_000, dtype=U64)
    with pytest.raises(RuntimeError, match="damaged"):
        fresh_inserted(table, 1, fp, fp)
