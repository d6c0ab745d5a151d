"""What a Spark level runs in its Python workers: pure functions on numpy
blocks, with no Spark in them (``rdds.py`` wraps them as RDD partition
functions; the unit tests' stand-in, ``tests/unit/spark/many_parts.py``, runs
them directly on P parts in this process).

The fingerprint space is cut into P equal ranges: partition ``i`` owns the
fingerprints whose high 32 bits, scaled to P, are ``i`` (``owner``).  The
function is monotone in the fingerprint, so a sorted array of fingerprints
is split by owner with one ``searchsorted`` (``split_sorted``), and a
partition's seen set is one contiguous range of the space.

Every RDD element is a pair ``(partition, payload)`` whose payload is a
whole batch of fixed-width numpy arrays, never a Python object per state:

    ("r", fp, parent)              a run of the seen set (sorted, disjoint from
                                   the other runs): fingerprints and parents
    ("l", fp, parent, states)      a level: the states first found by a level,
                                   a run of the seen set and the next frontier
    ("f", fp, states)              a frontier that is not a run (the hand-over
                                   from the driver, a resumed checkpoint)
    ("c", block)                   candidates for the owner: one (n, 2 + words)
                                   uint64 array of fp, parent, state words

``expand_block`` (a frontier in, per flush of successors one candidate
block per owner out),
``merge_blocks`` (a partition's seen table, or its runs, and candidates
in, its new level out)
and ``fold_runs`` (several runs in, one run out) are a level's work; the
rest serve the hand-over, the checkpoints and the walk back.  They are
built from the in-process search's own steps (``partition.py``), so the
two searches count and report alike.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator
import numpy as np

from modelcheck.engines.spark.kernels import PropertyPlan, SearchKernels
from modelcheck.engines.spark.owner_split import Scratch, owners, split_by_owner
from modelcheck.engines.spark.owned_expand import OUT_ROWS, expand_owned_part, owned_expand
from modelcheck.engines.spark.partition import (EXPAND_BATCH, FLUSH_ROWS, Candidates,
                                                LevelReport, Part, _member, _merge_sorted,
                                                expand_part, merge_into)
from modelcheck.engines.spark.seen_table import SeenTable

__all__ = ["owner", "split_sorted", "unpack_candidates", "expand_block",
           "merge_blocks", "fold_runs", "runs_of", "frontier_of", "part_of", "split_part",
           "combine_pieces", "lookup", "RUN", "LEVEL", "FRONTIER", "CANDIDATES"]

RUN, LEVEL, FRONTIER, CANDIDATES = "r", "l", "f", "c"

_U64 = np.uint64


def owner(fps: np.ndarray, partitions: int) -> np.ndarray:
    """The partition owning each fingerprint: its high 32 bits scaled to the
    partition count (monotone in the fingerprint)."""
    return owners(np.asarray(fps, dtype=_U64), partitions)


def split_sorted(fps: np.ndarray, partitions: int) -> np.ndarray:
    """For sorted ``fps``: the P + 1 bounds of each owner's rows."""
    return np.searchsorted(owner(fps, partitions), np.arange(partitions + 1), side="left")


def unpack_candidates(block: np.ndarray) -> Candidates:
    return Candidates(block[:, 0], block[:, 1], block[:, 2:])


# ------------------------------------------------------------------ a level

def frontier_of(elements: Iterable[tuple[int, tuple]], words: int) -> tuple[np.ndarray, np.ndarray]:
    """The frontier (fingerprints, states) held by a partition's elements."""
    fps, states = [], []
    for _, payload in elements:
        if payload[0] == LEVEL:
            fps.append(payload[1])
            states.append(payload[3])
        elif payload[0] == FRONTIER:
            fps.append(payload[1])
            states.append(payload[2])
    if not fps:
        return np.empty(0, _U64), np.empty((0, words), _U64)
    if len(fps) == 1:
        return fps[0], states[0]
    fp = np.concatenate(fps)
    order = np.argsort(fp, kind="stable")
    return fp[order], np.concatenate(states)[order]


def expand_block(kernels: SearchKernels, plan: PropertyPlan, check_deadlock: bool,
                 partitions: int, frontier_fp: np.ndarray, frontier: np.ndarray,
                 report: LevelReport, flush_rows: int = FLUSH_ROWS,
                 batch_rows: int = EXPAND_BATCH,
                 owned_rows: int = OUT_ROWS) -> Iterator[tuple[int, tuple]]:
    """Expand a partition's frontier with the kernels (step invariants,
    deadlocks and run-time errors go to ``report``), remove the duplicates
    within each flush of ``flush_rows`` successors (the smallest parent
    kept) and yield, per flush, one candidate block per owner partition:
    ``(owner, ("c", block))``, the owners ascending
    (``owner_split.split_by_owner``: two native passes over the kernels'
    pieces, no concatenation, no sort).  Duplicates across flushes are left
    to the owners' merges, which remove them with the others.  Kernels with
    the fused entry (the compiled ones), on a spec without step invariants,
    do all of it in their own loop instead (``owned_expand.py``)."""
    if owned_expand(kernels, plan):
        for blocks in expand_owned_part(kernels, frontier_fp, frontier, check_deadlock, report,
                                        partitions, owned_rows):
            for part, block in blocks:
                yield part, (CANDIDATES, block)
        return
    words = frontier.shape[1]
    scratch = Scratch()

    def flush(pieces: list[Candidates]) -> list[tuple[int, np.ndarray]]:
        return split_by_owner([(c.fp, c.parent, c.states) for c in pieces], partitions, words,
                              scratch)

    for blocks in expand_part(kernels, plan, frontier_fp, frontier, check_deadlock, report,
                              flush_rows, batch_rows, flush=flush):
        for part, block in blocks:
            yield part, (CANDIDATES, block)


