"""The file exchange: a level's fused tasks hand the next level's candidates
to their owners through files, not through the JVM's shuffle.

Measured (docs/engines/spark.md), the JVM's part of a candidate's trip
(the copy in the storage, the shuffle's write and read, the pipe out of
the task that made it and the pipe into its owner's task) cost more CPU a
state than the whole in-process compiled engine.  In local mode every
Python worker runs on the driver's machine and shares the executor's
scratch directory, so the task of partition ``i`` at level ``k`` writes
each owner's candidates as a file and the owner's task of level ``k + 1``
reads them:

    <root>/<level>/<owner>/from-<i>.npy     the blocks for ``owner`` that
                                            partition ``i`` expanded, as
                                            consecutive ``np.save`` arrays

``root`` is one directory a search, ``<base>/<driver pid>-<id>``: in local
mode ``base`` is under the executor's scratch directory (disk-backed: the
page cache holds a level's files while they are read and gives the memory
back under pressure; in tmpfs the levels of a 100M-state search held 15
GiB that nothing could reclaim and the machine ran out of memory, where
on the disk the same search peaked at 8.9 GiB at the same speed,
docs/engines/spark.md); on a cluster ``extra["spark_exchange_dir"]``,
which must be a directory every executor and the driver can read.  What a
killed driver left (files that would fill the disk) is removed by the next
driver: in such a shared directory by ``sweep``, in local mode with the
rest of its scratch directory (``scratch.py``).

Each task writes a file for every owner, empty or not, under a temporary
name renamed into place, so an owner knows it has every block when it
finds ``partitions`` files, and a retried or speculative task (Spark runs
a task again after a failure) rewrites the same bytes: a task's output is
deterministic.  A task that cannot write its files (a full disk: ENOSPC)
removes what it began and goes on; its owners then miss.  A missing file
(an executor that cannot see the directory, removed files) is a **miss**:
the owner's task writes nothing and says so, and the driver runs the
level again with the JVM shuffle (``rdds.SparkPartitions.step``), so no
candidate is ever lost.  The driver removes a level's directory once the
level is done.
"""
from __future__ import annotations

import json
import os
import shutil
import time
import uuid
from typing import TYPE_CHECKING, Iterable

import numpy as np

from modelcheck.engines.spark.tasks import CANDIDATES

if TYPE_CHECKING:
    from pyspark import SparkContext

__all__ = ["DIRNAME", "local_base", "exchange_root", "search_root", "write_blocks", "read_blocks",
           "write_note", "read_notes", "write_runs", "read_runs", "clear_batch", "clear_owner",
           "clear_level", "clear", "sweep"]

#: The directory under the executor's scratch directory (local mode).
DIRNAME = "modelcheck-exchange"


def local_base(scratch: str) -> str:
    """The exchange's base directory in local mode: under the executor's
    ``scratch`` directory."""
    return os.path.join(scratch, DIRNAME)


def exchange_root(base: str, search: str) -> str:
    """The search's exchange directory under ``base`` (named by this
    process, the driver, for ``sweep``)."""
    return os.path.join(os.path.abspath(base), f"{os.getpid()}-{search}")


def search_root(sc: "SparkContext", setting: str | bool | None) -> str | None:
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
        sweep(base)
    elif is_local(sc.master):
        from pyspark import SparkFiles
        # In local mode the Python workers run on this machine: their
        # scratch directory (the driver's, as the resident tables').
        base = local_base(SparkFiles.getRootDirectory())
    else:
        return None
    return exchange_root(base, uuid.uuid4().hex)


def sweep(base: str) -> None:
    """Remove the directories under ``base`` of drivers on this machine that
    are no longer running (what a killed driver left)."""
    try:
        names = os.listdir(base)
    except OSError:
        return
    for name in names:
        pid = name.split("-", 1)[0]
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            shutil.rmtree(os.path.join(base, name), ignore_errors=True)
        except OSError:         # another user's process: alive
            pass


def _level_dir(root: str, level: int) -> str:
    return os.path.join(root, str(level))


def _path(root: str, level: int, owner: int, index: int) -> str:
    return os.path.join(_level_dir(root, level), str(owner), f"from-{index}.npy")


def write_blocks(root: str, level: int, index: int, partitions: int,
                 blocks: Iterable[tuple[int, tuple]]) -> int:
    """Write partition ``index``'s candidate blocks for ``level`` (``(owner,
    ("c", block))`` pairs, as ``tasks.expand_block`` yields them), one file
    an owner, every owner's file written even if empty.  Returns the bytes
    of candidates written."""
    tag = uuid.uuid4().hex
    tmps = [f"{_path(root, level, owner, index)}.{tag}.tmp" for owner in range(partitions)]
    written = 0
    opened = [False] * partitions
    try:
        for owner in range(partitions):
            os.makedirs(os.path.dirname(tmps[owner]), exist_ok=True)
        # Written as they come (expand_block yields, per flush of
        # successors, one block an owner), so no block is held longer than
        # its write; an owner's file holds its blocks in the order made.
        for owner, payload in blocks:
            with open(tmps[owner], "ab" if opened[owner] else "wb") as fh:
                np.save(fh, payload[1], allow_pickle=False)
            opened[owner] = True
            written += payload[1].nbytes
        for owner in range(partitions):
            if not opened[owner]:
                open(tmps[owner], "wb").close()
    except OSError:
        # No room (or no directory): nothing is renamed into place, so the
        # owners miss and the driver runs the next level with the shuffle.
        for tmp in tmps:
            try:
                os.remove(tmp)
            except OSError:
                pass
        return written
    for owner in range(partitions):
        # Renamed into place: an owner never reads a half-written file, and
        # a second attempt of this task replaces it with the same bytes.
        os.replace(tmps[owner], _path(root, level, owner, index))
    return written


