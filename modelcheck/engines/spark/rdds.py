"""The Spark backend: a seen set owned by partitions, held as numpy runs, and
one stage of Python tasks a level.

Every RDD here has P partitions and the same partitioner (a
``PythonPartitioner`` over ``_owner_key``, one function object for the
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

Runs are log-structured: each level adds one, and a level of FOLD_ROWS
states or more, or any level once MAX_RUNS runs are held, is folded with the
older runs no larger than twice it into one run of (fp, parent) (a linear
merge, run as a job of its own right after the level).  The runs are the
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
import re
import shutil
import threading
import time
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from modelcheck.engines.spark import exchange, resident, scratch
from modelcheck.engines.spark.checkpoint import NPZ
from modelcheck.engines.spark.kernels import PropertyPlan, SearchKernels
from modelcheck.engines.spark.levels import LevelCancelled
from modelcheck.engines.spark.partition import LevelReport, Part, concat_parts
from modelcheck.engines.spark.tasks import owner, split_part
from modelcheck.engines.spark.rdd_tasks import (expand_task, fused_task, clear_task, fold_task,
                                                combine_task, as_frontier, save_task,
                                                lookup_task, read_pieces)
from modelcheck.engines.spark.shuffle_out import FusedLevel, split_fused

if TYPE_CHECKING:
    from pyspark import RDD, SparkContext

__all__ = ["SparkPartitions", "SparkJobError", "MAX_RUNS", "FOLD_ROWS"]

#: Runs kept at most (each is one more sorted array a level's merge looks
#: its candidates up in).
MAX_RUNS = 4
#: A level at least this large is folded into a run of (fp, parent) as soon
#: as the next level is done, to free the memory its states hold; smaller
#: ones wait until MAX_RUNS runs are held.
FOLD_ROWS = 1 << 20

_EXCEPTION_LINE = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception|Interrupt|Exit)\b")
#: After this many levels in a row that fell back to the cached runs (the
#: merge tasks keep landing on executors without the copies), the search
#: stops trying the resident copies and reads the runs at once.
RESIDENT_GIVE_UP = 3


class SparkJobError(RuntimeError):
    """A Spark job failed for another reason than a cancellation."""


def _owner_key(key: int) -> int:
    """The partition function of every RDD of the search: elements are keyed
    by their owner partition already."""
    return key


class _ReportsParam:
    """Accumulates {(stage, level, partition): value}; a re-run task
    overwrites its entry."""

    def zero(self, value: dict) -> dict:
        return {}

    def addInPlace(self, a: dict, b: dict) -> dict:
        a.update(b)
        return a


# ------------------------------------------------------------------ the backend

@dataclass
class _Run:
    """Part of the seen set: an RDD read from the cache, how many states it
    holds, whether it holds (fp, parent) only (``slim``) or a level's states
    too, and what is persisted for it (``keep``: the RDD itself, or a fused
    level's whole output, of which ``rdd`` is the level's part)."""
    rdd: "RDD"
    size: int
    slim: bool
    keep: Any = None

    def drop(self) -> None:
        (self.rdd if self.keep is None else self.keep).unpersist(False)


def _plain(sc: "SparkContext", rdd: "RDD") -> "RDD":
    """``rdd`` as a plain RDD over the same JVM RDD, read with the context's
    serializer: the Python object no longer holds its lineage, and a union
    with the runs needs no re-serialisation (``partitionBy`` labels its
    output with another serializer object of the same format)."""
    from pyspark import RDD
    out = RDD(rdd._jrdd, sc, sc.serializer)
    out.partitioner = rdd.partitioner
    return out


class SparkPartitions:
    """Level steps on Spark; the driver holds RDD handles and counts."""

    where = "spark"

    def __init__(self, sc: "SparkContext", kernels: SearchKernels, plan: PropertyPlan,
                 partitions: int, base: "RDD", seen_n: int, frontier_n: int,
                 resident: bool | None = None, exchange_to: str | bool | None = None):
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
        self.runs = [_Run(base, seen_n, False)]
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
        self.exchange = _exchange_root(sc, exchange_to)
        self.exchange_levels = 0        # levels whose candidates came through the files
        self.exchange_misses = 0        # partitions (over all levels) missing a file
        # The next level's candidates, handed to their owners by the level
        # before (its fused tasks expanded its new states: shuffled, or in
        # the exchange directory named third, the RDD then empty), with the
        # report of that expansion; None: the next step expands the
        # frontier in a stage of its own (the first level on Spark).
        self.pending: tuple["RDD", LevelReport, str | None] | None = None

    # ------------------------------------------------------------ construction

    @classmethod
    def from_parts(cls, sc: "SparkContext", kernels: SearchKernels, plan: PropertyPlan,
                   parts: list[Part], partitions: int, resident: bool | None = None,
                   exchange_to: str | bool | None = None) -> "SparkPartitions":
        """Hand the parts held by the driver (the in-process search) to Spark."""
        whole = concat_parts(parts, kernels.words)
        pieces = list(split_part(whole, partitions))
        source = sc.parallelize(pieces, max(1, min(partitions, len(pieces))))
        return cls._start(sc, kernels, plan, partitions, source, resident, exchange_to)

    @classmethod
    def from_files(cls, sc: "SparkContext", kernels: SearchKernels, plan: PropertyPlan,
                   directory: str, folder: str, files: list[str],
                   partitions: int, resident: bool | None = None,
                   exchange_to: str | bool | None = None) -> "SparkPartitions":
        """Read a checkpoint's part files on the executors (written under any
        partition count) and hand each owner its pieces."""
        root = os.path.abspath(os.path.join(directory, folder))
        paths = [os.path.join(root, name) for name in files]
        source = sc.parallelize(paths, max(1, len(paths))) \
            .flatMap(functools.partial(read_pieces, partitions))
        return cls._start(sc, kernels, plan, partitions, source, resident, exchange_to)

    @classmethod
    def _start(cls, sc: "SparkContext", kernels: SearchKernels, plan: PropertyPlan,
               partitions: int, source: "RDD", resident: bool | None = None,
               exchange_to: str | bool | None = None) -> "SparkPartitions":
        backend = cls(sc, kernels, plan, partitions, source, 0, 0, resident, exchange_to)
        shuffled = _plain(sc, source.partitionBy(partitions, _owner_key))
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
        base = _plain(sc, base)
        backend.runs = [_Run(base, sum(s for s, _ in sizes), False)]
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
        return _plain(self.sc, cands.partitionBy(self._partitions, _owner_key))

    def fused(self, shuffled: "RDD", commit: bool, expand: bool, check_deadlock: bool,
              from_runs: bool, exchange_in: str | None,
              exchange_out: str | None) -> FusedLevel:
        """The level's one stage over ``shuffled``: each task merges its
        candidates (against the resident table, or ``from_runs``: over the
        co-partitioned union of the cached runs and the candidates; read
        from the files under ``exchange_in`` when given, ``shuffled`` then
        empty) and, with ``expand``, expands the new states into the next
        candidates (written under ``exchange_out`` when given, else
        shuffled: the level's candidates RDD then empty)."""
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
            exchange_in=exchange_in, exchange_out=exchange_out),
            preservesPartitioning=True)
        return split_fused(self.sc, keyed, self._partitions, _owner_key, self.storage)

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
        out = self.fused(shuffled, commit, commit, check_deadlock, from_runs, exchange_in,
                         exchange_out)

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
                shuffled, expanded, exchange_in, exchange_out = \
                    self.candidates(check_deadlock), None, None, None
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
                                 exchange_out)
                self._run(out.run, left())
            elif not from_runs:
                self.resident_levels += 1
                self._fallbacks_in_a_row = 0
        except BaseException:
            out.drop()
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
        for (stage, lvl, index), report in self.reports.value.items():
            if stage == "m" and lvl == level:
                self.part_n[index] += report.new_states
        self.runs.append(_Run(out.level, merged.new_states, False, out.keep))
        self.frontier, self.frontier_n = out.level, merged.new_states
        self.pending = (out.candidates, self._reports("x", level + 1), exchange_out) \
            if commit else None
        self._fold()
        return expanded, merged

    def _stop_exchange(self) -> None:
        """Back to the JVM shuffle for the rest of the search."""
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
        if last.slim or (len(self.runs) <= MAX_RUNS and last.size < FOLD_ROWS):
            return
        taken = [last]
        while older and (older[-1].size <= 2 * sum(r.size for r in taken)
                         or len(older) + 2 > MAX_RUNS):
            taken.insert(0, older.pop())
        folded = self.union([r.rdd for r in taken]).mapPartitionsWithIndex(
            fold_task, preservesPartitioning=True)
        self._keep(folded)
        self._run(folded._jrdd.count, None)
        self.runs = older + [_Run(_plain(self.sc, folded), sum(r.size for r in taken), True,
                                  folded), frontier]
        for run in taken:
            run.drop()

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
                "spark_exchange_misses": self.exchange_misses}

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


def _exchange_root(sc: "SparkContext", setting: str | bool | None) -> str | None:
    """The search's exchange directory (``exchange.py``), or None for the
    JVM shuffle.  ``setting``: a directory every executor and the driver
    can read (the opt-in on a cluster), True or None (the executor's
    scratch directory, in local mode only: on a cluster by default the
    shuffle), False (the shuffle)."""
    from modelcheck.engines.spark.session import is_local
    if setting is False:
        return None
    if isinstance(setting, str) and setting:
        base = setting
        # A directory shared by drivers: what killed ones left there (in
        # local mode their scratch directories are scratch.sweep's).
        exchange.sweep(base)
    elif is_local(sc.master):
        from pyspark import SparkFiles
        # In local mode the Python workers run on this machine: their
        # scratch directory (the driver's, as the resident tables').
        base = exchange.local_base(SparkFiles.getRootDirectory())
    else:
        return None
    return exchange.exchange_root(base, uuid.uuid4().hex)


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
