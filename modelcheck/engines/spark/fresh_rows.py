"""A merge's candidates against its seen table: the rows of the fingerprints
not seen before, one per fingerprint, sorted, with the smallest parent.

What the merge did before (``partition.merge_into``): a probe of every
candidate, a gather of the unseen rows' fingerprints, parents and states
(three copies), a hash pass over a table as large as them (several
dependent cache misses a row), then a sort of the distinct rows and a
second gather of their states.  Here the probe is the same
(``seen_table.probe_fresh``), in a better order, and without gathering
anything first:

1. every candidate's fingerprint and parent (16 bytes a row) is
   scattered into buckets by the high bits of its home slot in the table
   with the expand's own passes (``owner_split.histogram``,
   ``owner_split.scatter``: sequential reads, a few hundred write
   streams), and probed in that order: a bucket's probes fall in one
   256th of the table, in the cache, where in the candidates' order each
   probe of a large table was a miss (the probe was 14% of a Spark
   worker's samples);
2. the unseen rows, still by bucket, lose their duplicates in a hash
   table a bucket that fits in the core's L2 cache
   (``owner_split.distinct_in_buckets``, the expand's own pass), the
   smallest parent kept;
3. the distinct rows are sorted by fingerprint (``dedupe``'s sort of keys)
   and only their states are gathered, once, by the caller.

The result is exactly ``reference_fresh_rows``'s (the plain numpy
definition the unit tests compare with): which row stands for a
fingerprint may differ, but rows with one fingerprint hold one state.
"""
from __future__ import annotations

import numpy as np

from modelcheck.engines.spark.dedupe import _sorted_rows, distinct_rows
from modelcheck.engines.spark import owner_split
from modelcheck.engines.spark.owner_split import Scratch
from modelcheck.engines.spark.seen_table import SeenTable

__all__ = ["fresh_distinct", "fresh_inserted", "reference_fresh_rows"]

_U64 = np.uint64


def reference_fresh_rows(fresh: np.ndarray, fp: np.ndarray, parent: np.ndarray
                         ) -> tuple[np.ndarray, np.ndarray]:
    """The numpy definition, from the probe's mask: per distinct fingerprint
    among the ``fresh`` rows, ascending, one row holding it and the
    smallest parent among its fresh rows."""
    rows = np.flatnonzero(fresh)
    if not len(rows):
        return rows, np.empty(0, _U64)
    first, best = distinct_rows(np.ascontiguousarray(fp[rows], _U64),
                                np.ascontiguousarray(parent[rows], _U64))
    return rows[first], best


def fresh_distinct(table: SeenTable, level: int, fp: np.ndarray, parent: np.ndarray,
                   scratch: Scratch | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The rows of ``fp`` the table does not hold from a level before
    ``level``, one per fingerprint, sorted by fingerprint (int64 rows), and
    the smallest parent of each among those rows."""
    n = len(fp)
    if owner_split.njit is None or n < 1024:
        return reference_fresh_rows(table.fresh(fp, level), fp, parent)
    # Every candidate into buckets by the high bits of its home slot in the
    # table, so that a bucket's probes stay in one small region of the
    # table instead of missing the cache on each.
    bounds, keys, bpar, brow = owner_split.by_home(fp, parent,
                                                   len(table.keys).bit_length() - 1, scratch)
    fresh = table.fresh(keys, level)
    # The unseen rows, still by bucket, then their duplicates removed.
    kept = np.zeros(n + 1, np.int64)
    np.cumsum(fresh, out=kept[1:])
    sel = np.flatnonzero(fresh)
    ffp, fpar, frow = keys[sel], bpar[sel], brow[sel]
    d = int(owner_split.distinct_in_buckets(ffp, fpar, frow, kept[bounds], 1,
                                            np.zeros(1, np.int64)))
    if d == 0:
        return np.empty(0, np.int64), np.empty(0, _U64)
    order, best = _sorted_rows(ffp[:d], fpar[:d])
    return frow[:d][order], best


def fresh_inserted(table: SeenTable, level: int, fp: np.ndarray, parent: np.ndarray,
                   scratch: Scratch | None = None) -> tuple[np.ndarray, np.ndarray] | None:
    """``fresh_distinct``'s rows and parents, the new fingerprints inserted
    in the table (stamped ``level``) in the same pass: for a merge that keeps
    every new state (no constraint; a level within the bounds) into a table
    without parents.  The probe's walk ends at the slot the insert takes, so
    a new state costs one walk, not two, and the second bucketing of the
    inserts is gone.  None where that pass cannot run (without numba, a
    table with parents, fingerprint 0): the caller merges as before."""
    if owner_split.njit is None or table.with_parents or len(fp) < 1024 or not fp.all():
        return None
    ffp, fpar, frow = table.add_fresh(fp, parent, level, scratch)
    if not len(ffp):
        return np.empty(0, np.int64), np.empty(0, _U64)
    order, best = _sorted_rows(ffp, fpar)
    return frow[order], best