def read_blocks(root: str, level: int, owner: int,
                partitions: int) -> list[tuple[int, tuple]] | None:
    """Every block written for ``owner`` at ``level``, as ``(owner, ("c",
    block))`` elements (what the JVM shuffle would have handed the task);
    None if a writer's file is missing."""
    out: list[tuple[int, tuple]] = []
    for index in range(partitions):
        path = _path(root, level, owner, index)
        try:
            fh = open(path, "rb")
        except FileNotFoundError:
            return None
        with fh:
            size = os.fstat(fh.fileno()).st_size
            while fh.tell() < size:
                out.append((owner, (CANDIDATES, np.load(fh, allow_pickle=False))))
    return out


def _note_path(root: str, level: int, batch: str, index: int) -> str:
    return os.path.join(_level_dir(root, level), f"note-{batch}-{index}.json")


def write_note(root: str, level: int, batch: str, index: int, note: dict) -> None:
    """Partition ``index``'s note for ``level`` in batch ``batch``
    (batch.py), written after its candidate files for ``level``: a task
    that finds every note finds every file too."""
    path = _note_path(root, level, batch, index)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = f"{path}.{uuid.uuid4().hex}.tmp"
    with open(tmp, "w") as fh:
        json.dump(note, fh)
    os.replace(tmp, path)


def read_notes(root: str, level: int, batch: str, partitions: int,
               timeout_s: float) -> list[dict]:
    """Every partition's note for ``level`` in batch ``batch``, waiting for
    them: the tasks of a batch run together (a barrier stage), so the
    others' notes come within a level's time.  Raises TimeoutError after
    ``timeout_s`` (a task that died: Spark fails the stage)."""
    paths = [_note_path(root, level, batch, i) for i in range(partitions)]
    notes: list[dict | None] = [None] * partitions
    deadline = time.monotonic() + timeout_s
    pause = 0.0002
    while True:
        for i, path in enumerate(paths):
            if notes[i] is None:
                try:
                    with open(path) as fh:
                        notes[i] = json.load(fh)
                except FileNotFoundError:
                    pass
        if all(n is not None for n in notes):
            return [n for n in notes if n is not None]
        if time.monotonic() > deadline:
            missing = [i for i, n in enumerate(notes) if n is None]
            raise TimeoutError(f"batch {batch}, level {level}: no note from partitions "
                               f"{missing} after {timeout_s:g} s")
        time.sleep(pause)
        pause = min(0.002, pause * 2)


def _runs_path(root: str, batch: str, index: int) -> str:
    return os.path.join(root, f"batch-{batch}", f"{index}.npy")


def write_runs(root: str, batch: str, index: int, runs: list[tuple[np.ndarray, ...]]) -> None:
    """Partition ``index``'s runs of a batch (batch.py), as consecutive
    ``np.save`` arrays: (fp, parent) a level, the last level's states after."""
    path = _runs_path(root, batch, index)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = f"{path}.{uuid.uuid4().hex}.tmp"
    with open(tmp, "wb") as fh:
        np.save(fh, np.array([len(r) for r in runs], dtype=np.int64), allow_pickle=False)
        for run in runs:
            for array in run:
                np.save(fh, array, allow_pickle=False)
    os.replace(tmp, path)


def read_runs(root: str, batch: str, index: int) -> list[tuple[np.ndarray, ...]]:
    with open(_runs_path(root, batch, index), "rb") as fh:
        shape = np.load(fh, allow_pickle=False)
        return [tuple(np.load(fh, allow_pickle=False) for _ in range(int(n))) for n in shape]


def clear_batch(root: str, batch: str) -> None:
    """Remove a batch's runs (folded into another run, or dropped)."""
    shutil.rmtree(os.path.join(root, f"batch-{batch}"), ignore_errors=True)


def clear_owner(root: str, level: int, owner: int) -> None:
    """Remove ``owner``'s candidate files of ``level`` (read by its task,
    the only one that reads them: a batch's later levels would otherwise
    hold every level's candidates until the batch ends)."""
    shutil.rmtree(os.path.join(_level_dir(root, level), str(owner)), ignore_errors=True)


def clear_level(root: str, level: int) -> None:
    """Remove a level's files (its candidates have been merged)."""
    shutil.rmtree(_level_dir(root, level), ignore_errors=True)


def clear(root: str) -> None:
    """Remove the search's exchange directory."""
    shutil.rmtree(root, ignore_errors=True)
