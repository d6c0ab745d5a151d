"""The seen-state table of the search on several cores: one
``FingerprintTable`` per shard, a state's shard the low bits of its
fingerprint (the home slot is made of the high bits, so every shard keeps
the whole range of homes), so that each worker inserts into shards no other
worker touches, without locks.

It answers the questions trace rebuilding (rebuild.py) and the statistics
ask of a table, with slots numbered across shards.  Checkpoints hold the
entries themselves (``entries``), so a search resumes with any number of
shards, one included.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from modelcheck.engines.compiled.reps import to_signed
from modelcheck.engines.compiled.kernel.runtime import SIGN
from modelcheck.engines.compiled.kernel.table import MAX_LOAD, FingerprintTable
from modelcheck.engines.compiled.kernel.widths import (MODE_EXACT, MODE_FP96, MODE_FP128,
                                                       side_words)

__all__ = ["ShardedTable", "entries_of", "table_from_entries", "shard_of_keys"]

#: Slot numbers across shards: shard << SLOT_BITS | slot in the shard.
SLOT_BITS = 40


@njit(cache=True, nogil=True)
def shard_of_keys(okeys: np.ndarray, counts: np.ndarray, cap: np.int64, nshards: np.int64,
                  idx: np.ndarray, offs: np.ndarray, pos: np.ndarray) -> None:
    """Bucket the candidates w*cap .. w*cap + counts[w] by shard, each bucket
    in candidate order (a stable counting sort): shard s holds
    idx[offs[s]:offs[s+1]], and candidate g is at idx[pos[g]].  Known states
    (key SIGN) are left out."""
    mask = nshards - 1
    for s in range(nshards + 1):
        offs[s] = 0
    for w in range(counts.shape[0]):
        for m in range(counts[w]):
            key = okeys[w * cap + m]
            if key != SIGN:
                offs[(key & mask) + 1] += 1
    for s in range(nshards):
        offs[s + 1] += offs[s]
    fill = offs[:nshards].copy()
    for w in range(counts.shape[0]):
        for m in range(counts[w]):
            g = w * cap + m
            key = okeys[g]
            if key != SIGN:
                s = key & mask
                idx[fill[s]] = g
                pos[g] = fill[s]
                fill[s] += 1


class ShardedTable:
    """``n`` shards (a power of two) of fingerprint tables."""

    def __init__(self, words: int, exact: bool, shards: int, capacity: int = 1 << 14,
                 bits: int = 64):
        assert shards >= 1 and shards & (shards - 1) == 0
        self.words = words
        self.exact = exact
        self.bits = bits
        self.shards = [FingerprintTable(words, exact, capacity, bits=bits) for _ in range(shards)]
        self.mode, self.side = self.shards[0].mode, self.shards[0].side

    def __len__(self) -> int:
        return len(self.shards)

    @property
    def count(self) -> int:
        return sum(t.count for t in self.shards)

    @property
    def capacity(self) -> int:
        return sum(t.capacity for t in self.shards)

    def nbytes(self) -> int:
        return sum(t.nbytes() for t in self.shards)

    def bytes_per_state(self) -> float:
        return self.nbytes() / max(1, self.count)

    # ------------------------------------------------------------ trace rebuilding

    def _split(self, slot: int) -> tuple[FingerprintTable, int]:
        return self.shards[slot >> SLOT_BITS], slot & ((1 << SLOT_BITS) - 1)

    def parent_tag(self, slot: int) -> int:
        table, s = self._split(slot)
        return table.parent_tag(s)

    def fingerprint_at(self, slot: int) -> int:
        table, s = self._split(slot)
        return table.fingerprint_at(s)

    def row_at(self, slot: int) -> np.ndarray:
        table, s = self._split(slot)
        return table.row_at(s)

    def shard_of(self, fps: int | np.ndarray) -> int | np.ndarray:
        """The shard that holds a fingerprint (or each of an array of them)."""
        signed = fps.view(np.int64) if isinstance(fps, np.ndarray) else np.int64(to_signed(fps))
        return (signed ^ SIGN) & (len(self.shards) - 1)

    def lookup(self, fp: int, row: np.ndarray) -> int:
        shard = self.shard_of(fp)
        s = self.shards[int(shard)].lookup(fp, row)
        return -1 if s < 0 else int(shard) << SLOT_BITS | s

    def find_tag(self, tag: int, limit: int = 64) -> list[int]:
        out: list[int] = []
        for n, table in enumerate(self.shards):
            out.extend(n << SLOT_BITS | s for s in table.find_tag(tag, limit))
        return out[:limit]


def entries_of(table: FingerprintTable | ShardedTable) -> dict[str, np.ndarray]:
    """The occupied entries of a table, any number of shards: what a
    checkpoint keeps."""
    parts = table.shards if isinstance(table, ShardedTable) else [table]
    keys, tags, states = [], [], []
    for t in parts:
        used = t.keys != SIGN
        keys.append(t.keys[used])
        # a table without tags (parents on disk) has none to keep
        tags.append(t.tags[used] if len(t.tags) else np.zeros(0, dtype=np.uint32))
        if t.side:
            states.append(t.states[used])
    # "exact" is the table's mode (kernel/widths.py): 0 and 1 as before
    # the width was chosen, 2 and 3 for 96 and 128 bits
    out = {"keys": np.concatenate(keys), "tags": np.concatenate(tags),
           "exact": np.array([table.mode], dtype=np.int64)}
    if table.side:
        out["states"] = np.concatenate(states)
    return out


def table_from_entries(words: int, arrays: dict[str, np.ndarray], shards: int,
                       parents: bool = True) -> FingerprintTable | ShardedTable:
    """A table of ``shards`` shards (1: a plain FingerprintTable) holding the
    entries ``entries_of`` gave (``parents`` False: one without tags; the
    shards always have them)."""
    mode = int(np.asarray(arrays["exact"])[0])
    exact, bits = mode == MODE_EXACT, {MODE_FP96: 96, MODE_FP128: 128}.get(mode, 64)
    side = side_words(words, exact, bits)
    keys = np.ascontiguousarray(arrays["keys"], dtype=np.int64)
    tags = np.ascontiguousarray(arrays["tags"], dtype=np.uint32)
    states = (np.ascontiguousarray(arrays["states"], dtype=np.int64).reshape(-1, side)
              if side else np.zeros((1, words), dtype=np.int64))
    # Sized for the entries up front: refilling a small table would grow it
    # some forty times on the way to millions of entries.
    cap = max(1 << 14, int(len(keys) / shards / MAX_LOAD * 1.05) + 64)
    table: FingerprintTable | ShardedTable
    table = ShardedTable(words, exact, shards, cap, bits) if shards > 1 else \
        FingerprintTable(words, exact, capacity=cap, parents=parents, bits=bits)
    parts = table.shards if isinstance(table, ShardedTable) else [table]
    for n, t in enumerate(parts):
        t.fill_from(keys, tags, states, np.int64(len(parts) - 1), np.int64(n))
    return table
