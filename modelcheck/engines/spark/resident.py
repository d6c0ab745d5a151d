"""Resident seen sets: each executor keeps, between levels, the hash table of
fingerprints (``seen_table.py``) of every partition its tasks merged, in
memory-mapped files of its own scratch directory.

A Spark task cannot keep state between levels, and the cached runs of the
seen set (``rdds.py``) reach a merge task only through the JVM-to-Python
pipe.  Here the merge task of partition ``i`` at level ``k`` maps partition
``i``'s table from files that the task of partition ``i`` at level ``k - 1``
left on the same executor (the page cache holds them, and every Python
worker of the executor shares it), probes and inserts in place, and writes
the new head:

    <root>/<search>/p<i>/head.json        generation, counts, capacity, the
                                          files (written last, atomically)
    <root>/<search>/p<i>/keys-<id>.npy    uint64 fingerprints (0: empty slot)
    <root>/<search>/p<i>/stamps-<id>.npy  int32 level that inserted each
    <root>/<search>/p<i>/lock             held while a task uses the table

``root`` is the executor's SparkFiles directory (one per executor, removed
with the application; in local mode the driver's).  Only fingerprints and
stamps are kept (12 bytes a slot, 17-34 bytes a state): the parents stay in
the cached runs, which are read only for traces, checkpoints and the
fallback.

**Exactness.**  A table is used for the merge of level ``k`` only if its
head says it is the one the driver expects: generation ``k - 1`` holding
exactly the driver's count for the partition, or generation ``k`` (the
level's merge ran before: Spark runs a task again after a failure, a lost
executor or for speculation) whose count *before* level ``k`` is that
count.  Entries stamped ``k`` or later count as unseen for level ``k``
(``seen_table``), so a second attempt, or one after an attempt that died
halfway through its inserts, emits the same states as the first; the lock
keeps two attempts on one executor from interleaving.  Anything else (the
task placed on another executor, a restarted executor or worker, removed
files, a table left by another level) is a **miss**: the task says so and
the driver runs the level's merge again from the cached runs (the lineage),
which builds the tables afresh.  The counts never depend on the tables.
"""
from __future__ import annotations

import fcntl
import json
import os
import shutil
import uuid
from contextlib import contextmanager
from typing import Iterator

import numpy as np

from modelcheck.engines.spark.seen_table import (M_COUNT, M_TOP, M_ZERO, M_ZERO_STAMP, META,
                                                 SeenTable)

__all__ = ["resident_root", "ResidentKey", "ResidentTable", "locked", "load", "store", "clear"]

_U64 = np.uint64
#: The directory under the executor's scratch directory.
DIRNAME = "modelcheck-resident"
HEAD = "head.json"


def resident_root() -> str:
    """The executor's directory for resident copies (in a Python worker: the
    executor's SparkFiles directory; elsewhere a temporary directory)."""
    root = None
    try:
        from pyspark import SparkFiles
        root = SparkFiles._root_directory                  # set in a Python worker
        if root is None:
            from pyspark import SparkContext
            if SparkContext._active_spark_context is not None:
                root = SparkFiles.getRootDirectory()
    except Exception:       # pragma: no cover - no pyspark
        root = None
    if not root:
        import tempfile
        root = tempfile.gettempdir()
    return os.path.join(root, DIRNAME)


class ResidentKey:
    """Where partition ``part`` of search ``search`` keeps its table."""

    def __init__(self, search: str, part: int, root: str | None = None):
        self.dir = os.path.join(root or resident_root(), search, f"p{part}")

    @property
    def head(self) -> str:
        return os.path.join(self.dir, HEAD)


