"""The Spark backend: a seen set owned by partitions, held as numpy runs, and
one stage of Python tasks a level.

Every RDD here has P partitions and the same partitioner (a
``PythonPartitioner`` over ``owner_key``, one function object for the
process: Spark compares Python partitioners by the function's id).  Partition
``i`` owns the fingerprints ``tasks.owner`` gives ``i``.  Its elements are
whole batches of numpy arrays (``tasks.py``).  The seen set is a short list
of **runs**: cached RDDs whose partition ``i`` holds owner ``i``'s sorted
fingerprints and parents.  A level is one stage (``shuffle_out.py``):

    out   = cands_k.mapPartitions(merge, then expand)  # Python: the resident table,
                                                      #   the kernels on the new states
    out.persist(); out.localCheckpoint()
    level_k   = out where key is LEVEL_KEY + i        # JVM: the run and frontier
    cands_k+1 = out where key is CANDIDATE_KEY + j, shuffled to j
    submitMapStage(cands_k+1)                          # the level's job

In local mode (or with ``extra["spark_exchange_dir"]`` on a cluster) the
tasks write the candidates to the exchange files instead (``exchange.py``):
``out`` then holds the level alone, ``cands_k+1`` is empty (it still
carries the partition index and the partitioner into the next level's
tasks, which read their files), and a task that misses a file makes the
driver run the level again with the shuffle, kept from then on.

Each task merges its partition's candidates against the executor's
resident table (``resident.py``: a hash table of fingerprints in
memory-mapped files, each entry stamped with its level, so a task that runs
again sees what the first attempt saw), settles the new states
(``partition.settle_fresh``: constraints, properties, run-time errors),
writes the level's element ``("l", fp, parent, states)`` and expands those
states at once, writing the next level's candidate blocks.  The JVM only
moves and stores the batches (pickled numpy buffers); it never sorts or
compares a state, and no state crosses into Python twice a level.  The
first level on Spark (after a hand-over or a resume) expands its frontier
in a stage of its own.

A task that finds no valid resident table (the generation and size the
driver expects) says so; the driver then runs the level again from the
cached runs (the lineage): ``union(run_1, ..., run_k, cands_k)``, a
``PartitionerAwareUnionRDD`` whose partition ``i`` reads run ``i`` of every
run where it is cached and the candidates for ``i`` (no run moves: the
co-partitioning GraphX uses), which builds the tables afresh.  The counts
never depend on the tables.

Runs are log-structured: each level adds one, and once the levels not yet
folded hold FOLD_ROWS states or more, or MAX_RUNS runs are held
(RESIDENT_MAX_RUNS while the levels merge against the resident tables),
the run before the frontier is folded with the older runs no larger than
twice it into one run of (fp, parent) (a linear merge, run as a job of its
own right after the level).  The runs are the
durable seen set (faults, checkpoints, traces, the fallback); a level
against the resident tables does not read them.

Each level's output is persisted (``MEMORY_AND_DISK``, replicated twice on
a cluster, so that losing one executor loses no run) and locally
checkpointed, which cuts the lineage as GraphX does: a level's plan never
holds the levels before it, and old shuffles are cleaned.  The reports of
the tasks come back in one accumulator keyed by (stage, level, partition):
a task that runs again overwrites its own entry.
"""
from __future__ import annotations

import functools
import os
import shutil
import time
import uuid
from typing import TYPE_CHECKING, Any

import numpy as np

from modelcheck.engines.spark import exchange, resident, scratch
from modelcheck.engines.spark.checkpoint import NPZ
from modelcheck.engines.spark.kernels import PropertyPlan, SearchKernels
from modelcheck.engines.spark.jobs import SparkJobError, run_job
from modelcheck.engines.spark.partition import LevelReport, Part, concat_parts
from modelcheck.engines.spark.tasks import owner, split_part
from modelcheck.engines.spark.batch import BatchRule
from modelcheck.engines.spark.batch_step import step_many
from modelcheck.engines.spark.runs import Run, owner_key, plain
from modelcheck.engines.spark.rdd_tasks import (expand_task, fused_task, clear_task, fold_task,
                                                combine_task, as_frontier, save_task,
                                                lookup_task, read_pieces, batch_runs_task)
from modelcheck.engines.spark.shuffle_out import FusedLevel, KeyFilters, split_fused

