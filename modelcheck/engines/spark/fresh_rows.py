"""A merge's candidates against its seen table: the rows of the fingerprints
not seen before, one per fingerprint, sorted, with the smallest parent.

What the merge did before (``partition.merge_into``): a probe of every
candidate, a gather of the unseen rows' fingerprints, parents and states
(three copies), a hash pass over a table as large as them (several
dependent cache misses a row), then a sort of the distinct rows and a
second gather of their states.  Here the probe is the same
(``seen_table.probe_fresh``), and then, without gathering anything:

1. the unseen rows' fingerprints and parents are gathered (16 bytes a
   row) and scattered by the fingerprint's top bits into buckets with the
   expand's own passes (``owner_split.histogram``, ``owner_split.scatter``:
   sequential reads, a few hundred write streams; a merge runs once a task,
   so its arrays are fresh unless the caller lends a ``Scratch``);
2. each bucket loses its duplicates in a hash table that fits in the
   core's L2 cache (``owner_split.distinct_in_buckets``, the expand's own
   pass), the smallest parent kept;
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
from modelcheck.engines.spark.owner_split import Scratch, bucket_bits
from modelcheck.engines.spark.seen_table import SeenTable

__all__ = ["fresh_distinct", "reference_fresh_rows"]

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
    fresh = table.fresh(fp, level)
    rows = np.flatnonzero(fresh)
    n = len(rows)
    if owner_split.njit is None or n < 1024:
        return reference_fresh_rows(fresh, fp, parent)
    # the expand's own passes (owner_split), on the unseen rows alone
    ffp, fpar = fp[rows], parent[rows]
    hist_bits = bucket_bits(n)
    shift = np.uint64(64 - hist_bits)
    hist = np.zeros(1 << hist_bits, np.int64)
    owner_split.histogram(ffp, shift, hist)
    bounds = np.zeros(len(hist) + 1, np.int64)
    np.cumsum(hist, out=bounds[1:])
    bfp, bpar, brow = (scratch or Scratch()).arrays(n)
    owner_split.scatter(ffp, fpar, 0, shift, bounds[:-1].copy(), bfp, bpar, brow)
    d = int(owner_split.distinct_in_buckets(bfp, bpar, brow, bounds, 1, np.zeros(1, np.int64)))
    # Bucket order is the top bits' order: the sort finishes what it began.
    order, best = _sorted_rows(bfp[:d], bpar[:d])
    return rows[brow[:d][order]], best
