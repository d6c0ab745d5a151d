"""Frontier and candidate rows as Arrow record batches, the form they cross the
JVM/Python boundary in.

A row is a state with its bookkeeping, one 64-bit column each:

    fp      the state's fingerprint
    parent  the fingerprint of the state it was reached from (a root's own)
    inside  int8: partition.INSIDE, OUTSIDE or UNDECIDED under the state constraints
    s0..    the packed state, one column per word (``kernels.words`` of them)

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

import pickle
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pyarrow as pa

    from modelcheck.engines.spark.partition import LevelReport

__all__ = ["Rows", "state_columns", "row_columns", "spark_schema", "to_long", "from_long",
           "to_batch", "from_batches", "report_batch", "read_report", "REPORT_SCHEMA",
           "batch_rows"]

_SIGN = np.uint64(1 << 63)
#: The schema of the one-row batches a check task returns.
REPORT_SCHEMA = "report binary"
#: Bytes of one Arrow batch at most (see ``batch_rows``).
_BATCH_BYTES = 16 << 20


@dataclass
class Rows:
    """Rows taken out of Arrow batches, as the kernels want them."""
    fp: np.ndarray          # (n,) uint64
    parent: np.ndarray      # (n,) uint64
    inside: np.ndarray      # (n,) int8
    states: np.ndarray      # (n, words) uint64, C-contiguous

    def __len__(self) -> int:
        return len(self.fp)


def state_columns(words: int) -> list[str]:
    return [f"s{i}" for i in range(words)]


def row_columns(words: int) -> list[str]:
    return ["fp", "parent", "inside"] + state_columns(words)


def spark_schema(words: int) -> str:
    """The rows' schema as Spark DDL (``tinyint`` is Arrow's int8)."""
    return ", ".join(["fp long", "parent long", "inside tinyint"]
                     + [f"{c} long" for c in state_columns(words)])


def batch_rows(words: int, cap: int) -> int:
    """Rows per Arrow batch: ``cap`` (the kernels' batch), fewer for wide
    states so that a batch stays under 16 MiB in the JVM and in Python."""
    return max(1024, min(cap, _BATCH_BYTES // (17 + 8 * words)))


def to_long(fps: np.ndarray) -> np.ndarray:
    """Unsigned fingerprints as the order-preserving signed longs Spark holds."""
    return (np.asarray(fps, dtype=np.uint64) ^ _SIGN).view(np.int64)


def from_long(longs: np.ndarray) -> np.ndarray:
    return np.asarray(longs, dtype=np.int64).view(np.uint64) ^ _SIGN


def to_batch(fp: np.ndarray, parent: np.ndarray, inside: np.ndarray,
             states: np.ndarray) -> "pa.RecordBatch":
    import pyarrow as pa
    words = states.shape[1]
    arrays = [pa.array(to_long(fp)), pa.array(to_long(parent)),
              pa.array(np.asarray(inside, dtype=np.int8))]
    as_long = np.ascontiguousarray(states, dtype=np.uint64).view(np.int64)
    arrays += [pa.array(as_long[:, i]) for i in range(words)]
    return pa.RecordBatch.from_arrays(arrays, names=row_columns(words))


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
    states = np.empty((n, words), dtype=np.uint64)
    for i, name in enumerate(state_columns(words)):
        states[:, i] = column(name, np.int64).view(np.uint64)
    return Rows(fp, parent, inside, states)


def report_batch(report: "LevelReport") -> "pa.RecordBatch":
    """A task's report as the one row it returns (a pickle: it is a few
    hundred bytes, read only by the driver)."""
    import pyarrow as pa
    return pa.RecordBatch.from_arrays([pa.array([pickle.dumps(report)], type=pa.binary())],
                                      names=["report"])


def read_report(raw: bytes) -> "LevelReport":
    return pickle.loads(bytes(raw))
