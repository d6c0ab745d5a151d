"""The pieces of a level's Spark plan, built once per search.

Each DataFrame operation made from Python is a few py4j round trips, and
building a ``mapInArrow`` function is dozens (it pickles the function and
makes a JVM object per argument); a level made the usual way paid for
those every time, a large part of the per-level floor on a loaded machine.
The column lists, the aggregates and the Arrow function of the expansion
(one for each value of its two flags) are therefore built here once, as
JVM objects bound to column *names*, which any later DataFrame with those
columns resolves; a level then costs a handful of calls (``level``,
``settle``).

A level's new states are settled in the JVM (``settle``: aggregates over
the columns the expansion filled, the statement of
``partition.settle_fresh`` in Spark SQL, observed by the tasks that write
the level), so a level runs Python once, in the expansion, rather than a
second time over its new states, and in two stages.

The expansion's reports travel in one accumulator for the whole search,
keyed by partition and emptied by the driver before each level.
"""
from __future__ import annotations

import functools
import uuid
from typing import TYPE_CHECKING, Any

import numpy as np

from modelcheck.engines.spark.arrowpack import (from_long, hit_columns, hit_words, row_columns,
                                                spark_schema, state_columns)
from modelcheck.engines.spark.kernels import PropertyPlan
from modelcheck.engines.spark.partition import OUTSIDE, UNDECIDED, LevelReport
from modelcheck.engines.spark.tasks import expand_batches

if TYPE_CHECKING:
    from pyspark.broadcast import Broadcast
    from pyspark.sql import Column, DataFrame, Observation, SparkSession

__all__ = ["LevelPlans", "read_settled", "kept_column", "settle_columns"]


def _expand_task(kernels_bc: "Broadcast", plan: PropertyPlan, check_deadlock: bool,
                 commit: bool, reports: Any, batches: Any) -> Any:
    from pyspark import TaskContext
    report = LevelReport()
    yield from expand_batches(kernels_bc.value, plan, check_deadlock, commit, batches, report)
    context = TaskContext.get()
    reports.add({context.partitionId() if context is not None else 0: report})


def _long(value: int | None) -> int | None:
    """A fingerprint read back from Spark (stored sign-flipped)."""
    return None if value is None else int(from_long(np.array([value]))[0])


def read_settled(row: Any, state_columns_n: int) -> LevelReport:
    """The report of ``LevelPlans.settle``'s observation (its ``get``)."""
    report = LevelReport(new_states=int(row["new_states"]), failed=_long(row["failed"]))
    for c in range(state_columns_n):
        fp = row[f"state{c}"]
        if fp is not None:
            report.state_hits[c] = _long(fp)        # type: ignore[assignment]
        pair = row[f"outside{c}"]
        if pair is not None:
            report.outside_hits[c] = (_long(pair["fp"]), _long(pair["parent"]))  # type: ignore[assignment]
    return report


class _ReportsParam:
    """Accumulates {partition: report}; a re-run task overwrites its entry."""

    def zero(self, value: dict) -> dict:
        return {}

    def addInPlace(self, a: dict, b: dict) -> dict:
        a.update(b)
        return a


