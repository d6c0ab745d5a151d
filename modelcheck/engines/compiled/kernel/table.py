"""The seen-state table: linear probing over 64-bit fingerprints, with a
monotone home slot.

Each slot holds a key (the state's fingerprint, sign bit flipped so that
signed order is fingerprint order) and the 32-bit *tag* of the state's
parent (the top 32 bits of the parent's fingerprint; 0 for an initial
state): 8 + 4 bytes.  A state's home slot is ``top31(fp) * C >> 31``, which
grows with the fingerprint.  That gives three things:

* parents are found by content (every entry whose key carries a tag has the
  tag's home, so it sits in the run of occupied slots from there), so entries
  may move: the table can grow by a small factor, keeping the load between
  ``MAX_LOAD / GROWTH`` and ``MAX_LOAD``, i.e. at most 12 / 0.758 < 16 bytes
  per state;
* growing is one streaming pass: entries arrive nearly in home order, so
  each new slot is found next to the previous one (see ``_rebuild``);
* an insert writes one slot (no cluster is shifted), which matters at these
  loads: the average run an insert walks is ~20 slots long.

There is no wrap-around: ``tail`` spare slots follow the ``C`` home slots, and
an insert that would run off the end reports FULL (the caller grows the table).

``options.exact`` keeps each state's words beside its key; equal keys are
told apart by the words.  ``--fingerprint-bits 96|128`` keeps a second,
independent hash of the words instead (``second_word``: 32 or 64 of its bits,
in a one-column ``states``), compared where ``--exact`` compares the words:
the table then tells states apart by 96 or 128 bits.  ``meta[M_EXACT]`` says
which (``MODE_*``); the kernels read it, so one compiled kernel serves all.

A table made with ``parents=False`` has no tags (an empty ``tags`` array:
8-byte slots); the search then keeps its levels on disk and finds parents
there (search/parents.py).  Every kernel tests ``tags.shape[0]`` before it
writes a tag, so both kinds of table go through the same compiled code.
"""
from __future__ import annotations

import mmap
from typing import Callable

import numpy as np
from numba import njit

from modelcheck.engines.compiled.reps import to_signed, to_unsigned
from modelcheck.engines.compiled.kernel.widths import (FINGERPRINT_BITS, MODE_EXACT, MODE_FP,
                                                       MODE_FP96, MODE_FP128, side_words,
                                                       table_mode)
from modelcheck.engines.compiled.kernel.runtime import (SIGN, TAG_MASK, TAG_SHIFT, _C1, _C2,
                                                        _fmix, _rotl)

__all__ = ["FingerprintTable", "own_line", "NEW", "FOUND", "FULL", "ABSENT", "MAX_LOAD", "GROWTH",
           "table_insert", "table_find_tag", "table_lookup", "key_of",
           "home_of", "tag_from_fp", "fresh_array", "growth_steps", "slot_bytes", "second_word",
           "slot_matches", "slot_store", "MODE_FP", "MODE_EXACT", "MODE_FP96", "MODE_FP128",
           "FINGERPRINT_BITS", "table_mode", "side_words"]

NEW, FOUND, FULL, ABSENT = 1, 0, -1, -2
#: Grow when the load reaches this...
MAX_LOAD = 0.88
#: ...by this factor (so the load never falls below MAX_LOAD / GROWTH = 0.759,
#: 15.8 bytes per state with the spare tail).
GROWTH = 1.16
#: Meta slots: home slots C, entries, exact flag.
M_CAP, M_COUNT, M_EXACT = 0, 1, 2
#: The second hash's seed: not the first's, so the two words are unrelated.
_SEED2 = np.int64(0x6A09E667F3BCC909)


def own_line(a: np.ndarray) -> np.ndarray:
    """A copy of ``a`` that shares no cache line with any other array: small
    arrays that a thread writes on every state (a shard's entry count, a
    worker's scratch) would otherwise sit on a line another thread writes,
    and each write would take the line from the other core."""
    pad = 128 // a.itemsize
    flat = np.zeros(a.size + 2 * pad, dtype=a.dtype)
    out = flat[pad:pad + a.size].reshape(a.shape)
    out[...] = a
    return out


#: Arrays at least this large are mapped with their pages made up front.
POPULATE_BYTES = 1 << 22