def runs_of(elements: Iterable[tuple[int, tuple]]) -> list[tuple[np.ndarray, np.ndarray]]:
    """The seen-set runs (fingerprints, parents) among a partition's elements."""
    return [(p[1], p[2]) for _, p in elements if p[0] in (RUN, LEVEL)]


def merge_blocks(kernels: SearchKernels, plan: PropertyPlan, commit: bool,
                 elements: Iterable[tuple[int, tuple]], report: LevelReport,
                 words: int, level: int, table: SeenTable | None = None,
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, SeenTable]:
    """A partition's part of level ``level``: its candidates (from every
    task) against its seen table (``partition.merge_into``: one probe
    each; the duplicates removed, the smallest parent kept; the new states
    settled as in-process: constraints, properties, run-time errors, into
    ``report``).  Returns the states it keeps (fp, parent, states), the
    level's new run and frontier, and the table, which now holds them.

    ``table`` is the executor's resident copy; without one (the fallback)
    the table is built from the runs among the elements (fingerprints only,
    stamped 0: every run is from a level before this one)."""
    runs: list[np.ndarray] = []
    blocks: list[np.ndarray] = []
    for _, payload in elements:
        if payload[0] in (RUN, LEVEL):
            runs.append(payload[1])
        elif payload[0] == CANDIDATES:
            blocks.append(payload[1])
    if table is None:
        seen = runs[0] if len(runs) == 1 else (np.concatenate(runs) if runs
                                                else np.empty(0, _U64))
        table = SeenTable.build(seen, None, 0, with_parents=False)
    if not blocks:
        return np.empty(0, _U64), np.empty(0, _U64), np.empty((0, words), _U64), table
    block = blocks[0] if len(blocks) == 1 else np.concatenate(blocks)
    cands = unpack_candidates(block)
    fp, parent, states = merge_into(kernels, plan, table, level, cands.fp, cands.parent,
                                    cands.states, commit, report)
    return fp, parent, states, table


def fold_runs(runs: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """Several disjoint sorted runs as one (linear merges, smallest first)."""
    if not runs:
        return np.empty(0, _U64), np.empty(0, _U64)
    runs = sorted(runs, key=lambda r: len(r[0]))
    fp, parent = runs[0]
    for other_fp, other_parent in runs[1:]:
        fp, parent = _merge_sorted(other_fp, other_parent, fp, parent)
    return np.asarray(fp, _U64), np.asarray(parent, _U64)


# ------------------------------------------------------------------ parts

def part_of(elements: list[tuple[int, tuple]], words: int) -> Part:
    """A partition's seen set and frontier as one ``Part`` (a checkpoint file)."""
    seen_fp, seen_parent = fold_runs(runs_of(elements))
    front_fp, front = frontier_of(elements, words)
    return Part(seen_fp, seen_parent, front_fp, np.ascontiguousarray(front))


def split_part(part: Part, partitions: int) -> Iterator[tuple[int, tuple]]:
    """A part (from the driver or a checkpoint file, under any partitioning)
    cut into the pieces each owner holds: a run and a frontier."""
    seen = split_sorted(part.seen_fp, partitions)
    order = np.argsort(part.frontier_fp, kind="stable")
    front_fp, front = part.frontier_fp[order], part.frontier[order]
    fronts = split_sorted(front_fp, partitions)
    for p in range(partitions):
        lo, hi = int(seen[p]), int(seen[p + 1])
        flo, fhi = int(fronts[p]), int(fronts[p + 1])
        if hi > lo:
            yield p, (RUN, part.seen_fp[lo:hi].copy(), part.seen_parent[lo:hi].copy())
        if fhi > flo:
            yield p, (FRONTIER, front_fp[flo:fhi].copy(), np.ascontiguousarray(front[flo:fhi]))


def combine_pieces(part: int, elements: Iterable[tuple[int, tuple]],
                   words: int) -> list[tuple[int, tuple]]:
    """A partition's pieces (``split_part``) as one run and one frontier."""
    elements = list(elements)
    runs = runs_of(elements)
    if len(runs) > 1:
        fp = np.concatenate([r[0] for r in runs])
        parent = np.concatenate([r[1] for r in runs])
        order = np.argsort(fp, kind="stable")
        runs = [(fp[order], parent[order])]
    front_fp, front = frontier_of(elements, words)
    out: list[tuple[int, tuple]] = []
    if runs:
        out.append((part, (RUN, runs[0][0], runs[0][1])))
    out.append((part, (FRONTIER, front_fp, np.ascontiguousarray(front))))
    return out


def lookup(elements: Iterable[tuple[int, tuple]], fps: np.ndarray) -> dict[int, int]:
    """The parent of each of ``fps`` that a partition's runs hold."""
    found: dict[int, int] = {}
    fps = np.asarray(fps, dtype=_U64)
    for run_fp, run_parent in runs_of(elements):
        if not len(run_fp):
            continue
        hit = _member(run_fp, fps)
        pos = np.searchsorted(run_fp, fps[hit])
        found.update(zip(fps[hit].tolist(), run_parent[pos].tolist()))
    return found
