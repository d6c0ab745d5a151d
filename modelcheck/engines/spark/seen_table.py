"""A partition's seen set as an open-addressing hash table of fingerprints,
each entry stamped with the level that inserted it.

The sorted runs this replaces cost a sort of the candidates and a galloping
search per run and level; here a candidate costs one probe, as in the
compiled engine.  The layout is three flat arrays, so that a table can live
in memory (the in-process search) or in memory-mapped files (an executor's
resident copy, ``resident.py``):

    keys     uint64 (cap,)   the fingerprint; 0 marks an empty slot
    stamps   int32  (cap,)   the level that inserted it
    parents  uint64 (cap,)   the parent's fingerprint (optional: the Spark
                             executors keep parents in the level's output)
    meta     int64  (5,)     count, the entry for fingerprint 0 (which
                             cannot be a key): present, stamp, parent; and
                             the highest stamp the table may hold

**The stamps make a merge repeatable.**  A merge of level ``k`` treats an
entry stamped ``k`` or later as *unseen*, and stamps what it inserts with
``k`` (re-stamping what it finds so): a second attempt at level ``k`` on a
table that the first attempt changed (Spark re-runs a task after a failure,
a lost executor or for speculation) sees exactly what the first saw and
emits the same states.  The table stays a set: a re-stamped entry is not
added twice.  While no entry can be stamped ``k`` or later (the table's
highest stamp, raised before an insert, is below ``k``: a first attempt),
a probe reads the keys only: one cache miss a candidate, not two.

The home slot is the fingerprint's low bits (fingerprints are hashes; the
owner partition is taken from the high bits, so the two do not correlate);
collisions probe linearly with wrap-around; the load stays at most
``MAX_LOAD``, the table doubles beyond it.
"""
from __future__ import annotations

import numpy as np

from modelcheck.engines.spark import owner_split

try:
    from numba import njit
except ImportError:          # pragma: no cover - numba ships with the compiled engine
    njit = None

__all__ = ["SeenTable", "MAX_LOAD", "capacity_for", "probe_fresh", "insert", "rehash",
           "find_parents", "entries", "fresh_insert_buckets"]

_U64 = np.uint64
#: Grow (double) when an insert would take the load past this.
MAX_LOAD = 0.7
M_COUNT, M_ZERO, M_ZERO_STAMP, M_ZERO_PARENT, M_TOP = 0, 1, 2, 3, 4
META = 5
_MIN_CAP = 1 << 10
#: Inserts at least this many are made in the order of their home slots.
_BY_HOME_ROWS = 1 << 16


def capacity_for(n: int) -> int:
    """The smallest power of two that holds ``n`` entries within MAX_LOAD."""
    cap = _MIN_CAP
    while cap * MAX_LOAD < n:
        cap <<= 1
    return cap


def _jit(fn):
    return fn if njit is None else njit(cache=True, nogil=True)(fn)


@_jit
def _slot(keys, f, mask):
    """The slot holding fingerprint ``f`` (not 0), or -1.  The walk is
    bounded by the capacity: a damaged, full table ends it rather than loops."""
    j = f & mask
    for _ in range(len(keys)):
        k = keys[j]
        if k == 0:
            return -1
        if k == f:
            return np.int64(j)
        j = (j + np.uint64(1)) & mask
    return -1


@_jit
def _place(keys, f, mask):
    """The slot holding fingerprint ``f`` (not 0), or the empty slot where
    it goes, or -1: a full table, which only damaged files can give (the
    walk is bounded by the capacity so that it fails rather than loops)."""
    j = f & mask
    for _ in range(len(keys)):
        k = keys[j]
        if k == 0 or k == f:
            return np.int64(j)
        j = (j + np.uint64(1)) & mask
    return -1


@_jit
def probe_fresh(keys, stamps, meta, fps, level):
    """Per fingerprint: True if the table holds it from a level before
    ``level`` (seen), False otherwise; returned as the *fresh* mask (not seen)."""
    mask = np.uint64(len(keys) - 1)
    out = np.empty(len(fps), dtype=np.bool_)
    # While no entry is stamped ``level`` or later, presence is all: the
    # stamps are not read (one cache miss a candidate, not two).
    keys_only = meta[M_TOP] < level
    for i in range(len(fps)):
        f = fps[i]
        if f == 0:
            out[i] = not (meta[M_ZERO] != 0 and (keys_only or meta[M_ZERO_STAMP] < level))
            continue
        j = _slot(keys, f, mask)
        out[i] = j < 0 or (not keys_only and stamps[j] >= level)
    return out


