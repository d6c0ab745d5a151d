"""The pieces of a level's Spark plan, built once per search.

Each DataFrame operation made from Python is a few py4j round trips, and
building a ``mapInArrow`` function is dozens (it pickles the function and
makes a JVM object per argument); a level made the usual way paid for
those every time, a large part of the per-level floor on a loaded machine.
The column lists, the aggregate and the two Arrow functions (the
expansion's and the check's, for each value of their flag) are therefore
built here once, as JVM objects bound to column *names*, which any later
DataFrame with those columns resolves; a level then costs a handful of
calls (``level``, ``check``).

The expansion's reports travel in one accumulator for the whole search,
keyed by partition and emptied by the driver before each level.
"""
from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from modelcheck.engines.spark.arrowpack import (REPORT_SCHEMA, row_columns, spark_schema,
                                                state_columns)
from modelcheck.engines.spark.kernels import PropertyPlan
from modelcheck.engines.spark.partition import OUTSIDE, LevelReport
from modelcheck.engines.spark.tasks import check_batches, expand_batches

if TYPE_CHECKING:
    from pyspark.broadcast import Broadcast
    from pyspark.sql import SparkSession

__all__ = ["LevelPlans"]


def _expand_task(kernels_bc: "Broadcast", plan: PropertyPlan, check_deadlock: bool,
                 reports: Any, batches: Any) -> Any:
    from pyspark import TaskContext
    report = LevelReport()
    yield from expand_batches(kernels_bc.value, plan, check_deadlock, batches, report)
    context = TaskContext.get()
    reports.add({context.partitionId() if context is not None else 0: report})


def _check_task(kernels_bc: "Broadcast", plan: PropertyPlan, commit: bool, batches: Any) -> Any:
    from modelcheck.engines.spark.arrowpack import report_batch
    yield report_batch(check_batches(kernels_bc.value, plan, commit, batches))


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
        self.expand_in = columns(["fp", *states])
        self.rows = columns(row_columns(words))
        self.fp = columns(["fp"])
        self.fp_parent = columns(["fp", "parent"])
        self.on_fp = _to_seq(sc, ["fp"])
        self.smallest_parent = F.min("parent").alias("parent")._jc
        self.one_state = columns([F.first("inside").alias("inside"),
                                  *[F.first(c).alias(c) for c in states]])
        self.kept = (F.col("inside") != F.lit(OUTSIDE))._jc
        self._expand = {flag: self._udf(functools.partial(_expand_task, kernels_bc, plan, flag,
                                                          self.reports),
                                        spark_schema(words), ["fp", *states])
                        for flag in (False, True)}
        self._check = {flag: self._udf(functools.partial(_check_task, kernels_bc, plan, flag),
                                       REPORT_SCHEMA, row_columns(words))
                       for flag in (False, True)}

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

    def level(self, frontier: Any, runs: list[Any], check_deadlock: bool,
              partitions: int) -> Any:
        """The new states of a level (a JVM Dataset): the frontier's
        successors less every run (the JVM Datasets of their ``fp``), one
        row per fingerprint with the smallest parent."""
        cands = (frontier.select(self.expand_in)
                 .mapInArrow(self._expand[check_deadlock], False, None)
                 .repartition(partitions, self.fp))
        for run in runs:
            cands = cands.join(run, self.on_fp, "left_anti")
        return cands.groupBy(self.fp).agg(self.smallest_parent, self.one_state).select(self.rows)

    def check(self, fresh: Any, commit: bool) -> Any:
        """The check's reports over the new states (a JVM Dataset)."""
        return fresh.mapInArrow(self._check[commit], False, None)
