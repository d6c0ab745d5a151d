"""The Spark backend: a seen set owned by partitions, held as numpy runs, and
one shuffle of candidates a level.

Every RDD here has P partitions and the same partitioner (a
``PythonPartitioner`` over ``_owner_key``, one function object for the
process: Spark compares Python partitioners by the function's id).  Partition
``i`` owns the fingerprints ``tasks.owner`` gives ``i``.  Its elements are
whole batches of numpy arrays (``tasks.py``).  The seen set is a short list
of **runs**: cached RDDs whose partition ``i`` holds owner ``i``'s sorted
fingerprints and parents.  A level is one job of two stages:

    cands  = frontier.mapPartitions(expand)          # Python: the kernels; one
                     .partitionBy(P, _owner_key)      #   block per (task, owner)
    level  = union(run_1, ..., run_k, cands)          # PartitionerAwareUnionRDD
                     .mapPartitions(merge)             # Python: numpy, per owner
    level.persist(); level.localCheckpoint(); level._jrdd.count()

Because every run and the shuffled candidates have the same partitioner,
``union`` is a ``PartitionerAwareUnionRDD``: its partition ``i`` reads run
``i`` of every run where it is cached and the candidates for ``i``, and no
run moves (the co-partitioning GraphX uses).  The merge removes the
duplicates across tasks and the fingerprints the runs hold (numpy
``searchsorted`` on sorted arrays), settles the new states
(``partition.settle_fresh``: constraints, properties, run-time errors) and
returns them as the level's element, ``("l", fp, parent, states)``: the
next frontier and a new run.  The JVM only moves and stores the batches
(pickled numpy buffers); it never sorts or compares a state.

Runs are log-structured: each level adds one, and a level of FOLD_ROWS
states or more, or any level once MAX_RUNS runs are held, is folded with the
older runs no larger than twice it into one run of (fp, parent) (a linear
merge, run as a job of its own right after the level).  A level thus
reads the seen set once and writes only its new states.

Each level is persisted (``MEMORY_AND_DISK``, replicated twice on a cluster,
so that losing one executor loses no run) and locally checkpointed, which
cuts the lineage as GraphX does: a level's plan never holds the levels
before it, and old shuffles are cleaned.  The reports of the tasks come back
in one accumulator keyed by (stage, level, partition): a task that runs
again overwrites its own entry.
"""
from __future__ import annotations

import functools
import os
import re
import shutil
import threading
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from modelcheck.engines.spark.checkpoint import NPZ, part_name, read_part, write_part
from modelcheck.engines.spark.kernels import PropertyPlan, SearchKernels
from modelcheck.engines.spark.levels import LevelCancelled
from modelcheck.engines.spark.partition import LevelReport, Part, concat_parts
from modelcheck.engines.spark.tasks import (FRONTIER, LEVEL, RUN, combine_pieces, expand_block,
                                            fold_runs, frontier_of, lookup, merge_blocks, owner,
                                            runs_of, split_part)
from modelcheck.fsutil import sha256_file

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

#: Successors an expand task deduplicates at once (a hash table over them):
#: duplicates across flushes are shuffled and removed by the merge, so a
#: flush is larger than in-process (8M successors: a few hundred MB).
EXPAND_FLUSH_ROWS = 1 << 23

_EXCEPTION_LINE = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception|Interrupt|Exit)\b")
#: The frontier's elements, as the save job sees them (also a run, or not).
_FRONT_LEVEL, _FRONT_ONLY = "L", "F"


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


# ------------------------------------------------------------------ tasks

def _expand_task(kernels_bc: Any, plan: PropertyPlan, check_deadlock: bool, partitions: int,
                 reports: Any, level: int, index: int, elements: Any) -> Any:
    kernels = kernels_bc.value
    fp, states = frontier_of(elements, kernels.words)
    report = LevelReport(to_python=fp.nbytes + states.nbytes)
    for item in expand_block(kernels, plan, check_deadlock, partitions, fp, states, report,
                             flush_rows=EXPAND_FLUSH_ROWS):
        report.from_python += item[1][1].nbytes
        yield item
    reports.add({("x", level, index): report})


