"""One partition of the level-synchronous search, as plain numpy arrays.

A state belongs to the partition its fingerprint hashes to (``owner``).  A
partition keeps its seen set as one sorted ``uint64`` array of fingerprints
with the parent's fingerprint beside each (a root is its own parent), and
the frontier: the packed states it discovered in the last level.  Per level:

* ``expand_part`` expands the frontier with the kernels, checks step
  invariants and deadlocks, and routes the successors to their owners
  (deduplicated first, so each fingerprint travels once per source);
* ``merge_part`` takes every candidate routed to this partition, keeps those
  not seen yet, merges them into the seen set (a linear merge, the array
  stays sorted) and makes them the next frontier, checking the state
  properties on them.

Both are pure functions of their inputs; the in-process and the Spark search
run exactly these, which is what makes their counts and traces agree.  Where
several states could be reported (which violation, which parent), the
smallest fingerprint wins, so results do not depend on the partition count
or on the order in which Spark delivers the pieces.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from modelcheck.engines.spark.dedupe import distinct_rows
from modelcheck.engines.spark.kernels import PropertyPlan, SearchKernels, keys

__all__ = ["Part", "Candidates", "LevelReport", "owner", "empty_part", "initial_candidates",
           "expand_part", "merge_part", "split_part", "concat_parts", "lookup_parents",
           "EXPAND_BATCH", "FLUSH_ROWS"]

#: States expanded per kernel call: bounds the memory of one call.
EXPAND_BATCH = 1 << 16
#: Successors gathered before they are deduplicated and routed.
FLUSH_ROWS = 1 << 21

_U64 = np.uint64


def owner(fps: np.ndarray, partitions: int) -> np.ndarray:
    """The partition of each fingerprint: the high 32 bits scaled to
    [0, partitions), so owners stay uniform whatever the partition count."""
    return ((fps >> _U64(32)) * _U64(partitions) >> _U64(32)).astype(np.int64)


@dataclass
class Part:
    """The state of one partition between two levels."""
    seen_fp: np.ndarray         # (n,) uint64, sorted, unique
    seen_parent: np.ndarray     # (n,) uint64, the parent of each (itself for a root)
    frontier_fp: np.ndarray     # (f,) uint64, sorted
    frontier: np.ndarray        # (f, words) uint64, the states of the last level

    @property
    def words(self) -> int:
        return self.frontier.shape[1]


def empty_part(words: int) -> Part:
    return Part(np.empty(0, _U64), np.empty(0, _U64), np.empty(0, _U64),
                np.empty((0, words), _U64))


@dataclass
class Candidates:
    """Successors on their way to one partition, deduplicated and sorted by
    fingerprint; ``parent`` is the smallest parent fingerprint seen for each."""
    fp: np.ndarray
    parent: np.ndarray
    states: np.ndarray


@dataclass
class LevelReport:
    """What a level found, summed (or minimised) over partitions.

    ``state_hits[c]``: the smallest fingerprint of a new state settling state
    column c (violating an invariant / witnessing a ``sometimes``).
    ``step_hits[c]``: the smallest (pre, post) fingerprints of a step violating
    step column c.  ``deadlock``: the smallest fingerprint of an expanded
    state that has no successor and is not terminal.  ``failed``: the
    smallest fingerprint of a state where the spec hit a run-time error
    (expanding it, checking whether it is terminal, a step invariant on a
    step from it, a state property or a constraint on it).
    ``outside_hits[c]``: the smallest (fingerprint, parent fingerprint) of a
    state failing a state constraint that settles column c: it is checked,
    never stored (an initial one is its own parent).
    """
    expanded: int = 0
    generated: int = 0
    new_states: int = 0
    action_counts: np.ndarray | None = None
    state_hits: dict[int, int] = field(default_factory=dict)
    step_hits: dict[int, tuple[int, int]] = field(default_factory=dict)
    deadlock: int | None = None
    failed: int | None = None
    outside_hits: dict[int, tuple[int, int]] = field(default_factory=dict)

    def add(self, other: "LevelReport") -> None:
        """Fold another partition's (or batch's) report into this one."""
        self.expanded += other.expanded
        self.generated += other.generated
        self.new_states += other.new_states
        if other.action_counts is not None:
            self.action_counts = (other.action_counts.copy() if self.action_counts is None
                                  else self.action_counts + other.action_counts)
        for c, fp in other.state_hits.items():
            self.state_hits[c] = min(fp, self.state_hits.get(c, fp))
        for c, pair in other.step_hits.items():
            self.step_hits[c] = min(pair, self.step_hits.get(c, pair))
        for c, pair in other.outside_hits.items():
            self.outside_hits[c] = min(pair, self.outside_hits.get(c, pair))
        self.deadlock = _min_opt(self.deadlock, other.deadlock)
        self.failed = _min_opt(self.failed, other.failed)


def _min_opt(a: int | None, b: int | None) -> int | None:
    if a is None:
        return b
    if b is None:
        return a
    return min(a, b)


# ------------------------------------------------------------------ candidates

def _dedupe(fp: np.ndarray, parent: np.ndarray, states: np.ndarray) -> Candidates:
    """One row per fingerprint, sorted, keeping the smallest parent."""
    if len(fp) == 0:
        return Candidates(fp.astype(_U64), parent.astype(_U64), states)
    rows, parents = distinct_rows(fp, parent)
    return Candidates(fp[rows], parents, states[rows])


def _route(cands: Candidates, partitions: int) -> dict[int, Candidates]:
    """Split sorted candidates by owner; each piece stays sorted."""
    if partitions == 1:
        return {0: cands} if len(cands.fp) else {}
    # The owner grows with the fingerprint, so sorted candidates are already
    # grouped by owner.
    bounds = np.searchsorted(owner(cands.fp, partitions), np.arange(partitions + 1))
    out: dict[int, Candidates] = {}
    for p in range(partitions):
        lo, hi = bounds[p], bounds[p + 1]
        if hi > lo:
            out[p] = Candidates(cands.fp[lo:hi], cands.parent[lo:hi], cands.states[lo:hi])
    return out


def initial_candidates(kernels: SearchKernels,
                       partitions: int) -> tuple[dict[int, Candidates], int]:
    """The initial states routed to their owners, each its own parent; and
    the number generated (the initial states, duplicates included)."""
    states, fp = keys(kernels, np.ascontiguousarray(kernels.initial_states(), dtype=_U64))
    return _route(_dedupe(fp, fp.copy(), states), partitions), len(states)


# ------------------------------------------------------------------ expand

def expand_part(kernels: SearchKernels, plan: PropertyPlan, part: Part, partitions: int,
                check_deadlock: bool, report: LevelReport, flush_rows: int = FLUSH_ROWS,
                batch_rows: int = EXPAND_BATCH) -> Iterator[dict[int, Candidates]]:
    """Expand the frontier of one partition, yielding its successors routed
    by owner (a group at least every ``flush_rows`` successors, to bound the
    memory of a wide level); ``report`` receives the level's expansion
    figures: generated, action counts, step invariant violations, deadlocks,
    run-time errors."""
    if report.action_counts is None:
        report.action_counts = np.zeros(kernels.n_action_instances, dtype=np.int64)
    pieces: list[Candidates] = []
    pending = 0
    for lo in range(0, len(part.frontier_fp), batch_rows):
        batch = part.frontier[lo:lo + batch_rows]
        batch_fp = part.frontier_fp[lo:lo + batch_rows]
        found = _expand_batch(kernels, plan, batch, batch_fp, check_deadlock, pieces)
        report.add(found)
        pending += found.generated
        if pending >= flush_rows:
            yield _route(_dedupe_raw(pieces), partitions)
            pieces, pending = [], 0
    report.expanded += len(part.frontier_fp)
    if pieces:
        yield _route(_dedupe_raw(pieces), partitions)


def _dedupe_raw(pieces: list[Candidates]) -> Candidates:
    """Deduplicate successors as the kernels produced them (unsorted)."""
    return _dedupe(np.concatenate([c.fp for c in pieces]),
                   np.concatenate([c.parent for c in pieces]),
                   np.concatenate([c.states for c in pieces]))


def _dedupe_all(pieces: list[Candidates]) -> Candidates:
    """Deduplicate candidate pieces (each already sorted and unique)."""
    if len(pieces) == 1:
        return pieces[0]
    return _dedupe(np.concatenate([c.fp for c in pieces]),
                   np.concatenate([c.parent for c in pieces]),
                   np.concatenate([c.states for c in pieces]))


def _expand_batch(kernels: SearchKernels, plan: PropertyPlan, batch: np.ndarray,
                  batch_fp: np.ndarray, check_deadlock: bool,
                  pieces: list[Candidates]) -> LevelReport:
    exp = kernels.expand(batch)
    succ, succ_fp = keys(kernels, exp.succ)
    report = LevelReport(generated=len(exp.succ),
                         action_counts=np.bincount(exp.action, minlength=kernels.n_action_instances)
                         .astype(np.int64))
    _note_failed(report, batch_fp[exp.failed])
    if check_deadlock:
        stuck = np.bincount(exp.parent, minlength=len(batch)) == 0
        stuck[exp.failed] = False
        rows = np.flatnonzero(stuck)
        if len(rows):
            term = kernels.terminal(batch[rows])
            _note_failed(report, batch_fp[rows[term.failed]])
            ok = np.ones(len(rows), dtype=bool)
            ok[term.failed] = False
            rows = rows[ok & ~term.values]
            if len(rows):
                report.deadlock = int(batch_fp[rows].min())
    if plan.step and len(exp.succ):
        # On the step taken, not on the representative it is stored as.
        checked = kernels.step_props(batch[exp.parent], exp.succ, exp.action)
        pre_fp = batch_fp[exp.parent]
        _note_failed(report, pre_fp[checked.failed])
        bad_rows = ~checked.values
        bad_rows[checked.failed] = False
        for c in range(len(plan.step)):
            bad = np.flatnonzero(bad_rows[:, c])
            if len(bad):
                best = bad[np.lexsort((succ_fp[bad], pre_fp[bad]))[0]]
                report.step_hits[c] = (int(pre_fp[best]), int(succ_fp[best]))
    if len(exp.succ):
        pieces.append(Candidates(succ_fp, batch_fp[exp.parent], succ))
    return report


# ------------------------------------------------------------------ merge

def merge_part(kernels: SearchKernels, plan: PropertyPlan, part: Part,
               incoming: list[Candidates], commit: bool = True) -> tuple[Part, LevelReport]:
    """Add the candidates routed to this partition.  With ``commit`` False
    (the level is past a bound) new states are only counted and the part is
    returned unchanged (unless a constraint failed to evaluate: the failing
    state is merged, for its trace, and the search stops); without new states
    the level ends as usual."""
    report = LevelReport()
    if not incoming:
        return (Part(part.seen_fp, part.seen_parent, np.empty(0, _U64),
                     np.empty((0, part.words), _U64)) if commit else part), report
    cands = _dedupe_all(incoming)
    fresh = ~_member(part.seen_fp, cands.fp)
    if plan.constrained and fresh.any():
        fresh = _apply_constraints(kernels, plan, cands, fresh, report, commit)
    new_fp = cands.fp[fresh]
    report.new_states = len(new_fp)
    if not commit and len(new_fp) and report.failed is None:
        return part, report
    new_parent = cands.parent[fresh]
    new_states = np.ascontiguousarray(cands.states[fresh])
    seen_fp, seen_parent = _merge_sorted(part.seen_fp, part.seen_parent, new_fp, new_parent)
    if plan.state and len(new_fp) and commit:
        checked = kernels.state_props(new_states)
        _note_failed(report, new_fp[checked.failed])
        hits = checked.values == plan.state_hit_wanted[None, :]
        hits[checked.failed] = False
        for c in range(len(plan.state)):
            rows = np.flatnonzero(hits[:, c])
            if len(rows):
                report.state_hits[c] = int(new_fp[rows].min())
    return Part(seen_fp, seen_parent, new_fp, new_states), report


def _apply_constraints(kernels: SearchKernels, plan: PropertyPlan, cands: Candidates,
                       fresh: np.ndarray, report: LevelReport, commit: bool) -> np.ndarray:
    """The fresh candidates that are in the model (TLC's CONSTRAINT); those
    outside it are checked (unless the level is past the depth bound) and
    dropped.  A state whose constraint or property fails to evaluate is kept,
    so that the error's trace can be walked back to it: the search stops at
    this level."""
    rows = np.flatnonzero(fresh)
    checked = kernels.in_model(np.ascontiguousarray(cands.states[rows]))
    _note_failed(report, cands.fp[rows[checked.failed]])
    inside = checked.values.astype(bool)
    inside[checked.failed] = True
    out_rows = rows[~inside]
    keep = fresh.copy()
    keep[out_rows] = False
    if not commit or not plan.state or not len(out_rows):
        return keep
    out_fp = cands.fp[out_rows]
    props = kernels.state_props(np.ascontiguousarray(cands.states[out_rows]))
    _note_failed(report, out_fp[props.failed])
    keep[out_rows[props.failed]] = True
    hits = props.values == plan.state_hit_wanted[None, :]
    hits[props.failed] = False
    for c in range(len(plan.state)):
        hit = np.flatnonzero(hits[:, c])
        if len(hit):
            best = hit[np.argmin(out_fp[hit])]
            report.outside_hits[c] = (int(out_fp[best]), int(cands.parent[out_rows[best]]))
    return keep


def _note_failed(report: LevelReport, fps: np.ndarray) -> None:
    """Record states whose evaluation hit a run-time error (the smallest wins)."""
    if len(fps):
        report.failed = _min_opt(report.failed, int(fps.min()))


def _member(sorted_fp: np.ndarray, fp: np.ndarray) -> np.ndarray:
    if len(sorted_fp) == 0:
        return np.zeros(len(fp), dtype=bool)
    pos = np.searchsorted(sorted_fp, fp)
    pos[pos == len(sorted_fp)] = 0
    return sorted_fp[pos] == fp


def _merge_sorted(a_fp: np.ndarray, a_val: np.ndarray, b_fp: np.ndarray,
                  b_val: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Merge two sorted, disjoint key arrays (with their values) in linear time."""
    if len(b_fp) == 0:
        return a_fp, a_val
    if len(a_fp) == 0:
        return b_fp, b_val
    n = len(a_fp) + len(b_fp)
    pos = np.searchsorted(a_fp, b_fp) + np.arange(len(b_fp))
    from_a = np.ones(n, dtype=bool)
    from_a[pos] = False
    out_fp = np.empty(n, _U64)
    out_val = np.empty(n, _U64)
    out_fp[pos] = b_fp
    out_val[pos] = b_val
    out_fp[from_a] = a_fp
    out_val[from_a] = a_val
    return out_fp, out_val


# ------------------------------------------------------------------ reshaping

def split_part(part: Part, partitions: int) -> list[Part]:
    """Re-partition one part (the in-process search hands its single part to
    Spark this way; a resumed checkpoint with another partition count too)."""
    seen_owner = owner(part.seen_fp, partitions)
    front_owner = owner(part.frontier_fp, partitions)
    out = []
    for p in range(partitions):
        s = seen_owner == p
        f = front_owner == p
        out.append(Part(part.seen_fp[s], part.seen_parent[s], part.frontier_fp[f],
                        part.frontier[f]))
    return out


def concat_parts(parts: list[Part], words: int) -> Part:
    """One part holding several (disjoint) parts, still sorted."""
    if not parts:
        return empty_part(words)
    if len(parts) == 1:
        return parts[0]
    seen_fp = np.concatenate([p.seen_fp for p in parts])
    seen_parent = np.concatenate([p.seen_parent for p in parts])
    order = np.argsort(seen_fp, kind="stable")
    front_fp = np.concatenate([p.frontier_fp for p in parts])
    front = np.concatenate([p.frontier for p in parts])
    forder = np.argsort(front_fp, kind="stable")
    return Part(seen_fp[order], seen_parent[order], front_fp[forder], front[forder])


def lookup_parents(part: Part, fps: np.ndarray) -> dict[int, int]:
    """The parent of each of ``fps`` this part holds (absent ones are left out)."""
    fps = np.asarray(fps, dtype=_U64)
    found = _member(part.seen_fp, fps)
    pos = np.searchsorted(part.seen_fp, fps[found])
    return {int(f): int(p) for f, p in zip(fps[found], part.seen_parent[pos])}