def fresh_array(n: int, dtype: type, fill: int | None) -> np.ndarray:
    """An array of ``n`` items for a table that grows, filled with ``fill``
    (None: left as it comes).  A large one is mapped with MAP_POPULATE: the
    kernel makes all its pages in one call, where touching them one by one
    costs a page fault each, which in a virtual machine took 4-6x as long
    (0.28 s against 0.05 s for 100 MB) and, over the forty-odd growths of a
    ten-million-state table, about a sixth of the search.  Huge pages where
    the system gives them (``_huge_area``)."""
    nbytes = n * np.dtype(dtype).itemsize
    flag = getattr(mmap, "MAP_POPULATE", None)
    if nbytes < POPULATE_BYTES or flag is None:
        return np.empty(n, dtype=dtype) if fill is None else np.full(n, fill, dtype=dtype)
    area = _huge_area(nbytes)
    if area is None:
        try:
            area = mmap.mmap(-1, nbytes, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | flag)
        except OSError as err:      # the search reports a MemoryError as out of memory
            raise MemoryError(f"cannot map {nbytes:,} bytes for the state table ({err})") from err
    out = np.frombuffer(area, dtype=dtype, count=n)
    if fill:        # a new mapping reads as zeros
        out.fill(fill)
    return out


#: madvise's MADV_POPULATE_WRITE (Linux 5.14), which Python's mmap does not name.
_MADV_POPULATE_WRITE = 23


