"""One chunk of a level on several cores with one shared table: the
phases of claim_driver.py, and the room they need (claim lists, the
table's growth).

The workers store into the table as they go, so they must stop for it to
grow: they share a budget of entries (what is left before the table's load
limit), each taking a block at a time, and stop where it is spent; the
table grows between two rounds, and the workers go on from the row and
successor they reached.
Growing moves the entries, so claims keep keys, not slots.
"""
from __future__ import annotations

import time
from typing import Any, Callable

import numpy as np
from numba import njit

from modelcheck.engines.compiled.kernel.claim_driver import (CLAIM_BUDGET, CLAIM_BUFFER, CLAIM_DONE,
                                                      CLAIM_FAULT, CLAIM_FULL, CLAIM_TAIL)
from modelcheck.engines.compiled.kernel.driver import C_CUT, DONE
from modelcheck.engines.compiled.kernel.runtime import SIGN
from modelcheck.engines.compiled.kernel.table import growth_steps, own_line

__all__ = ["Claims", "claim_chunk"]

#: The search this chunk belongs to: search/parallel.py's ParallelSearch.
#: Named, not imported: that module imports this one.
ParallelSearch = Any

#: A worker's budget of new entries below which the table grows first.
MIN_BUDGET = 256


@njit(cache=True, nogil=True)
def _side_refill(old: np.ndarray, new: np.ndarray) -> None:
    """The entries of a side table into a larger one (between two rounds,
    no worker running)."""
    mask = (new.shape[0] >> 1) - 1
    for h in range(old.shape[0] >> 1):
        key = old[2 * h]
        if key == SIGN:
            continue
        p = key & mask
        while new[2 * p] != SIGN:
            p = (p + 1) & mask
        new[2 * p] = key
        new[2 * p + 1] = old[2 * h + 1]


def _side_table(entries: int) -> np.ndarray:
    """An empty side table with room for twice ``entries`` (pairs of key and
    position): never full, since a worker stores at most as many keys in a
    chunk as it has room for claims."""
    n = 1 << max(4, (2 * entries - 1).bit_length())
    side = np.zeros(2 * n, dtype=np.int64)
    side[0::2] = SIGN
    return side


class Claims:
    """The claims of one chunk: worker w writes entries w*cap .. w*cap + counts[w].
    ``side``: the positions of the rows that stored the chunk's keys, for a
    table without tags (claim_driver.py, ``claim_insert``)."""

    def __init__(self, workers: int, cap: int, words: int):
        self.workers, self.cap = workers, cap
        n = workers * cap
        self.keys = np.zeros(n, dtype=np.int64)
        self.slot = np.zeros(n, dtype=np.int64)
        self.moved = np.zeros(workers, dtype=np.int64)   # claims before: the table grew since
        self.rowi = np.zeros(n, dtype=np.int64)
        self.succ = np.zeros(n, dtype=np.int64)
        self.aid = np.zeros(n, dtype=np.int32)
        self.rows = np.zeros((n, words), dtype=np.int64)
        self.posts = np.zeros((n, words), dtype=np.int64)     # outside states
        self.kind = np.zeros(n, dtype=np.int8)
        self.hit = np.zeros(n, dtype=np.int8)
        self.valid = np.zeros(n, dtype=np.int8)
        self.counts = np.zeros(workers, dtype=np.int64)
        self.side = _side_table(n)

    def clear_side(self) -> None:
        self.side[0::2] = SIGN
        self.side[1::2] = 0

    def grown(self) -> "Claims":
        """Twice the room per worker, each worker's claims kept."""
        new = Claims(self.workers, 2 * self.cap, self.rows.shape[1])
        for w in range(self.workers):
            m, a, b = int(self.counts[w]), w * self.cap, w * new.cap
            for name in ("keys", "slot", "rowi", "succ", "aid", "rows", "posts", "kind", "hit"):
                getattr(new, name)[b:b + m] = getattr(self, name)[a:a + m]
        new.counts[:] = self.counts
        new.moved[:] = self.moved
        _side_refill(self.side, new.side)
        return new

    def part(self, name: str, w: int) -> np.ndarray:
        return getattr(self, name)[w * self.cap:(w + 1) * self.cap]


def _threads(search: ParallelSearch) -> tuple[int, Callable[[Callable[[int], None]], None]]:
    """The workers' threads, for the table's growth."""
    return search.workers, search._each


