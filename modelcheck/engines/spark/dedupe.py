"""Deduplicating a batch of successors by fingerprint.

A level generates several successors per state, many of them duplicates of
each other; sorting the raw batch was half of the search's time.  A
compiled pass over an open-addressing hash table first keeps one row (and
the smallest parent) per fingerprint; only the distinct rows are then
sorted, with ``np.sort`` (vectorised, several times faster than
``argsort``) of keys holding a fingerprint's high bits over the row
number, and one compiled pass restores the exact fingerprint order (rows
that share the high bits).

Numba is a dependency of the compiled kernels the engine runs on; without
it (a test's stand-in kernels, say) ``distinct_rows`` falls back to a sort.
"""
from __future__ import annotations

import numpy as np

__all__ = ["distinct_rows", "distinct_unsorted"]

try:
    from numba import njit
except ImportError:          # pragma: no cover - numba ships with the compiled engine
    njit = None


def _distinct_rows_py(fp: np.ndarray, parent: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    order = np.argsort(fp)
    fp_sorted = fp[order]
    first = np.empty(len(fp_sorted), dtype=bool)
    first[0] = True
    np.not_equal(fp_sorted[1:], fp_sorted[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    return order[starts], np.minimum.reduceat(parent[order], starts)


if njit is not None:
    @njit(cache=True, nogil=True)
    def _groups(fp: np.ndarray, parent: np.ndarray, keys: np.ndarray,
                bits: int) -> tuple[np.ndarray, np.ndarray]:
        """From ``keys`` (sorted; the high bits of a fingerprint over its
        row number): the first row of each fingerprint and its smallest parent."""
        n = len(keys)
        low = np.uint64((1 << bits) - 1)
        order = np.empty(n, dtype=np.int64)
        sfp = np.empty(n, dtype=np.uint64)
        for i in range(n):
            r = np.int64(keys[i] & low)
            f = fp[r]
            # Rows whose fingerprints share the high bits are in row order,
            # not in fingerprint order: an insertion step puts them right
            # (rare, and a group is tiny).
            j = i
            while j > 0 and sfp[j - 1] > f:
                sfp[j] = sfp[j - 1]
                order[j] = order[j - 1]
                j -= 1
            sfp[j] = f
            order[j] = r
        rows = np.empty(n, dtype=np.int64)
        best = np.empty(n, dtype=np.uint64)
        count = 0
        for i in range(n):
            r = order[i]
            if i == 0 or sfp[i] != sfp[i - 1]:
                rows[count] = r
                best[count] = parent[r]
                count += 1
            elif parent[r] < best[count - 1]:
                best[count - 1] = parent[r]
        return rows[:count], best[:count]

    @njit(cache=True, nogil=True)
    def _hashed(fp: np.ndarray, parent: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The first row of each fingerprint and its smallest parent, in the
        order of first occurrence: one pass over an open-addressing table
        (fingerprints are hashes already: their low bits index it)."""
        n = len(fp)
        size = 1
        while size < 2 * n:
            size <<= 1
        mask = np.uint64(size - 1)
        table = np.full(size, -1, dtype=np.int32)
        rows = np.empty(n, dtype=np.int64)
        best = np.empty(n, dtype=np.uint64)
        count = 0
        for i in range(n):
            f = fp[i]
            j = np.int64(f & mask)
            while True:
                g = table[j]
                if g < 0:
                    table[j] = count
                    rows[count] = i
                    best[count] = parent[i]
                    count += 1
                    break
                if fp[rows[g]] == f:
                    if parent[i] < best[g]:
                        best[g] = parent[i]
                    break
                j = (j + 1) & (size - 1)
        return rows[:count], best[:count]


def distinct_rows(fp: np.ndarray, parent: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per distinct fingerprint of ``fp`` (non-empty, uint64): one row
    holding it and the smallest ``parent`` among its rows; both sorted by
    fingerprint.  Rows with one fingerprint hold one state, so which row
    stands for it does not matter."""
    n = len(fp)
    if njit is None or n < 1024 or n >= 1 << 31:
        return _distinct_rows_py(fp, parent)
    # Duplicates go first, through a hash table (one pass, no sort of the
    # whole batch); only the distinct rows are then sorted.
    first, smallest = _hashed(fp, parent)
    if len(first) < n:
        rows, best = _sorted_rows(fp[first], smallest)
        return first[rows], best
    return _sorted_rows(fp, parent)


def distinct_unsorted(fp: np.ndarray, parent: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``distinct_rows`` without the sort: one row per fingerprint and the
    smallest parent, in the order of first occurrence (the expand task,
    which groups its candidates by owner rather than sorting them)."""
    if njit is None or len(fp) >= 1 << 31:
        return distinct_rows(fp, parent)
    return _hashed(fp, parent)


def _sorted_rows(fp: np.ndarray, parent: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``distinct_rows`` by a sort."""
    n = len(fp)
    if n < 1024:
        return _distinct_rows_py(fp, parent)
    # ``argsort`` of uint64 is several times slower than ``sort`` (which is
    # vectorised): sort keys that carry the row number in their low bits.
    bits = int(n).bit_length()
    keys = (fp >> np.uint64(bits)) << np.uint64(bits)
    keys |= np.arange(n, dtype=np.uint64)
    keys.sort()
    return _groups(fp, parent, keys, bits)
