"""The fingerprint table: set semantics, growth that keeps every entry and its
parent tag, the linear-probing invariant, the memory bound, tag lookups, and
exact mode."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

from numba import njit  # noqa: E402

from modelcheck.engines.compiled.kernel.table import (ABSENT, FOUND, FULL, GROWTH, MAX_LOAD, NEW,  # noqa: E402
                                               FingerprintTable, home_of, table_insert)
from modelcheck.engines.compiled.search.shards import entries_of, table_from_entries  # noqa: E402

SIGN = np.int64(-9223372036854775808)


def _insert(t: FingerprintTable, key: int, ptag: int, row=None, allow=True) -> int:
    row = np.zeros(t.words, dtype=np.int64) if row is None else row
    while True:
        r = int(table_insert(t.keys, t.tags, t.states, t.meta, np.int64(key), np.int64(ptag),
                             row, allow))
        if r != FULL:
            return r
        t.grow()


def _keys(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    keys = np.unique(rng.integers(-2**63 + 1, 2**63 - 1, size=n, dtype=np.int64))
    keys = keys[keys != SIGN]
    rng.shuffle(keys)       # fingerprints arrive in random order
    return keys


def test_insert_then_find_every_key_across_growth():
    t = FingerprintTable(1, exact=False, capacity=64)
    keys = _keys(5000)
    for i, k in enumerate(keys):
        if t.needs_growth():
            t.grow()
        assert _insert(t, k, i + 1) == NEW
    assert t.count == len(keys)
    for i, k in enumerate(keys):
        assert _insert(t, k, 999) == FOUND
        slot = t.lookup(int(np.int64(k) ^ SIGN) & (2**64 - 1), np.zeros(1, np.int64))
        assert slot >= 0 and t.parent_tag(slot) == i + 1
    _assert_probing_invariant(t)


def _assert_probing_invariant(t: FingerprintTable) -> None:
    """Every entry sits at or after its home with no empty slot in between
    (what lookups and tag scans rely on)."""
    occupied = t.keys != SIGN
    empties = np.cumsum(~occupied)
    slots = np.flatnonzero(occupied)
    homes = np.array([home_of(k, np.int64(t.capacity)) for k in t.keys[slots[:200]]])
    vector = (((t.keys[slots] ^ SIGN) >> 33) & 0x7FFFFFFF) * t.capacity >> 31
    assert np.array_equal(homes, vector[:200])              # the formula, checked
    assert np.all(vector <= slots) and np.array_equal(empties[vector], empties[slots])


def test_lookup_only_reports_absent_without_inserting():
    t = FingerprintTable(1, exact=False)
    assert _insert(t, 12345, 1, allow=False) == ABSENT
    assert t.count == 0
    assert _insert(t, 12345, 1) == NEW
    assert _insert(t, 12345, 1, allow=False) == FOUND


@njit
def _bulk(keys, tags, states, meta, batch, limit):
    """Insert until the load limit; how many were taken."""
    row = np.zeros(1, np.int64)
    for i in range(batch.shape[0]):
        if meta[1] >= limit:
            return i
        if table_insert(keys, tags, states, meta, batch[i], 1, row, True) == FULL:
            return i
    return batch.shape[0]


def test_load_and_memory_stay_within_the_bound():
    t = FingerprintTable(1, exact=False, capacity=1024)
    keys = _keys(400000, seed=3)
    worst, pos = 0.0, 0
    while pos < len(keys):
        pos += int(_bulk(t.keys, t.tags, t.states, t.meta, keys[pos:], t.grow_at()))
        if pos == len(keys):
            break
        t.grow()                                        # the load limit, or the tail full
        if t.count > 50000:
            worst = max(worst, t.bytes_per_state())     # just after growing: the emptiest
    assert t.count == len(keys)
    assert worst <= 16.0
    assert MAX_LOAD / GROWTH > 12 / 16
    _assert_probing_invariant(t)


def test_find_tag_returns_the_entries_with_that_tag():
    t = FingerprintTable(1, exact=False)
    keys = _keys(5000, seed=7)
    for k in keys:
        _insert(t, k, 1)
    fp = int(np.int64(keys[123]) ^ SIGN) & (2**64 - 1)
    tag = fp >> 32
    slots = t.find_tag(tag)
    assert any(t.fingerprint_at(s) == fp for s in slots)
    assert all(t.fingerprint_at(s) >> 32 == tag for s in slots)


def test_exact_mode_tells_equal_fingerprints_apart():
    t = FingerprintTable(2, exact=True)
    a, b = np.array([1, 2], np.int64), np.array([3, 4], np.int64)
    assert _insert(t, 77, 1, a) == NEW
    assert _insert(t, 77, 2, b) == NEW          # same key, another state
    assert _insert(t, 77, 3, a) == FOUND
    assert _insert(t, 77, 3, b) == FOUND
    assert t.count == 2
    t.grow()
    assert _insert(t, 77, 3, b) == FOUND and t.count == 2


@pytest.mark.parametrize("exact", [False, True])
@pytest.mark.parametrize("shards", [1, 2, 8])
def test_checkpoint_entries_round_trip_with_any_number_of_shards(shards, exact):
    """A checkpoint keeps entries, so a search resumes with another number of
    workers: every state, parent tag and (exact) row survives, in the right shard."""
    t = FingerprintTable(2, exact=exact)
    keys = list(_keys(3000, seed=9))
    for n, k in enumerate(keys):
        if t.needs_growth():
            t.grow()
        _insert(t, k, 5 + n % 7, np.array([n, -n], np.int64))
    again = table_from_entries(2, {n: a.copy() for n, a in entries_of(t).items()}, shards)
    assert again.count == t.count == len(set(keys))
    for n, k in enumerate(keys):
        fp = int(np.int64(k ^ SIGN).view(np.uint64))
        row = np.array([n, -n], np.int64)
        slot = again.lookup(fp, row)
        assert slot >= 0 and again.parent_tag(slot) == 5 + n % 7
        if exact:
            assert np.array_equal(again.row_at(slot), row)
    back = table_from_entries(2, entries_of(again), 1)
    assert isinstance(back, FingerprintTable) and back.count == t.count


def test_entries_sharing_a_tag_are_all_found_after_growth():
    t = FingerprintTable(1, exact=False, capacity=64)
    tag = 0x9ABCDEF1
    shared = [(tag << 32) | low for low in (5, 77, 1 << 20, (1 << 32) - 2)]
    for k in list(_keys(3000, seed=11)) + [int(np.uint64(fp).view(np.int64) ^ SIGN)
                                           for fp in shared]:
        if t.needs_growth():
            t.grow()
        _insert(t, k, 3)
    t.grow()
    got = sorted(t.fingerprint_at(s) for s in t.find_tag(tag))
    assert got == sorted(shared)


def test_growth_past_the_memory_limit_raises_and_keeps_the_table():
    t = FingerprintTable(1, exact=False, capacity=64)
    keys = _keys(200, seed=5)
    for k in keys[:56]:
        _insert(t, k, 1)
    before = (t.keys.copy(), t.capacity)
    with pytest.raises(MemoryError):
        t.grow(max_bytes=t.nbytes())
    assert np.array_equal(t.keys, before[0]) and t.capacity == before[1]
    t.grow(max_bytes=10 * t.nbytes())
    assert all(_insert(t, k, 1) == FOUND for k in keys[:56])


def _each_on_threads(parts: int):
    from concurrent.futures import ThreadPoolExecutor
    pool = ThreadPoolExecutor(parts)

    def each(job) -> None:
        for future in [pool.submit(job, p) for p in range(parts)]:
            future.result()
    return pool, each


@pytest.mark.parametrize("parts", [2, 3, 8])
@pytest.mark.parametrize("exact", [False, True])
@pytest.mark.parametrize("parents", [True, False])
def test_growth_in_parts_on_threads_keeps_every_entry_where_lookups_find_it(parts, exact,
                                                                            parents):
    """The search on several cores grows the shared table in parts, one per
    thread, split at empty slots, with the entries that cross into the next
    part's slots placed after: the same entries and parent tags, and the
    linear-probing invariant, as the one-thread growth; a table without tags
    (parents on disk) the same, with none."""
    keys = _keys(60_000, seed=parts)
    arrays = {"keys": keys, "tags": (keys & 0xFFFF).astype(np.uint32),
              "exact": np.array([1 if exact else 0])}
    if exact:
        arrays["states"] = np.stack([keys, ~keys], axis=1)
    pool, each = _each_on_threads(parts)
    try:
        for tail_only in (False, True):
            one = table_from_entries(2, arrays, 1, parents=parents)
            many = table_from_entries(2, arrays, 1, parents=parents)
            for _ in range(3):
                one.grow(homes=not tail_only)
                many.grow(homes=not tail_only, each=(parts, each))
            assert many.capacity == one.capacity and many.count == len(keys)
            _assert_probing_invariant(many)
            got, want = entries_of(many), entries_of(one)
            order, other = np.argsort(got["keys"]), np.argsort(want["keys"])
            assert np.array_equal(got["keys"][order], want["keys"][other])
            if parents:
                assert np.array_equal(got["tags"][order], want["tags"][other])
            else:
                assert len(many.tags) == 0 and len(got["tags"]) == 0
                assert many.slot_bytes == 8 + (16 if exact else 0)
            if exact:
                assert np.array_equal(got["states"][order], want["states"][other])
    finally:
        pool.shutdown()


def test_a_large_table_is_mapped_with_its_pages_made_and_filled():
    from modelcheck.engines.compiled.kernel.table import POPULATE_BYTES, fresh_array
    n = POPULATE_BYTES // 8 + 5
    keys = fresh_array(n, np.int64, SIGN)
    tags = fresh_array(n, np.uint32, 0)
    assert keys.flags.writeable and len(keys) == n and (keys == SIGN).all()
    assert (tags == 0).all() and tags.dtype == np.uint32
    small = fresh_array(10, np.int64, SIGN)
    assert (small == SIGN).all()


def test_no_fingerprint_has_the_bit_that_marks_a_key_fresh():
    """Bit 31 marks a key stored during the current chunk of the search on
    several cores (claim_driver.py); no fingerprint may carry it."""
    from modelcheck.engines.compiled.kernel.runtime import FRESH, fingerprint, fingerprint_rows
    rows = np.arange(20_000, dtype=np.int64).reshape(-1, 2) * 7919
    out = np.zeros(len(rows), dtype=np.int64)
    fingerprint_rows(rows, out)
    assert not (out & FRESH).any()
    assert int(fingerprint(rows[3])) == int(out[3])
    assert len(np.unique(out)) == len(out)
