"""The Spark backend: the partitioned search as one Spark job per level.

The current level is one RDD with one partition per owner; a partition holds
its part as a few records (``SeenPiece`` chunks of the sorted seen set with
the parents, ``FrontierPiece`` chunks of the last level's states).  A level:

    successors = level.mapPartitions(expand)            # kernels on whole batches
                      .partitionBy(P, owner)             # only successors move
    next = level.union(successors)                       # same partitioner: no shuffle
                .mapPartitions(merge)                    # the seen set stays put
    next.persist(); next.localCheckpoint(); materialise  # cut the lineage

Both RDDs are partitioned by the same partitioner (the identity on the owner
number), so Spark unions partition i of the level with partition i of the
successors (``PartitionerAwareUnionRDD``) and the seen set is never
reshuffled.  ``persist`` comes before ``localCheckpoint``: without it PySpark
recomputes the whole history at the next level.

The level reports travel back in an accumulator keyed by (stage, partition):
a re-run task overwrites its own entry instead of adding to it, and the level
is materialised with a JVM-side count, so no extra Python pass reads the
cached parts only to find the reports.
"""
from __future__ import annotations

import functools
import re
import threading
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from modelcheck.engines.spark.checkpoint import part_path, read_part, write_part
from modelcheck.engines.spark.kernels import PropertyPlan, SearchKernels
from modelcheck.engines.spark.levels import LevelCancelled
from modelcheck.engines.spark.partition import (Candidates, LevelReport, Part, concat_parts,
                                                expand_part, lookup_parents, merge_part, owner,
                                                split_part)

if TYPE_CHECKING:
    from pyspark import RDD, SparkContext
    from pyspark.broadcast import Broadcast

__all__ = ["SparkLevels", "SparkJobError", "SeenPiece", "FrontierPiece", "PIECE_ROWS"]

_EXCEPTION_LINE = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception|Interrupt|Exit)\b")

#: Rows per record: keeps every pickled record far below the JVM's 2 GiB array limit.
PIECE_ROWS = 1 << 22


class SparkJobError(RuntimeError):
    """A Spark job failed for another reason than a cancellation."""


@dataclass
class SeenPiece:
    index: int              # chunks of one sorted array, in order
    fp: np.ndarray
    parent: np.ndarray


@dataclass
class FrontierPiece:
    fp: np.ndarray
    states: np.ndarray


def _owner_key(key: int) -> int:
    """The partitioner: records are keyed by their owner partition already.
    One function object for every partitionBy, so the partitioners compare equal."""
    return key


# ------------------------------------------------------------------ parts <-> records

