"""Levels of the search that stream to disk when they are large (TLC's
DiskStateQueue): a level past ``spill_rows`` rows is written, in the order
it was found, to a file of packed states, and read back in pieces when it
is expanded, so that the search's memory per state is the table's and
little else.

A level is then: the rows on disk (the first ones, in order), and the rows
that came after the last spill, still in memory (``nxt``).  Each spill is
one or more blocks, each compressed with zlib (level 1) when that pays
(measured on the block; a block that does not shrink by a tenth is stored
as it is).  The files are unlinked as soon as they are made: a killed
search leaves nothing behind, and the open descriptor is the only handle
(a checkpoint copies the blocks out of it).

Only the order of the rows matters to the search, and it is kept: a level
read back piece by piece is expanded in the order it was found, so counts,
verdicts and traces are those of a level held in memory.
"""
from __future__ import annotations

import os
import tempfile
import zlib
from dataclasses import dataclass, field
from typing import IO, Iterator

import numpy as np

from modelcheck.fsutil import sha256_file

__all__ = ["Frontier", "FrontierError", "LevelFile", "SpillPolicy", "BLOCK_ROWS",
           "DEFAULT_FRONTIER_MIB", "copy_level", "open_level", "load_level"]

#: Rows of one block on disk (the unit of compression and of reading back).
BLOCK_ROWS = 1 << 18
#: Bytes a level may take in memory before it goes to disk, by default.
DEFAULT_FRONTIER_MIB = 512
#: A compressed block is kept only when it is at most this share of the raw.
COMPRESS_PAYS = 0.9
_RAW, _ZLIB = 0, 1
_HEADER = np.dtype([("rows", "<i8"), ("nbytes", "<i8"), ("codec", "<i8")])


class FrontierError(Exception):
    """A level that could not be written to disk or read back (a full disk,
    an I/O error): the search ends UNKNOWN with this reason."""


