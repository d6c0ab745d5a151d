"""Frontier and candidate rows as Arrow record batches, the form they cross the
JVM/Python boundary in.

A row is a state with its bookkeeping, one 64-bit column each:

    fp      the state's fingerprint
    parent  the fingerprint of the state it was reached from (a root's own)
    inside  int8: partition.INSIDE, OUTSIDE or UNDECIDED under the state constraints
    pfail   int8: 1 when a state property failed to evaluate on the state
    h0..    the state properties the state settles (an invariant it violates,
            a ``sometimes`` it witnesses), one bit per column of the plan,
            64 a word (``hit_words`` of them; none without state properties)
    s0..    the packed state, one column per word (``kernels.words`` of them)

``pfail`` and the ``h`` words are filled by the expansion (the properties
are evaluated on every distinct successor, in the task that found it), so
that the JVM settles a level's new states by an aggregate over these
columns, with no second pass of the new states through Python.

A packed state is one fixed-width column per word rather than a binary or
list column: Spark keeps fixed-width columns in its hash and sort operators
without copying them out of line, and each column crosses to numpy as one
buffer.  Fingerprints are unsigned and Spark's longs are signed, so ``fp``
and ``parent`` are stored with their top bit flipped: Spark's order on the
stored longs is then the unsigned order, and its ``min(parent)`` keeps the
same parent as the in-process search does.  The state words are stored as
they are (reinterpreted, not reordered).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["Rows", "state_columns", "hit_columns", "row_columns", "spark_schema", "hit_words",
           "to_long", "from_long", "to_batch", "from_batches", "pack_hits", "batch_rows"]

_SIGN = np.uint64(1 << 63)
#: Bytes of one Arrow batch at most (see ``batch_rows``).
_BATCH_BYTES = 16 << 20


@dataclass
class Rows:
    """Rows taken out of Arrow batches, as the kernels want them."""
    fp: np.ndarray          # (n,) uint64
    parent: np.ndarray      # (n,) uint64
    inside: np.ndarray      # (n,) int8
    states: np.ndarray      # (n, words) uint64, C-contiguous
    pfail: np.ndarray | None = None     # (n,) int8; None: all 0
    hits: np.ndarray | None = None      # (n, hit words) uint64; None: no bit set

    def __len__(self) -> int:
        return len(self.fp)


def state_columns(words: int) -> list[str]:
    return [f"s{i}" for i in range(words)]


def hit_columns(hit_words: int) -> list[str]:
    return [f"h{i}" for i in range(hit_words)]


def hit_words(state_properties: int) -> int:
    """Words of hit bits for a plan with this many state properties."""
    return (state_properties + 63) // 64


def row_columns(words: int, hits: int = 0) -> list[str]:
    return ["fp", "parent", "inside", "pfail"] + hit_columns(hits) + state_columns(words)


def spark_schema(words: int, hits: int = 0) -> str:
    """The rows' schema as Spark DDL (``tinyint`` is Arrow's int8)."""
    return ", ".join(["fp long", "parent long", "inside tinyint", "pfail tinyint"]
                     + [f"{c} long" for c in hit_columns(hits) + state_columns(words)])


def batch_rows(words: int, cap: int) -> int:
    """Rows per Arrow batch: ``cap`` (the kernels' batch), fewer for wide
    states so that a batch stays under 16 MiB in the JVM and in Python."""
    return max(1024, min(cap, _BATCH_BYTES // (18 + 8 * words)))


def pack_hits(hits: np.ndarray) -> np.ndarray:
    """(n, columns) bool as (n, hit_words(columns)) uint64: bit c % 64 of
    word c // 64 is column c."""
    n, columns = hits.shape
    out = np.zeros((n, hit_words(columns)), dtype=np.uint64)
    for c in range(columns):
        out[:, c // 64] |= hits[:, c].astype(np.uint64) << np.uint64(c % 64)
    return out


def to_long(fps: np.ndarray) -> np.ndarray:
    """Unsigned fingerprints as the order-preserving signed longs Spark holds."""
    return (np.asarray(fps, dtype=np.uint64) ^ _SIGN).view(np.int64)


def from_long(longs: np.ndarray) -> np.ndarray:
    return np.asarray(longs, dtype=np.int64).view(np.uint64) ^ _SIGN


def to_batch(fp: np.ndarray, parent: np.ndarray, inside: np.ndarray, states: np.ndarray,
             pfail: np.ndarray | None = None, hits: np.ndarray | None = None) -> "pa.RecordBatch":
    """Rows as one batch; ``hits`` is (n, hit words) uint64 (``pack_hits``),
    None for a batch without hit columns (a frontier, a plan without state
    properties)."""
    import pyarrow as pa
    words = states.shape[1]
    n = len(fp)
    arrays = [pa.array(to_long(fp)), pa.array(to_long(parent)),
              pa.array(np.asarray(inside, dtype=np.int8)),
              pa.array(np.zeros(n, np.int8) if pfail is None else np.asarray(pfail, np.int8))]
    nhits = 0 if hits is None else hits.shape[1]
    if hits is not None:
        as_signed = np.ascontiguousarray(hits, dtype=np.uint64).view(np.int64)
        arrays += [pa.array(as_signed[:, i]) for i in range(nhits)]
    as_long = np.ascontiguousarray(states, dtype=np.uint64).view(np.int64)
    arrays += [pa.array(as_long[:, i]) for i in range(words)]
    return pa.RecordBatch.from_arrays(arrays, names=row_columns(words, nhits))


def from_batches(batches: list["pa.RecordBatch"], words: int) -> Rows:
    """The rows of several batches (with the columns of ``row_columns``; a
    frontier without ``parent``/``inside`` gets zeros and INSIDE)."""
    n = sum(b.num_rows for b in batches)

    def column(name: str, dtype: Any) -> np.ndarray:
        parts = [b.column(name).to_numpy(zero_copy_only=False) for b in batches]
        return np.concatenate(parts).astype(dtype, copy=False) if parts else np.empty(0, dtype)

    names = set(batches[0].schema.names) if batches else set()
    fp = from_long(column("fp", np.int64))
    parent = from_long(column("parent", np.int64)) if "parent" in names else np.zeros(n, np.uint64)
    inside = column("inside", np.int8) if "inside" in names else np.ones(n, np.int8)
    pfail = column("pfail", np.int8) if "pfail" in names else None
    states = np.empty((n, words), dtype=np.uint64)
    for i, name in enumerate(state_columns(words)):
        states[:, i] = column(name, np.int64).view(np.uint64)
    held = 0
    while f"h{held}" in names:
        held += 1
    hits = None
    if held:
        hits = np.empty((n, held), dtype=np.uint64)
        for i, name in enumerate(hit_columns(held)):
            hits[:, i] = column(name, np.int64).view(np.uint64)
    return Rows(fp, parent, inside, states, pfail, hits)