def _merge_task(kernels_bc: Any, plan: PropertyPlan, commit: bool, reports: Any, level: int,
                index: int, elements: Any) -> Any:
    kernels = kernels_bc.value
    elements = list(elements)
    report = LevelReport(to_python=sum(a.nbytes for _, p in elements for a in p[1:]
                                       if isinstance(a, np.ndarray)))
    fp, parent, states = merge_blocks(kernels, plan, commit, elements, report, kernels.words)
    del elements
    report.from_python = fp.nbytes + parent.nbytes + states.nbytes
    reports.add({("m", level, index): report})
    return [(index, (LEVEL, fp, parent, states))]


def _fold_task(index: int, elements: Any) -> Any:
    fp, parent = fold_runs(runs_of(elements))
    return [(index, (RUN, fp, parent))]


def _combine_task(words: int, reports: Any, index: int, elements: Any) -> Any:
    out = combine_pieces(index, elements, words)
    seen = sum(len(p[1]) for _, p in out if p[0] == RUN)
    front = sum(len(p[1]) for _, p in out if p[0] == FRONTIER)
    reports.add({("s", 0, index): (seen, front)})
    return out


def _as_frontier(index: int, elements: Any) -> Any:
    """The frontier's elements tagged as such, for the save job."""
    for key, payload in elements:
        if payload[0] == LEVEL:
            yield key, (_FRONT_LEVEL, *payload[1:])
        elif payload[0] == FRONTIER:
            yield key, (_FRONT_ONLY, *payload[1:])
        else:
            yield key, payload


def _save_task(directory: str, folder: str, words: int, index: int, elements: Any) -> Any:
    runs, front_fp, front = [], [], []
    for _, payload in elements:
        tag = payload[0]
        if tag in (RUN, LEVEL, _FRONT_LEVEL):
            runs.append((payload[1], payload[2]))
        if tag == _FRONT_LEVEL:
            front_fp.append(payload[1])
            front.append(payload[3])
        elif tag == _FRONT_ONLY:
            front_fp.append(payload[1])
            front.append(payload[2])
    seen_fp, seen_parent = fold_runs(runs)
    if front_fp:
        fp = np.concatenate(front_fp)
        order = np.argsort(fp, kind="stable")
        part = Part(seen_fp, seen_parent, fp[order], np.concatenate(front)[order])
    else:
        part = Part(seen_fp, seen_parent, np.empty(0, np.uint64), np.empty((0, words), np.uint64))
    name = part_name(index)
    write_part(directory, folder, name, part)
    return [(name, sha256_file(os.path.join(directory, folder, name)))]


def _lookup_task(wanted: np.ndarray, elements: Any) -> Any:
    return [lookup(elements, wanted)]


def _read_pieces(partitions: int, path: str) -> Any:
    return split_part(read_part(path), partitions)


# ------------------------------------------------------------------ the backend

