"""Parents on disk: a table of keys alone (8-byte slots), and every level
kept, in the order it was found, in one compressed file, from which a trace
is rebuilt.

The table's 32-bit parent tag was a third of a slot; at 2.2·10^9 states it
is 8.8 GB that the machine does not have.  TLC writes (fingerprint, parent
fingerprint) per state to a trace file.  Here nothing is written per state
at all: the levels already stream through frontier.py's block files, so
each level is kept (its blocks copied as they are, compressed; the rows
still in memory compressed once) instead of dropped, and a parent is found
by *re-expansion*: the parent of a state stored at level L is the first row
of level L-1, in the level's order, with a successor whose representative
is that state, because that row is the one the search stored it from (the
one-core search stores a state at its first successor in that order, and
the parallel searches store exactly what it would).  That needs no parent
field in the kernels and no fingerprint ambiguity (the rows and their
words are there), and costs a trace at most the expansion of the levels
before it (a trace is asked for once a property is violated; a search that
holds keeps the levels and never reads them).  The chain of representatives
is then re-executed forward as from the table (rebuild.py).

A checkpoint keeps the file (``<data>.parents``, named with its sha256 and
its rows per level); ``--resume`` refuses a damaged one.
"""
from __future__ import annotations

import hashlib
import os
import zlib
from pathlib import Path as FilePath

import numpy as np

from modelcheck.engines.compiled.kernel.table import FingerprintTable
from modelcheck.engines.compiled.kernels import CompiledModel
from modelcheck.engines.compiled.search.frontier import Frontier, LevelFile, open_level
from modelcheck.engines.compiled.search.kept_levels import KeptLevel, path_through_levels
from modelcheck.engines.compiled.search.rebuild import EXPAND_ROWS, Path, RebuildError, Stop

__all__ = ["LevelArchive", "ParentsError", "wanted", "archive_for", "figures", "find_path_on_disk",
           "keep_parents_on_disk", "EXPAND_ROWS"]



class ParentsError(RebuildError):
    """The levels kept for traces cannot be read back (a damaged file)."""


def wanted(extra: dict) -> bool:
    """Whether a search keeps its parents on disk: with ``--preallocate``
    (a large search, whose table must hold as many keys as it can), or when
    ``extra["parents_on_disk"]`` says so either way."""
    return bool(extra.get("parents_on_disk", extra.get("preallocate", False)))


def archive_for(frontier: Frontier, extra: dict, allowed: bool) -> "LevelArchive | None":
    """The archive of a search that keeps its parents on disk (None: in the
    table), the frontier handing it each level as the level closes."""
    if not (allowed and wanted(extra)):
        return None
    frontier.archive = LevelArchive(frontier.words, frontier.policy.folder,
                                    frontier.policy.compress)
    return frontier.archive


def figures(archive: "LevelArchive | None") -> dict:
    """The search's statistics of where the parents are."""
    if archive is None:
        return {"parents": "table"}
    return {"parents": "disk", "parents_disk_bytes": archive.disk_bytes,
            "parents_rows": archive.rows}


def keep_parents_on_disk(search) -> None:
    """Switch a search not yet started (resuming a checkpoint whose parents
    are on disk) to keep its levels, with a table without tags."""
    fr = search.frontier
    search.parents = fr.archive = LevelArchive(fr.words, fr.policy.folder, fr.policy.compress)
    search.cross_levels = False
    t = search.table
    if not getattr(t, "fixed", False):
        search.table = FingerprintTable(t.words, t.exact, capacity=t.capacity, parents=False,
                                        bits=t.bits)


