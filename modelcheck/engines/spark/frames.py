"""The Spark backend: the seen set and duplicate removal in Spark SQL, in the
JVM; only frontiers go through Python, over Arrow.

The seen set is a short list of **runs**: DataFrames of (fp, parent), each
hash-partitioned on ``fp`` into P partitions and sorted on ``fp`` within
them, and kept by Spark (local checkpoints, ``MEMORY_AND_DISK_DESER``: what does
not fit in the executors' storage memory spills to their local dirs).  A
level is one Spark job:

    cands = frontier.mapInArrow(expand)             # Python: the kernels, over Arrow
                    .repartition(P, "fp")            # only the candidates move
    fresh = cands ANTI JOIN run_1 ... ANTI JOIN run_k   # on fp, in the JVM
    nxt   = fresh.groupBy("fp").agg(min(parent), first(inside), first(s0), ...)
    nxt.observe(settle).localCheckpoint(eager=True)   # in the JVM: one plan, one job

* ``expand`` (``tasks.expand_batches``) runs the kernels on the frontier,
  checks step invariants and deadlocks, removes the duplicates within its
  task, classifies the successors under the state constraints and
  evaluates the state properties on them (a flag and hit bits per row); its
  task reports come back in an accumulator keyed by partition (a re-run
  task overwrites its entry).
* The runs carry their partitioning and order into every plan that reads
  them (a checkpointed DataFrame keeps its plan's), and the candidates are
  hash-partitioned the same way (the same P, the same column), so each
  anti join is a sort-merge join that sorts the candidates once and never
  moves or sorts a run.  The aggregate (the smallest parent of each
  fingerprint) needs no shuffle either and, as a sort aggregate over sorted
  input (``spark.sql.execution.replaceHashWithSortAgg``), keeps the order:
  the new level is itself a sorted run.
* ``settle`` (``plans.LevelPlans.settle``) is a global aggregate over the
  new states' flag and hit bits: how many are kept, the smallest
  fingerprint settling each property, the first run-time error.  It is an
  observation (``Dataset.observe``) of the level, filled by the eager
  checkpoint's job that computes and stores the level: the aggregate runs
  in the JVM, in the tasks that store the level, with no stage of its own,
  and the new states do not go back through Python (until the next level
  expands them).  A level is thus planned once and run as one job of two
  stages.
* Each new level becomes a run.  A level of FOLD_ROWS states or more, or
  any level once MAX_RUNS runs are held, is folded, with the older runs no
  larger than twice it, into one run that keeps (fp, parent) only (a
  log-structured merge).  The fold is planned lazily and computed by the
  next level's job (whose anti joins read it), and the runs it replaces are
  released after that job.  A level thus streams once over the seen set in
  the JVM and writes only its new states.

No step reads the seen set into Python: the Python workers see the frontier
and the new states, and the driver sees reports and the few parents that a
counterexample's walk back asks for (a filter on ``fp``).
"""
from __future__ import annotations

import os
import re
import shutil
import threading
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from modelcheck.engines.spark.arrowpack import batch_rows, from_long, to_batch, to_long
from modelcheck.engines.spark.checkpoint import PARQUET, level_files
from modelcheck.engines.spark.kernels import PropertyPlan, SearchKernels
from modelcheck.engines.spark.levels import LevelCancelled
from modelcheck.engines.spark.partition import (EXPAND_BATCH, INSIDE, LevelReport, Part,
                                                concat_parts)
from modelcheck.engines.spark.plans import LevelPlans, read_settled

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

__all__ = ["SparkFrames", "SparkJobError", "sql_settings", "MAX_RUNS", "FOLD_ROWS"]

#: Runs kept at most (each is one more sort-merge join in a level's plan,
#: planned and run every level).  Measured, whole runs with every level on
#: Spark (local[2]): 4 beat 8 by 6-7% on Raft (53 levels) and TwoPhase N=8;
#: 3 and 16 were slower than 4.
MAX_RUNS = 4
#: A level at least this large is folded into a run of (fp, parent) as soon
#: as the next level is done, to free the memory its states hold; smaller
#: ones wait until MAX_RUNS runs are held (a fold costs a checkpoint).
FOLD_ROWS = 1 << 20

_EXCEPTION_LINE = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception|Interrupt|Exit)\b")


