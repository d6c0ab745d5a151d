"""The batch step of the Spark backend (``rdds.SparkPartitions.step_many``):
levels run in one job of barrier tasks while ``batch.BatchRule`` lets
them go on, then taken by the driver one by one (batch.py says how and
why).  Functions over the backend's state (``self``: an
``rdds.SparkPartitions``, not imported: rdds.py imports this module), kept
apart from rdds.py, whose levels run one job each."""
from __future__ import annotations

import functools
import uuid
from typing import Any

from modelcheck.engines.spark import exchange
from modelcheck.engines.spark.batch import BatchRule
from modelcheck.engines.spark.partition import LevelReport
from modelcheck.engines.spark.rdd_tasks import batch_task

__all__ = ["step_many"]


def step_many(self: Any, check_deadlock: bool, time_left_s: float | None,
              rule: BatchRule) -> list[tuple[LevelReport, LevelReport]]:
    """Levels in one job while ``rule`` lets them go on (batch.py); one
    level (``step``) where a batch cannot run: no exchange files, no
    resident tables, more partitions than task slots, or a master
    that may run a task twice (barrier tasks talk through files named
    by the job; a task retried could read a note of its failed
    attempt: local mode runs each task once)."""
    if not _possible(self):
        return [self.step(check_deadlock, True, time_left_s)]
    assert self.pending is not None and self.exchange is not None
    shuffled, expanded, exchange_in = self.pending
    if expanded.failed is not None or exchange_in is None:
        return [self.step(check_deadlock, True, time_left_s)]
    first, batch = self.level + 1, uuid.uuid4().hex
    self.reports.value = {}
    keyed = shuffled.barrier().mapPartitionsWithIndex(functools.partial(
        batch_task, self.kernels_bc, self.plan, check_deadlock, self._partitions,
        self.reports, first, self.search, list(self.part_n), self.exchange, batch, rule),
        preservesPartitioning=True)
    out = self.split(keyed)
    try:
        self._run(out.run, time_left_s)
    except BaseException:
        exchange.clear_batch(self.exchange, batch)
        raise
    finally:
        out.drop()          # the barrier stage's output: empty (see batch_task)
    got = self.reports.value
    if any(k[0] in ("miss", "xmiss") for k in got):
        # A partition without its table or its files: the batch's
        # levels are dropped and its first level runs on its own (the
        # fallbacks of ``step``); the files it wrote are rewritten.
        exchange.clear_batch(self.exchange, batch)
        self.batch_misses += 1
        return [self.step(check_deadlock, True, time_left_s)]
    last = max(k[1] for k in got if k[0] == "m")
    pairs = []
    for level in range(first, last + 1):
        merged = self._reports("m", level)
        pairs.append((expanded, merged))
        expanded = self._reports("x", level + 1)
        self.count_merged(level)
        exchange.clear_level(self.exchange, level)
    self.level = last
    self.batches += 1
    self.exchange_levels += len(pairs)
    self.resident_levels += len(pairs)
    # The batch's runs, read from its files when a job first needs them.
    run = self.file_run(out.candidates, batch, sum(m.new_states for _, m in pairs))
    self.runs.append(run)
    self.frontier, self.frontier_n = run.rdd, pairs[-1][1].new_states
    self.pending = (out.candidates, expanded, self.exchange)
    self._fold()
    return pairs


def _possible(self: Any) -> bool:
    return (self.batching and self.search is not None and self.exchange is not None
            and self.pending is not None and self._fallbacks_in_a_row == 0
            and self.tasks_run_once()
            and self._partitions <= max(1, self.sc.defaultParallelism))
