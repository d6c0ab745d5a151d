"""Checkpoints: the whole search state in one ``.npz`` file, written between
two chunks (every ``checkpoint_every_s`` and on Ctrl-C) and read back by
``resume_dir``.

Between chunks every row before the frontier position is fully expanded, so
a checkpoint holds the table, the rest of the current level, the part of the
next level found so far, the counters and the verdicts settled so far; a
resumed search ends with exactly the counts of an uninterrupted one.  The file
is written to a temporary name and renamed, so a crash while writing leaves
the previous checkpoint intact.
"""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from modelcheck.engines.compiled.driver import C_NEXT
from modelcheck.engines.compiled.table import FingerprintTable
from modelcheck.errors import UsageError

if TYPE_CHECKING:
    from modelcheck.engines.compiled.search import CompiledSearch

__all__ = ["save", "restore", "FILE_NAME", "FORMAT"]

FILE_NAME = "compiled-checkpoint.npz"
FORMAT = 2


def _signature(search: "CompiledSearch") -> dict:
    """What a checkpoint must agree on to be resumed: the compiled module (spec,
    constants, symmetry), state storage and the properties checked."""
    o = search.options
    return {"format": FORMAT, "kernel": search.k.path.name, "exact": bool(o.exact),
            "deadlock": bool(o.deadlock),
            "invariants": None if o.invariants is None else sorted(o.invariants)}


def save(search: "CompiledSearch", folder: str) -> Path:
    os.makedirs(folder, exist_ok=True)
    meta = {"signature": _signature(search), "depth": search.depth,
            "found_level": search.found_level, "elapsed": search.elapsed(),
            "chunk": search.chunk, "distinct": search.distinct}
    arrays = {f"table_{name}": a for name, a in search.table.arrays().items()}
    nxt = int(search.ctr[C_NEXT])
    arrays.update(front=search.front[search.pos:], next=search.nxt[:nxt], ctr=search.ctr,
                  act_counts=search.act_counts, want=search.want, want_step=search.want_step,
                  found=search.found, frows=search.frows, frows2=search.frows2, faid=search.faid,
                  meta=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8))
    target = Path(folder) / FILE_NAME
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".npz")
    try:
        with os.fdopen(fd, "wb") as f:
            np.savez(f, **arrays)
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return target


def restore(search: "CompiledSearch", folder: str) -> None:
    path = Path(folder) / FILE_NAME
    if not path.exists():
        raise UsageError(f"no checkpoint to resume in {folder}",
                         hint="checkpoints are written with --checkpoint-dir")
    with np.load(path) as data:
        meta = json.loads(bytes(data["meta"]).decode())
        if meta["signature"] != _signature(search):
            raise UsageError(f"the checkpoint in {folder} was written for another spec, "
                             f"constants or options",
                             hint="resume with the same spec, -D values, --exact, "
                                  "--no-deadlock and --invariant options")
        words = search.k.layout.words
        table = {name[len("table_"):]: data[name] for name in data.files
                 if name.startswith("table_")}
        search.table = FingerprintTable.from_arrays(words, table)
        search.front = np.array(data["front"], dtype=np.int64).reshape(-1, words)
        search.pos = 0
        found_next = np.array(data["next"], dtype=np.int64).reshape(-1, words)
        search.nxt = np.empty((max(1024, 2 * len(found_next)), words), dtype=np.int64)
        search.nxt[:len(found_next)] = found_next
        for name in ("ctr", "act_counts", "want", "want_step", "found", "frows", "frows2",
                     "faid"):
            getattr(search, name)[...] = data[name]
    search.depth = int(meta["depth"])
    search.found_level = list(meta["found_level"])
    search.elapsed_before = float(meta["elapsed"])
    search.chunk = int(meta["chunk"])
