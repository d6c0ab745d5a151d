"""The seen-state table sized from an earlier run of the same configuration.

A table that starts at 16,384 slots and grows by ``table.GROWTH`` as it
fills is rebuilt some fifteen times on its way to ten million states
(TwoPhase-9): each rebuild is a pass over the whole table that stops the
search, and that two threads do no faster than one (docs/engines/compiled.md,
"Every core").  TLC sizes its fingerprint set from ``-fpmem`` and SPIN its
hash table from ``-w``: here the table starts at the size that the last
complete search of the configuration ended with, so a configuration that
is searched again (a suite's rows, a benchmark, the edit-and-check loop of a
spec whose configuration stayed the same) is never rebuilt.

The count is kept in the kernel cache, in ``kernels/sizes/KEY``, where KEY
hashes the model (``ir.digest.model_digest``: its origin or its IR) and
whether symmetry reduction applies; not the code's version, since a count
does not change with it.  It only sizes the table: a wrong or stale count
costs memory or growths, never a wrong answer.  A count whose table would
pass ``--max-memory``, or half the memory at hand (what the system says is
available, within the cgroup's limit), is not used: the table starts small
and grows as it would without one.  A file that does not hold a count (a
torn write, an edit, more digits than any search could reach) is treated as
absent and removed; the next complete search writes its count again.
"""
from __future__ import annotations

import contextlib
import hashlib
import math
import os
from pathlib import Path
from typing import Any

from modelcheck.fsutil import write_atomic

__all__ = ["START_CAPACITY", "START_LOAD", "MAX_COUNT", "size_key", "expected_states",
           "record_states", "start_capacity", "memory_at_hand", "preallocated_capacity",
           "RESERVE_BYTES", "AT_HAND_SHARE"]

#: Home slots of a table with no count to go by: table.FingerprintTable's
#: own default.
START_CAPACITY = 1 << 14

#: The load a table sized from a count starts towards: below ``MAX_LOAD``
#: (0.88), so that the same states fit without a growth, and above
#: ``MAX_LOAD / GROWTH`` (0.759), so that the bytes per state stay those of
#: a grown table (at most 15.8).
START_LOAD = 0.8

#: More states than any search keeps (a table of 10^13 states would take a
#: hundred terabytes): a larger number in a hint file is damage.
MAX_COUNT = 10**13


def size_key(model: Any, symmetric: bool) -> str:
    from modelcheck.ir.digest import model_digest
    h = hashlib.sha256(model_digest(model).encode())
    h.update(b"symmetric" if symmetric else b"plain")
    return h.hexdigest()[:32]


def _path(cache_dir: str | os.PathLike | None, key: str) -> Path:
    from modelcheck.engines.compiled.cache.kcache import kernel_path
    return kernel_path(cache_dir, "0").parent / "sizes" / key


def expected_states(cache_dir: str | os.PathLike | None, key: str) -> int | None:
    """The distinct states of the last complete search under ``key``, if
    any.  A file that holds no such count is removed."""
    path = _path(cache_dir, key)
    try:
        with open(path, "rb") as f:
            raw = f.read(64)
    except OSError:
        return None
    count = _count(raw)
    if count is None:
        with contextlib.suppress(OSError):
            path.unlink()
    return count


def _count(raw: bytes) -> int | None:
    text = raw.strip()
    # bytes.isdigit is ASCII digits only; the length bounds int()'s work.
    if not text.isdigit() or len(text) > len(str(MAX_COUNT)):
        return None
    count = int(text)
    return count if 0 < count <= MAX_COUNT else None


def record_states(cache_dir: str | os.PathLike | None, key: str, count: int) -> None:
    """Keep ``count`` for the next search under ``key`` (a cache that cannot
    be written loses only the sizing)."""
    path = _path(cache_dir, key)
    if expected_states(cache_dir, key) == count:
        return
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, str(count))


def start_capacity(expected: int | None, slot_bytes: int, max_bytes: int | None,
                   least: int, at_hand: int | None = None) -> int:
    """Home slots for a table that will hold ``expected`` states: ``least``
    when there is no count, or when the table would pass ``max_bytes`` or
    half of ``at_hand`` bytes (by default ``memory_at_hand()``)."""
    if not expected:
        return least
    cap = max(least, math.ceil(expected / START_LOAD))
    if at_hand is None:
        at_hand = memory_at_hand()
    # Half: the search's frontier and the kernel need memory too, and a
    # table sized beyond what is there fails at once instead of at the end.
    for bound in (max_bytes, None if at_hand is None else at_hand // 2):
        if bound is not None and cap * slot_bytes > bound:
            return least
    return cap


#: What a preallocated table leaves to the rest of the process (the
#: interpreter, the kernel, the parallel search's claims and candidates).
RESERVE_BYTES = 1 << 30
#: The most of the memory at hand a preallocated search may take, with or
#: without ``--max-memory`` (the rest: the page cache, other processes).
AT_HAND_SHARE = 0.9


def preallocated_capacity(slot_bytes: int, max_bytes: int | None, frontier_bytes: int,
                          least: int, at_hand: int | None = None) -> int:
    """Home slots of a table sized once for the whole run: what
    ``max_bytes`` (at most ``AT_HAND_SHARE`` of the memory at hand) leaves
    once the frontier in memory (``frontier_bytes``) and ``RESERVE_BYTES`` are
    set apart; at least ``least``.  The table never grows, so its old and
    new arrays are never in memory at once: at a billion states that is
    the difference between 14 GB and 30."""
    if at_hand is None:
        at_hand = memory_at_hand()
    # Never past what is there: a table the system cannot give would be
    # made page by page until the kernel kills the process.
    room = None if at_hand is None else int(at_hand * AT_HAND_SHARE)
    if max_bytes is None or (room is not None and room < max_bytes):
        max_bytes = room
    if max_bytes is None:
        return least
    usable = max_bytes - frontier_bytes - RESERVE_BYTES
    # the spare tail (table.tail_for) is 64 + cap / 4096 slots
    cap = int((usable / slot_bytes - 64) / (1 + 1 / 4096))
    return max(least, cap)


def memory_at_hand() -> int | None:
    """Bytes this process could have now: what the system says is available
    (Linux's MemAvailable, else the physical memory), and no more than its
    cgroup allows beyond what the cgroup uses; None when neither is known."""
    found = _meminfo_available()
    if found is None:
        with contextlib.suppress(ValueError, OSError, AttributeError):
            found = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    room = _cgroup_room()
    if room is not None:
        found = room if found is None else min(found, room)
    return found


def _meminfo_available() -> int | None:
    with contextlib.suppress(OSError, ValueError, IndexError):
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    return None


def _cgroup_room() -> int | None:
    """The memory the cgroup of this process may still take (v2, else v1)."""
    for limit_file, usage_file in (("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
                                   ("/sys/fs/cgroup/memory/memory.limit_in_bytes",
                                    "/sys/fs/cgroup/memory/memory.usage_in_bytes")):
        with contextlib.suppress(OSError, ValueError):
            limit = Path(limit_file).read_text().strip()
            if limit == "max":
                return None
            used = int(Path(usage_file).read_text().strip())
            # v1 says "no limit" with a number near 2^63.
            return None if int(limit) >= 1 << 60 else max(0, int(limit) - used)
    return None