class SparkJobError(RuntimeError):
    """A Spark job failed for another reason than a cancellation."""


def sql_settings(partitions: int, words: int) -> dict[str, str]:
    """The Spark SQL settings a level's plan relies on."""
    return {
        # The candidates' shuffle must produce the runs' partitioning.
        "spark.sql.shuffle.partitions": str(partitions),
        # AQE would coalesce or split shuffle partitions after the fact, and
        # the runs' partitioning would no longer match the candidates'.
        "spark.sql.adaptive.enabled": "false",
        # A broadcast of a run would copy the seen set to the driver and back
        # every level; the sort-merge joins read it where it is.
        "spark.sql.autoBroadcastJoinThreshold": "-1",
        # The aggregate over sorted candidates keeps them sorted (a new run).
        "spark.sql.execution.replaceHashWithSortAgg": "true",
        "spark.sql.execution.arrow.maxRecordsPerBatch": str(batch_rows(words, EXPAND_BATCH)),
    }


@dataclass
class _Run:
    """Part of the seen set: ``df`` holds (fp, parent), partitioned and
    sorted on fp, and ``jfp`` is its ``fp`` column (the JVM Dataset the
    anti joins read); ``cache`` is the checkpoint it reads (to release);
    ``slim`` when that checkpoint holds (fp, parent) only, not a level's states."""
    df: "DataFrame"
    jfp: Any
    size: int
    cache: Any
    slim: bool


def _checkpointed(df: "DataFrame", eager: bool = False) -> tuple[Any, "DataFrame"]:
    """``df`` locally checkpointed, now (``eager``) or by the next job that
    reads it: returns the handle to release it with (``_release``) and the
    DataFrame that reads it.  Kept as the JVM's row objects where they fit
    (``MEMORY_AND_DISK_DESER``: pyspark's ``MEMORY_AND_DISK`` is the
    serialised level, which Java-serialises every row into memory: about a
    sixth of a whole run's time, and less room), serialised to the local
    dirs where they do not.

    The checkpoint cuts the lineage: the DataFrame's plan is one leaf that
    keeps the partitioning and the order of the plan it came from, so the
    joins still move and sort no run.  Without the cut a level's plan holds
    every level before it, through the frontier and each run, as a tree
    (each run repeats its history) that grows exponentially with the depth;
    ``persist`` alone does not cut it, since a cached relation is named, and
    printed in every plan that reads it, by its whole plan."""
    from pyspark import StorageLevel
    out = df.localCheckpoint(eager=eager, storageLevel=StorageLevel.MEMORY_AND_DISK_DESER)
    return out._jdf.queryExecution().analyzed().rdd(), out


def _release(handle: Any) -> None:
    """Drop a checkpoint's blocks (memory and spilled disk), without waiting."""
    handle.unpersist(False)


# ------------------------------------------------------------------ the backend

