"""An expand flush's successors deduplicated and cut into one candidate block
per owner partition, in native passes that stay in the cache, and no sort.

The profile of a Spark level (docs/engines/spark.md, "Where the time goes
now") put a third of the workers' CPU in the expand's hand-over: the raw
successors concatenated (a copy), a hash pass over a table as large as the
flush (16M slots for 8M successors: several dependent cache misses a
probe: the slot, the row, the row's fingerprint, the parent), the distinct
rows gathered (a copy), the owners computed with numpy temporaries, a
stable argsort by owner and the blocks packed (two more copies).  Here,
over the pieces as the kernels made them (no concatenation):

1. a histogram of the fingerprints' top ``bits`` bits (the *bucket*), and
   a scatter of (fp, parent, row) into bucket order: sequential reads and
   2**bits write streams;
2. per bucket (some 32,000 rows), the duplicates removed with a hash table
   that fits in the core's L2 cache, the smallest parent kept, each
   owner's distinct rows counted;
3. each distinct row's first occurrence marked in a row-indexed array
   (with its smallest parent), then the pieces read once more in order
   and every marked row written straight into its owner's next place in
   one ``(n, 2 + words)`` array (fp, parent, the state's words), whose row
   ranges are the owners' blocks.  Reads and writes are sequential (the
   states in the pieces' order, one write stream an owner): written in
   bucket order instead, every state was a random read (the largest
   native pass in a Spark worker's profile, 11% of its samples; -27% on a
   synthetic flush of 2.16M successors).

What comes out is exactly ``reference_blocks``, the plain numpy definition
the unit tests compare with: per owner, one row per fingerprint holding its
first occurrence's state and the smallest parent among its duplicates, in
the order of the first occurrences.  A task's output therefore stays
deterministic, and a re-run task writes the same bytes.

Numba is a dependency of the compiled kernels the engine runs on; without
it (a test's stand-in kernels, say) ``split_by_owner`` runs the reference.
"""
from __future__ import annotations

import numpy as np

try:
    from numba import njit
except ImportError:          # pragma: no cover - numba ships with the compiled engine
    njit = None

__all__ = ["split_by_owner", "owners", "reference_blocks", "bucket_bits", "Scratch",
           "distinct_in_buckets", "histogram", "scatter", "by_home", "bucket_tables",
           "bucket_table", "GOLDEN"]

_U64 = np.uint64
#: Rows a bucket holds on average: its hash table (2 slots a row, 16 bytes a
#: slot) then stays within a core's L2 cache (1 MB)...
_BUCKET_ROWS = 1 << 15
#: ...unless that takes more than 2**8 buckets: the scatter writes three
#: streams a bucket, and on 8M rows 2**9 buckets cost three times 2**8's
#: scatter (1,536 pages written at once: the TLB, most likely).
_MAX_BITS = 8


def bucket_bits(rows: int) -> int:
    """The bits of a fingerprint that name its bucket, for a flush of
    ``rows`` rows (at least 1: a shift by 64 is undefined)."""
    bits = 1
    while bits < _MAX_BITS and rows >> bits > _BUCKET_ROWS:
        bits += 1
    return bits


def owners(fp: np.ndarray, partitions: int) -> np.ndarray:
    """Each fingerprint's owner partition (int64): its high 32 bits scaled
    to ``partitions``, as ``tasks.owner``."""
    return ((fp >> _U64(32)) * _U64(partitions) >> _U64(32)).astype(np.int64)


def reference_blocks(fp: np.ndarray, parent: np.ndarray, states: np.ndarray,
                     partitions: int) -> list[tuple[int, np.ndarray]]:
    """The plain numpy definition: per owner (ascending, empty ones left
    out), one ``(n, 2 + words)`` block of the distinct fingerprints' rows
    (fp, smallest parent, the state of the first occurrence), in the order
    of their first occurrences."""
    fp = np.asarray(fp, _U64)
    if not len(fp):
        return []
    uniq, first, inverse = np.unique(fp, return_index=True, return_inverse=True)
    best = np.full(len(uniq), np.iinfo(np.uint64).max, dtype=_U64)
    np.minimum.at(best, inverse.ravel(), np.asarray(parent, _U64))
    order = np.argsort(first)
    rows, best = first[order], best[order]
    owner = owners(fp[rows], partitions)
    out = []
    for part in range(partitions):
        sel = np.flatnonzero(owner == part)
        if len(sel):
            block = np.empty((len(sel), 2 + states.shape[1]), _U64)
            block[:, 0] = fp[rows[sel]]
            block[:, 1] = best[sel]
            block[:, 2:] = states[rows[sel]]
            out.append((part, block))
    return out


#: 2**64 / the golden ratio (odd): Fibonacci hashing's multiplier.
GOLDEN = np.uint64(0x9E3779B97F4A7C15)

def _jit(fn):
    return fn if njit is None else njit(cache=True, nogil=True)(fn)


