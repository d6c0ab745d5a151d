"""A level's one stage, on the JVM side: the fused tasks' output split into
the level (kept by Spark) and the next level's candidates (shuffled), with
no second trip through Python.

A fused task (``rdd_tasks.fused_task``) writes its output already keyed,
as ``RDD.partitionBy``'s Python half does: the level's element under
``LEVEL_KEY + i`` and each owner's candidate block under ``CANDIDATE_KEY +
owner``.  That output is persisted (the level's durable copy: runs,
checkpoints, traces, faults) and read twice by the JVM alone, through two
key filters (``JavaPairRDD.sampleByKey`` with the fractions 1 and 0: a
Bernoulli draw below 1.0 always passes, below 0.0 never; Spark has no other
key filter callable from Python without a Python task):

    out        = fused tasks' output (bytes), persisted, local checkpoint
    level      = values of out where key = LEVEL_KEY + i       (no shuffle)
    candidates = ShuffledRDD(out where key = CANDIDATE_KEY + j, owners)

The level's job is the candidates' map stage alone
(``SparkContext.submitMapStage``): one stage of Python tasks a level.  The
``ShuffledRDD`` is built directly, not with ``partitionBy``: ``out`` keeps
the partitioner of its input (so the level stays co-partitioned with the
runs), and ``partitionBy`` would then skip the shuffle.

With the file exchange (``exchange.py``) the tasks write no candidate into
``out``: the ``ShuffledRDD`` is empty, its map stage is still the level's
job, and it carries the partition index and the partitioner into the next
level's tasks, which read their candidates from the files.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from modelcheck.engines.spark.rdd_tasks import CANDIDATE_KEY, LEVEL_KEY

if TYPE_CHECKING:
    from pyspark import RDD, SparkContext, StorageLevel

__all__ = ["FusedLevel", "KeyFilters", "split_fused"]


@dataclass
class FusedLevel:
    """The handles of one fused level (nothing computed until ``run``)."""
    sc: "SparkContext"
    keep: Any               # the persisted JavaRDD of the tasks' output
    level: "RDD"            # the level's elements, co-partitioned with the runs
    candidates: "RDD"       # the next level's candidates, on their owners
    dependency: Any         # the candidates' ShuffleDependency

    def run(self) -> None:
        """The level's job: the candidates' map stage, which computes (and
        caches) every fused task's output; then cut the lineage (a map
        stage is not a job that checkpoints its RDDs by itself)."""
        self.sc._jsc.sc().submitMapStage(self.dependency).get()
        self.keep.rdd().doCheckpoint()

    def drop(self) -> None:
        self.keep.unpersist(False)


def _fractions(jvm: Any, partitions: int, kept: int) -> Any:
    """sampleByKey's fractions keeping the keys ``kept + i`` only."""
    fractions = jvm.java.util.HashMap()
    for base in (CANDIDATE_KEY, LEVEL_KEY):
        for i in range(partitions):
            fractions.put(base + i, 1.0 if base == kept else 0.0)
    return fractions


@dataclass
class KeyFilters:
    """The JVM objects every level's split uses, made once a search: built
    per level, their 4P + 1 calls through py4j were a tenth of a narrow
    level's driver time at P = 2 (a round trip each), more at larger P."""
    candidates: Any         # sampleByKey's fractions keeping CANDIDATE_KEY + i
    level: Any              # ... keeping LEVEL_KEY + i
    owners: Any             # the PythonPartitioner of the candidates' shuffle

    @classmethod
    def make(cls, sc: "SparkContext", partitions: int, key: Callable[[int], int]) -> "KeyFilters":
        jvm = sc._jvm
        return cls(_fractions(jvm, partitions, CANDIDATE_KEY),
                   _fractions(jvm, partitions, LEVEL_KEY),
                   jvm.PythonPartitioner(partitions, id(key)))


def _python(sc: "SparkContext", jrdd: Any, partitions: int, key: Callable[[int], int]) -> "RDD":
    from pyspark import RDD
    from pyspark.rdd import Partitioner
    rdd = RDD(jrdd, sc, sc.serializer)
    rdd.partitioner = Partitioner(partitions, key)
    return rdd


def split_fused(sc: "SparkContext", keyed: "RDD", partitions: int, key: Callable[[int], int],
                storage: "StorageLevel", filters: KeyFilters) -> FusedLevel:
    """``keyed``: the fused tasks over a level's candidates (preserving their
    partitioner).  Returns the handles of its level and of the next
    candidates, shuffled by ``PythonPartitioner(partitions, key)``
    (``filters``: ``KeyFilters.make(sc, partitions, key)``)."""
    jvm = sc._jvm
    keyed._bypass_serializer = True      # type: ignore[attr-defined]
    out = keyed._jrdd
    out.persist(sc._getJavaStorageLevel(storage))
    out.rdd().localCheckpoint()
    pairs = jvm.PairwiseRDD(out.rdd()).asJavaPairRDD()
    kt, vt = pairs.kClassTag(), pairs.vClassTag()
    # A fixed seed: the draws do not matter (fractions 0 and 1), the plan's
    # determinism does.
    cands = pairs.sampleByKey(False, filters.candidates, 0)
    shuffled = jvm.org.apache.spark.rdd.ShuffledRDD(cands.rdd(), filters.owners, kt, vt, vt)
    level = pairs.sampleByKey(False, filters.level, 0)
    return FusedLevel(
        sc, out,
        _python(sc, jvm.PythonRDD.valueOfPair(level), partitions, key),
        _python(sc, jvm.PythonRDD.valueOfPair(
            jvm.org.apache.spark.api.java.JavaPairRDD(shuffled, kt, vt)), partitions, key),
        shuffled.dependencies().head())
