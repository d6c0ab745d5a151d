"""Engines and comparisons for the Spark engine's tests (no Spark needed here)."""
from __future__ import annotations

import dataclasses

from evaluator_kernels import evaluator_factory
from many_parts import ManyParts
from modelcheck import api
from modelcheck.engines.base import CheckOptions, CheckResult
from modelcheck.engines.spark.engine import SparkEngine

__all__ = ["spark_engine", "summary", "check_both"]


def spark_engine(partitions: int | None = None) -> SparkEngine:
    """The engine on the evaluator kernels; with ``partitions``, levels past the
    threshold run on ManyParts (the Spark data flow, in this process);
    without, reaching the threshold fails the test."""
    if partitions is None:
        return SparkEngine(evaluator_factory, _no_spark)
    return SparkEngine(evaluator_factory, lambda kernels, plan, parts, options:
                       ManyParts(kernels, plan, parts, partitions))


def _no_spark(kernels, plan, parts, options):
    raise AssertionError("this test must run in-process: Spark must not start")


def summary(result: CheckResult) -> dict:
    """What must agree with the reference explorer."""
    return {
        "distinct": result.stats.distinct_states,
        "generated": result.stats.generated_states,
        "depth": result.stats.depth,
        "actions": result.stats.action_counts,
        "never": result.stats.never_enabled,
        "properties": {p.name: (p.status, p.steps, p.trace.kind if p.trace else None)
                       for p in result.properties},
        "complete": result.complete,
    }


def check_both(model, options: CheckOptions,
               engine: SparkEngine) -> tuple[CheckResult, CheckResult]:
    """(reference result, Spark engine result); every trace of the latter is
    replayed by the reference semantics.  The evaluator kernels here have no
    symmetry reduction, so the reference runs un-reduced too (the compiled
    kernels' reduction is compared in tests/conformance)."""
    reference = api.check(model, "reference", dataclasses.replace(options, symmetry=False))
    result = engine.check(model, options)
    for prop in result.properties:
        if prop.trace is not None:
            from modelcheck.trace.replay import check_replays
            check_replays(model, prop.trace, f"spark trace for {prop.name}")
    return reference, result