@_jit
def bucket_tables(bounds):
    """The arrays of a bucket's small hash table (keys, ids), large enough
    for the largest bucket between ``bounds``."""
    most = 0
    for b in range(len(bounds) - 1):
        most = max(most, bounds[b + 1] - bounds[b])
    size = 16
    while size < 2 * most:
        size <<= 1
    return np.empty(size, dtype=np.uint64), np.empty(size, dtype=np.int64)


@_jit
def bucket_table(ids, rows):
    """A bucket of ``rows`` rows: its table's first slots cleared (ids -1),
    and the mask and the shift of its multiplicative hash
    (``(f * GOLDEN) >> shift``)."""
    m, mbits = 16, 4
    while m < 2 * rows:
        m <<= 1
        mbits += 1
    ids[:m] = -1
    return np.uint64(m - 1), np.uint64(64 - mbits)


if njit is not None:
    @njit(cache=True, nogil=True)
    def histogram(fp, shift, hist):
        """Rows per bucket (the fingerprint's top bits)."""
        for i in range(len(fp)):
            hist[np.int64(fp[i] >> shift)] += 1

    @njit(cache=True, nogil=True)
    def scatter(fp, parent, base, shift, cursor, bfp, bpar, brow):
        """A piece's rows (global rows from ``base``) into bucket order."""
        for i in range(len(fp)):
            f = fp[i]
            b = np.int64(f >> shift)
            at = cursor[b]
            cursor[b] = at + 1
            bfp[at] = f
            bpar[at] = parent[i]
            brow[at] = base + i

    @njit(cache=True, nogil=True)
    def distinct_in_buckets(bfp, bpar, brow, bounds, partitions, counts):
        """Per bucket, its distinct fingerprints in the order of first
        occurrence, the smallest parent kept, compacted in place to the
        front of ``bfp``/``bpar``/``brow`` (the d-th distinct row is written
        at d, never past the row being read); ``counts`` gets each owner's.
        Returns how many."""
        nb = len(bounds) - 1
        keys, ids = bucket_tables(bounds)
        p = np.uint64(partitions)
        d = 0
        for b in range(nb):
            lo, hi = bounds[b], bounds[b + 1]
            if hi == lo:
                continue
            mask, down = bucket_table(ids, hi - lo)
            for i in range(lo, hi):
                f = bfp[i]
                # A multiplicative hash: the bucket may have been chosen by
                # any of the fingerprint's bits (the merge's by the low
                # ones), which are then the same across the bucket.
                j = (f * GOLDEN) >> down
                while True:
                    g = ids[j]
                    if g < 0:
                        ids[j] = d
                        keys[j] = f
                        bfp[d] = f
                        bpar[d] = bpar[i]
                        brow[d] = brow[i]
                        counts[np.int64(((f >> np.uint64(32)) * p) >> np.uint64(32))] += 1
                        d += 1
                        break
                    if keys[j] == f:
                        if bpar[i] < bpar[g]:
                            bpar[g] = bpar[i]
                        break
                    j = (j + np.uint64(1)) & mask
        return d

    @njit(cache=True, nogil=True)
    def _mark(brow, bpar, d, first, best):
        """Each distinct row's first occurrence (a row of the flush), and
        its smallest parent, marked in arrays indexed by row."""
        for k in range(d):
            r = brow[k]
            first[r] = 1
            best[r] = bpar[k]

    @njit(cache=True, nogil=True)
    def _emit(fp, states, base, first, best, cursor, partitions, out):
        """Write the marked rows of one piece (flush rows ``base``..) into
        their owners' next places, in the piece's order."""
        p = np.uint64(partitions)
        words = states.shape[1]
        for i in range(len(fp)):
            r = base + i
            if first[r]:
                f = fp[i]
                o = np.int64(((f >> np.uint64(32)) * p) >> np.uint64(32))
                at = cursor[o]
                cursor[o] = at + 1
                out[at, 0] = f
                out[at, 1] = best[r]
                for w in range(words):
                    out[at, 2 + w] = states[i, w]


    @njit(cache=True, nogil=True)
    def _home_histogram(fp, down, bmask, hist):
        """Rows per bucket: the top bits of the home slot (the fingerprint's
        low bits), read in place where a rotation would copy the array."""
        for i in range(len(fp)):
            hist[np.int64((fp[i] >> down) & bmask)] += 1

    @njit(cache=True, nogil=True)
    def _home_scatter(fp, parent, down, bmask, cursor, bfp, bpar, brow):
        for i in range(len(fp)):
            f = fp[i]
            b = np.int64((f >> down) & bmask)
            at = cursor[b]
            cursor[b] = at + 1
            bfp[at] = f
            bpar[at] = parent[i]
            brow[at] = i

