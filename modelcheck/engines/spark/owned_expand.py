"""A partition's frontier expanded by the kernels' ``expand_owned``: the
successors' fingerprints, the prefetches and the duplicate removal in the
kernels' own loop, one pass a successor, then one counting pass over the
distinct rows that cuts them into owner blocks.

Where this replaces (``tasks.expand_block``, whenever the kernels have the
entry and the spec has no step invariant) the chain of the batch API
(``partition.expand_batch``: the successors copied out, fingerprinted in a
pass of their own) and ``owner_split.split_by_owner`` (a histogram, a
scatter into buckets, a hash pass a bucket, the marks, the blocks: five
passes over every successor, half of a Spark worker's time on TwoPhase),
the blocks are the same candidates less the successors equal to their own
pre-state (stored states, which the owner would drop), and the flushes end
at ``OUT_ROWS`` distinct successors instead of 8M generated ones: what an
owner receives differs only by duplicates that its merge removes, so
counts, verdicts and traces are unchanged.

Step invariants need every step's pre- and post-state, which this loop
does not keep: a spec with any goes the batch API's way.
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from modelcheck.engines.spark import owner_split

# Only the compiled kernels have the fused loop, and they need numba.
from numba import njit
from modelcheck.engines.spark.kernels import PropertyPlan, SearchKernels
from modelcheck.engines.spark.partition import LevelReport, note_deadlocks, note_failed

__all__ = ["OUT_ROWS", "owned_expand", "expand_owned_part"]

_I64 = np.int64
#: Distinct successors a flush holds before its blocks go out (a power of
#: two: the table's probes wrap with a mask).  The table of
#: a flush has twice as many pairs (16 bytes each): 2M rows make a 64 MB
#: table, whose probes the loop's prefetches keep from stalling it.
OUT_ROWS = 1 << 21
#: A flush's rows for a frontier of n states: ``_ROWS_PER_STATE`` n (a state
#: has 1 to 2 distinct successors that are not self-loops on TwoPhase, 1.3
#: to 1.7 on Raft's wide levels), at least ``_MIN_ROWS``.
_ROWS_PER_STATE = 4
_MIN_ROWS = 1 << 10


def owned_expand(kernels: SearchKernels, plan: PropertyPlan) -> bool:
    """Whether ``expand_owned_part`` can expand for these kernels and plan."""
    return not plan.step and bool(getattr(kernels, "fused_expand", False))


class _Work:
    """The loop's arrays, kept across its calls and a frontier's flushes."""

    def __init__(self, rows: int, words: int, frontier: int, actions: int):
        if rows & (rows - 1):
            raise ValueError(f"a flush's rows must be a power of two, not {rows}")
        self.rows = rows
        # Only the table must start empty (zeros): the loop writes a row of
        # the others before it reads it, and a row's successor count
        # (``nsucc``) is read only for rows it expanded.  The Python workers'
        # malloc serves even large arrays from the heap (session.py), where
        # zeros cost a memset, not fresh pages.
        self.table = np.zeros(4 * rows, _I64)
        self.slots = np.empty(rows, _I64)
        self.out = np.empty((rows, words), _I64)
        self.out_fp = np.empty(rows, _I64)
        self.nsucc = np.empty(frontier, _I64)
        self.acts = np.zeros(max(1, actions), _I64)
        self.ctr = np.zeros(2, _I64)

    def arrays(self) -> tuple[np.ndarray, ...]:
        return (self.table, self.slots, self.out, self.out_fp, self.nsucc, self.acts, self.ctr)

    def grow(self) -> None:
        """Twice the rows: a state had more distinct successors than fit."""
        self.rows *= 2
        self.table = np.zeros(4 * self.rows, _I64)
        self.slots = np.empty(self.rows, _I64)
        self.out = np.empty((self.rows, self.out.shape[1]), _I64)
        self.out_fp = np.empty(self.rows, _I64)

    def take(self, partitions: int) -> list[tuple[int, np.ndarray]]:
        """The flush's rows as owner blocks; the table cleared for the next."""
        d = int(self.ctr[1])
        fp = self.out_fp[:d].view(np.uint64)
        counts = np.bincount(owner_split.owners(fp, partitions), minlength=partitions)
        bounds = np.zeros(partitions + 1, np.int64)
        np.cumsum(counts, out=bounds[1:])
        block = np.empty((d, 2 + self.out.shape[1]), np.uint64)
        _blocks(self.table, self.slots, self.out, fp, d, partitions, bounds[:-1].copy(),
                block.view(np.int64))
        self.ctr[1] = 0
        return [(part, block[bounds[part]:bounds[part + 1]])
                for part in range(partitions) if bounds[part + 1] > bounds[part]]


@njit(cache=True, nogil=True)
def _blocks(table, slots, out, fp, d, partitions, cursor, block):
    """``owner_split.reference_blocks`` of the flush's rows (distinct
    already: one counting pass and one scatter), each row's parent
    read from its pair in the table, and the pair's key cleared (only
    the slots taken: a flush of a narrow level touches a few pages of a
    table that fresh memory leaves unmapped), in one pass."""
    p = np.uint64(partitions)
    words = out.shape[1]
    for i in range(d):
        f = fp[i]
        o = np.int64(((f >> np.uint64(32)) * p) >> np.uint64(32))
        at = cursor[o]
        cursor[o] = at + 1
        s = slots[i]
        block[at, 0] = np.int64(f)
        block[at, 1] = table[2 * s + 1]
        table[2 * s] = 0
        for w in range(words):
            block[at, 2 + w] = out[i, w]


def expand_owned_part(kernels: Any, frontier_fp: np.ndarray, frontier: np.ndarray,
                      check_deadlock: bool, report: LevelReport, partitions: int,
                      rows: int = OUT_ROWS) -> Iterator[list[tuple[int, np.ndarray]]]:
    """Expand a frontier (sorted by fingerprint or not), yielding per flush
    its candidate blocks ``(owner, block)`` (``owner_split.reference_blocks``
    of the flush's distinct rows);
    ``report`` receives the expansion's figures as ``partition.expand_part``
    gives them: generated, action counts, deadlocks, run-time errors."""
    n = len(frontier)
    if report.action_counts is None:
        report.action_counts = np.zeros(kernels.n_action_instances, dtype=np.int64)
    # A flush's rows: what the level's distinct successors may need (a few
    # a state on the specs measured), so that a narrow level clears a small
    # table; a state with more than fit grows the arrays.
    want = max(_MIN_ROWS, _ROWS_PER_STATE * n)
    work = _Work(min(rows, 1 << (want - 1).bit_length()), frontier.shape[1], n,
                 kernels.n_action_instances)
    failed: list[int] = []
    start = 0
    while start < n:
        status, reached, _ = kernels.expand_owned(frontier, frontier_fp, start, work.arrays())
        if status == 0:
            break
        if status == 4:
            failed.append(reached)
            start = reached + 1
        elif work.ctr[1] == 0:
            work.grow()
            start = reached
        else:
            yield work.take(partitions)
            start = reached
    if work.ctr[1]:
        yield work.take(partitions)
    report.generated += int(work.ctr[0])
    report.action_counts += work.acts[:kernels.n_action_instances]
    report.expanded += n
    failed_rows = np.array(failed, dtype=np.int64)
    note_failed(report, frontier_fp[failed_rows])
    if check_deadlock:
        stuck = work.nsucc == 0
        stuck[failed_rows] = False
        note_deadlocks(kernels, report, frontier, frontier_fp, stuck)