@dataclass
class SpillPolicy:
    """When a level goes to disk, and where."""
    folder: str | None           # None: $TMPDIR
    spill_rows: int              # a next level of this many rows is written out
    compress: bool = True

    @classmethod
    def from_extra(cls, extra: dict, words: int) -> "SpillPolicy":
        mib = extra.get("frontier_memory_mib")
        rows = extra.get("frontier_spill_rows")
        if rows is None:
            limit = float(DEFAULT_FRONTIER_MIB if mib is None else mib) * 2**20
            rows = int(limit // (8 * words))
        return cls(extra.get("frontier_dir"), max(1, int(rows)),
                   bool(extra.get("frontier_compress", True)))


@dataclass
class LevelFile:
    """One level's rows on disk: appended block by block, then read back in
    order.  ``blocks`` holds (offset, rows, nbytes, codec) of each block."""
    words: int
    f: IO[bytes]
    compress: bool = True
    blocks: list[tuple[int, int, int, int]] = field(default_factory=list)
    end: int = 0                 # bytes written
    rows: int = 0                # rows written
    read_block: int = 0          # the next block to read back
    raw_bytes: int = 0           # what the rows would take uncompressed

    @property
    def rows_left(self) -> int:
        return sum(b[1] for b in self.blocks[self.read_block:])

    @property
    def disk_bytes(self) -> int:
        return self.end

    def append(self, rows: np.ndarray) -> None:
        """Write ``rows`` (n, words) at the end, in blocks."""
        for lo in range(0, len(rows), BLOCK_ROWS):
            self._block(np.ascontiguousarray(rows[lo:lo + BLOCK_ROWS], dtype=np.int64))

    def _block(self, part: np.ndarray) -> None:
        raw = part.tobytes()
        payload, codec = raw, _RAW
        if self.compress:
            packed = zlib.compress(raw, 1)
            if len(packed) <= COMPRESS_PAYS * len(raw):
                payload, codec = packed, _ZLIB
        head = np.zeros(1, dtype=_HEADER)
        head["rows"], head["nbytes"], head["codec"] = len(part), len(payload), codec
        os.pwrite(self.f.fileno(), head.tobytes() + payload, self.end)
        self.blocks.append((self.end + _HEADER.itemsize, len(part), len(payload), codec))
        self.end += _HEADER.itemsize + len(payload)
        self.rows += len(part)
        self.raw_bytes += len(raw)

    def append_blocks(self, other: "LevelFile") -> None:
        """Every block of ``other`` at the end, as it is on disk (the bytes
        copied, never decoded and compressed again)."""
        for offset, n, nbytes, codec in other.blocks:
            payload = os.pread(other.f.fileno(), nbytes, offset)
            if len(payload) != nbytes:
                raise OSError(f"a level file ended early ({len(payload)} of {nbytes} bytes)")
            head = np.zeros(1, dtype=_HEADER)
            head["rows"], head["nbytes"], head["codec"] = n, nbytes, codec
            os.pwrite(self.f.fileno(), head.tobytes() + payload, self.end)
            self.blocks.append((self.end + _HEADER.itemsize, n, nbytes, codec))
            self.end += _HEADER.itemsize + nbytes
            self.rows += n
            self.raw_bytes += 8 * n * self.words

    def index(self) -> None:
        """The blocks of a file written elsewhere (``f`` holds them from
        offset 0), read from their headers; ValueError for a torn or
        damaged file."""
        size = os.fstat(self.f.fileno()).st_size
        self.blocks, self.end, self.rows, self.raw_bytes = [], 0, 0, 0
        while self.end < size:
            head = os.pread(self.f.fileno(), _HEADER.itemsize, self.end)
            if len(head) != _HEADER.itemsize:
                raise ValueError("it ends inside a block header")
            h = np.frombuffer(head, dtype=_HEADER)[0]
            n, nbytes, codec = int(h["rows"]), int(h["nbytes"]), int(h["codec"])
            start = self.end + _HEADER.itemsize
            if n <= 0 or nbytes < 0 or codec not in (_RAW, _ZLIB) or start + nbytes > size \
                    or (codec == _RAW and nbytes != 8 * n * self.words):
                raise ValueError(f"it has a damaged block header at byte {self.end:,}")
            self.blocks.append((start, n, nbytes, codec))
            self.end = start + nbytes
            self.rows += n
            self.raw_bytes += 8 * n * self.words

    def block(self, b: int) -> np.ndarray:
        """Block ``b``'s rows, decoded (the reader does not move)."""
        return self._decode(self.blocks[b])

    def _decode(self, b: tuple[int, int, int, int]) -> np.ndarray:
        offset, n, nbytes, codec = b
        data = os.pread(self.f.fileno(), nbytes, offset)
        if len(data) != nbytes:
            raise OSError(f"a level file ended early ({len(data)} of {nbytes} bytes)")
        if codec == _ZLIB:
            data = zlib.decompress(data)
        if len(data) != 8 * n * self.words:
            raise OSError(f"a block of a level file holds {len(data)} bytes, not "
                          f"{8 * n * self.words}")
        return np.frombuffer(data, dtype=np.int64).reshape(n, self.words).copy()

    def read(self, most_rows: int) -> np.ndarray:
        """The next blocks, in order, up to ``most_rows`` rows (one block at
        least); an empty array when every block has been read."""
        parts: list[np.ndarray] = []
        got = 0
        while self.read_block < len(self.blocks):
            n = self.blocks[self.read_block][1]
            if parts and got + n > most_rows:
                break
            parts.append(self._decode(self.blocks[self.read_block]))
            self.read_block += 1
            got += n
        if not parts:
            return np.zeros((0, self.words), dtype=np.int64)
        return parts[0] if len(parts) == 1 else np.concatenate(parts)

    def unread(self) -> Iterator[np.ndarray]:
        """The blocks not yet read back, decoded, without moving the reader."""
        for b in self.blocks[self.read_block:]:
            yield self._decode(b)

    def close(self) -> None:
        self.f.close()


def open_level(words: int, folder: str | None, compress: bool = True) -> LevelFile:
    """An empty level file in ``folder`` ($TMPDIR when None), already
    unlinked: it goes away with its descriptor, however the process ends."""
    if folder is not None:
        os.makedirs(folder, exist_ok=True)
    f = tempfile.TemporaryFile(prefix="modelcheck-level-", dir=folder)
    return LevelFile(words, f, compress)


def copy_level(parts: Iterator[np.ndarray], path: str, words: int,
               compress: bool = True) -> tuple[int, str]:
    """Write the rows of ``parts``, in order, to ``path`` as a level file
    (a checkpoint's copy of a level): (rows, sha256 of the file)."""
    with open(path, "wb") as f:
        level = LevelFile(words, f, compress)
        for part in parts:
            if len(part):
                level.append(part)
        f.flush()
        os.fsync(f.fileno())
    return level.rows, sha256_file(path)


def load_level(path: str, words: int, folder: str | None, compress: bool = True) -> LevelFile:
    """A checkpoint's level file copied into a fresh level file in
    ``folder``, ready to be read back (and appended to)."""
    level = open_level(words, folder, compress)
    with open(path, "rb") as f:
        while True:
            head = f.read(_HEADER.itemsize)
            if not head:
                break
            if len(head) != _HEADER.itemsize:
                raise ValueError(f"{path} ends inside a block header")
            h = np.frombuffer(head, dtype=_HEADER)[0]
            n, nbytes, codec = int(h["rows"]), int(h["nbytes"]), int(h["codec"])
            data = f.read(nbytes)
            if len(data) != nbytes or n < 0 or codec not in (_RAW, _ZLIB):
                raise ValueError(f"{path} has a damaged block")
            if codec == _ZLIB:
                data = zlib.decompress(data)
            if len(data) != n * 8 * words:
                raise ValueError(f"{path} has a block of the wrong size")
            level.append(np.frombuffer(data, dtype=np.int64).reshape(n, words))
    return level


class Frontier:
    """The parts of the current and the next level that are not the
    search's in-memory arrays: the next level's first rows on disk
    (``next_disk``), and the current level's rows not yet expanded, on disk
    (``cur_disk``) and in memory after them (``cur_tail``: the rows the
    next level had in memory when it became the current one)."""

    def __init__(self, policy: SpillPolicy, words: int):
        self.policy = policy
        self.words = words
        self.next_disk: LevelFile | None = None
        self.cur_disk: LevelFile | None = None
        self.cur_tail: np.ndarray | None = None
        self.spilled_rows = 0          # rows written to disk, all levels
        self.disk_bytes = 0            # bytes written to disk, all levels
        self.raw_bytes = 0             # what those rows take in memory
        self.peak_disk_bytes = 0       # the most on disk at once
        # every level as it is closed, for traces (search/parents.py); not
        # closed with the frontier: traces are rebuilt after the search
        self.archive = None

    def should_spill(self, need_rows: int, held_rows: int) -> bool:
        """Whether the next level's ``held_rows`` go to disk rather than the
        array grow to ``need_rows``."""
        return held_rows > 0 and need_rows > self.policy.spill_rows

    def spill(self, rows: np.ndarray) -> None:
        """Append the next level's in-memory rows to its file."""
        where = self.policy.folder or tempfile.gettempdir()
        try:
            if self.next_disk is None:
                self.next_disk = open_level(self.words, self.policy.folder, self.policy.compress)
            before = self.next_disk.disk_bytes
            self.next_disk.append(rows)
        except OSError as err:
            raise FrontierError(f"a level could not be written to {where} "
                                f"({err.strerror or err}); --frontier-dir chooses the "
                                f"folder") from err
        self.spilled_rows += len(rows)
        self.disk_bytes += self.next_disk.disk_bytes - before
        self.raw_bytes += 8 * rows.size
        self.peak_disk_bytes = max(self.peak_disk_bytes, self._on_disk())

    def _on_disk(self) -> int:
        return sum(f.disk_bytes for f in (self.next_disk, self.cur_disk) if f is not None)

    def next_level(self, tail: np.ndarray) -> np.ndarray | None:
        """The next level becomes the current one: its first piece, or None
        when it is all in memory (``tail``, which the caller takes as it
        is)."""
        if self.archive is not None:
            try:
                self.archive.add_level(self.next_disk, tail)
            except OSError as err:
                where = self.policy.folder or tempfile.gettempdir()
                raise FrontierError(f"a level kept for traces could not be written to {where} "
                                    f"({err.strerror or err}); --frontier-dir chooses the "
                                    f"folder") from err
        self._drop_current()
        if self.next_disk is None:
            return None
        self.cur_disk, self.next_disk = self.next_disk, None
        self.cur_tail = tail
        piece = self.next_piece()
        return np.zeros((0, self.words), dtype=np.int64) if piece is None else piece

    def next_piece(self) -> np.ndarray | None:
        """The current level's next rows to expand (from disk, then the
        tail), or None when the level is done."""
        if self.cur_disk is not None:
            try:
                piece = self.cur_disk.read(self.policy.spill_rows)
            except (OSError, zlib.error) as err:
                raise FrontierError(f"a level could not be read back from disk ({err})") from err
            if len(piece):
                return piece
            self.cur_disk.close()
            self.cur_disk = None
        if self.cur_tail is not None:
            tail, self.cur_tail = self.cur_tail, None
            if len(tail):
                return tail
        return None

    def level_has_more(self) -> bool:
        return ((self.cur_disk is not None and self.cur_disk.rows_left > 0)
                or (self.cur_tail is not None and len(self.cur_tail) > 0))

    def queued(self) -> int:
        """Rows waiting outside the search's arrays."""
        n = 0 if self.cur_tail is None else len(self.cur_tail)
        for f, left in ((self.cur_disk, True), (self.next_disk, False)):
            if f is not None:
                n += f.rows_left if left else f.rows
        return n

    def current_rest(self) -> Iterator[np.ndarray]:
        """The current level's rows not yet read (disk, then tail), in order."""
        if self.cur_disk is not None:
            yield from self.cur_disk.unread()
        if self.cur_tail is not None and len(self.cur_tail):
            yield self.cur_tail

    def next_so_far(self) -> Iterator[np.ndarray]:
        """The next level's rows on disk, in order (the caller adds its
        in-memory rows after them)."""
        if self.next_disk is not None:
            yield from self.next_disk.unread()      # never read: every block

    def on_disk(self) -> bool:
        return self.next_disk is not None or self.level_has_more()

    def _drop_current(self) -> None:
        if self.cur_disk is not None:
            self.cur_disk.close()
        self.cur_disk, self.cur_tail = None, None

    def close(self) -> None:
        self._drop_current()
        if self.next_disk is not None:
            self.next_disk.close()
            self.next_disk = None

    def figures(self) -> dict[str, int | float]:
        return {"frontier_spilled_rows": self.spilled_rows,
                "frontier_disk_bytes": self.disk_bytes,
                "frontier_peak_disk_bytes": self.peak_disk_bytes,
                "frontier_compression": round(self.disk_bytes / self.raw_bytes, 3)
                if self.raw_bytes else None}