class LevelArchive:
    """Every closed level's rows, level after level, in one level file;
    ``first[L - 1]`` is the first block of level L (initial states: 1)."""

    def __init__(self, words: int, folder: str | None, compress: bool = True):
        self.words = words
        self.file: LevelFile = open_level(words, folder, compress)
        self.first: list[int] = []
        self.level_rows: list[int] = []

    @property
    def levels(self) -> int:
        return len(self.level_rows)

    @property
    def disk_bytes(self) -> int:
        return self.file.disk_bytes

    @property
    def rows(self) -> int:
        return self.file.rows

    def add_level(self, disk: LevelFile | None, tail: np.ndarray) -> None:
        """The next level, closed: its rows on disk (``disk``'s blocks), then
        ``tail``, in memory."""
        self.first.append(len(self.file.blocks))
        before = self.file.rows
        if disk is not None:
            self.file.append_blocks(disk)
        if len(tail):
            self.file.append(tail)
        self.level_rows.append(self.file.rows - before)

    def level(self, n: int):
        """Level ``n``'s rows (1: the initial states), a block at a time."""
        kept = self.kept(n)
        for k in range(len(kept.sizes)):
            yield kept.read(k)

    def kept(self, n: int) -> KeptLevel:
        """Level ``n``: its blocks' row counts, and a reader of each block."""
        lo = self.first[n - 1]
        hi = self.first[n] if n < len(self.first) else len(self.file.blocks)

        def read(k: int) -> np.ndarray:
            try:
                return self.file.block(lo + k)
            except (OSError, zlib.error, ValueError) as err:
                raise ParentsError(f"the levels kept for traces are damaged: block {lo + k} of "
                                   f"level {n} cannot be read ({err})") from err
        return KeptLevel(tuple(int(self.file.blocks[b][1]) for b in range(lo, hi)), read)

    def close(self) -> None:
        self.file.close()

    # ------------------------------------------------------------ checkpoints

    def save(self, path: FilePath) -> dict:
        """The file copied to ``path``: what the checkpoint's data file
        records of it (name, bytes, sha256, rows per level)."""
        h = hashlib.sha256()
        fd = self.file.f.fileno()
        with open(path, "wb") as out:
            at = 0
            while at < self.file.end:
                chunk = os.pread(fd, min(1 << 22, self.file.end - at), at)
                if not chunk:
                    raise OSError("the levels kept for traces ended early")
                out.write(chunk)
                h.update(chunk)
                at += len(chunk)
            out.flush()
            os.fsync(out.fileno())
        return {"file": path.name, "bytes": self.file.end, "sha256": h.hexdigest(),
                "level_rows": list(self.level_rows)}

    def load(self, path: FilePath, record: dict) -> None:
        """A checkpoint's copy, checked, as this archive's levels; ValueError
        (with what is wrong) for a damaged or foreign one."""
        h = hashlib.sha256()
        with open(path, "rb") as src:
            self.file.f.seek(0)
            self.file.f.truncate()
            for chunk in iter(lambda: src.read(1 << 22), b""):
                h.update(chunk)
                self.file.f.write(chunk)
            self.file.f.flush()
        if h.hexdigest() != record["sha256"]:
            raise ValueError(f"{path.name} is damaged: its sha256 does not match "
                             f"(truncated or changed on disk)")
        self.file.index()
        rows = [int(r) for r in record["level_rows"]]
        first, b = [], 0
        for n in rows:
            first.append(b)
            got = 0
            while got < n and b < len(self.file.blocks):
                got += self.file.blocks[b][1]
                b += 1
            if got != n:
                raise ValueError(f"{path.name} does not hold the levels its checkpoint names")
        if b != len(self.file.blocks):
            raise ValueError(f"{path.name} holds more rows than its checkpoint names")
        self.first, self.level_rows = first, rows


def find_path_on_disk(kernels: CompiledModel, archive: LevelArchive, row: np.ndarray,
                      level: int, initial: np.ndarray, stop: Stop = None
                      ) -> tuple[Path, np.ndarray]:
    """``rebuild.find_path`` from the levels on disk (rebuild.path_through_levels)."""
    return path_through_levels(kernels, archive.kept, row, level, initial, stop)