def _expand(search: ParallelSearch, wstart: np.ndarray, inline: bool) -> np.ndarray:
    """Phase one: every worker's slice stored; the row each worker ended at
    (the row after its slice, or the row of a run-time error)."""
    module, t = search.module, search.table
    workers = search.workers
    row = wstart[:-1].copy()
    succ = np.zeros(workers, dtype=np.int64)
    done = np.zeros(workers, dtype=bool)
    status = np.zeros(workers, dtype=np.int64)
    stored = np.zeros(workers, dtype=np.int64)
    cl = search.claims
    cl.counts[:] = 0
    cl.moved[:] = 0
    if len(t.tags) == 0:
        cl.clear_side()
    search.wstat[:] = 0
    for s in search.scratch:
        s.wact[:] = 0
    budget = own_line(np.zeros(1, dtype=np.int64))
    added = 0
    while not done.all():
        budget[0] = max(0, t.grow_at() - t.count)

        def job(w: int) -> None:
            if done[w]:
                return
            s, c = search.scratch[w], search.claims
            status[w], row[w], succ[w], c.counts[w], stored[w] = module.claim_expand(
                search.front, row[w], wstart[w + 1], succ[w], t.keys, t.tags, c.side, t.meta,
                budget, c.part("keys", w), c.part("slot", w), c.part("rowi", w),
                c.part("succ", w), c.part("aid", w),
                c.part("rows", w), c.part("posts", w), c.part("kind", w), c.part("hit", w),
                c.counts[w], search.rowk, search.rown,
                search.term, search.opts, search.want, search.kinds, s.U, s.P, s.S, s.V, s.buf,
                s.bufaid, s.cbuf, s.skeys, s.err, s.flags, s.rkeys, search.k.action_of, s.wact,
                search.wstat[w])
        stored[:] = 0
        search._each(job, inline)
        t.meta[1] += int(stored.sum())
        added += int(stored.sum())
        done |= (status == CLAIM_DONE) | (status == CLAIM_FAULT)
        if (status == CLAIM_FULL).any():
            search.claims = search.claims.grown()
        for w in np.flatnonzero(status == CLAIM_BUFFER):
            search.scratch[w].grow_buffer()
        if (status == CLAIM_BUDGET).any() and t.grow_at() - t.count < MIN_BUDGET * workers:
            # nearly at the load limit: more homes now, rather than rounds
            # that each store a handful of states
            steps = growth_steps(t, added, int((row - wstart[:-1]).sum()),
                                 int((wstart[1:] - row).sum()) + len(search.front)
                                 - int(wstart[-1]))
            t.grow(search.max_table_bytes(), homes=True, each=_threads(search), steps=steps)
            search.claims.moved[:] = search.claims.counts
        elif (status == CLAIM_TAIL).any():
            t.grow(search.max_table_bytes(), each=_threads(search))
            search.claims.moved[:] = search.claims.counts
        status[done] = CLAIM_DONE
    return row


def _fix(search: ParallelSearch, inline: bool) -> None:
    """Phase two: each worker's valid claims marked, their slots made final."""
    t, cl = search.table, search.claims

    def job(w: int) -> None:
        lo = w * cl.cap
        search.module.claim_fix(t.keys, t.tags, cl.side, t.meta, search.front, cl.keys, cl.slot,
                                cl.rowi, cl.kind, lo, lo + int(cl.moved[w]),
                                lo + int(cl.counts[w]), cl.valid)
    search._each(job, inline)


def claim_chunk(search: ParallelSearch, start: int, stop: int,
                inline: bool) -> tuple[int, int]:
    """Rows front[start:stop] on every worker: (status, row reached) as
    explore_chunk returns them."""
    k = search.k
    wstart = search._slices(start, stop)
    t0 = time.perf_counter()
    ends = _expand(search, wstart, inline)
    t1 = time.perf_counter()
    # a worker stopped by a run-time error ends at that row, which the
    # settling pass reaches (and stops at) unless an earlier row stops it
    wend = np.minimum(ends + (ends < wstart[1:]), wstart[1:])
    _fix(search, inline)
    t2 = time.perf_counter()
    search._collect_inexact()
    cl = search.claims
    search._ensure_room(int(cl.counts.sum()))
    search.candidates += int(cl.counts.sum())
    if search.wstat[:, 0].any():
        search.ctr[C_CUT] = 1
    out = search.module.claim_settle(
        search.front, wstart, wend, cl.cap, stop, search.rowk, search.rown, search.term,
        cl.valid, cl.rows, cl.posts, cl.kind, cl.succ, cl.aid, cl.hit, search.nxt, search.ctr, search.sres,
        search.want, search.kinds, search.opts, search.found, search.frows, search.frows2,
        search.faid, k.U, k.P, k.S, k.V, k.buf, k.bufaid, k.err, search.flags)
    if out[0] == DONE:
        for s in search.scratch:
            search.act_counts += s.wact
    else:
        _count_until(search, start, int(search.sres[0]), int(search.sres[1]))
    search.phase_s["expand"] += t1 - t0
    search.phase_s["store"] += t2 - t1
    search.phase_s["settle"] += time.perf_counter() - t2
    return out


def _count_until(search: ParallelSearch, start: int, row: int, nj: int) -> None:
    """The per-action counts of the steps the serial search had made when it
    stopped at successor ``nj`` of ``row``: those rows' successors again."""
    s = max(search.scratch, key=lambda x: x.buf.shape[0])
    while True:
        counts = np.zeros_like(search.act_counts)
        if search.module.claim_count_actions(search.front, start, row, nj, s.U, s.P, s.S, s.buf,
                                             s.bufaid, s.err, search.k.action_of, counts) == 0:
            search.act_counts += counts
            return
        s.grow_buffer()
