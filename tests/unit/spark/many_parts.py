"""Test-only backend: the Spark backend's data flow (``frames.py``) on P parts
in this process, without Spark.  The Python side is the real one (the Arrow
batches and ``tasks.expand_batches``, run on tiny batches so that every
flush and chunk boundary is crossed); the JVM side (hash partitioning on the
fingerprint, duplicate removal keeping the smallest parent, the anti join
against the seen set, the aggregate that settles the new states) is done
here with numpy, so
results can be compared across partition counts and arrival orders in
seconds.  The real JVM side is tested against Spark in
tests/slow/test_spark_local.py."""
from __future__ import annotations

import numpy as np

from modelcheck.engines.spark.arrowpack import Rows, from_batches, to_batch
from modelcheck.engines.spark.checkpoint import NPZ, part_name, write_part
from modelcheck.engines.spark.partition import (INSIDE, OUTSIDE, UNDECIDED, LevelReport, Part,
                                                concat_parts, lookup_parents)
from modelcheck.engines.spark.tasks import expand_batches

__all__ = ["ManyParts", "owner", "batches_of", "jvm_new_states", "jvm_settle", "kept"]

U64 = np.uint64


def owner(fps: np.ndarray, partitions: int) -> np.ndarray:
    """A partition per fingerprint (the high 32 bits scaled to the count):
    Spark hashes instead; any function of the fingerprint will do."""
    return ((fps >> U64(32)) * U64(partitions) >> U64(32)).astype(np.int64)


def batches_of(rows: Rows, size: int) -> list:
    return [to_batch(rows.fp[lo:lo + size], rows.parent[lo:lo + size],
                     rows.inside[lo:lo + size], rows.states[lo:lo + size])
            for lo in range(0, len(rows), size)]


def _take(rows: Rows, mask) -> Rows:
    return Rows(rows.fp[mask], rows.parent[mask], rows.inside[mask], rows.states[mask],
                None if rows.pfail is None else rows.pfail[mask],
                None if rows.hits is None else rows.hits[mask])


def _pfail(rows: Rows) -> np.ndarray:
    return np.zeros(len(rows), np.int8) if rows.pfail is None else rows.pfail


def kept(rows: Rows) -> np.ndarray:
    """plans.LevelPlans.kept."""
    return (rows.inside != OUTSIDE) | (_pfail(rows) == 1)


def jvm_settle(rows: Rows, columns: int) -> LevelReport:
    """plans._settle_columns over new states, in numpy."""
    keep = kept(rows)
    report = LevelReport(new_states=int(keep.sum()))
    bad = (rows.inside == UNDECIDED) | (_pfail(rows) == 1)
    if bad.any():
        report.failed = int(rows.fp[bad].min())
    for c in range(columns):
        if rows.hits is None:
            break
        hit = (rows.hits[:, c // 64] >> U64(c % 64)) & U64(1) == U64(1)
        inside = np.flatnonzero(hit & (rows.inside != OUTSIDE))
        if len(inside):
            report.state_hits[c] = int(rows.fp[inside].min())
        outside = np.flatnonzero(hit & (rows.inside == OUTSIDE))
        if len(outside):
            best = outside[np.argmin(rows.fp[outside])]
            report.outside_hits[c] = (int(rows.fp[best]), int(rows.parent[best]))
    return report


def jvm_new_states(cands: Rows, seen_fp: np.ndarray) -> Rows:
    """What the JVM does with a partition's candidates: one row per
    fingerprint with the smallest parent, less the seen fingerprints,
    sorted by fingerprint."""
    order = np.lexsort((cands.parent, cands.fp))
    rows = _take(cands, order)
    first = np.ones(len(rows), dtype=bool)
    first[1:] = rows.fp[1:] != rows.fp[:-1]
    rows = _take(rows, first)
    return _take(rows, ~np.isin(rows.fp, seen_fp))


class ManyParts:
    where = "spark"

    def __init__(self, kernels, plan, parts: list[Part], partitions: int):
        self.kernels = kernels
        self.plan = plan
        self.partitions = partitions
        whole = concat_parts(parts, kernels.words)
        seen_owner = owner(whole.seen_fp, partitions)
        front_owner = owner(whole.frontier_fp, partitions)
        self.seen = [(whole.seen_fp[seen_owner == p], whole.seen_parent[seen_owner == p])
                     for p in range(partitions)]
        self.front = [Rows(whole.frontier_fp[front_owner == p],
                           np.zeros(int((front_owner == p).sum()), U64),
                           np.full(int((front_owner == p).sum()), INSIDE, np.int8),
                           whole.frontier[front_owner == p]) for p in range(partitions)]
        self.steps = 0

    def frontier_size(self) -> int:
        return sum(len(f) for f in self.front)

    def seen_size(self) -> int:
        return sum(len(fp) for fp, _ in self.seen)

    def step(self, check_deadlock, commit, time_left_s=None):
        self.steps += 1
        words = self.kernels.words
        expanded = LevelReport()
        out = []
        # Expand in reverse order: arrival order must not matter.
        for rows in reversed(self.front):
            report = LevelReport()
            out += list(expand_batches(self.kernels, self.plan, check_deadlock, commit,
                                       batches_of(rows, 2), report, flush_rows=7,
                                       expand_rows=3))
            expanded.add(report)
        cands = from_batches(out, words) if out else None
        merged = LevelReport()
        fresh_parts = []
        for p in range(self.partitions):
            if cands is None:
                fresh_parts.append(None)
                continue
            fresh = jvm_new_states(_take(cands, owner(cands.fp, self.partitions) == p),
                                   self.seen[p][0])
            merged.add(jvm_settle(fresh, len(self.plan.state)))
            fresh_parts.append(fresh)
        if not commit and merged.new_states and merged.failed is None:
            return expanded, merged
        for p, fresh in enumerate(fresh_parts):
            if fresh is None:
                self.front[p] = _take(self.front[p], np.zeros(len(self.front[p]), bool))
                continue
            new = _take(fresh, kept(fresh))
            seen_fp = np.concatenate([self.seen[p][0], new.fp])
            seen_parent = np.concatenate([self.seen[p][1], new.parent])
            order = np.argsort(seen_fp)
            self.seen[p] = (seen_fp[order], seen_parent[order])
            self.front[p] = new
        return expanded, merged

    def parents(self, fps):
        found = {}
        for fp, parent in self.seen:
            found.update(lookup_parents(Part(fp, parent, fp[:0], np.empty((0, 1), U64)),
                                        np.array(fps, dtype=U64)))
        return found

    def save(self, directory, folder):
        names = []
        for i, ((fp, parent), front) in enumerate(zip(self.seen, self.front)):
            write_part(directory, folder, part_name(i),
                       Part(fp, parent, front.fp, front.states))
            names.append(part_name(i))
        return NPZ, names

    def close(self):
        self.seen, self.front = [], []