@dataclass
class _Run:
    """Part of the seen set: a cached RDD, how many states it holds, and
    whether it holds (fp, parent) only (``slim``) or a level's states too."""
    rdd: "RDD"
    size: int
    slim: bool


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
                 partitions: int, base: "RDD", seen_n: int, frontier_n: int):
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

    # ------------------------------------------------------------ construction

    @classmethod
    def from_parts(cls, sc: "SparkContext", kernels: SearchKernels, plan: PropertyPlan,
                   parts: list[Part], partitions: int) -> "SparkPartitions":
        """Hand the parts held by the driver (the in-process search) to Spark."""
        whole = concat_parts(parts, kernels.words)
        pieces = list(split_part(whole, partitions))
        source = sc.parallelize(pieces, max(1, min(partitions, len(pieces))))
        return cls._start(sc, kernels, plan, partitions, source)

    @classmethod
    def from_files(cls, sc: "SparkContext", kernels: SearchKernels, plan: PropertyPlan,
                   directory: str, folder: str, files: list[str],
                   partitions: int) -> "SparkPartitions":
        """Read a checkpoint's part files on the executors (written under any
        partition count) and hand each owner its pieces."""
        root = os.path.abspath(os.path.join(directory, folder))
        paths = [os.path.join(root, name) for name in files]
        source = sc.parallelize(paths, max(1, len(paths))) \
            .flatMap(functools.partial(_read_pieces, partitions))
        return cls._start(sc, kernels, plan, partitions, source)

    @classmethod
    def _start(cls, sc: "SparkContext", kernels: SearchKernels, plan: PropertyPlan,
               partitions: int, source: "RDD") -> "SparkPartitions":
        backend = cls(sc, kernels, plan, partitions, source, 0, 0)
        shuffled = _plain(sc, source.partitionBy(partitions, _owner_key))
        base = shuffled.mapPartitionsWithIndex(
            functools.partial(_combine_task, kernels.words, backend.reports),
            preservesPartitioning=True)
        backend._keep(base)
        backend.reports.value = {}
        backend._run(base._jrdd.count, None)
        sizes = [v for k, v in backend.reports.value.items() if k[0] == "s"]
        base = _plain(sc, base)
        backend.runs = [_Run(base, sum(s for s, _ in sizes), False)]
        backend.frontier = base
        backend.frontier_n = sum(f for _, f in sizes)
        return backend

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

    def level_rdd(self, check_deadlock: bool, commit: bool) -> "RDD":
        """The next level's RDD (not yet computed)."""
        self.level += 1
        level, partitions = self.level, self._partitions
        cands = self.frontier.mapPartitionsWithIndex(functools.partial(
            _expand_task, self.kernels_bc, self.plan, check_deadlock, partitions, self.reports,
            level))
        shuffled = _plain(self.sc, cands.partitionBy(partitions, _owner_key))
        union = self.union([run.rdd for run in self.runs] + [shuffled])
        return union.mapPartitionsWithIndex(functools.partial(
            _merge_task, self.kernels_bc, self.plan, commit, self.reports, level),
            preservesPartitioning=True)

    def step(self, check_deadlock: bool, commit: bool,
             time_left_s: float | None) -> tuple[LevelReport, LevelReport]:
        nxt = self.level_rdd(check_deadlock, commit)
        self._keep(nxt)
        self.reports.value = {}
        try:
            self._run(nxt._jrdd.count, time_left_s)
        except BaseException:
            nxt.unpersist(False)
            raise
        expanded, merged = self._level_reports(self.level)
        if not commit and merged.new_states and merged.failed is None:
            # Past the depth bound: counted, not kept (a resumed run expands
            # this level again).
            nxt.unpersist(False)
            return expanded, merged
        new = _plain(self.sc, nxt)
        self.runs.append(_Run(new, merged.new_states, False))
        self.frontier, self.frontier_n = new, merged.new_states
        self._fold()
        return expanded, merged

    def _level_reports(self, level: int) -> tuple[LevelReport, LevelReport]:
        expanded, merged = LevelReport(), LevelReport()
        for (stage, lvl, _), report in sorted(self.reports.value.items(),
                                              key=lambda kv: (kv[0][0], kv[0][2])):
            if lvl == level:
                (expanded if stage == "x" else merged).add(report)
        return expanded, merged

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
            _fold_task, preservesPartitioning=True)
        self._keep(folded)
        self._run(folded._jrdd.count, None)
        self.runs = older + [_Run(_plain(self.sc, folded), sum(r.size for r in taken), True),
                             frontier]
        for run in taken:
            run.rdd.unpersist(False)

    def parents(self, fps: list[int]) -> dict[int, int]:
        """A job on the partitions that own ``fps`` only."""
        wanted = np.array(sorted(set(fps)), dtype=np.uint64)
        if not len(wanted):
            return {}
        owners = sorted(set(owner(wanted, self._partitions).tolist()))
        seen = self.union([run.rdd for run in self.runs])
        found: dict[int, int] = {}
        for piece in self._run(lambda: self.sc.runJob(
                seen, functools.partial(_lookup_task, wanted), owners), None):
            found.update(piece)
        return found

    def save(self, directory: str, folder: str) -> tuple[str, dict[str, str]]:
        """One part file per partition (its seen set and frontier), written
        and checksummed by the executors."""
        root = os.path.abspath(os.path.join(directory, folder))
        # A folder of this name that no manifest names: what a killed run left.
        shutil.rmtree(root, ignore_errors=True)
        os.makedirs(root, exist_ok=True)
        front = self.frontier.mapPartitionsWithIndex(_as_frontier, preservesPartitioning=True)
        rdds = [run.rdd for run in self.runs if run.rdd is not self.frontier] + [front]
        written = self._run(lambda: self.union(rdds).mapPartitionsWithIndex(functools.partial(
            _save_task, os.path.abspath(directory), folder, self.kernels.words)).collect(), None)
        return NPZ, dict(sorted(written))

    def close(self) -> None:
        held = {id(r): r for r in [*(run.rdd for run in self.runs), self.frontier]}
        for rdd in held.values():
            try:
                rdd.unpersist(False)
            except Exception:       # pragma: no cover - a stopped context
                pass
        self.runs = []
        try:
            self.kernels_bc.unpersist()
        except Exception:           # pragma: no cover
            pass

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