def _pieces(part: Part) -> Iterator[SeenPiece | FrontierPiece]:
    n = len(part.seen_fp)
    for i, lo in enumerate(range(0, max(n, 1), PIECE_ROWS)):
        yield SeenPiece(i, part.seen_fp[lo:lo + PIECE_ROWS], part.seen_parent[lo:lo + PIECE_ROWS])
    rows = max(1, PIECE_ROWS // max(1, part.words))
    for lo in range(0, len(part.frontier_fp), rows):
        yield FrontierPiece(part.frontier_fp[lo:lo + rows], part.frontier[lo:lo + rows])


def _assemble(pieces: Iterable[Any], words: int, with_frontier: bool = True) -> tuple[Part, list]:
    """The part held by a partition's records, and its other records."""
    seen: list[SeenPiece] = []
    front: list[FrontierPiece] = []
    other: list[Any] = []
    for piece in pieces:
        if isinstance(piece, SeenPiece):
            seen.append(piece)
        elif isinstance(piece, FrontierPiece):
            if with_frontier:
                front.append(piece)
        else:
            other.append(piece)
    seen.sort(key=lambda p: p.index)
    seen_fp = np.concatenate([p.fp for p in seen]) if seen else np.empty(0, np.uint64)
    seen_parent = np.concatenate([p.parent for p in seen]) if seen else np.empty(0, np.uint64)
    if len(seen_fp) > 1 and not bool(np.all(seen_fp[1:] > seen_fp[:-1])):
        # Pieces from several checkpoint parts (another partition count).
        order = np.argsort(seen_fp, kind="stable")
        seen_fp, seen_parent = seen_fp[order], seen_parent[order]
    if front:
        frontier_fp = np.concatenate([p.fp for p in front])
        frontier = np.concatenate([p.states for p in front])
    else:
        frontier_fp, frontier = np.empty(0, np.uint64), np.empty((0, words), np.uint64)
    return Part(seen_fp, seen_parent, frontier_fp, frontier), other


# ------------------------------------------------------------------ tasks (run on executors)

def _expand_task(kernels_bc: "Broadcast", plan: PropertyPlan, partitions: int,
                 check_deadlock: bool, reports: Any, pid: int,
                 records: Iterable[tuple[int, Any]]) -> Iterator[tuple[int, Candidates]]:
    kernels: SearchKernels = kernels_bc.value
    part, _ = _assemble((piece for _, piece in records if not isinstance(piece, SeenPiece)),
                        kernels.words)
    report = LevelReport()
    for routed in expand_part(kernels, plan, part, partitions, check_deadlock, report):
        yield from routed.items()
    reports.add({("expand", pid): report})


def _merge_task(kernels_bc: "Broadcast", plan: PropertyPlan, commit: bool, reports: Any,
                pid: int, records: Iterable[tuple[int, Any]]) -> Iterator[tuple[int, Any]]:
    kernels: SearchKernels = kernels_bc.value
    part, incoming = _assemble((piece for _, piece in records), kernels.words)
    new_part, report = merge_part(kernels, plan, part, incoming, commit)
    reports.add({("merge", pid): report})
    for piece in _pieces(new_part):
        yield pid, piece


def _lookup_task(fps: list[int], words: int, records: Iterable[tuple[int, Any]]) -> list[dict]:
    part, _ = _assemble((piece for _, piece in records), words, with_frontier=False)
    return [lookup_parents(part, np.array(fps, dtype=np.uint64))]


def _save_task(directory: str, folder: str, words: int, pid: int,
               records: Iterable[tuple[int, Any]]) -> Iterator[int]:
    part, _ = _assemble((piece for _, piece in records), words)
    write_part(part_path(directory, folder, pid), part)
    yield len(part.seen_fp)


def _load_task(directory: str, folder: str, partitions: int,
               index: int) -> Iterator[tuple[int, Any]]:
    part = read_part(part_path(directory, folder, index))
    for pid, sub in enumerate(split_part(part, partitions)):
        if len(sub.seen_fp) or len(sub.frontier_fp):
            for piece in _pieces(sub):
                yield pid, piece


def _sizes_task(words: int, records: Iterable[tuple[int, Any]]) -> Iterator[tuple[int, int]]:
    part, _ = _assemble((piece for _, piece in records), words)
    yield len(part.seen_fp), len(part.frontier_fp)


def _collect_task(words: int, records: Iterable[tuple[int, Any]]) -> Iterator[Part]:
    part, _ = _assemble((piece for _, piece in records), words)
    yield part


class _ReportsParam:
    """Accumulates {(stage, partition): report}; a re-run task overwrites its entry."""

    def zero(self, value: dict) -> dict:
        return {}

    def addInPlace(self, a: dict, b: dict) -> dict:
        a.update(b)
        return a


# ------------------------------------------------------------------ the backend

class SparkLevels:
    """Level steps on Spark; the driver keeps only the RDD of the current level."""

    where = "spark"

    def __init__(self, sc: "SparkContext", kernels: SearchKernels, plan: PropertyPlan,
                 partitions: int, rdd: "RDD", seen: int, frontier: int):
        self.sc = sc
        self.kernels = kernels
        self.kernels_bc = sc.broadcast(kernels)
        self.plan = plan
        self._partitions = partitions
        self.rdd = rdd
        self.seen = seen
        self.frontier = frontier

    # ------------------------------------------------------------ construction

    @classmethod
    def from_parts(cls, sc: "SparkContext", kernels: SearchKernels, plan: PropertyPlan,
                   parts: list[Part], partitions: int) -> "SparkLevels":
        """Hand parts held by the driver (the in-process search) to Spark."""
        whole = concat_parts(parts, kernels.words)
        records = [(pid, piece) for pid, sub in enumerate(split_part(whole, partitions))
                   for piece in _pieces(sub)]
        rdd = sc.parallelize(records, partitions).partitionBy(partitions, _owner_key)
        seen, frontier = len(whole.seen_fp), len(whole.frontier_fp)
        backend = cls(sc, kernels, plan, partitions, rdd, seen, frontier)
        backend.rdd = backend._materialise(rdd, None)
        return backend

    @classmethod
    def from_checkpoint(cls, sc: "SparkContext", kernels: SearchKernels, plan: PropertyPlan,
                        directory: str, folder: str, files: int,
                        partitions: int) -> "SparkLevels":
        """Read a checkpoint's part files on the executors, re-routed to
        ``partitions`` owners (any number of files)."""
        load = functools.partial(_load_task, directory, folder, partitions)
        rdd = (sc.parallelize(range(files), files).flatMap(load)
               .partitionBy(partitions, _owner_key))
        backend = cls(sc, kernels, plan, partitions, rdd, 0, 0)
        backend.rdd = backend._materialise(rdd, None)
        sizes = backend.rdd.mapPartitions(functools.partial(_sizes_task, kernels.words)).collect()
        backend.seen = sum(s for s, _ in sizes)
        backend.frontier = sum(f for _, f in sizes)
        return backend

    # ------------------------------------------------------------ LevelBackend

    @property
    def partitions(self) -> int:
        return self._partitions

    def frontier_size(self) -> int:
        return self.frontier

    def seen_size(self) -> int:
        return self.seen

    def step(self, check_deadlock: bool, commit: bool,
             time_left_s: float | None) -> tuple[LevelReport, LevelReport]:
        reports = self.sc.accumulator({}, _ReportsParam())   # type: ignore[arg-type]
        expand = functools.partial(_expand_task, self.kernels_bc, self.plan, self._partitions,
                                   check_deadlock, reports)
        successors = (self.rdd.mapPartitionsWithIndex(expand)
                      .partitionBy(self._partitions, _owner_key))
        merge = functools.partial(_merge_task, self.kernels_bc, self.plan, commit, reports)
        nxt = self.rdd.union(successors).mapPartitionsWithIndex(merge, preservesPartitioning=True)
        nxt = self._materialise(nxt, time_left_s)
        expanded, merged = LevelReport(), LevelReport()
        for (stage, _), report in sorted(reports.value.items(), key=lambda kv: kv[0]):
            (expanded if stage == "expand" else merged).add(report)
        self.rdd.unpersist()
        self.rdd = nxt
        if commit or not merged.new_states:
            self.seen += merged.new_states
            self.frontier = merged.new_states
        return expanded, merged

    def parents(self, fps: list[int]) -> dict[int, int]:
        owners = sorted(set(owner(np.array(fps, dtype=np.uint64), self._partitions).tolist()))
        lookup = functools.partial(_lookup_task, list(fps), self.kernels.words)
        found: dict[int, int] = {}
        for result in self.sc.runJob(self.rdd, lookup, owners):
            found.update(result)
        return found

    def save(self, directory: str, folder: str) -> int:
        save = functools.partial(_save_task, directory, folder, self.kernels.words)
        self._run(lambda: self.rdd.mapPartitionsWithIndex(save).collect(), None)
        return self._partitions

    def parts(self) -> list[Part]:
        collect = functools.partial(_collect_task, self.kernels.words)
        return self.rdd.mapPartitions(collect).collect()

    def close(self) -> None:
        self.rdd.unpersist()
        self.kernels_bc.unpersist()

    # ------------------------------------------------------------ jobs

    def _materialise(self, rdd: "RDD", time_left_s: float | None) -> "RDD":
        """Compute and cache a level, cutting its lineage."""
        from pyspark import StorageLevel
        # Spilled to the executors' local dirs rather than recomputed or
        # failing when the seen set outgrows their memory.
        rdd.persist(StorageLevel.MEMORY_AND_DISK)
        rdd.localCheckpoint()
        try:
            # A JVM-side count: computes and caches the partitions without a
            # Python pass over them.
            self._run(lambda: rdd._jrdd.count(), time_left_s)
        except BaseException:
            rdd.unpersist()
            raise
        return rdd

    def _run(self, job: Any, time_left_s: float | None) -> Any:
        """Run a job, cancelling it when the time is up."""
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
