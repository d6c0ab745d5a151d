"""What a Spark level runs in its Python workers: a pure function from Arrow
batches to Arrow batches and a report, with no Spark in it (``plans.py``
wraps it as a ``mapInArrow`` function; tests run it directly).

``expand_batches``: a partition of the frontier in, its successors out,
deduplicated within the task (the smallest parent kept), classified under
the state constraints and, unless the level is past the depth bound, with
the state properties evaluated on each (the ``pfail`` and ``h`` columns of
``arrowpack``); the report holds the expansion's figures.  The JVM then
removes the duplicates across tasks and the seen states, and settles the
new states from those columns alone (``plans.LevelPlans.settle``), as
``partition.settle_fresh`` does in-process: the new states never go back
through Python.

It is built from the in-process search's pieces (``partition.py``), so the
two searches count and report alike.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

import numpy as np

from modelcheck.engines.spark.arrowpack import batch_rows, from_batches, pack_hits, to_batch
from modelcheck.engines.spark.kernels import PropertyPlan, SearchKernels
from modelcheck.engines.spark.partition import (EXPAND_BATCH, FLUSH_ROWS, Candidates, LevelReport,
                                                classify, dedupe_pieces, expand_batch,
                                                property_hits)

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["expand_batches", "property_columns"]


def _chunks(batches: Iterable["pa.RecordBatch"], rows: int) -> Iterator[list["pa.RecordBatch"]]:
    """Groups of whole batches holding at least ``rows`` rows (the last may
    hold fewer): the kernels run on large batches whatever Arrow delivers."""
    group: list["pa.RecordBatch"] = []
    held = 0
    for batch in batches:
        if batch.num_rows == 0:
            continue
        group.append(batch)
        held += batch.num_rows
        if held >= rows:
            yield group
            group, held = [], 0
    if group:
        yield group


def expand_batches(kernels: SearchKernels, plan: PropertyPlan, check_deadlock: bool,
                   commit: bool, batches: Iterable["pa.RecordBatch"], report: LevelReport,
                   flush_rows: int = FLUSH_ROWS,
                   expand_rows: int = EXPAND_BATCH) -> Iterator["pa.RecordBatch"]:
    """Expand frontier batches; yields candidate batches (``arrowpack`` rows)."""
    words = kernels.words
    if report.action_counts is None:
        report.action_counts = np.zeros(kernels.n_action_instances, dtype=np.int64)
    out_rows = batch_rows(words, expand_rows)
    pieces: list[Candidates] = []
    pending = 0
    for group in _chunks(batches, expand_rows):
        report.to_python += sum(b.nbytes for b in group)
        rows = from_batches(group, words)
        report.expanded += len(rows)
        for lo in range(0, len(rows), expand_rows):
            found = expand_batch(kernels, plan, rows.states[lo:lo + expand_rows],
                                 rows.fp[lo:lo + expand_rows], check_deadlock, pieces)
            report.add(found)
            pending += found.generated
            if pending >= flush_rows:
                yield from _emit(kernels, plan, commit, pieces, out_rows, report)
                pieces, pending = [], 0
    if pieces:
        yield from _emit(kernels, plan, commit, pieces, out_rows, report)


def property_columns(kernels: SearchKernels, plan: PropertyPlan, commit: bool,
                     states: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
    """``pfail`` (int8) and the packed hit bits of each state, as
    ``partition.settle_fresh`` would find them: no property is evaluated
    past the depth bound, and a state whose evaluation failed settles none.
    (None, None) for a plan without state properties."""
    if not plan.state:
        return None, None
    n = len(states)
    pfail = np.zeros(n, dtype=np.int8)
    hits = np.zeros((n, len(plan.state)), dtype=bool)
    if commit and n:
        hits, failed = property_hits(kernels, plan, states)
        pfail[failed] = 1
    return pfail, pack_hits(hits)


def _emit(kernels: SearchKernels, plan: PropertyPlan, commit: bool, pieces: list[Candidates],
          out_rows: int, report: LevelReport) -> Iterator["pa.RecordBatch"]:
    cands = dedupe_pieces(pieces)
    # Constraints and properties are evaluated here, on every distinct
    # successor, rather than after the seen set is subtracted: that would
    # take one more pass of the new states through Python.  A seen state
    # gave the same answers when it was first found (the kernels are
    # deterministic), so the extra work changes no answer.
    inside = classify(kernels, plan, cands.states)
    pfail, hits = property_columns(kernels, plan, commit, cands.states)
    for lo in range(0, len(cands.fp), out_rows):
        hi = lo + out_rows
        batch = to_batch(cands.fp[lo:hi], cands.parent[lo:hi], inside[lo:hi],
                         cands.states[lo:hi], None if pfail is None else pfail[lo:hi],
                         None if hits is None else hits[lo:hi])
        report.from_python += batch.nbytes
        yield batch