@_jit
def insert(keys, stamps, parents, meta, fps, pars, level, with_parents):
    """Insert fingerprints (distinct among themselves) stamped ``level``; an
    entry already there is re-stamped (and given the new parent).  The
    caller keeps the load within MAX_LOAD (``SeenTable.reserve``).  Returns
    how many entries are new, or -1 if the table had no free slot (only a
    damaged table can be full: the walks are bounded by the capacity so
    that it fails rather than loops)."""
    mask = np.uint64(len(keys) - 1)
    added = 0
    if meta[M_TOP] < level:
        meta[M_TOP] = level
    for i in range(len(fps)):
        f = fps[i]
        if f == 0:
            if meta[M_ZERO] == 0:
                added += 1
            meta[M_ZERO] = 1
            meta[M_ZERO_STAMP] = level
            if with_parents:
                meta[M_ZERO_PARENT] = np.int64(pars[i])
            continue
        j = _place(keys, f, mask)
        if j < 0:
            meta[M_COUNT] += added
            return -1
        if keys[j] == 0:
            keys[j] = f
            added += 1
        stamps[j] = level
        if with_parents:
            parents[j] = pars[i]
    meta[M_COUNT] += added
    return added


@_jit
def fresh_insert_buckets(keys, stamps, meta, bfp, bpar, brow, bounds, level, keys_only):
    """Candidates in buckets by home slot (``owner_split.by_home``; no
    fingerprint 0): per bucket, the duplicates removed in a small hash
    table (the smallest parent kept), and each fingerprint's first
    occurrence probed and, when not seen before ``level``, inserted stamped
    ``level`` in the same walk (an entry found stamped ``level`` or later,
    left by an earlier attempt, is re-stamped and counts as new, as in
    ``probe_fresh``; with ``keys_only`` no entry carries such a stamp).  A
    fingerprint's candidates share a bucket, so the insert cannot be met
    again by its own duplicates.  The new rows are compacted in place to the
    front of ``bfp``/``bpar``/``brow``; returns how many, or -1 if the table
    had no free slot (damaged files).  The caller has reserved room for
    every candidate and raised the table's top stamp."""
    mask = np.uint64(len(keys) - 1)
    nb = len(bounds) - 1
    lkeys, ids = owner_split.bucket_tables(bounds)
    d = 0
    added = 0
    for b in range(nb):
        lo, hi = bounds[b], bounds[b + 1]
        if hi == lo:
            continue
        lmask, down = owner_split.bucket_table(ids, hi - lo)
        for i in range(lo, hi):
            f = bfp[i]
            j = (f * owner_split.GOLDEN) >> down
            while True:
                g = ids[j]
                if g == -1:
                    lkeys[j] = f
                    s = _place(keys, f, mask)
                    if s < 0:
                        meta[M_COUNT] += added
                        return -1
                    fresh = True
                    if keys[s] == 0:
                        keys[s] = f
                        stamps[s] = level
                        added += 1
                    elif keys_only or stamps[s] < level:
                        fresh = False
                    else:
                        stamps[s] = level
                    if fresh:
                        ids[j] = d
                        bfp[d] = f
                        bpar[d] = bpar[i]
                        brow[d] = brow[i]
                        d += 1
                    else:
                        ids[j] = -2
                    break
                if lkeys[j] == f:
                    if g >= 0 and bpar[i] < bpar[g]:
                        bpar[g] = bpar[i]
                    break
                j = (j + np.uint64(1)) & lmask
    meta[M_COUNT] += added
    return d


@_jit
def rehash(keys, stamps, parents, new_keys, new_stamps, new_parents, with_parents):
    """Move every entry into a (larger, empty) table."""
    mask = np.uint64(len(new_keys) - 1)
    for i in range(len(keys)):
        f = keys[i]
        if f == 0:
            continue
        j = f & mask
        while new_keys[j] != 0:
            j = (j + np.uint64(1)) & mask
        new_keys[j] = f
        new_stamps[j] = stamps[i]
        if with_parents:
            new_parents[j] = parents[i]


@_jit
def find_parents(keys, parents, meta, fps):
    """Per fingerprint: whether the table holds it, and its parent."""
    mask = np.uint64(len(keys) - 1)
    found = np.zeros(len(fps), dtype=np.bool_)
    out = np.zeros(len(fps), dtype=np.uint64)
    for i in range(len(fps)):
        f = fps[i]
        if f == 0:
            if meta[M_ZERO] != 0:
                found[i] = True
                out[i] = np.uint64(meta[M_ZERO_PARENT])
            continue
        j = f & mask
        for _ in range(len(keys)):
            k = keys[j]
            if k == 0:
                break
            if k == f:
                found[i] = True
                out[i] = parents[j]
                break
            j = (j + np.uint64(1)) & mask
    return found, out


def entries(keys: np.ndarray, parents: np.ndarray | None, meta: np.ndarray
            ) -> tuple[np.ndarray, np.ndarray]:
    """Every entry as (fingerprints, parents), sorted by fingerprint."""
    slots = np.flatnonzero(keys)
    fp = np.asarray(keys[slots], _U64)
    par = np.asarray(parents[slots], _U64) if parents is not None else np.zeros(len(fp), _U64)
    if meta[M_ZERO]:
        fp = np.concatenate([np.zeros(1, _U64), fp])
        par = np.concatenate([np.array([meta[M_ZERO_PARENT]], dtype=np.int64).view(_U64), par])
    order = np.argsort(fp, kind="stable")
    return fp[order], par[order]


