"""The search's per-level steps on plain numpy arrays.

A ``Part`` holds a seen set (one sorted ``uint64`` array of fingerprints with
the parent's fingerprint beside each; a root is its own parent) and the
frontier: the packed states found by the last level.  It is the form a
partition takes in a checkpoint and at the hand-over to Spark; during a
level the seen set is a hash table (``seen_table.SeenTable``).  Per level:

* ``expand_part`` expands the frontier with the kernels, checks step
  invariants and deadlocks, and yields the successors deduplicated by
  fingerprint (the smallest parent kept);
* ``merge_into`` keeps the candidates the seen table does not hold (one
  probe each), inserts them and makes them the next frontier;
  ``settle_fresh`` checks the state properties on them and applies the
  state constraints (``classify``).

The in-process search runs these on one part.  The Spark search runs the
same steps on P parts, one per owner of a range of fingerprints, in its
Python tasks (``tasks.py``, ``rdds.py``); the shared pieces are what make
their counts and traces agree.  Where several states could be reported (which
violation, which parent), the smallest fingerprint wins, so results do not
depend on the partition count or on the order in which pieces arrive.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

try:
    from numba import njit
except ImportError:          # pragma: no cover - numba ships with the compiled engine
    njit = None

from modelcheck.engines.spark.dedupe import distinct_rows, distinct_unsorted
from modelcheck.engines.spark.fresh_rows import fresh_distinct, fresh_inserted
from modelcheck.engines.spark.kernels import PropertyPlan, SearchKernels, keys
from modelcheck.engines.spark.seen_table import SeenTable

__all__ = ["Part", "Candidates", "LevelReport", "empty_part", "initial_candidates",
           "expand_part", "expand_batch", "dedupe", "dedupe_pieces", "distinct_pieces", "concat_pieces",
           "merge_into", "classify", "settle_fresh", "property_hits", "concat_parts", "INSIDE",
           "OUTSIDE", "UNDECIDED", "EXPAND_BATCH", "FLUSH_ROWS", "note_deadlocks", "note_failed"]

#: States expanded per kernel call: bounds the memory of one call.
EXPAND_BATCH = 1 << 16
#: Successors gathered before they are deduplicated and handed on.
FLUSH_ROWS = 1 << 21

#: What ``classify`` says of a state: in the model (every state constraint
#: holds), outside it, or a constraint failed to evaluate (kept, so that the
#: run-time error's trace can be walked back to it).
INSIDE, OUTSIDE, UNDECIDED = 1, 0, -1

_U64 = np.uint64


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
    """Successors, deduplicated and sorted by fingerprint; ``parent`` is the
    smallest parent fingerprint seen for each."""
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
    never stored (an initial one is its own parent).  ``to_python`` and
    ``from_python``: the bytes of numpy data the level's Python tasks read
    from the JVM and gave back (0 in-process); ``exchanged``: the bytes of
    candidates written to the exchange files instead (``exchange.py``).
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
    to_python: int = 0
    from_python: int = 0
    exchanged: int = 0

    def add(self, other: "LevelReport") -> None:
        """Fold another partition's (or batch's) report into this one."""
        self.expanded += other.expanded
        self.generated += other.generated
        self.new_states += other.new_states
        self.to_python += other.to_python
        self.from_python += other.from_python
        self.exchanged += other.exchanged
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

def dedupe(fp: np.ndarray, parent: np.ndarray, states: np.ndarray) -> Candidates:
    """One row per fingerprint, sorted, keeping the smallest parent."""
    if len(fp) == 0:
        return Candidates(fp.astype(_U64), parent.astype(_U64), states)
    rows, parents = distinct_rows(fp, parent)
    return Candidates(fp[rows], parents, states[rows])


def dedupe_pieces(pieces: list[Candidates]) -> Candidates:
    if len(pieces) == 1:
        return dedupe(pieces[0].fp, pieces[0].parent, pieces[0].states)
    return dedupe(np.concatenate([c.fp for c in pieces]),
                  np.concatenate([c.parent for c in pieces]),
                  np.concatenate([c.states for c in pieces]))


def concat_pieces(raw: list[Candidates]) -> Candidates:
    """Successors as they come (the in-process search: its seen table drops
    the seen ones before any deduplication)."""
    if len(raw) == 1:
        return raw[0]
    return Candidates(np.concatenate([c.fp for c in raw]), np.concatenate([c.parent for c in raw]),
                      np.concatenate([c.states for c in raw]))


def distinct_pieces(raw: list[Candidates]) -> Candidates:
    """Successors without their duplicates, unsorted (a hash table, the
    smallest parent kept): what an expand flush hands on; the merge sorts
    only the states that turn out new."""
    if len(raw) == 1:
        fp, parent, states = raw[0].fp, raw[0].parent, raw[0].states
    else:
        fp = np.concatenate([c.fp for c in raw])
        parent = np.concatenate([c.parent for c in raw])
        states = np.concatenate([c.states for c in raw])
    if not len(fp):
        return Candidates(fp.astype(_U64), parent.astype(_U64), states)
    rows, best = distinct_unsorted(fp, parent)
    return Candidates(fp[rows], best, states[rows])


def initial_candidates(kernels: SearchKernels) -> tuple[Candidates, int]:
    """The initial states, deduplicated, each its own parent; and the number
    generated (the initial states, duplicates included)."""
    states, fp = keys(kernels, np.ascontiguousarray(kernels.initial_states(), dtype=_U64))
    return dedupe(fp, fp.copy(), states), len(states)


# ------------------------------------------------------------------ expand

def expand_part(kernels: SearchKernels, plan: PropertyPlan, frontier_fp: np.ndarray,
                frontier: np.ndarray, check_deadlock: bool, report: LevelReport,
                flush_rows: int = FLUSH_ROWS, batch_rows: int = EXPAND_BATCH,
                flush: Callable[[list[Candidates]], Any] = dedupe_pieces,
                ) -> Iterator[Any]:
    """Expand a frontier, yielding what ``flush`` makes of its successors
    (deduplicated ``Candidates`` by default; the Spark task's owner blocks),
    a group at least every ``flush_rows`` successors, to bound the memory
    of a wide level; ``report`` receives the level's expansion figures:
    generated, action counts, step invariant violations, deadlocks, run-time
    errors."""
    if report.action_counts is None:
        report.action_counts = np.zeros(kernels.n_action_instances, dtype=np.int64)
    pieces: list[Candidates] = []
    pending = 0
    for lo in range(0, len(frontier_fp), batch_rows):
        found = expand_batch(kernels, plan, frontier[lo:lo + batch_rows],
                             frontier_fp[lo:lo + batch_rows], check_deadlock, pieces)
        report.add(found)
        pending += found.generated
        if pending >= flush_rows:
            yield flush(pieces)
            pieces, pending = [], 0
    report.expanded += len(frontier_fp)
    if pieces:
        yield flush(pieces)


def expand_batch(kernels: SearchKernels, plan: PropertyPlan, batch: np.ndarray,
                 batch_fp: np.ndarray, check_deadlock: bool,
                 pieces: list[Candidates]) -> LevelReport:
    """Expand one batch of states: appends its successors (not deduplicated)
    to ``pieces`` and returns what the expansion found."""
    exp = kernels.expand(batch)
    succ, succ_fp = keys(kernels, exp.succ)
    report = LevelReport(generated=len(exp.succ),
                         action_counts=np.bincount(exp.action, minlength=kernels.n_action_instances)
                         .astype(np.int64))
    note_failed(report, batch_fp[exp.failed])
    if check_deadlock:
        stuck = np.bincount(exp.parent, minlength=len(batch)) == 0
        stuck[exp.failed] = False
        note_deadlocks(kernels, report, batch, batch_fp, stuck)
    if plan.step and len(exp.succ):
        # On the step taken, not on the representative it is stored as.
        checked = kernels.step_props(batch[exp.parent], exp.succ, exp.action)
        pre_fp = batch_fp[exp.parent]
        note_failed(report, pre_fp[checked.failed])
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


# ------------------------------------------------------------------ new states

def classify(kernels: SearchKernels, plan: PropertyPlan, states: np.ndarray) -> np.ndarray:
    """Per state, INSIDE, OUTSIDE or UNDECIDED (int8) under the state
    constraints (TLC's CONSTRAINT); every state is INSIDE without any."""
    if not plan.constrained or not len(states):
        return np.full(len(states), INSIDE, dtype=np.int8)
    checked = kernels.in_model(np.ascontiguousarray(states))
    inside = np.where(checked.values.astype(bool), INSIDE, OUTSIDE).astype(np.int8)
    inside[checked.failed] = UNDECIDED
    return inside


def property_hits(kernels: SearchKernels, plan: PropertyPlan,
                  states: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Which state properties each state settles ((n, columns) bool: an
    invariant it violates, a ``sometimes`` it witnesses), and the rows whose
    evaluation failed (they settle none)."""
    checked = kernels.state_props(np.ascontiguousarray(states))
    hits = checked.values.reshape(len(states), len(plan.state)) == plan.state_hit_wanted[None, :]
    hits[checked.failed] = False
    return hits, checked.failed


def settle_fresh(kernels: SearchKernels, plan: PropertyPlan, fp: np.ndarray,
                 parent: np.ndarray, states: np.ndarray, inside: np.ndarray, commit: bool,
                 report: LevelReport) -> np.ndarray:
    """What the search learns from states not seen before: which of them it
    keeps (the mask returned), how many (``report.new_states``), the
    properties they settle and the run-time errors they raise.

    A state outside the model is checked (unless the level is past the depth
    bound) and dropped; one whose constraint or property fails to evaluate is
    kept, so that the error's trace can be walked back to it (the search
    stops at this level).  Past the depth bound (``commit`` False) the kept
    states are only counted."""
    note_failed(report, fp[inside == UNDECIDED])
    keep = inside != OUTSIDE
    out_rows = np.flatnonzero(inside == OUTSIDE)
    if commit and plan.state and len(out_rows):
        out_fp = fp[out_rows]
        hits, failed = property_hits(kernels, plan, states[out_rows])
        note_failed(report, out_fp[failed])
        keep[out_rows[failed]] = True
        for c in range(len(plan.state)):
            hit = np.flatnonzero(hits[:, c])
            if len(hit):
                best = hit[np.argmin(out_fp[hit])]
                report.outside_hits[c] = (int(out_fp[best]), int(parent[out_rows[best]]))
    report.new_states += int(keep.sum())
    if commit and plan.state and keep.any():
        kept_fp = fp[keep]
        hits, failed = property_hits(kernels, plan, states[keep])
        note_failed(report, kept_fp[failed])
        for c in range(len(plan.state)):
            rows = np.flatnonzero(hits[:, c])
            if len(rows):
                best = int(kept_fp[rows].min())
                report.state_hits[c] = min(best, report.state_hits.get(c, best))
    return keep


def merge_into(kernels: SearchKernels, plan: PropertyPlan, table: SeenTable, level: int,
               fp: np.ndarray, parent: np.ndarray, states: np.ndarray, commit: bool,
               report: LevelReport, ordered: bool = True
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A level's candidates (duplicates allowed, any order) against a seen
    table: one probe each drops what a level before ``level`` found; the
    rest lose their duplicates (the smallest parent kept, sorted by
    fingerprint: the sort is of the new states only) and are settled
    (``settle_fresh``).  The states kept are inserted stamped ``level`` and
    returned (fp, parent, states): the level's new states.

    With ``commit`` False (the level is past a bound) they are only counted
    and the table is left as it is, unless a constraint or property failed
    to evaluate (the failing state is inserted, for its trace, and the
    search stops).  Without constraints every new state is kept, so a
    committed level inserts them in the probe's own pass
    (``fresh_rows.fresh_inserted``)."""
    if not len(fp):
        return fp.astype(_U64), parent.astype(_U64), states
    inserted = None
    if ordered and commit and not plan.constrained:
        # Every new state is kept: the probe inserts it (fresh_rows.py).
        inserted = fresh_inserted(table, level, fp, parent)
    if inserted is not None:
        rows, parent = inserted
        fp, states = np.ascontiguousarray(fp[rows], _U64), np.ascontiguousarray(states[rows])
    elif ordered:
        # One probe each, then the unseen rows' duplicates removed and the
        # rest sorted without gathering them first (fresh_rows.py).
        rows, parent = fresh_distinct(table, level, fp, parent)
        fp, states = np.ascontiguousarray(fp[rows], _U64), np.ascontiguousarray(states[rows])
    else:
        fresh = np.flatnonzero(table.fresh(fp, level))
        if len(fresh) < len(fp):
            fp, parent, states = fp[fresh], parent[fresh], states[fresh]
        cands = distinct_pieces([Candidates(fp, parent, states)])
        fp, parent, states = cands.fp, cands.parent, np.ascontiguousarray(cands.states)
    keep = settle_fresh(kernels, plan, fp, parent, states, classify(kernels, plan, states),
                        commit, report)
    if not keep.all():
        fp, parent, states = fp[keep], parent[keep], np.ascontiguousarray(states[keep])
    if inserted is None and (commit or report.failed is not None):
        table.add(fp, parent, level)
    return fp, parent, states


def note_deadlocks(kernels: SearchKernels, report: LevelReport, batch: np.ndarray,
                   batch_fp: np.ndarray, stuck: np.ndarray) -> None:
    """Of the rows without successors (``stuck``, a mask), the deadlocks:
    the smallest fingerprint of a row that is not terminal goes to ``report``."""
    rows = np.flatnonzero(stuck)
    if len(rows):
        term = kernels.terminal(batch[rows])
        note_failed(report, batch_fp[rows[term.failed]])
        ok = np.ones(len(rows), dtype=bool)
        ok[term.failed] = False
        rows = rows[ok & ~term.values]
        if len(rows):
            report.deadlock = _min_opt(report.deadlock, int(batch_fp[rows].min()))


def note_failed(report: LevelReport, fps: np.ndarray) -> None:
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
    """Merge two sorted, disjoint key arrays (with their values) in linear
    time: one native pass (the folds of the runs; the numpy form below, a
    search per key of ``b`` and two masked scatters, was 5% of the Spark
    workers' CPU), or ``_merge_sorted_numpy`` without numba."""
    if len(b_fp) == 0:
        return a_fp, a_val
    if len(a_fp) == 0:
        return b_fp, b_val
    if _merge_linear is None:
        return _merge_sorted_numpy(a_fp, a_val, b_fp, b_val)
    n = len(a_fp) + len(b_fp)
    out_fp, out_val = np.empty(n, _U64), np.empty(n, _U64)
    _merge_linear(np.asarray(a_fp, _U64), np.asarray(a_val, _U64), np.asarray(b_fp, _U64),
                  np.asarray(b_val, _U64), out_fp, out_val)
    return out_fp, out_val


def _merge_sorted_numpy(a_fp: np.ndarray, a_val: np.ndarray, b_fp: np.ndarray,
                        b_val: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
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


def _merge_linear_py(a_fp, a_val, b_fp, b_val, out_fp, out_val):
    """``_merge_sorted``'s pass; a key in both goes from ``b`` first, as
    ``searchsorted`` (side left) placed it."""
    i = j = k = 0
    na, nb = len(a_fp), len(b_fp)
    while i < na and j < nb:
        if a_fp[i] < b_fp[j]:
            out_fp[k] = a_fp[i]
            out_val[k] = a_val[i]
            i += 1
        else:
            out_fp[k] = b_fp[j]
            out_val[k] = b_val[j]
            j += 1
        k += 1
    while i < na:
        out_fp[k] = a_fp[i]
        out_val[k] = a_val[i]
        i += 1
        k += 1
    while j < nb:
        out_fp[k] = b_fp[j]
        out_val[k] = b_val[j]
        j += 1
        k += 1


_merge_linear = None if njit is None else njit(cache=True, nogil=True)(_merge_linear_py)


# ------------------------------------------------------------------ reshaping

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
