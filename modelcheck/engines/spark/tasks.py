"""What a Spark level runs in its Python workers: pure functions from Arrow
batches to Arrow batches and reports, with no Spark in them (``frames.py``
wraps them as ``mapInArrow`` functions; tests run them directly).

* ``expand_batches``: a partition of the frontier in, its successors out,
  deduplicated within the task (the smallest parent kept) and classified
  under the state constraints; the report holds the expansion's figures.
* ``check_batches``: a partition of the new states (deduplicated and with
  the seen set subtracted, in the JVM) in, a report out: how many are kept,
  the properties they settle, the run-time errors they raise.

Both are built from the in-process search's pieces (``partition.py``), so
the two searches count and report alike.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

import numpy as np

from modelcheck.engines.spark.arrowpack import batch_rows, from_batches, to_batch
from modelcheck.engines.spark.kernels import PropertyPlan, SearchKernels
from modelcheck.engines.spark.partition import (EXPAND_BATCH, FLUSH_ROWS, Candidates, LevelReport,
                                                classify, dedupe_pieces, expand_batch,
                                                settle_fresh)

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["expand_batches", "check_batches"]


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
                   batches: Iterable["pa.RecordBatch"], report: LevelReport,
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
                yield from _emit(kernels, plan, pieces, out_rows, report)
                pieces, pending = [], 0
    if pieces:
        yield from _emit(kernels, plan, pieces, out_rows, report)


def _emit(kernels: SearchKernels, plan: PropertyPlan, pieces: list[Candidates], out_rows: int,
          report: LevelReport) -> Iterator["pa.RecordBatch"]:
    cands = dedupe_pieces(pieces)
    # Constraints are evaluated here, on every distinct successor, rather
    # than after the seen set is subtracted: that would take one more pass
    # of the new states through Python.  A seen state was classified INSIDE
    # when first found (the kernels are deterministic), so the extra work
    # changes no answer.
    inside = classify(kernels, plan, cands.states)
    for lo in range(0, len(cands.fp), out_rows):
        batch = to_batch(cands.fp[lo:lo + out_rows], cands.parent[lo:lo + out_rows],
                         inside[lo:lo + out_rows], cands.states[lo:lo + out_rows])
        report.from_python += batch.nbytes
        yield batch


def check_batches(kernels: SearchKernels, plan: PropertyPlan, commit: bool,
                  batches: Iterable["pa.RecordBatch"]) -> LevelReport:
    """Settle what the new states show (``partition.settle_fresh``)."""
    report = LevelReport()
    for group in _chunks(batches, EXPAND_BATCH):
        report.to_python += sum(b.nbytes for b in group)
        rows = from_batches(group, kernels.words)
        settle_fresh(kernels, plan, rows.fp, rows.parent, rows.states, rows.inside, commit,
                     report)
    return report