class LevelPlans:
    """JVM objects for the plans of every level of one search."""

    def __init__(self, spark: "SparkSession", kernels_bc: "Broadcast", plan: PropertyPlan,
                 words: int):
        from pyspark.sql import functions as F
        from pyspark.sql.classic.column import _to_java_column, _to_seq
        sc = spark.sparkContext
        self.reports = sc.accumulator({}, _ReportsParam())   # type: ignore[arg-type]

        def columns(names: list[str]) -> Any:
            return _to_seq(sc, names, _to_java_column)

        states = state_columns(words)
        hits = hit_words(len(plan.state))
        carried = ["inside", "pfail", *hit_columns(hits), *states]
        self.expand_in = columns(["fp", *states])
        self.rows = columns(row_columns(words, hits))
        self.fp = columns(["fp"])
        self.fp_parent = columns(["fp", "parent"])
        self.on_fp = _to_seq(sc, ["fp"])
        self.smallest_parent = F.min("parent").alias("parent")._jc
        self.one_state = columns([F.first(c).alias(c) for c in carried])
        kept = kept_column()
        self.kept = kept._jc
        self.settled = settle_columns(len(plan.state), kept)
        self._expand = {(deadlock, commit): self._udf(
            functools.partial(_expand_task, kernels_bc, plan, deadlock, commit, self.reports),
            spark_schema(words, hits), ["fp", *states])
            for deadlock in (False, True) for commit in (False, True)}

    @staticmethod
    def _udf(func: Any, schema: str, names: list[str]) -> Any:
        """An Arrow map function applied to the columns ``names``, as
        ``DataFrame.mapInArrow`` builds it."""
        from pyspark.sql import functions as F
        from pyspark.sql.pandas.functions import pandas_udf
        from pyspark.util import PythonEvalType
        udf = pandas_udf(func, returnType=schema,          # type: ignore[call-overload]
                         functionType=PythonEvalType.SQL_MAP_ARROW_ITER_UDF)
        return udf(*[F.col(n) for n in names])._jc

    def level(self, frontier: Any, runs: list[Any], check_deadlock: bool, commit: bool,
              partitions: int) -> Any:
        """The new states of a level (a JVM Dataset): the frontier's
        successors less every run (the JVM Datasets of their ``fp``), one
        row per fingerprint with the smallest parent."""
        cands = (frontier.select(self.expand_in)
                 .mapInArrow(self._expand[(check_deadlock, commit)], False, None)
                 .repartition(partitions, self.fp))
        for run in runs:
            cands = cands.join(run, self.on_fp, "left_anti")
        return cands.groupBy(self.fp).agg(self.smallest_parent, self.one_state).select(self.rows)

    def settle(self, fresh: "DataFrame") -> tuple["DataFrame", "Observation"]:
        """``fresh`` observed: the job that reads the DataFrame returned
        computes, in the tasks that write the level (no stage of its own),
        what the new states settle; the observation's ``get`` is then read
        by ``read_settled``."""
        from pyspark.sql import Observation
        observation = Observation(f"settle-{uuid.uuid4().hex}")
        return fresh.observe(observation, *self.settled), observation


def kept_column() -> "Column":
    """The new states a level keeps: in the model, or undecided, or outside
    it with a property that failed to evaluate (kept for the error's trace;
    the search stops at this level): ``partition.settle_fresh``'s ``keep``."""
    from pyspark.sql import functions as F
    return (F.col("inside") != F.lit(OUTSIDE)) | (F.col("pfail") == F.lit(1))


def settle_columns(state_columns_n: int, kept: "Column") -> list["Column"]:
    """The aggregate of ``partition.settle_fresh`` over a level's new states:
    how many are kept; the smallest fingerprint of one whose constraint or
    properties failed to evaluate; per state column, the smallest
    fingerprint of a state in the model settling it, and the smallest
    (fingerprint, parent) of a state outside it settling it.  The hit bits
    are clear on a state whose properties failed (``tasks.property_columns``),
    and fingerprints are compared as the sign-flipped longs they are stored
    as, which is their unsigned order."""
    from pyspark.sql import functions as F
    fp, inside = F.col("fp"), F.col("inside")
    out = [F.count(F.when(kept, F.lit(1))).alias("new_states"),
           F.min(F.when((inside == F.lit(UNDECIDED)) | (F.col("pfail") == F.lit(1)), fp))
           .alias("failed")]
    for c in range(state_columns_n):
        bit = 1 << (c % 64)
        mask = bit - (1 << 64) if bit >= 1 << 63 else bit      # as a signed long
        hit = F.col(f"h{c // 64}").bitwiseAND(F.lit(mask)) != F.lit(0)
        out.append(F.min(F.when(hit & (inside != F.lit(OUTSIDE)), fp)).alias(f"state{c}"))
        out.append(F.min(F.when(hit & (inside == F.lit(OUTSIDE)), F.struct(fp, F.col("parent"))))
                   .alias(f"outside{c}"))
    return out
