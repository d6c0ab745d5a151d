"""A trace's path back through the levels kept on disk (``--preallocate``,
search/parents.py): the representative of each step's parent is found by
expanding rows of the level before until one has the step's state as a
successor; the path found is then re-executed forward (rebuild.replay_chain).

Where the parent is looked for matters: a level is not indexed by parent,
so the search used to expand the level from its first row, half a level a
step on average, and the whole level where it fits in one block of
``EXPAND_ROWS``.  Hanoi with 19 disks (524,288 levels of about 2,200 rows)
expanded every one of its 1.16·10^9 states again for its witness, minutes
after a search of a quarter of an hour.  But a level is written in the
order its parents were expanded, so a state's place in its level says
where its parent is in the level before, about: at the same fraction of
it (exactly monotone on one worker, roughly so on several).  So the rows
around that place are expanded first, in a window that grows four times a
pass until a parent is found, the rows nearer the level's start first
within each pass.  Any parent gives a path of the same, shortest length
(every state of a level is as far from the initial states); the window's
order is fixed, so the trace is the same from one run to the next.
"""
from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from typing import Callable

import numpy as np

from modelcheck.engines.compiled.kernels import CompiledModel
from modelcheck.engines.compiled.search.rebuild import (EXPAND_ROWS, Path, RebuildError, Stop,
                                                        Target, check_stop, replay_chain,
                                                        representatives_of)

__all__ = ["KeptLevel", "path_through_levels", "FIRST_WINDOW"]

#: Rows each side of the estimated place of the parent in the first pass.
FIRST_WINDOW = 16
#: Blocks of a level kept decompressed while its parent is looked for.
_CACHED_BLOCKS = 4


@dataclass(frozen=True)
class KeptLevel:
    """A kept level's rows in blocks: each block's row count and a reader."""
    sizes: tuple[int, ...]
    read: Callable[[int], np.ndarray]      # block k's rows, (n, W) int64

    @property
    def rows(self) -> int:
        return sum(self.sizes)


class _Rows:
    """Rows [a, b) of a kept level, read a block at a time through a small
    cache (the windows of one search for a parent overlap the same blocks)."""

    def __init__(self, kept: KeptLevel):
        self.kept = kept
        self.starts = np.concatenate([[0], np.cumsum(kept.sizes, dtype=np.int64)])
        self.cache: dict[int, np.ndarray] = {}

    def block(self, k: int) -> np.ndarray:
        got = self.cache.get(k)
        if got is None:
            if len(self.cache) >= _CACHED_BLOCKS:
                self.cache.pop(next(iter(self.cache)))
            got = self.cache[k] = self.kept.read(k)
        return got

    def pieces(self, a: int, b: int):
        """(index of the first row, rows) for the rows [a, b), in order."""
        k = bisect_right(self.starts, a) - 1
        while a < b and k < len(self.kept.sizes):
            start = int(self.starts[k])
            lo, hi = a - start, min(b, int(self.starts[k + 1])) - start
            if hi > lo:
                yield a, self.block(k)[lo:hi]
            a, k = start + hi, k + 1


def _expand_for(kernels: CompiledModel, rows: _Rows, a: int, b: int, target: Target,
                stop: Stop) -> tuple[np.ndarray, int] | None:
    """The first of the rows [a, b) with a successor whose representative is
    ``target``, and its index in the level."""
    fp, words = target
    for at, part in rows.pieces(a, b):
        for lo in range(0, len(part), EXPAND_ROWS):
            check_stop(stop)
            batch = part[lo:lo + EXPAND_ROWS]
            succ, parent, _, _ = kernels.expand(batch)
            # a run-time error stops the expansion at its row; the rows
            # before it were expanded by the search as they are here
            canon = representatives_of(kernels, succ)
            fps = kernels.fingerprint(canon)
            for j in np.flatnonzero(fps == np.uint64(fp)):
                if np.array_equal(canon[j].view(np.int64), words):
                    r = int(parent[j])
                    return batch[r].copy(), at + lo + r
    return None


def _parent_in(kernels: CompiledModel, kept: KeptLevel, level: int, target: Target,
               near: float | None, stop: Stop) -> tuple[np.ndarray, int]:
    """A row of the level with a successor whose representative is
    ``target``, and its index: the windows around the fraction ``near`` of
    the level first (the whole level in order where ``near`` is None)."""
    rows, total = _Rows(kept), kept.rows
    if near is None:
        found = _expand_for(kernels, rows, 0, total, target, stop)
    else:
        centre, width = int(near * total), FIRST_WINDOW
        lo, hi = max(0, centre - width), min(total, centre + width)
        found = _expand_for(kernels, rows, lo, hi, target, stop)
        while found is None and (lo > 0 or hi < total):
            width *= 4
            wider_lo, wider_hi = max(0, centre - width), min(total, centre + width)
            found = (_expand_for(kernels, rows, wider_lo, lo, target, stop)
                     or _expand_for(kernels, rows, hi, wider_hi, target, stop))
            lo, hi = wider_lo, wider_hi
    if found is None:
        raise RebuildError(f"internal error: no state of level {level} has the successor a "
                           f"trace goes through")
    return found


def _index_in(kept: KeptLevel, row: np.ndarray) -> int | None:
    """The index of ``row`` in the level (None where it is not there)."""
    at = 0
    for k, size in enumerate(kept.sizes):
        hits = np.flatnonzero((kept.read(k) == row).all(axis=1))
        if len(hits):
            return at + int(hits[0])
        at += size
    return None


def path_through_levels(kernels: CompiledModel, level_of: Callable[[int], KeptLevel],
                        row: np.ndarray, level: int, initial: np.ndarray, stop: Stop = None
                        ) -> tuple[Path, np.ndarray]:
    """``rebuild.find_path`` from the levels themselves (``level_of(n)``:
    level ``n`` kept): the representatives of the path back to an initial
    state, one level at a time, then the path re-executed forward."""
    rep = np.asarray(row).view(np.int64).copy()
    kept = level_of(level)
    index = _index_in(kept, rep)
    chain: list[Target] = []
    for n in range(level, 0, -1):
        chain.append((int(kernels.fingerprint(rep)[0]), rep))
        if n > 1:
            near = None if index is None else (index + 0.5) / max(1, kept.rows)
            kept = level_of(n - 1)
            rep, index = _parent_in(kernels, kept, n - 1, chain[-1], near, stop)
    found = replay_chain(kernels, chain[::-1], initial, stop)
    if found is None:
        raise RebuildError(f"internal error: the path of {level - 1} steps found through the "
                           f"levels does not re-execute")
    return found
