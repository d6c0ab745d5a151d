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

import os
import shutil
import uuid
from typing import Iterable

import numpy as np

from modelcheck.engines.spark.tasks import CANDIDATES

__all__ = ["DIRNAME", "local_base", "exchange_root", "write_blocks", "read_blocks",
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


def clear_level(root: str, level: int) -> None:
    """Remove a level's files (its candidates have been merged)."""
    shutil.rmtree(_level_dir(root, level), ignore_errors=True)


def clear(root: str) -> None:
    """Remove the search's exchange directory."""
    shutil.rmtree(root, ignore_errors=True)
