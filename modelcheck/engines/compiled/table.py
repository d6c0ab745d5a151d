"""The seen-state table: ordered linear probing over 64-bit fingerprints.

Each slot holds a key (the state's fingerprint, sign bit flipped so that
signed order is fingerprint order) and the 40-bit *tag* of the state's parent
(the top 40 bits of the parent's fingerprint; 0 for an initial state): 8 + 5
bytes.  A state's home slot is ``top31(fp) * C >> 31``, which grows with the
fingerprint, and every cluster is kept sorted, so the whole array is sorted
with gaps.  That gives three things:

* parents are found by content (the entries whose key carries a tag sit
  together, from the tag's home), so entries may move: the table can grow
  by a small factor, keeping the load between ``MAX_LOAD / GROWTH`` and
  ``MAX_LOAD``, i.e. at most 13 / 0.815 = 16 bytes per state;
* growing is one streaming pass (entries arrive in key order, each goes to
  ``max(home, previous + 1)`` in the new array);
* a lookup stops at the first larger key, present or absent.

There is no wrap-around: ``tail`` spare slots follow the ``C`` home slots, and
an insert that would run off the end reports FULL (the caller grows the table).

``options.exact`` keeps each state's words beside its key; equal keys then
sit together and are told apart by the words.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from modelcheck.engines.compiled.reps import to_signed, to_unsigned
from modelcheck.engines.compiled.runtime import SIGN, TAG_MASK, TAG_SHIFT

__all__ = ["FingerprintTable", "NEW", "FOUND", "FULL", "ABSENT", "MAX_LOAD", "GROWTH",
           "table_insert", "table_find_tag", "table_lookup", "key_of", "home_of", "tag_from_fp"]

NEW, FOUND, FULL, ABSENT = 1, 0, -1, -2
#: Grow when the load reaches this...
MAX_LOAD = 0.88
#: ...by this factor (so the load never falls below MAX_LOAD / GROWTH = 0.815).
GROWTH = 1.08
#: Meta slots: home slots C, entries, exact flag.
M_CAP, M_COUNT, M_EXACT = 0, 1, 2


def tail_for(cap: int) -> int:
    return 64 + cap // 4096


@njit(cache=True, nogil=True, _nrt=False)
def key_of(fp: np.int64) -> np.int64:
    return fp ^ SIGN


@njit(cache=True, nogil=True, _nrt=False)
def home_of(key: np.int64, cap: np.int64) -> np.int64:
    return (((key ^ SIGN) >> 33) & 0x7FFFFFFF) * cap >> 31


@njit(cache=True, nogil=True, _nrt=False)
def _same_state(states: np.ndarray, i: np.int64, row: np.ndarray) -> bool:
    for w in range(row.shape[0]):
        if states[i, w] != row[w]:
            return False
    return True


@njit(cache=True, nogil=True, _nrt=False)
def table_lookup(keys: np.ndarray, states: np.ndarray, meta: np.ndarray,
                 key: np.int64, row: np.ndarray) -> np.int64:
    """The slot holding the state, or -1."""
    n = keys.shape[0]
    i = home_of(key, meta[M_CAP])
    exact = meta[M_EXACT] != 0
    while i < n:
        k = keys[i]
        if k == SIGN or k > key:
            return -1
        if k == key and (not exact or _same_state(states, i, row)):
            return i
        i += 1
    return -1


@njit(cache=True, nogil=True, _nrt=False)
def table_insert(keys: np.ndarray, tlo: np.ndarray, thi: np.ndarray, states: np.ndarray,
                 meta: np.ndarray, key: np.int64, ptag: np.int64, row: np.ndarray,
                 allow: bool) -> np.int64:
    """Insert a state unless present: NEW, FOUND, FULL (grow and retry), or
    ABSENT when ``allow`` is false and the state is not there."""
    n = keys.shape[0]
    i = home_of(key, meta[M_CAP])
    exact = meta[M_EXACT] != 0
    while i < n:
        k = keys[i]
        if k == SIGN or k > key:
            break
        if k == key and (not exact or _same_state(states, i, row)):
            return FOUND
        i += 1
    if not allow:
        return ABSENT
    if i >= n:
        return FULL
    j = i
    while j < n and keys[j] != SIGN:
        j += 1
    if j >= n:
        return FULL
    # Shift the rest of the cluster one slot right to keep it sorted.
    for p in range(j, i, -1):
        keys[p] = keys[p - 1]
        tlo[p] = tlo[p - 1]
        thi[p] = thi[p - 1]
    if exact:
        for p in range(j, i, -1):
            for w in range(row.shape[0]):
                states[p, w] = states[p - 1, w]
    keys[i] = key
    tlo[i] = np.uint32(ptag & 0xFFFFFFFF)
    thi[i] = np.uint8((ptag >> 32) & 0xFF)
    if exact:
        for w in range(row.shape[0]):
            states[i, w] = row[w]
    meta[M_COUNT] += 1
    return NEW


@njit(cache=True, nogil=True)
def _rebuild(keys: np.ndarray, tlo: np.ndarray, thi: np.ndarray, states: np.ndarray,
             nkeys: np.ndarray, ntlo: np.ndarray, nthi: np.ndarray, nstates: np.ndarray,
             cap: np.int64, exact: bool) -> bool:
    last = -1
    n = nkeys.shape[0]
    for i in range(keys.shape[0]):
        k = keys[i]
        if k == SIGN:
            continue
        p = max(home_of(k, cap), last + 1)
        if p >= n:
            return False
        nkeys[p] = k
        ntlo[p] = tlo[i]
        nthi[p] = thi[i]
        if exact:
            for w in range(states.shape[1]):
                nstates[p, w] = states[i, w]
        last = p
    return True


@njit(cache=True, nogil=True, _nrt=False)
def table_find_tag(keys: np.ndarray, meta: np.ndarray, tag: np.int64, out: np.ndarray) -> np.int64:
    """The slots of the entries whose fingerprint has tag ``tag`` (at most
    ``out.shape[0]`` of them, in ``out``); returns how many there are."""
    lo = key_of(tag << TAG_SHIFT)
    hi = key_of((tag << TAG_SHIFT) | ((np.int64(1) << TAG_SHIFT) - 1))
    i = home_of(lo, meta[M_CAP])
    found = 0
    while i < keys.shape[0]:
        k = keys[i]
        if k == SIGN or k > hi:
            break
        if k >= lo:
            if found < out.shape[0]:
                out[found] = i
            found += 1
        i += 1
    return found


class FingerprintTable:
    """The arrays of the table and the Python side of its life: creation,
    growth, memory figures, saving and loading."""

    def __init__(self, words: int, exact: bool, capacity: int = 1 << 14):
        self.words = words
        self.exact = exact
        self.meta = np.zeros(4, dtype=np.int64)
        self.meta[M_EXACT] = 1 if exact else 0
        self._allocate(capacity)

    def _allocate(self, cap: int, tail: int | None = None) -> None:
        n = cap + (tail_for(cap) if tail is None else tail)
        self.keys = np.full(n, SIGN, dtype=np.int64)
        self.tlo = np.zeros(n, dtype=np.uint32)
        self.thi = np.zeros(n, dtype=np.uint8)
        self.states = np.zeros((n if self.exact else 1, self.words), dtype=np.int64)
        self.meta[M_CAP] = cap

    @property
    def capacity(self) -> int:
        return int(self.meta[M_CAP])

    @property
    def count(self) -> int:
        return int(self.meta[M_COUNT])

    def grow_at(self) -> int:
        """The entry count at which the table grows (the kernels stop there)."""
        return int(MAX_LOAD * self.capacity)

    def needs_growth(self) -> bool:
        return self.count >= self.grow_at()

    def grow(self) -> None:
        """Make room: ``GROWTH`` times the home slots when the load reached
        ``MAX_LOAD``; otherwise (an insert ran off the end of the spare tail)
        the same home slots with twice the tail, so the load, and the bytes
        per state, stay where they are."""
        old = (self.keys, self.tlo, self.thi, self.states)
        if self.needs_growth():
            cap, tail = max(int(self.capacity * GROWTH) + 1, self.capacity + 64), None
        else:
            cap, tail = self.capacity, 2 * (self.keys.shape[0] - self.capacity)
        while True:
            self._allocate(cap, tail)
            if _rebuild(*old, self.keys, self.tlo, self.thi, self.states, np.int64(cap),
                        self.exact):
                return
            tail = 2 * (self.keys.shape[0] - cap)

    def nbytes(self) -> int:
        total = self.keys.nbytes + self.tlo.nbytes + self.thi.nbytes
        return total + (self.states.nbytes if self.exact else 0)

    def bytes_per_state(self) -> float:
        return self.nbytes() / max(1, self.count)

    def parent_tag(self, slot: int) -> int:
        return int(self.tlo[slot]) | (int(self.thi[slot]) << 32)

    def lookup(self, fp: int, row: np.ndarray) -> int:
        key = np.int64(to_signed(fp)) ^ SIGN
        return int(table_lookup(self.keys, self.states, self.meta, key, row))

    def find_tag(self, tag: int, limit: int = 64) -> list[int]:
        out = np.zeros(limit, dtype=np.int64)
        n = int(table_find_tag(self.keys, self.meta, np.int64(tag), out))
        return [int(s) for s in out[:min(n, limit)]]

    def fingerprint_at(self, slot: int) -> int:
        return to_unsigned(int(self.keys[slot] ^ SIGN))

    # ------------------------------------------------------------ checkpoints

    def arrays(self) -> dict[str, np.ndarray]:
        out = {"keys": self.keys, "tlo": self.tlo, "thi": self.thi, "meta": self.meta}
        if self.exact:
            out["states"] = self.states
        return out

    @classmethod
    def from_arrays(cls, words: int, arrays: dict[str, np.ndarray]) -> "FingerprintTable":
        meta = np.array(arrays["meta"], dtype=np.int64)
        table = cls.__new__(cls)
        table.words = words
        table.exact = bool(meta[M_EXACT])
        table.meta = meta
        table.keys = np.array(arrays["keys"], dtype=np.int64)
        table.tlo = np.array(arrays["tlo"], dtype=np.uint32)
        table.thi = np.array(arrays["thi"], dtype=np.uint8)
        if table.exact:
            table.states = np.array(arrays["states"], dtype=np.int64)
        else:
            table.states = np.zeros((1, words), dtype=np.int64)
        return table


def tag_from_fp(fp: int) -> int:
    return (fp >> TAG_SHIFT) & TAG_MASK