class SeenTable:
    """A seen set in memory (``parents`` optional).  ``resident.py`` keeps
    the same arrays in memory-mapped files; ``alloc`` is how a table gets
    new arrays when it grows."""

    def __init__(self, keys: np.ndarray, stamps: np.ndarray, parents: np.ndarray | None,
                 meta: np.ndarray):
        self.keys, self.stamps, self.parents, self.meta = keys, stamps, parents, meta

    @classmethod
    def empty(cls, n: int = 0, with_parents: bool = True) -> "SeenTable":
        cap = capacity_for(n)
        return cls(np.zeros(cap, _U64), np.zeros(cap, np.int32),
                   np.zeros(cap, _U64) if with_parents else None, np.zeros(META, np.int64))

    @classmethod
    def build(cls, fps: np.ndarray, parents: np.ndarray | None, stamp: int = 0,
              with_parents: bool = True) -> "SeenTable":
        table = cls.empty(len(fps), with_parents)
        table.add(fps, parents, stamp)
        return table

    def __len__(self) -> int:
        return int(self.meta[M_COUNT])

    @property
    def with_parents(self) -> bool:
        return self.parents is not None

    def alloc(self, cap: int) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        return (np.zeros(cap, _U64), np.zeros(cap, np.int32),
                np.zeros(cap, _U64) if self.with_parents else None)

    def raise_top(self, level: int) -> None:
        """Called before the first insert stamped ``level``: a table kept
        elsewhere records that entries may now carry it."""
        self.meta[M_TOP] = level

    def reserve(self, more: int) -> None:
        """Grow (doubling, one rehash) so that ``more`` entries fit."""
        need = len(self) + more
        if need <= len(self.keys) * MAX_LOAD:
            return
        keys, stamps, parents = self.alloc(max(capacity_for(need), 2 * len(self.keys)))
        rehash(self.keys, self.stamps, self._parents(), keys, stamps,
               parents if parents is not None else _NO_PARENTS, self.with_parents)
        self.keys, self.stamps, self.parents = keys, stamps, parents

    def _parents(self) -> np.ndarray:
        return self.parents if self.parents is not None else _NO_PARENTS

    def fresh(self, fps: np.ndarray, level: int) -> np.ndarray:
        """Which of ``fps`` the table does not hold from a level before ``level``."""
        return probe_fresh(self.keys, self.stamps, self.meta, np.asarray(fps, _U64),
                           np.int64(level))

    def add(self, fps: np.ndarray, parents: np.ndarray | None, level: int) -> int:
        """Insert distinct fingerprints stamped ``level``; returns how many are new."""
        fps = np.asarray(fps, _U64)
        if not len(fps):
            return 0
        if self.meta[M_TOP] < level:
            self.raise_top(level)
        self.reserve(len(fps))
        pars = np.asarray(parents, _U64) if parents is not None and self.with_parents \
            else _NO_PARENTS
        if len(fps) >= _BY_HOME_ROWS and owner_split.njit is not None:
            # In the order of their home slots: the inserts walk the table a
            # region at a time (in the cache), not at random.
            _, fps, moved, _ = owner_split.by_home(fps, pars if len(pars) else None,
                                                   len(self.keys).bit_length() - 1)
            pars = moved if len(pars) else _NO_PARENTS
        added = int(insert(self.keys, self.stamps, self._parents(), self.meta, fps, pars,
                           np.int64(level), self.with_parents))
        if added < 0:
            raise RuntimeError("seen table full: its files are damaged")
        return added

    def add_fresh(self, fp: np.ndarray, parent: np.ndarray, level: int,
                  scratch: "owner_split.Scratch | None" = None
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Candidates (no fingerprint 0; duplicates allowed) probed and the
        new ones inserted stamped ``level`` in one pass in home order
        (``fresh_insert_buckets``): a table without parents, a merge that
        keeps every new state.  Returns the new rows' fingerprints, their
        smallest parents and their rows in ``fp``, in bucket order."""
        keys_only = bool(self.meta[M_TOP] < level)
        if self.meta[M_TOP] < level:
            self.raise_top(level)
        self.reserve(len(fp))
        bounds, bfp, bpar, brow = owner_split.by_home(fp, parent,
                                                      len(self.keys).bit_length() - 1, scratch)
        d = int(fresh_insert_buckets(self.keys, self.stamps, self.meta, bfp, bpar, brow, bounds,
                                     np.int64(level), keys_only))
        if d < 0:
            raise RuntimeError("seen table full: its files are damaged")
        return bfp[:d], bpar[:d], brow[:d]

    def parents_of(self, fps: np.ndarray) -> dict[int, int]:
        """The parent of each of ``fps`` the table holds (absent ones left out)."""
        fps = np.asarray(fps, _U64)
        found, par = find_parents(self.keys, self._parents(), self.meta, fps)
        return dict(zip(fps[found].tolist(), par[found].tolist()))

    def items(self) -> tuple[np.ndarray, np.ndarray]:
        """(fingerprints, parents), sorted by fingerprint."""
        return entries(self.keys, self.parents, self.meta)


_NO_PARENTS = np.zeros(1, _U64)