class Scratch:
    """The working arrays (the buckets' fp, parent and row; the rows'
    marks and parents), kept from one flush to the next of a task.  Fresh
    memory costs its page faults and the kernel's zeroing: on 8M
    successors that was most of the scatter's time, several times the cost
    of the writes themselves."""

    def __init__(self) -> None:
        self.fp = self.parent = self.best = np.empty(0, _U64)
        self.row = np.empty(0, np.int64)
        self.first = np.empty(0, np.uint8)

    def arrays(self, rows: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if len(self.fp) < rows:
            self.fp = self.parent = self.row = None      # freed before the new ones
            self.fp, self.parent = np.empty(rows, _U64), np.empty(rows, _U64)
            self.row = np.empty(rows, np.int64)
        return self.fp[:rows], self.parent[:rows], self.row[:rows]

    def marks(self, rows: int) -> tuple[np.ndarray, np.ndarray]:
        """The rows' marks (cleared) and their parents' array."""
        if len(self.first) < rows:
            self.first = self.best = None
            self.first, self.best = np.empty(rows, np.uint8), np.empty(rows, _U64)
        first = self.first[:rows]
        first[:] = 0
        return first, self.best[:rows]


def by_home(fp: np.ndarray, parent: np.ndarray | None, home: int,
            scratch: Scratch | None = None
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Rows in buckets by the high bits of their home slot in a hash table
    of ``2**home`` slots (the fingerprint's low ``home`` bits): a bucket's
    probes or inserts then stay in one region of the table, in the cache.
    Returns the buckets' bounds and the rows' fingerprints, parents and
    original row numbers in bucket order (arrays of ``scratch`` if given;
    the parents 0 without ``parent``)."""
    n = len(fp)
    fp = np.ascontiguousarray(fp, _U64)
    bits = min(bucket_bits(n), home)
    down, bmask = np.uint64(home - bits), np.uint64((1 << bits) - 1)
    hist = np.zeros(1 << bits, np.int64)
    _home_histogram(fp, down, bmask, hist)
    bounds = np.zeros(len(hist) + 1, np.int64)
    np.cumsum(hist, out=bounds[1:])
    bfp, bpar, brow = (scratch or Scratch()).arrays(n)
    parent = np.zeros(n, _U64) if parent is None else np.ascontiguousarray(parent, _U64)
    _home_scatter(fp, parent, down, bmask, bounds[:-1].copy(), bfp, bpar, brow)
    return bounds, bfp, bpar, brow


def split_by_owner(pieces: list[tuple[np.ndarray, np.ndarray, np.ndarray]], partitions: int,
                   words: int, scratch: Scratch | None = None) -> list[tuple[int, np.ndarray]]:
    """Successors given as pieces ``(fp, parent, states)``: their candidate
    blocks, ``(owner, block)`` for every owner with rows, ascending
    (``reference_blocks`` of their concatenation, computed without
    concatenating them).  The blocks are row ranges of one new array;
    ``scratch`` lends the working arrays (a task's flushes share one)."""
    pieces = [p for p in pieces if len(p[0])]
    rows = sum(len(p[0]) for p in pieces)
    if not rows:
        return []
    bits = bucket_bits(rows)
    if njit is None:
        return reference_blocks(np.concatenate([p[0] for p in pieces]),
                                np.concatenate([p[1] for p in pieces]),
                                np.concatenate([p[2] for p in pieces]), partitions)
    shift = np.uint64(64 - bits)
    pieces = [(np.ascontiguousarray(fp, _U64), np.ascontiguousarray(parent, _U64),
               np.ascontiguousarray(states, _U64)) for fp, parent, states in pieces]
    hist = np.zeros(1 << bits, np.int64)
    for fp, _, _ in pieces:
        histogram(fp, shift, hist)
    bounds = np.zeros((1 << bits) + 1, np.int64)
    np.cumsum(hist, out=bounds[1:])
    cursor = bounds[:-1].copy()
    scratch = scratch or Scratch()
    bfp, bpar, brow = scratch.arrays(rows)
    base = 0
    for fp, parent, _ in pieces:
        scatter(fp, parent, base, shift, cursor, bfp, bpar, brow)
        base += len(fp)
    counts = np.zeros(partitions, np.int64)
    d = int(distinct_in_buckets(bfp, bpar, brow, bounds, partitions, counts))
    owner_bounds = np.zeros(partitions + 1, np.int64)
    np.cumsum(counts, out=owner_bounds[1:])
    first, best = scratch.marks(rows)
    _mark(brow, bpar, d, first, best)
    out = np.empty((d, 2 + words), _U64)
    cursor = owner_bounds[:-1].copy()
    base = 0
    for fp, _, states in pieces:
        _emit(fp, states, base, first, best, cursor, partitions, out)
        base += len(fp)
    return [(part, out[owner_bounds[part]:owner_bounds[part + 1]])
            for part in range(partitions) if owner_bounds[part + 1] > owner_bounds[part]]
