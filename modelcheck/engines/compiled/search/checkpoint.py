"""Checkpoints: the whole search state in one ``.npz`` file, written between
two chunks (every ``checkpoint_every_s`` and on Ctrl-C) and read back by
``resume_dir``.

Between chunks every row before the frontier position is fully expanded, so
a checkpoint holds the table, the rest of the current level, the part of the
next level found so far, the counters and the verdicts settled so far; a
resumed search ends with exactly the counts of an uninterrupted one.

A checkpoint is two files: the ``.npz`` (under a name of its own) and a small
JSON manifest naming it, with the format and its sha256.  Each is written to a
temporary name, fsynced and renamed, the manifest last, and the old ``.npz``
is removed only after that, so a process killed while writing leaves the
previous checkpoint whole; a torn or flipped ``.npz`` fails the
checksum and is refused instead of resuming a different search.  Temporary
files a killed process left behind are removed the next time the folder is
used.
"""
from __future__ import annotations

import json
import os
import uuid
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from modelcheck.engines.compiled.kernel.driver import C_NEXT
from modelcheck.engines.compiled.kernel.runtime import SIGN
from modelcheck.engines.compiled.search.shards import entries_of, table_from_entries
from modelcheck.engines.compiled.kernel.table import M_EXACT
from modelcheck.errors import UsageError
from modelcheck.fsutil import (atomic_writer, loads_json, read_json_file, remove_stale_temps,
                               sha256_file, write_atomic)

__all__ = ["save", "restore", "MANIFEST", "DATA_PREFIX", "FORMAT", "clean_stale"]

#: The search saved or restored: search/serial.py's CompiledSearch (or a
#: subclass).  Named, not imported: that module imports this one.
CompiledSearch = Any

MANIFEST = "compiled-checkpoint.json"
DATA_PREFIX = "compiled-checkpoint-"
# The single data file of format 2, recognised only to refuse it clearly.
OLD_FILE_NAME = "compiled-checkpoint.npz"
FORMAT = 3
_RESTART_HINT = "start the run again without --resume (or resume from another checkpoint folder)"


def _signature(search: CompiledSearch) -> dict:
    """What a checkpoint must agree on to be resumed: the compiled module (spec,
    constants, symmetry), the constants it reads at run time (params.py), state
    storage and the properties checked."""
    o = search.options
    return {"format": FORMAT, "kernel": search.k.path.name,
            "params": [list(p) for p in search.k.generated.params], "exact": bool(o.exact),
            "deadlock": bool(o.deadlock),
            "invariants": None if o.invariants is None else sorted(o.invariants)}


def clean_stale(folder: str | os.PathLike) -> None:
    """Remove the temporary files of a write that never finished (a SIGKILL
    between creating and renaming them)."""
    remove_stale_temps(folder)


def _data_name() -> str:
    # A fresh name, so the new data file never replaces the one the current
    # manifest names: until the manifest is renamed, the old pair is untouched.
    return f"{DATA_PREFIX}{uuid.uuid4().hex[:24]}.npz"


def save(search: CompiledSearch, folder: str) -> Path:
    os.makedirs(folder, exist_ok=True)
    clean_stale(folder)
    meta = {"signature": _signature(search), "depth": search.depth,
            "found_level": search.found_level, "elapsed": search.elapsed(),
            "chunk": search.chunk, "distinct": search.distinct}
    # The table's entries, not its slots: a search with another number of
    # workers (shards) resumes from them.
    entries = entries_of(search.table)
    arrays = {"table_keys": entries["keys"], "table_tags": entries["tags"],
              "table_meta": np.array([0, 0, entries["exact"][0], 0], dtype=np.int64)}
    if "states" in entries:
        arrays["table_states"] = entries["states"]
    nxt = int(search.ctr[C_NEXT])
    arrays.update(front=search.front[search.pos:], next=search.nxt[:nxt], ctr=search.ctr,
                  act_counts=search.act_counts, want=search.want, want_step=search.want_step,
                  found=search.found, frows=search.frows, frows2=search.frows2, faid=search.faid,
                  meta=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8))
    target = Path(folder) / _data_name()
    with atomic_writer(target, binary=True, durable=True) as f:
        np.savez(f, **arrays)
    manifest = {"format": FORMAT, "file": target.name, "sha256": sha256_file(target),
                "bytes": target.stat().st_size}
    write_atomic(Path(folder) / MANIFEST, json.dumps(manifest), durable=True)
    for name in os.listdir(folder):
        if name.startswith(DATA_PREFIX) and name.endswith(".npz") and name != target.name:
            os.unlink(os.path.join(folder, name))
    return target