def _huge_area(nbytes: int) -> mmap.mmap | None:
    """An anonymous mapping of ``nbytes`` in transparent huge pages, made up
    front; None where the system cannot (then MAP_POPULATE's small pages).
    Every probe of a large table is a TLB miss with 4 KiB pages (two page
    walks in a virtual machine): on TwoPhase-9 the prefetch of the home slot
    and the probe were a third of the search with them.  The pages must be
    asked for before they are made, so MAP_POPULATE cannot be used here."""
    advise = getattr(mmap, "MADV_HUGEPAGE", None)
    if advise is None:
        return None
    try:
        area = mmap.mmap(-1, nbytes, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    except OSError:
        return None
    try:
        area.madvise(advise)
        area.madvise(_MADV_POPULATE_WRITE)
    except (OSError, ValueError):
        area.close()
        return None
    return area


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
def second_word(row: np.ndarray, mode: np.int64) -> np.int64:
    """The second word of a wide fingerprint (0 unless mode is MODE_FP96 or
    MODE_FP128): a hash of the packed words with its own seed, rotations and
    multipliers (the first's constants swapped), so that two states whose
    fingerprints collide still differ here with probability 1 - 2^-32 or
    1 - 2^-64.  MODE_FP96 keeps its low 32 bits."""
    if mode < MODE_FP96:
        return np.int64(0)
    n = row.shape[0]
    h = _SEED2 ^ n
    for i in range(n):
        k = row[i] * _C2
        k = _rotl(k, 33)
        k *= _C1
        h ^= k
        h = _rotl(h, 29) * 9 + 0x38495AB5
    h = _fmix(h ^ (n * 8) ^ _SEED2)
    if mode == MODE_FP96:
        h &= 0xFFFFFFFF
    return h


@njit(cache=True, nogil=True, _nrt=False)
def slot_matches(states: np.ndarray, i: np.int64, row: np.ndarray, mode: np.int64,
                 w2: np.int64) -> bool:
    """Whether slot i, whose key is the state's, holds the state: always
    with fingerprints alone, by the words with --exact, by the second word
    of a wide fingerprint."""
    if mode == MODE_FP:
        return True
    if mode == MODE_EXACT:
        return _same_state(states, i, row)
    return states[i, 0] == w2


@njit(cache=True, nogil=True, _nrt=False)
def slot_store(states: np.ndarray, i: np.int64, row: np.ndarray, mode: np.int64,
               w2: np.int64) -> None:
    """What slot i keeps beside the key (see ``slot_matches``)."""
    if mode == MODE_EXACT:
        for w in range(row.shape[0]):
            states[i, w] = row[w]
    elif mode != MODE_FP:
        states[i, 0] = w2


@njit(cache=True, nogil=True, _nrt=False)
def table_lookup(keys: np.ndarray, states: np.ndarray, meta: np.ndarray,
                 key: np.int64, row: np.ndarray) -> np.int64:
    """The slot holding the state, or -1."""
    n = keys.shape[0]
    i = home_of(key, meta[M_CAP])
    mode = meta[M_EXACT]
    w2 = second_word(row, mode)
    while i < n:
        k = keys[i]
        if k == SIGN:
            return -1
        if k == key and slot_matches(states, i, row, mode, w2):
            return i
        i += 1
    return -1


@njit(cache=True, nogil=True, _nrt=False)
def table_insert(keys: np.ndarray, tags: np.ndarray, states: np.ndarray, meta: np.ndarray,
                 key: np.int64, ptag: np.int64, row: np.ndarray, allow: bool) -> np.int64:
    """Insert a state unless present: NEW, FOUND, FULL (grow and retry), or
    ABSENT when ``allow`` is false and the state is not there."""
    mode = meta[M_EXACT]
    return _insert_with(keys, tags, states, meta, key, ptag, row, second_word(row, mode), allow)


@njit(cache=True, nogil=True, _nrt=False)
def _insert_with(keys: np.ndarray, tags: np.ndarray, states: np.ndarray, meta: np.ndarray,
                 key: np.int64, ptag: np.int64, row: np.ndarray, w2: np.int64,
                 allow: bool) -> np.int64:
    """``table_insert`` with the second word given (a checkpoint's entries
    hold it, not the state's words)."""
    n = keys.shape[0]
    i = home_of(key, meta[M_CAP])
    mode = meta[M_EXACT]
    while i < n:
        k = keys[i]
        if k == SIGN:
            break
        if k == key and slot_matches(states, i, row, mode, w2):
            return FOUND
        i += 1
    if not allow:
        return ABSENT
    if i >= n:
        return FULL
    keys[i] = key
    if tags.shape[0] != 0:
        tags[i] = np.uint32(ptag & 0xFFFFFFFF)
    slot_store(states, i, row, mode, w2)
    meta[M_COUNT] += 1
    return NEW


@njit(cache=True, nogil=True)
def _rebuild_part(keys: np.ndarray, tags: np.ndarray, states: np.ndarray, lo: np.int64,
                  hi: np.int64, nkeys: np.ndarray, ntags: np.ndarray, nstates: np.ndarray,
                  cap: np.int64, exact: bool, first: np.int64, limit: np.int64,
                  spill: np.ndarray, empty: bool = True) -> np.int64:
    """``_rebuild`` of the entries in old slots lo..hi, which own the new
    slots first..limit-1 (emptied here: the parts of a table are made on as
    many threads, each touching its own pages).  An entry that would land at
    or past ``limit`` is left for the caller (``_insert_spilled``): its old
    slot goes to ``spill``.  How many did, or -1 when ``spill`` is full.

    Entries arrive in slot order, so homes arrive almost sorted, and the slot
    is usually the one after the previous entry: every slot of ``run ..
    last`` is occupied, which makes ``last + 1`` a valid linear-probing slot
    for any home in that run.  Only an entry whose home lies before the run
    (runs are in arrival order, not home order) walks from its home."""
    tagged = ntags.shape[0] != 0
    if empty:
        for p in range(first, limit):
            nkeys[p] = SIGN
            if tagged:
                ntags[p] = 0
    last, run, spilled = first - 1, first, 0
    for i in range(lo, hi):
        k = keys[i]
        if k == SIGN:
            continue
        h = home_of(k, cap)
        if h < first:
            p = limit   # cannot be: _first_new_slot bounds the homes; kept exact
        elif h > last:
            p = h
            if h > last + 1:
                run = h
        elif h >= run:
            p = last + 1
        else:
            p = h
            while p < limit and nkeys[p] != SIGN:
                p += 1
        if p >= limit:
            if spilled == spill.shape[0]:
                return -1
            spill[spilled] = i
            spilled += 1
            continue
        nkeys[p] = k
        if tagged:
            ntags[p] = tags[i]
        if exact:
            for w in range(states.shape[1]):
                nstates[p, w] = states[i, w]
        if p > last:
            last = p
    return spilled


@njit(cache=True, nogil=True)
def _rebuild(keys: np.ndarray, tags: np.ndarray, states: np.ndarray, nkeys: np.ndarray,
             ntags: np.ndarray, nstates: np.ndarray, cap: np.int64, exact: bool) -> bool:
    """Every entry into the new arrays (made empty by the caller), on one
    thread: False when one runs off the tail."""
    return _rebuild_part(keys, tags, states, np.int64(0), np.int64(keys.shape[0]), nkeys, ntags,
                         nstates, cap, exact, np.int64(0), np.int64(nkeys.shape[0]),
                         np.zeros(0, dtype=np.int64), False) == 0


def _insert_spilled(keys: np.ndarray, tags: np.ndarray, states: np.ndarray, spill: np.ndarray,
                    n: np.int64, nkeys: np.ndarray, ntags: np.ndarray, nstates: np.ndarray,
                    cap: np.int64, exact: bool) -> bool:
    """The entries a part left over, each from its home to the first empty
    slot, once every part is in; False when one runs off the tail."""
    for s in range(n):
        i = spill[s]
        p = home_of(keys[i], cap)
        while p < nkeys.shape[0] and nkeys[p] != SIGN:
            p += 1
        if p >= nkeys.shape[0]:
            return False
        nkeys[p] = keys[i]
        if ntags.shape[0] != 0:
            ntags[p] = tags[i]
        if exact:
            for w in range(states.shape[1]):
                nstates[p, w] = states[i, w]
    return True


#: The share of a level's expected new states a growth makes room for at
#: once, and the most growth steps it takes (GROWTH each).  Each growth is a
#: pass over the table while the search waits; growing once for what the
#: level will bring, at the rate its rows have brought so far, saves the
#: passes between (TwoPhase-9: 15 growths, not 46).  Less than the whole
#: estimate, so that a level whose rate falls does not leave the table
#: emptier than the load bound allows.
EXPECTED_SHARE = 0.8
MAX_STEPS = 6


def growth_steps(table: "FingerprintTable", added: int, rows_done: int, rows_left: int) -> int:
    """How many growth steps make room for EXPECTED_SHARE of what the rest
    of the level will store, at the rate of its ``rows_done`` rows so far
    (which stored ``added``)."""
    expected = table.count + EXPECTED_SHARE * added * rows_left / max(1, rows_done)
    steps, cap = 1, table.capacity * GROWTH
    while steps < MAX_STEPS and cap * MAX_LOAD < expected:
        steps, cap = steps + 1, cap * GROWTH
    return steps


#: Entries a part of a parallel rebuild may leave for the serial pass.
SPILL = 1 << 14

#: Run ``job(part)`` for parts 0..n-1 on as many threads, and wait.
Each = Callable[[Callable[[int], None]], None]


def _first_new_slot(e: int, old_cap: int, new_cap: int) -> int:
    """The lowest new home of an entry after the empty old slot ``e``: its
    old home is past ``e`` (linear probing fills every slot from an entry's
    home to the entry), so its top 31 bits are at least t below."""
    t = -(-((e + 1) << 31) // old_cap)
    return (t * new_cap) >> 31


@njit(cache=True, nogil=True, _nrt=False)
def _insert_entries(keys: np.ndarray, tags: np.ndarray, states: np.ndarray, meta: np.ndarray,
                    ekeys: np.ndarray, etags: np.ndarray, estates: np.ndarray, mask: np.int64,
                    shard: np.int64, start: np.int64, grow_at: np.int64) -> np.int64:
    """Insert the entries from ``start`` whose key's low bits are ``shard``,
    each with its own parent tag; the index reached (grow the table, then go
    on from there), or len(ekeys) when all are in."""
    mode = meta[M_EXACT]
    side = mode != MODE_FP
    for i in range(start, ekeys.shape[0]):
        k = ekeys[i]
        if (k & mask) != shard:
            continue
        if meta[M_COUNT] >= grow_at:
            return i
        ptag = np.int64(etags[i]) if etags.shape[0] != 0 else np.int64(0)
        w2 = estates[i, 0] if mode >= MODE_FP96 else np.int64(0)
        if _insert_with(keys, tags, states, meta, k, ptag, estates[i if side else 0], w2,
                        True) == FULL:
            return i
    return ekeys.shape[0]


@njit(cache=True, nogil=True, _nrt=False)
def table_find_tag(keys: np.ndarray, meta: np.ndarray, tag: np.int64, out: np.ndarray) -> np.int64:
    """The slots of the entries whose fingerprint has tag ``tag`` (at most
    ``out.shape[0]`` of them, in ``out``); returns how many there are.  They
    all share one home (the tag holds the 31 bits the home is made of), so
    they lie in the run of occupied slots that starts there."""
    lo = key_of(tag << TAG_SHIFT)
    hi = key_of((tag << TAG_SHIFT) | ((np.int64(1) << TAG_SHIFT) - 1))
    i = home_of(lo, meta[M_CAP])
    found = 0
    while i < keys.shape[0]:
        k = keys[i]
        if k == SIGN:
            break
        if lo <= k <= hi:
            if found < out.shape[0]:
                out[found] = i
            found += 1
        i += 1
    return found


class FingerprintTable:
    """The arrays of the table and the Python side of its life: creation,
    growth, memory figures, and refilling from saved entries."""

    def __init__(self, words: int, exact: bool, capacity: int = 1 << 14, parents: bool = True,
                 bits: int = 64):
        self.words = words
        self.exact = exact
        self.bits = bits            # the fingerprint's width (exact: unused)
        self.mode = table_mode(exact, bits)
        # columns of ``states``: the words (exact), the second word (wide), none
        self.side = side_words(words, exact, bits)
        self.parents = parents      # False: no tags, 8-byte slots
        self.meta = own_line(np.zeros(4, dtype=np.int64))
        self.meta[M_EXACT] = self.mode
        self._allocate(capacity)

    def _allocate(self, cap: int, tail: int | None = None) -> None:
        self.keys, self.tags, self.states = self._arrays(cap, tail)
        self.meta[M_CAP] = cap

    def _arrays(self, cap: int, tail: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        n = cap + (tail_for(cap) if tail is None else tail)
        return (fresh_array(n, np.int64, SIGN), fresh_array(n if self.parents else 0, np.uint32, 0),
                self._side_array(n))

    def _side_array(self, n: int) -> np.ndarray:
        if not self.side:
            return np.zeros((1, self.words), dtype=np.int64)
        # mapped as the keys are (pages made up front), so a preallocated
        # table's memory is all there from the start, second words included
        return fresh_array(n * self.side, np.int64, 0).reshape(n, self.side)

    @property
    def slot_bytes(self) -> int:
        return slot_bytes(self.words, self.exact, self.parents, self.bits)

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

    def grow(self, max_bytes: int | None = None, homes: bool = False,
             each: tuple[int, Each] | None = None, steps: int = 1) -> None:
        """Make room: ``GROWTH`` times the home slots when the load reached
        ``MAX_LOAD``; otherwise (an insert ran off the end of the spare tail)
        the same home slots with twice the tail, so the load, and the bytes
        per state, stay where they are.  MemoryError, with the table as it
        was, when the old and new arrays together would pass ``max_bytes``
        (or numpy cannot have them).  ``homes``: more home slots whatever
        the load.  ``each``: (parts, runner) rebuilds the table in that many
        parts on the runner's threads.  ``steps``: that many growths at once
        (for entries known to be on their way)."""
        old = (self.keys, self.tags, self.states)
        if homes or self.needs_growth():
            cap, tail = self.capacity, None
            for _ in range(max(1, steps)):
                cap = max(int(cap * GROWTH) + 1, cap + 64)
        else:
            cap, tail = self.capacity, 2 * (self.keys.shape[0] - self.capacity)
        while True:
            slots = cap + (tail_for(cap) if tail is None else tail)
            if max_bytes is not None and (slots + old[0].shape[0]) * self.slot_bytes > max_bytes:
                raise MemoryError(f"the state table would pass {max_bytes:,} bytes")
            if each is not None and each[0] > 1 and self.count > SPILL:
                new = self._empty_arrays(cap, tail)
                done = self._rebuild_parts(old, new, cap, *each)
            else:
                new = self._arrays(cap, tail)
                done = _rebuild(*old, *new, np.int64(cap), self.side > 0)
            if done:
                self.keys, self.tags, self.states = new
                self.meta[M_CAP] = cap
                return
            tail = 2 * (new[0].shape[0] - cap)

    def _empty_arrays(self, cap: int, tail: int | None) -> tuple[np.ndarray, ...]:
        n = cap + (tail_for(cap) if tail is None else tail)
        return (fresh_array(n, np.int64, None), fresh_array(n if self.parents else 0, np.uint32, None),
                self._side_array(n))

    def _rebuild_parts(self, old: tuple[np.ndarray, ...], new: tuple[np.ndarray, ...], cap: int,
                       parts: int, each: Each) -> bool:
        """``_rebuild`` in ``parts`` parts, split at empty old slots, each on
        its own thread, then the few entries that crossed into the next
        part's slots."""
        keys = old[0]
        n, old_cap = keys.shape[0], self.capacity
        cuts = [0]
        for p in range(1, parts):
            at = max(cuts[-1], p * n // parts)
            empty = np.flatnonzero(keys[at:] == SIGN)
            cuts.append(at + int(empty[0]) if len(empty) else n)
        cuts.append(n)
        firsts = [0] + [min(_first_new_slot(e, old_cap, cap), new[0].shape[0])
                        for e in cuts[1:-1]] + [new[0].shape[0]]
        spills = [np.zeros(SPILL, dtype=np.int64) for _ in range(parts)]
        counts = [0] * parts

        def job(p: int) -> None:
            counts[p] = int(_rebuild_part(*old[:3], np.int64(cuts[p]), np.int64(cuts[p + 1]),
                                          *new, np.int64(cap), self.side > 0,
                                          np.int64(firsts[p]), np.int64(firsts[p + 1]),
                                          spills[p]))
        each(job)
        if min(counts) < 0:
            new[0][:] = SIGN
            new[1][:] = 0
            return bool(_rebuild(*old, *new, np.int64(cap), self.side > 0))
        return all(_insert_spilled(*old, spills[p], np.int64(counts[p]), *new, np.int64(cap),
                                   self.side > 0) for p in range(parts))

    def nbytes(self) -> int:
        total = self.keys.nbytes + self.tags.nbytes
        return total + (self.states.nbytes if self.side else 0)

    def bytes_per_state(self) -> float:
        return self.nbytes() / max(1, self.count)

    def parent_tag(self, slot: int) -> int:
        if not self.parents:
            raise RuntimeError("internal error: a table without tags asked for a parent")
        return int(self.tags[slot])

    def lookup(self, fp: int, row: np.ndarray) -> int:
        key = np.int64(to_signed(fp)) ^ SIGN
        return int(table_lookup(self.keys, self.states, self.meta, key, row))

    def find_tag(self, tag: int, limit: int = 64) -> list[int]:
        out = np.zeros(limit, dtype=np.int64)
        n = int(table_find_tag(self.keys, self.meta, np.int64(tag), out))
        return [int(s) for s in out[:min(n, limit)]]

    def fingerprint_at(self, slot: int) -> int:
        return to_unsigned(int(self.keys[slot] ^ SIGN))

    def row_at(self, slot: int) -> np.ndarray:
        """The stored state of a slot (with ``exact`` only)."""
        return self.states[slot]

    def fill_from(self, keys: np.ndarray, tags: np.ndarray, states: np.ndarray,
                  mask: np.int64 = np.int64(0), shard: np.int64 = np.int64(0)) -> None:
        """Insert the given entries (those of ``shard`` under ``mask``: see
        shards.py), growing as needed."""
        i = 0
        while i < len(keys):
            i = int(_insert_entries(self.keys, self.tags, self.states, self.meta, keys, tags,
                                    states, mask, shard, np.int64(i), np.int64(self.grow_at())))
            if i < len(keys):
                self.grow()


def slot_bytes(words: int, exact: bool, parents: bool = True, bits: int = 64) -> int:
    """The bytes of one slot: the key, the parent's tag unless the parents
    are on disk, and the state's words with ``exact`` (else the second word
    of a wide fingerprint)."""
    return 8 + (4 if parents else 0) + 8 * side_words(words, exact, bits)


def tag_from_fp(fp: int) -> int:
    return (fp >> TAG_SHIFT) & TAG_MASK