if TYPE_CHECKING:
    from pyspark import RDD, SparkContext

__all__ = ["SparkPartitions", "SparkJobError", "MAX_RUNS", "RESIDENT_MAX_RUNS", "FOLD_ROWS"]

#: Runs kept at most (each is one more sorted array a level's merge looks
#: its candidates up in).
MAX_RUNS = 4
#: Runs kept at most while the levels merge against the executors' resident
#: tables (``SparkPartitions._max_runs``).
RESIDENT_MAX_RUNS = 32
#: A level at least this large is folded into a run of (fp, parent) as soon
#: as the next level is done, to free the memory its states hold; smaller
#: ones wait until MAX_RUNS runs are held.
FOLD_ROWS = 1 << 20

#: After this many levels in a row that fell back to the cached runs (the
#: merge tasks keep landing on executors without the copies), the search
#: stops trying the resident copies and reads the runs at once.
RESIDENT_GIVE_UP = 3


class _ReportsParam:
    """Accumulates {(stage, level, partition): value}; a re-run task
    overwrites its entry."""

    def zero(self, value: dict) -> dict:
        return {}

    def addInPlace(self, a: dict, b: dict) -> dict:
        a.update(b)
        return a


# ------------------------------------------------------------------ the backend

class SparkPartitions:
    """Level steps on Spark; the driver holds RDD handles and counts."""

    where = "spark"

    def __init__(self, sc: "SparkContext", kernels: SearchKernels, plan: PropertyPlan,
                 partitions: int, base: "RDD", seen_n: int, frontier_n: int,
                 resident: bool | None = None, exchange_to: str | bool | None = None,
                 batching: bool = True):
        from pyspark import StorageLevel

        from modelcheck.engines.spark.session import is_local
        self.sc = sc
        self.kernels = kernels
        self.kernels_bc = sc.broadcast(kernels)
        self.plan = plan
        self._partitions = partitions
        # Replicated on a cluster: an executor lost mid-run loses no run.
        replicas = 1 if is_local(sc.master) else 2
        self.storage = StorageLevel(True, True, False, False, replicas)
        self.runs = [Run(base, seen_n, False)]
        self.frontier = base
        self.frontier_n = frontier_n
        self.level = 0
        self.reports = sc.accumulator({}, _ReportsParam())   # type: ignore[arg-type]
        # The executors' resident copies of the seen set (resident.py):
        # ``search`` names them, ``part_n`` is what each partition holds.
        # By default on with a local master only: on a cluster Spark may
        # place a merge on an executor without the partition's copy (the
        # level then falls back), measured in docs/engines/spark.md.
        if resident is None:
            resident = is_local(sc.master)
        if is_local(sc.master):
            # What killed runs left in their scratch directories (tables and
            # files of gigabytes) is removed here: nothing else would.
            from pyspark import SparkFiles
            root = SparkFiles.getRootDirectory()
            scratch.claim(root)
            scratch.sweep(root)
        self.search = uuid.uuid4().hex if resident else None
        self.part_n = [0] * partitions
        self.resident_levels = 0        # levels merged against resident copies only
        self.fallback_levels = 0        # levels whose merge ran again from the cached runs
        self.resident_misses = 0        # partitions (over all levels) without a valid copy
        self._fallbacks_in_a_row = 0
        # The file exchange (exchange.py): the search's directory, or None
        # (the JVM shuffle).
        self.exchange = exchange.search_root(sc, exchange_to)
        self.exchange_levels = 0        # levels whose candidates came through the files
        self.exchange_misses = 0        # partitions (over all levels) missing a file
        self.file_run_levels = 0        # levels (one job each) whose run went to a file
        # The next level's candidates, handed to their owners by the level
        # before (its fused tasks expanded its new states: shuffled, or in
        # the exchange directory named third, the RDD then empty), with the
        # report of that expansion; None: the next step expands the
        # frontier in a stage of its own (the first level on Spark).
        self.pending: tuple["RDD", LevelReport, str | None] | None = None
        self._filters: KeyFilters | None = None     # made by the first fused level
        # Levels in batches, one job each (batch.py, ``step_many``).
        self.batching = batching
        self.batches = 0                # batch jobs run
        self.batch_misses = 0           # batches dropped for a miss

    # ------------------------------------------------------------ construction

    @classmethod
    def from_parts(cls, sc: "SparkContext", kernels: SearchKernels, plan: PropertyPlan,
                   parts: list[Part], partitions: int, resident: bool | None = None,
                   exchange_to: str | bool | None = None,
                   batching: bool = True) -> "SparkPartitions":
        """Hand the parts held by the driver (the in-process search) to Spark."""
        whole = concat_parts(parts, kernels.words)
        pieces = list(split_part(whole, partitions))
        source = sc.parallelize(pieces, max(1, min(partitions, len(pieces))))
        return cls._start(sc, kernels, plan, partitions, source, resident, exchange_to,
                          batching)

    @classmethod
    def from_files(cls, sc: "SparkContext", kernels: SearchKernels, plan: PropertyPlan,
                   directory: str, folder: str, files: list[str],
                   partitions: int, resident: bool | None = None,
                   exchange_to: str | bool | None = None,
                   batching: bool = True) -> "SparkPartitions":
        """Read a checkpoint's part files on the executors (written under any
        partition count) and hand each owner its pieces."""
        root = os.path.abspath(os.path.join(directory, folder))
        paths = [os.path.join(root, name) for name in files]
        source = sc.parallelize(paths, max(1, len(paths))) \
            .flatMap(functools.partial(read_pieces, partitions))
        return cls._start(sc, kernels, plan, partitions, source, resident, exchange_to,
                          batching)

    @classmethod
    def _start(cls, sc: "SparkContext", kernels: SearchKernels, plan: PropertyPlan,
               partitions: int, source: "RDD", resident: bool | None = None,
               exchange_to: str | bool | None = None,
               batching: bool = True) -> "SparkPartitions":
        backend = cls(sc, kernels, plan, partitions, source, 0, 0, resident, exchange_to,
                      batching)
        shuffled = plain(sc, source.partitionBy(partitions, owner_key))
        base = shuffled.mapPartitionsWithIndex(
            functools.partial(combine_task, kernels.words, backend.reports, backend.search),
            preservesPartitioning=True)
        backend._keep(base)
        backend.reports.value = {}
        backend._run(backend._job(base), None)
        sizes = [v for k, v in backend.reports.value.items() if k[0] == "s"]
        for (stage, _, index), (seen, _) in backend.reports.value.items():
            if stage == "s":
                backend.part_n[index] = seen
        base = plain(sc, base)
        backend.runs = [Run(base, sum(s for s, _ in sizes), False)]
        backend.frontier = base
        backend.frontier_n = sum(f for _, f in sizes)
        return backend

    def _job(self, rdd: "RDD") -> Any:
        """The job computing ``rdd``: a count of it."""
        return rdd._jrdd.count

    def _keep(self, rdd: "RDD") -> None:
        """Cache ``rdd`` and cut its lineage once a job has computed it."""
        rdd.persist(self.storage)
        rdd.localCheckpoint()

    # ------------------------------------------------------------ LevelBackend

    @property
    def partitions(self) -> int:
        return self._partitions

    def frontier_size(self) -> int:
        return self.frontier_n

    def seen_size(self) -> int:
        return sum(run.size for run in self.runs)

    def union(self, rdds: list["RDD"]) -> "RDD":
        """The co-partitioned union (a ``PartitionerAwareUnionRDD``: partition
        ``i`` of each, where it is cached, nothing shuffled)."""
        return self.sc.union(rdds) if len(rdds) > 1 else rdds[0]

    def candidates(self, check_deadlock: bool) -> "RDD":
        """The frontier's successors, shuffled to their owners (not yet
        computed): the first Spark level's expand stage (later levels'
        candidates come from the fused tasks of the level before)."""
        cands = self.frontier.mapPartitionsWithIndex(functools.partial(
            expand_task, self.kernels_bc, self.plan, check_deadlock, self._partitions,
            self.reports, self.level))
        return plain(self.sc, cands.partitionBy(self._partitions, owner_key))

    def fused(self, shuffled: "RDD", commit: bool, expand: bool, check_deadlock: bool,
              from_runs: bool, exchange_in: str | None,
              exchange_out: str | None, runs_to: str | None = None) -> FusedLevel:
        """The level's one stage over ``shuffled``: each task merges its
        candidates (against the resident table, or ``from_runs``: over the
        co-partitioned union of the cached runs and the candidates; read
        from the files under ``exchange_in`` when given, ``shuffled`` then
        empty) and, with ``expand``, expands the new states into the next
        candidates (written under ``exchange_out`` when given, else
        shuffled: the level's candidates RDD then empty), and the level's
        run to the runs file ``runs_to`` under it when given (``step``)."""
        source = shuffled
        search = self.search
        if from_runs:
            source = self.union([run.rdd for run in self.runs] + [shuffled])
            # Past RESIDENT_GIVE_UP the tables are no longer written either.
            if self._fallbacks_in_a_row >= RESIDENT_GIVE_UP:
                search = None
        keyed = source.mapPartitionsWithIndex(functools.partial(
            fused_task, self.kernels_bc, self.plan, commit, expand, check_deadlock,
            self._partitions, self.reports, self.level, search, list(self.part_n), from_runs,
            exchange_in=exchange_in, exchange_out=exchange_out, runs_to=runs_to),
            preservesPartitioning=True)
        return self.split(keyed)

    def _runs_to_files(self, exchange_out: str | None) -> str | None:
        """A name for the level's runs file, where the level's run is written
        to the exchange directory rather than kept by Spark: a local master
        (each task runs once, as for the batches), the exchange on, the
        level committed.  On a cluster Spark keeps the runs, the durable
        copy a lost executor's tasks are recomputed from."""
        if exchange_out is None or not self.tasks_run_once():
            return None
        return uuid.uuid4().hex

    def tasks_run_once(self) -> bool:
        """Whether the master runs each task once (a local one): what a
        batch's notes and a level's runs file rely on."""
        from modelcheck.engines.spark.session import is_local
        master = self.sc.master
        return is_local(master) and "," not in master

    def file_run(self, carrier: "RDD", tag: str, size: int) -> Run:
        """The run the tasks wrote to the runs files ``tag`` (a batch's, or
        a level's: ``fused_task``'s ``runs_to``), read over ``carrier`` (the
        stage's empty candidates RDD) when a job first needs it (a fold, a
        checkpoint, a trace, a fallback), then cached."""
        assert self.exchange is not None
        level = carrier.mapPartitionsWithIndex(
            functools.partial(batch_runs_task, self.exchange, tag), preservesPartitioning=True)
        self._keep(level)
        return Run(plain(self.sc, level), size, False, None,
                   functools.partial(exchange.clear_batch, self.exchange, tag))

    def split(self, keyed: "RDD") -> FusedLevel:
        """A level's (or batch's) tasks' output split on the JVM
        (``shuffle_out.split_fused``), with the search's key filters."""
        if self._filters is None:
            self._filters = KeyFilters.make(self.sc, self._partitions, owner_key)
        return split_fused(self.sc, keyed, self._partitions, owner_key, self.storage,
                           self._filters)

    def count_merged(self, level: int) -> None:
        """Add the partitions' new states of ``level`` to what the driver
        expects each resident table to hold."""
        for (stage, lvl, index), report in self.reports.value.items():
            if stage == "m" and lvl == level:
                self.part_n[index] += report.new_states

    def step(self, check_deadlock: bool, commit: bool,
             time_left_s: float | None) -> tuple[LevelReport, LevelReport]:
        started = time.monotonic()
        self.level += 1
        level = self.level
        self.reports.value = {}
        if self.pending is None:
            shuffled, expanded, exchange_in = self.candidates(check_deadlock), None, None
        else:
            shuffled, expanded, exchange_in = self.pending
            if expanded.failed is not None:
                # The expansion hit a run-time error: the search stops on
                # it, whatever the merge would find.
                self.level -= 1
                return expanded, LevelReport()
        from_runs = self.search is None or self._fallbacks_in_a_row >= RESIDENT_GIVE_UP
        # A level past the depth bound is not kept: its states are not
        # expanded (nor written to the exchange).
        exchange_out = self.exchange if commit else None
        runs_to = self._runs_to_files(exchange_out)
        out = self.fused(shuffled, commit, commit, check_deadlock, from_runs, exchange_in,
                         exchange_out, runs_to)

        def left() -> float | None:
            return None if time_left_s is None else \
                max(0.0, time_left_s - (time.monotonic() - started))
        try:
            self._run(out.run, time_left_s)
            xmisses = [k for k in self.reports.value if k[0] == "xmiss" and k[1] == level]
            if xmisses:
                # Some owner could not read a file of its candidates (the
                # directory is not where its executor looks): the frontier
                # is expanded again and shuffled by the JVM, and the search
                # keeps the shuffle from now on.  Partitions that merged
                # already run again exactly (the tables' stamps).
                self.exchange_misses += len(xmisses)
                self._stop_exchange()
                out.drop()
                self.reports.value = {}
                shuffled, expanded, exchange_in, exchange_out, runs_to = \
                    self.candidates(check_deadlock), None, None, None, None
                out = self.fused(shuffled, commit, commit, check_deadlock, from_runs, None,
                                 None)
                self._run(out.run, left())
            misses = [k for k in self.reports.value if k[0] == "miss" and k[1] == level]
            if misses:
                # Some partition had no valid resident table: the level runs
                # again from the cached runs (the candidates' shuffle, or
                # their files, are kept: the stage that wrote them is not
                # run again).
                self.resident_misses += len(misses)
                self.fallback_levels += 1
                self._fallbacks_in_a_row += 1
                out.drop()
                self.reports.value = {k: v for k, v in self.reports.value.items()
                                      if k[:2] == ("x", level)}
                out = self.fused(shuffled, commit, commit, check_deadlock, True, exchange_in,
                                 exchange_out, runs_to)
                self._run(out.run, left())
            elif not from_runs:
                self.resident_levels += 1
                self._fallbacks_in_a_row = 0
        except BaseException:
            out.drop()
            if runs_to is not None and self.exchange is not None:
                exchange.clear_batch(self.exchange, runs_to)
            self.level -= 1
            raise
        if exchange_in is not None:
            # Merged: the level's files are no longer read (a level run
            # again after this reads the runs and the next files only).
            exchange.clear_level(exchange_in, level)
            self.exchange_levels += 1
        if expanded is None:
            expanded = self._reports("x", level)
        merged = self._reports("m", level)
        if not commit and merged.new_states and merged.failed is None:
            # Past the depth bound: counted, not kept (a resumed run expands
            # this level again).
            out.drop()
            return expanded, merged
        self.count_merged(level)
        if runs_to is None:
            run = Run(out.level, merged.new_states, False, out.keep)
        else:
            out.drop()          # the tasks' output: empty (the files hold it all)
            run = self.file_run(out.candidates, runs_to, merged.new_states)
            self.file_run_levels += 1
        self.runs.append(run)
        self.frontier, self.frontier_n = run.rdd, merged.new_states
        self.pending = (out.candidates, self._reports("x", level + 1), exchange_out) \
            if commit else None
        self._fold()
        return expanded, merged

    def step_many(self, check_deadlock: bool, time_left_s: float | None,
                  rule: BatchRule) -> list[tuple[LevelReport, LevelReport]]:
        """Levels in one job while ``rule`` lets them go on (batch.py,
        ``batch_step.step_many``)."""
        return step_many(self, check_deadlock, time_left_s, rule)

    def _stop_exchange(self) -> None:
        """Back to the JVM shuffle for the rest of the search.  The runs of
        batches still read from their files are computed (and cached, their
        lineage cut) before the files go."""
        for run in self.runs:
            if run.in_file:
                self._run(run.rdd._jrdd.count, None)
        if self.exchange is not None:
            exchange.clear(self.exchange)
        self.exchange = None

    def _reports(self, stage: str, level: int) -> LevelReport:
        """The sum of the tasks' reports of ``stage`` for ``level``, in
        partition order."""
        out = LevelReport()
        for (st, lvl, _), report in sorted(self.reports.value.items(),
                                           key=lambda kv: (kv[0][0], kv[0][2])):
            if st == stage and lvl == level:
                out.add(report)
        return out

    def _fold(self) -> None:
        """Fold the run before the frontier's (it still holds the states of
        its level) with the older runs no larger than twice it into one run
        of (fp, parent), once that level is large or the runs are many.  The
        fold is a job of its own, run at once: computed lazily inside the
        next level's merge, it ran a second Python worker inside each merge
        task (the union pulling it), which grew the worker pool and made
        every merge wait on it (measured: 5x the Python time of a run)."""
        if len(self.runs) < 3:
            return
        *older, last, frontier = self.runs
        if last.in_file:
            # It holds no memory, and a fold would move it into the JVM and
            # back through a Python task for nothing.
            return
        limit = self._max_runs()
        # The states the unfolded runs hold besides their (fp, parent): what
        # a fold frees.  A run read from its file holds none until read.
        unfolded = sum(r.size for r in self.runs[:-1] if not r.slim and not r.in_file)
        held = sum(1 for r in self.runs if not r.in_file)
        if last.slim or (held <= limit and unfolded < FOLD_ROWS):
            return
        taken = [last]
        while older and not older[-1].in_file and (
                older[-1].size <= 2 * sum(r.size for r in taken) or len(older) + 2 > limit
                or not all(r.slim or r.in_file for r in older)):
            taken.insert(0, older.pop())
        folded = self.union([r.rdd for r in taken]).mapPartitionsWithIndex(
            fold_task, preservesPartitioning=True)
        self._keep(folded)
        self._run(folded._jrdd.count, None)
        self.runs = older + [Run(plain(self.sc, folded), sum(r.size for r in taken), True,
                                  folded), frontier]
        for run in taken:
            run.drop()

    def _max_runs(self) -> int:
        """The runs held before a fold.  A level merged against the resident
        tables reads none of them, so they may be many (each fold is a job:
        folding every few narrow levels cost Raft some 17 jobs); a merge from
        the runs reads every one of them."""
        resident = self.search is not None and self._fallbacks_in_a_row == 0
        return RESIDENT_MAX_RUNS if resident else MAX_RUNS

    def parents(self, fps: list[int]) -> dict[int, int]:
        """A job on the partitions that own ``fps`` only."""
        wanted = np.array(sorted(set(fps)), dtype=np.uint64)
        if not len(wanted):
            return {}
        owners = sorted(set(owner(wanted, self._partitions).tolist()))
        seen = self.union([run.rdd for run in self.runs])
        found: dict[int, int] = {}
        for piece in self._run(lambda: self.sc.runJob(
                seen, functools.partial(lookup_task, wanted), owners), None):
            found.update(piece)
        return found

    def save(self, directory: str, folder: str) -> tuple[str, dict[str, str]]:
        """One part file per partition (its seen set and frontier), written
        and checksummed by the executors."""
        root = os.path.abspath(os.path.join(directory, folder))
        # A folder of this name that no manifest names: what a killed run left.
        shutil.rmtree(root, ignore_errors=True)
        os.makedirs(root, exist_ok=True)
        front = self.frontier.mapPartitionsWithIndex(as_frontier, preservesPartitioning=True)
        rdds = [run.rdd for run in self.runs if run.rdd is not self.frontier] + [front]
        written = self._run(lambda: self.union(rdds).mapPartitionsWithIndex(functools.partial(
            save_task, os.path.abspath(directory), folder, self.kernels.words)).collect(), None)
        return NPZ, dict(sorted(written))

    def close(self) -> None:
        for run in self.runs:
            try:
                run.drop()
            except Exception:       # pragma: no cover - a stopped context
                pass
        self.runs = []
        self.pending = None
        try:
            self.kernels_bc.unpersist()
        except Exception:           # pragma: no cover
            pass
        if self.search is not None:
            self._clear_resident()
        self._stop_exchange()

    def _clear_resident(self) -> None:
        """Remove the resident copies: in local mode the driver's executor
        directory is this process's; on a cluster a best-effort job (each
        executor's directory also goes with the application)."""
        from modelcheck.engines.spark.session import is_local
        try:
            if is_local(self.sc.master):
                resident.clear(self.search)
            else:
                n = max(1, self.sc.defaultParallelism)
                self.sc.parallelize(range(n), n).mapPartitionsWithIndex(
                    functools.partial(clear_task, self.search)).count()
        except Exception:           # pragma: no cover - a stopped context
            pass

    def resident_stats(self) -> dict[str, int]:
        return {"spark_resident": self.search is not None,
                "spark_resident_levels": self.resident_levels,
                "spark_fallback_levels": self.fallback_levels,
                "spark_resident_misses": self.resident_misses,
                "spark_exchange": "files" if self.exchange_levels or self.exchange else "shuffle",
                "spark_exchange_levels": self.exchange_levels,
                "spark_exchange_misses": self.exchange_misses,
                "spark_file_run_levels": self.file_run_levels,
                "spark_batches": self.batches,
                "spark_batch_misses": self.batch_misses}

    # ------------------------------------------------------------ jobs

    def _run(self, job: Any, time_left_s: float | None) -> Any:
        return run_job(self.sc, job, time_left_s)