def _verified(folder: str) -> Path:
    """The checkpoint file in ``folder``, once its manifest says it is whole."""
    manifest_path = Path(folder) / MANIFEST
    if not manifest_path.exists():
        if (Path(folder) / OLD_FILE_NAME).exists():
            raise UsageError(f"the checkpoint in {folder} was written by an older modelcheck "
                             f"(format 2; this version reads format {FORMAT})",
                             hint=_RESTART_HINT)
        raise UsageError(f"no checkpoint to resume in {folder}",
                         hint="checkpoints are written with --checkpoint DIR")
    try:
        # A manifest is a few hundred bytes; anything nested or large is damage.
        manifest = read_json_file(manifest_path, limit=1 << 20)
        fmt, name, digest = manifest["format"], manifest["file"], manifest["sha256"]
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise UsageError(f"the checkpoint manifest {manifest_path} is damaged ({err!r})",
                         hint=_RESTART_HINT) from None
    if fmt != FORMAT:
        raise UsageError(f"the checkpoint in {folder} has format {fmt!r}; this modelcheck "
                         f"reads format {FORMAT} only", hint=_RESTART_HINT)
    if not isinstance(name, str) or name != Path(name).name or not name.startswith(DATA_PREFIX):
        raise UsageError(f"the checkpoint manifest {manifest_path} is damaged "
                         f"(bad file name {name!r})", hint=_RESTART_HINT)
    path = Path(folder) / name
    if not path.exists():
        raise UsageError(f"the checkpoint in {folder} is incomplete: {name} is missing",
                         hint=_RESTART_HINT)
    if sha256_file(path) != digest:
        raise UsageError(f"the checkpoint {path} is damaged: its sha256 does not match the "
                         f"manifest (truncated or changed on disk)", hint=_RESTART_HINT)
    return path


def restore(search: CompiledSearch, folder: str) -> None:
    clean_stale(folder)
    path = _verified(folder)
    try:
        _load(search, folder, path)
    except (OSError, ValueError, KeyError, zipfile.BadZipFile) as err:
        # The checksum matched, so this is a file another modelcheck wrote.
        raise UsageError(f"cannot read the checkpoint {path}: {err}", hint=_RESTART_HINT) from None


def _load(search: CompiledSearch, folder: str, path: Path) -> None:
    with np.load(path) as data:
        meta = loads_json(bytes(data["meta"]), f"the checkpoint {path}")
        if meta["signature"] != _signature(search):
            raise UsageError(f"the checkpoint in {folder} was written for another spec, "
                             f"constants or options",
                             hint="resume with the same spec, -D values, --exact, "
                                  "--no-deadlock and --invariant options")
        words = search.k.layout.words
        keys = np.asarray(data["table_keys"], dtype=np.int64)
        used = keys != SIGN
        exact = int(np.asarray(data["table_meta"])[M_EXACT])
        table = {"keys": keys[used], "tags": np.asarray(data["table_tags"])[used],
                 "exact": np.array([exact])}
        if exact:
            table["states"] = np.asarray(data["table_states"]).reshape(-1, words)[used]
        search.table = table_from_entries(words, table, search.shard_count())
        search.front = np.array(data["front"], dtype=np.int64).reshape(-1, words)
        search.fbuf = search.front
        # the finds made earlier in this level are not known apart: the
        # kernel ends its call at this level's end (serial.py, _crossing)
        search.level_finds = -1
        search.pos = 0
        found_next = np.array(data["next"], dtype=np.int64).reshape(-1, words)
        search.nxt = np.empty((max(1024, 2 * len(found_next)), words), dtype=np.int64)
        search.nxt[:len(found_next)] = found_next
        for name in ("ctr", "act_counts", "want", "want_step", "found", "frows", "frows2",
                     "faid"):
            getattr(search, name)[...] = data[name]
        search.restored()
    search.depth = int(meta["depth"])
    search.found_level = list(meta["found_level"])
    search.elapsed_before = float(meta["elapsed"])
    search.chunk = int(meta["chunk"])