class SparkFrames:
    """Level steps on Spark SQL; the driver holds DataFrame plans and counts."""

    where = "spark"

    def __init__(self, spark: "SparkSession", kernels: SearchKernels, plan: PropertyPlan,
                 partitions: int, frontier: "DataFrame", frontier_size: int, runs: list[_Run]):
        self.spark = spark
        self.sc = spark.sparkContext
        self.kernels = kernels
        self.kernels_bc = self.sc.broadcast(kernels)
        self.plan = plan
        self._partitions = partitions
        self.frontier = frontier
        self.frontier_cache: Any = None      # the frontier's checkpoint, when no run reads it
        self.frontier_n = frontier_size
        self.runs = runs
        self.released: list[Any] = []        # checkpoints to drop after the next job
        for key, value in sql_settings(partitions, kernels.words).items():
            spark.conf.set(key, value)
        self.plans = LevelPlans(spark, self.kernels_bc, plan, kernels.words)

    # ------------------------------------------------------------ construction

    @classmethod
    def from_parts(cls, spark: "SparkSession", kernels: SearchKernels, plan: PropertyPlan,
                   parts: list[Part], partitions: int) -> "SparkFrames":
        """Hand the parts held by the driver (the in-process search) to Spark."""
        import pyarrow as pa
        whole = concat_parts(parts, kernels.words)
        seen = spark.createDataFrame(pa.table({"fp": to_long(whole.seen_fp),
                                               "parent": to_long(whole.seen_parent)}))
        pos = np.searchsorted(whole.seen_fp, whole.frontier_fp)
        rows = to_batch(whole.frontier_fp, whole.seen_parent[pos],
                        np.full(len(pos), INSIDE, dtype=np.int8), whole.frontier)
        frontier = spark.createDataFrame(pa.Table.from_batches([rows]))
        return cls._start(spark, kernels, plan, partitions, seen, frontier,
                          len(whole.seen_fp), len(whole.frontier_fp))

    @classmethod
    def from_checkpoint(cls, spark: "SparkSession", kernels: SearchKernels, plan: PropertyPlan,
                        directory: str, folder: str, partitions: int) -> "SparkFrames":
        """Read a Parquet checkpoint on the executors (any partition count)."""
        root = os.path.abspath(os.path.join(directory, folder))
        seen = spark.read.parquet(os.path.join(root, "seen"))
        frontier = spark.read.parquet(os.path.join(root, "frontier"))
        return cls._start(spark, kernels, plan, partitions, seen, frontier, None, None)

    @classmethod
    def _start(cls, spark: "SparkSession", kernels: SearchKernels, plan: PropertyPlan,
               partitions: int, seen: "DataFrame", frontier: "DataFrame",
               seen_n: int | None, frontier_n: int | None) -> "SparkFrames":
        for key, value in sql_settings(partitions, kernels.words).items():
            spark.conf.set(key, value)
        base, base_leaf = _checkpointed(seen.repartition(partitions, "fp")
                                        .sortWithinPartitions("fp"))
        front, front_leaf = _checkpointed(frontier.repartition(partitions, "fp"))
        backend = cls(spark, kernels, plan, partitions, front_leaf, frontier_n or 0,
                      [_Run(base_leaf, base_leaf.select("fp")._jdf, seen_n or 0, base, True)])
        backend.frontier_cache = front
        if seen_n is None or frontier_n is None:
            backend.runs[0].size = backend._run(base_leaf.count, None)
            backend.frontier_n = backend._run(front_leaf.count, None)
        return backend

    # ------------------------------------------------------------ LevelBackend

    @property
    def partitions(self) -> int:
        return self._partitions

    def frontier_size(self) -> int:
        return self.frontier_n

    def seen_size(self) -> int:
        return sum(run.size for run in self.runs)

    def step(self, check_deadlock: bool, commit: bool,
             time_left_s: float | None) -> tuple[LevelReport, LevelReport]:
        from pyspark.sql import DataFrame
        plans = self.plans
        plans.reports.value = {}
        fresh = DataFrame(plans.level(self.frontier._jdf, [r.jfp for r in self.runs],
                                      check_deadlock, commit, self._partitions), self.spark)
        observed, observation = plans.settle(fresh)
        # One plan and one job: the eager checkpoint computes the level, keeps
        # it and fills the observation.  (A job cancelled half-way leaves the
        # blocks it stored to Spark's cleaner, with the rest of the search.)
        nxt, nxt_leaf = self._run(lambda: _checkpointed(observed, eager=True), time_left_s)
        expanded = LevelReport()
        for _, report in sorted(plans.reports.value.items(), key=lambda kv: kv[0]):
            expanded.add(report)
        merged = read_settled(observation.get, len(self.plan.state))
        for cache in self.released:
            _release(cache)
        self.released = []
        if not commit and merged.new_states and merged.failed is None:
            # Past the depth bound: counted, not kept (a resumed run expands
            # this level again).
            _release(nxt)
            return expanded, merged
        self._advance(nxt, nxt_leaf, merged)
        return expanded, merged

    def _advance(self, nxt: Any, nxt_leaf: "DataFrame", merged: LevelReport) -> None:
        """Make the new states the frontier and a run; plan the fold of the
        level before into the older runs."""
        from pyspark.sql import DataFrame
        frontier = DataFrame(nxt_leaf._jdf.filter(self.plans.kept), self.spark)
        if self.frontier_cache is not None:
            self.released.append(self.frontier_cache)     # the hand-over's frontier
        self.frontier, self.frontier_cache, self.frontier_n = frontier, None, merged.new_states
        self.runs.append(self._run_of(frontier, merged.new_states, nxt, False))
        self._fold()

    def _run_of(self, df: "DataFrame", size: int, cache: Any, slim: bool) -> _Run:
        from pyspark.sql import DataFrame
        seen = DataFrame(df._jdf.select(self.plans.fp_parent), self.spark)
        return _Run(seen, df._jdf.select(self.plans.fp), size, cache, slim)

    def _fold(self) -> None:
        """Fold the run before the frontier's (it still holds the states of
        its level) with the older runs no larger than twice it into one run
        of (fp, parent), once that level is large or the runs are many.  The
        merged run is computed by the next level's job; the runs it replaces
        are released after that job."""
        if len(self.runs) < 3:
            return
        *older, last, frontier = self.runs
        if last.slim or (len(self.runs) <= MAX_RUNS and last.size < FOLD_ROWS):
            return
        taken = [last]
        while older and (older[-1].size <= 2 * sum(r.size for r in taken)
                         or len(older) + 2 > MAX_RUNS):
            taken.insert(0, older.pop())
        merged_df = taken[0].df
        for run in taken[1:]:
            merged_df = merged_df.union(run.df)
        cache, leaf = _checkpointed(merged_df.sortWithinPartitions("fp"))
        self.runs = older + [self._run_of(leaf, sum(r.size for r in taken), cache, True),
                             frontier]
        self.released.extend(r.cache for r in taken)

    def parents(self, fps: list[int]) -> dict[int, int]:
        from pyspark.sql import functions as F
        wanted = [int(x) for x in to_long(np.array(fps, dtype=np.uint64))]
        rows = self._run(lambda: self._seen().filter(F.col("fp").isin(wanted))
                         .select("fp", "parent").collect(), None)
        fp = from_long(np.array([r.fp for r in rows], dtype=np.int64))
        parent = from_long(np.array([r.parent for r in rows], dtype=np.int64))
        return {int(f): int(p) for f, p in zip(fp, parent)}

    def _seen(self) -> "DataFrame":
        seen = self.runs[0].df
        for run in self.runs[1:]:
            seen = seen.union(run.df)
        return seen

    def save(self, directory: str, folder: str) -> tuple[str, list[str]]:
        """The seen set and the frontier as Parquet, written by the executors."""
        root = os.path.abspath(os.path.join(directory, folder))
        # A folder of this name that no manifest names: what a killed run left.
        shutil.rmtree(root, ignore_errors=True)
        self._run(lambda: self._seen().write.parquet(os.path.join(root, "seen")), None)
        self._run(lambda: self.frontier.write.parquet(os.path.join(root, "frontier")), None)
        return PARQUET, level_files(directory, folder)

    def close(self) -> None:
        held = [self.frontier_cache, *self.released, *(r.cache for r in self.runs)]
        caches = {c.id(): c for c in held if c is not None}
        for cache in caches.values():
            _release(cache)
        self.runs, self.released = [], []
        self.kernels_bc.unpersist()

    # ------------------------------------------------------------ jobs

    def _run(self, job: Any, time_left_s: float | None) -> Any:
        """Run a job in its own job group, cancelled when the time is up or
        on Ctrl-C."""
        group = f"modelcheck-{uuid.uuid4().hex}"
        self.sc.setJobGroup(group, "modelcheck level", interruptOnCancel=True)
        timer = None
        cancelled = threading.Event()
        if time_left_s is not None:
            def cancel() -> None:
                cancelled.set()
                self.sc.cancelJobGroup(group)
            timer = threading.Timer(time_left_s, cancel)
            timer.daemon = True
            timer.start()
        try:
            return job()
        except KeyboardInterrupt:
            self.sc.cancelJobGroup(group)
            raise
        except Exception as err:
            if cancelled.is_set():
                raise LevelCancelled() from None
            raise SparkJobError(_job_failure(err)) from err
        finally:
            if timer is not None:
                timer.cancel()
            self.sc.setLocalProperty("spark.jobGroup.id", None)   # type: ignore[arg-type]


def _job_failure(err: BaseException) -> str:
    """The useful line of a failed job: the Python exception raised on an
    executor if there was one, else the JVM's message."""
    lines = [ln.strip() for ln in str(err).splitlines() if ln.strip()]
    for i, line in enumerate(lines):
        if "Traceback (most recent call last)" in line:
            for later in lines[i + 1:]:
                if _EXCEPTION_LINE.match(later):
                    return later
    for line in lines:
        if line.startswith(":") and "Exception" in line:
            return line.lstrip(": ")
    return lines[0] if lines else type(err).__name__
