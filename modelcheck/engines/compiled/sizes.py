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
costs memory or growths, never a wrong answer, and a count that would
pass ``--max-memory`` is not used.
"""
from __future__ import annotations

import contextlib
import hashlib
import math
import os
from pathlib import Path
from typing import Any

from modelcheck.fsutil import write_atomic

__all__ = ["START_CAPACITY", "START_LOAD", "size_key", "expected_states", "record_states",
           "start_capacity"]

#: Home slots of a table with no count to go by: table.FingerprintTable's
#: own default.
START_CAPACITY = 1 << 14

#: The load a table sized from a count starts towards: below ``MAX_LOAD``
#: (0.88), so that the same states fit without a growth, and above
#: ``MAX_LOAD / GROWTH`` (0.759), so that the bytes per state stay those of
#: a grown table (at most 15.8).
START_LOAD = 0.8


def size_key(model: Any, symmetric: bool) -> str:
    from modelcheck.ir.digest import model_digest
    h = hashlib.sha256(model_digest(model).encode())
    h.update(b"symmetric" if symmetric else b"plain")
    return h.hexdigest()[:32]


def _path(cache_dir: str | os.PathLike | None, key: str) -> Path:
    from modelcheck.engines.compiled.kcache import kernel_path
    return kernel_path(cache_dir, "0").parent / "sizes" / key


def expected_states(cache_dir: str | os.PathLike | None, key: str) -> int | None:
    """The distinct states of the last complete search under ``key``, if any."""
    try:
        text = _path(cache_dir, key).read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError):
        return None
    return int(text) if text.strip().isdigit() else None


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
                   least: int) -> int:
    """Home slots for a table that will hold ``expected`` states: ``least``
    when there is no count, or when the table would pass ``max_bytes``."""
    if not expected:
        return least
    cap = max(least, math.ceil(expected / START_LOAD))
    if max_bytes is not None and cap * slot_bytes > max_bytes:
        return least
    return cap