class ResidentTable(SeenTable):
    """A ``SeenTable`` (without parents) whose arrays are memory-mapped files
    of ``key.dir``: it grows into new files, and ``store`` names them."""

    def __init__(self, key: ResidentKey, keys: np.ndarray, stamps: np.ndarray,
                 meta: np.ndarray, files: tuple[str, str] | None, head: dict):
        super().__init__(keys, stamps, None, meta)
        self.key = key
        self.files = files           # the files the arrays are mapped from (None: in memory)
        self.head = head             # as loaded

    def raise_top(self, level: int) -> None:
        # The head says so before any entry carries the stamp: an attempt
        # that dies halfway leaves a head whose "top" makes the next attempt
        # read the stamps.
        try:
            _write_head(self.key, dict(self.head, top=level))
        except OSError:
            _unlink(self.key.head)          # no head: a miss next time
        super().raise_top(level)

    def alloc(self, cap: int) -> tuple[np.ndarray, np.ndarray, None]:
        os.makedirs(self.key.dir, exist_ok=True)
        tag = uuid.uuid4().hex[:12]
        names = (f"keys-{tag}.npy", f"stamps-{tag}.npy")
        # A new file's pages read as zeros (an empty table) until written.
        keys = np.lib.format.open_memmap(os.path.join(self.key.dir, names[0]), mode="w+",
                                         dtype=_U64, shape=(cap,))
        stamps = np.lib.format.open_memmap(os.path.join(self.key.dir, names[1]), mode="w+",
                                           dtype=np.int32, shape=(cap,))
        self.files = names
        return keys, stamps, None


@contextmanager
def locked(key: ResidentKey) -> Iterator[None]:
    """Hold the partition's lock (two attempts at one merge on one executor
    take turns); without a directory to lock in, go on unlocked."""
    try:
        os.makedirs(key.dir, exist_ok=True)
        fd = os.open(os.path.join(key.dir, "lock"), os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:
        yield
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)            # releases the lock


def load(key: ResidentKey, level: int, expected: int) -> ResidentTable | None:
    """The table for the merge of ``level`` (mapped read-write), or None when
    there is no valid one: see the module's "Exactness"."""
    try:
        with open(key.head) as f:
            head = json.load(f)
        gen, count, prev = head["gen"], head["count"], head["prev"]
        if gen == level - 1 and count == expected:
            known = count
        elif gen == level and prev == expected:
            known = prev
        else:
            return None
        cap = head["cap"]
        names = (head["keys"], head["stamps"])
        keys = np.load(os.path.join(key.dir, names[0]), mmap_mode="r+")
        stamps = np.load(os.path.join(key.dir, names[1]), mmap_mode="r+")
        if keys.dtype != _U64 or keys.shape != (cap,) or stamps.dtype != np.int32 \
                or stamps.shape != (cap,) or cap & (cap - 1):
            return None
        meta = np.zeros(META, np.int64)
        meta[M_COUNT] = known
        meta[M_ZERO], meta[M_ZERO_STAMP] = head["zero"]
        meta[M_TOP] = head["top"]
        return ResidentTable(key, keys, stamps, meta, names, head)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def store(key: ResidentKey, table: SeenTable, gen: int, prev: int, count: int) -> None:
    """Write the head of generation ``gen`` (``count`` entries, ``prev``
    before it); a table held in memory (the fallback, the hand-over) is
    written to files first.  Never raises: a copy that cannot be written is
    a miss next time."""
    try:
        os.makedirs(key.dir, exist_ok=True)
        if isinstance(table, ResidentTable) and table.files is not None:
            # No msync: the next task maps the same page cache (a shared
            # mapping), and a copy that does not survive the machine is a
            # miss anyway.  (It cost 5% of the workers' time.)
            names = table.files
        else:
            tag = uuid.uuid4().hex[:12]
            names = (f"keys-{tag}.npy", f"stamps-{tag}.npy")
            np.save(os.path.join(key.dir, names[0]), np.asarray(table.keys, _U64))
            np.save(os.path.join(key.dir, names[1]), np.asarray(table.stamps, np.int32))
        head = {"gen": gen, "count": int(count), "prev": int(prev), "cap": len(table.keys),
                "keys": names[0], "stamps": names[1],
                "zero": [int(table.meta[M_ZERO]), int(table.meta[M_ZERO_STAMP])],
                "top": int(table.meta[M_TOP])}
        _write_head(key, head)
        for name in os.listdir(key.dir):
            if name.endswith(".npy") and name not in names or name.endswith(".tmp"):
                _unlink(os.path.join(key.dir, name))
    except OSError:
        _unlink(key.head)


def _write_head(key: ResidentKey, head: dict) -> None:
    tmp = f"{key.head}.{uuid.uuid4().hex}.tmp"
    with open(tmp, "w") as f:
        json.dump(head, f)
    os.replace(tmp, key.head)


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def clear(search: str, root: str | None = None) -> None:
    """Remove every resident table of ``search`` under ``root``."""
    shutil.rmtree(os.path.join(root or resident_root(), search), ignore_errors=True)
