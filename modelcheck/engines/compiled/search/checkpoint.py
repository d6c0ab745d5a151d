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
import time
import uuid
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from modelcheck.engines.compiled.kernel.driver import C_NEXT
from modelcheck.engines.compiled.kernel.runtime import SIGN
from modelcheck.engines.compiled.search.frontier import copy_level, load_level
from modelcheck.engines.compiled.search.memory import refilled
from modelcheck.engines.compiled.search.parents import keep_parents_on_disk
from modelcheck.engines.compiled.search.shards import entries_of
from modelcheck.engines.compiled.kernel.table import M_EXACT
from modelcheck.engines.compiled.kernel.widths import MODE_EXACT
from modelcheck.errors import UsageError
from modelcheck.fsutil import (atomic_writer, loads_json, read_json_file, remove_stale_temps,
                               sha256_file, write_atomic)

__all__ = ["save", "write", "restore", "MANIFEST", "DATA_PREFIX", "FORMAT", "FORMAT_DISK",
           "FORMAT_PARENTS", "FORMAT_NEWEST", "clean_stale"]

#: The search saved or restored: search/serial.py's CompiledSearch (or a
#: subclass).  Named, not imported: that module imports this one.
CompiledSearch = Any

MANIFEST = "compiled-checkpoint.json"
DATA_PREFIX = "compiled-checkpoint-"
# The single data file of format 2, recognised only to refuse it clearly.
OLD_FILE_NAME = "compiled-checkpoint.npz"
FORMAT = 3
#: A checkpoint whose levels are on disk (files beside the data file): an
#: older reader, which knows only FORMAT, refuses it rather than resume
#: with an empty frontier.
FORMAT_DISK = 4
#: A checkpoint of a search with its parents on disk (search/parents.py):
#: the levels kept for traces in a file beside the data file, a table
#: without tags.  The newest format: a reader refuses any above it.
FORMAT_PARENTS = 5
FORMAT_NEWEST = FORMAT_PARENTS
_FORMATS = (FORMAT, FORMAT_DISK, FORMAT_PARENTS)
_LEVEL_SUFFIXES = (".front", ".next", ".parents")
_RESTART_HINT = "start the run again without --resume (or resume from another checkpoint folder)"


def _signature(search: CompiledSearch) -> dict:
    """What a checkpoint must agree on to be resumed: the compiled module (spec,
    constants, symmetry), the constants it reads at run time (params.py), state
    storage and the properties checked."""
    o = search.options
    sig = {"format": FORMAT, "kernel": search.k.path.name,
           "params": [list(p) for p in search.k.generated.params], "exact": bool(o.exact),
           "deadlock": bool(o.deadlock),
           "invariants": None if o.invariants is None else sorted(o.invariants)}
    if o.fingerprint_bits != 64 and not o.exact:
        # only when wide: a checkpoint from before the option is a 64-bit one
        sig["fingerprint_bits"] = o.fingerprint_bits
    return sig


def _check_width(search: CompiledSearch, folder: str, saved: dict) -> None:
    """Refuse a checkpoint whose fingerprints are of another width than the
    run's: its table's keys could not be compared with the run's."""
    theirs = saved.get("fingerprint_bits", 64) if not saved.get("exact") else None
    o = search.options
    ours = None if o.exact else o.fingerprint_bits
    if theirs != ours and theirs is not None and ours is not None:
        raise UsageError(f"the checkpoint in {folder} holds {theirs}-bit fingerprints, "
                         f"not {ours}-bit ones",
                         hint=f"resume with --fingerprint-bits {theirs}")


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
    t = search.table
    if getattr(t, "fixed", False) and not t.side:
        # A preallocated table's slots as they are (empty ones included),
        # which savez streams: an entries list would be a copy of the table,
        # 12 GB beside it at a billion states.  The reader drops the empty ones.
        arrays = {"table_keys": t.keys, "table_tags": t.tags,
                  "table_meta": np.zeros(4, dtype=np.int64)}
    else:
        entries = entries_of(t)
        arrays = {"table_keys": entries["keys"], "table_tags": entries["tags"],
                  "table_meta": np.array([0, 0, entries["exact"][0], 0], dtype=np.int64)}
        if "states" in entries:
            arrays["table_states"] = entries["states"]
    nxt = int(search.ctr[C_NEXT])
    target = Path(folder) / _data_name()
    front, found_next = search.front[search.pos:], search.nxt[:nxt]
    fmt = FORMAT
    if search.frontier.on_disk():
        # The levels as files of their own beside the data file (streamed,
        # never whole in memory); the data file names them with their sha256.
        meta["levels"] = _save_levels(search, target, front, found_next)
        front, found_next = front[:0], found_next[:0]
        fmt = FORMAT_DISK
    if getattr(search, "parents", None) is not None:
        meta["parents"] = search.parents.save(target.parent / (target.stem + ".parents"))
        fmt = FORMAT_PARENTS
    arrays.update(front=front, next=found_next, ctr=search.ctr,
                  act_counts=search.act_counts, want=search.want, want_step=search.want_step,
                  found=search.found, frows=search.frows, frows2=search.frows2, faid=search.faid,
                  meta=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8))
    with atomic_writer(target, binary=True, durable=True) as f:
        np.savez(f, **arrays)
    manifest = {"format": fmt, "file": target.name, "sha256": sha256_file(target),
                "bytes": target.stat().st_size}
    write_atomic(Path(folder) / MANIFEST, json.dumps(manifest), durable=True)
    for name in os.listdir(folder):
        if (name.startswith(DATA_PREFIX) and name.endswith((".npz",) + _LEVEL_SUFFIXES)
                and Path(name).stem != target.stem):
            os.unlink(os.path.join(folder, name))
    return target


def write(search: CompiledSearch, note: bool = False) -> None:
    """A checkpoint between two chunks, if the search writes them; one that
    cannot be written (a full disk) costs the checkpoint, not the search:
    tried again at the next interval, said once until one is written."""
    folder = search.options.checkpoint_dir
    if not folder:
        return
    try:
        save(search, folder)
    except OSError as err:
        search.last_checkpoint = time.monotonic()
        if not search.checkpoint_failed:
            search.checkpoint_failed = True
            why = err.strerror or str(err)
            message = (f"checkpoint not written to {folder} ({why}); "
                       f"the search goes on without it")
            search.reporter.note(message)
            search.checkpoint_notes.append(message)
        return
    search.checkpoint_failed = False
    search.last_checkpoint = time.monotonic()
    if note:
        search.reporter.note(f"checkpoint written to {folder} "
                             f"({search.distinct:,} states); continue with --resume")


def _save_levels(search: CompiledSearch, target: Path, front: np.ndarray,
                 found_next: np.ndarray) -> dict:
    """The rest of the current level and the next level so far, each a level
    file (frontier.py's format) named after ``target``: {part: [file, rows,
    sha256]}."""
    fr = search.frontier
    words = search.k.layout.words

    def rest():
        if len(front):
            yield front
        yield from fr.current_rest()

    def upcoming():
        yield from fr.next_so_far()
        if len(found_next):
            yield found_next
    out = {}
    for part, rows in ((".front", rest()), (".next", upcoming())):
        name = target.stem + part
        n, digest = copy_level(rows, str(target.parent / name), words)
        out[part[1:]] = [name, n, digest]
    return out


def _formats() -> str:
    return ", ".join(str(f) for f in _FORMATS[:-1]) + f" and {_FORMATS[-1]}"


def _verified(folder: str) -> Path:
    """The checkpoint file in ``folder``, once its manifest says it is whole."""
    manifest_path = Path(folder) / MANIFEST
    if not manifest_path.exists():
        if (Path(folder) / OLD_FILE_NAME).exists():
            raise UsageError(f"the checkpoint in {folder} was written by an older modelcheck "
                             f"(format 2; this version reads formats {_formats()})",
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
    if fmt not in _FORMATS:
        raise UsageError(f"the checkpoint in {folder} has format {fmt!r}; this modelcheck "
                         f"reads formats {_formats()} only", hint=_RESTART_HINT)
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


def _load_levels(search: CompiledSearch, folder: str, levels: dict) -> None:
    """The levels a checkpoint kept on disk, checked against their sha256 and
    copied into the search's own level files (the checkpoint's may be
    replaced by the next checkpoint while the search reads them)."""
    fr = search.frontier
    words = search.k.layout.words
    files = {}
    for part in ("front", "next"):
        name, rows, digest = levels[part]
        path = Path(folder) / str(name)
        if Path(str(name)).name != name or not path.exists():
            raise UsageError(f"the checkpoint in {folder} is incomplete: {name} is missing",
                             hint=_RESTART_HINT)
        if sha256_file(path) != digest:
            raise UsageError(f"the checkpoint {path} is damaged: its sha256 does not match "
                             f"(truncated or changed on disk)", hint=_RESTART_HINT)
        files[part] = load_level(str(path), words, fr.policy.folder, fr.policy.compress)
        if files[part].rows != rows:
            raise ValueError(f"{path} holds {files[part].rows} rows, not {rows}")
    fr.close()
    if files["next"].rows == 0:
        files["next"].close()
        files["next"] = None
    fr.cur_disk, fr.next_disk = files["front"], files["next"]
    search.ctr[C_NEXT] = 0


def _parents_as_saved(search: CompiledSearch, folder: str, on_disk: bool) -> None:
    """The resumed search keeps its parents where the checkpoint's did: the
    traces of the levels before it are rebuilt from there."""
    if on_disk and search.parents is None and search.PARENTS_ON_DISK:
        keep_parents_on_disk(search)
    elif on_disk != (search.parents is not None):
        where = "on disk" if on_disk else "in its table"
        raise UsageError(f"the checkpoint in {folder} was written by a search that keeps the "
                         f"parents of its states {where}, which this search cannot",
                         hint="resume without --preallocate (a search that keeps them in the "
                              "table), or start the run again")


def _load_parents(search: CompiledSearch, folder: str, record: dict) -> None:
    """The levels kept for traces, checked against their sha256 and the rows
    per level the data file names, into the search's own file."""
    name = str(record["file"])
    path = Path(folder) / name
    if Path(name).name != name or not path.exists():
        raise UsageError(f"the checkpoint in {folder} is incomplete: {name} is missing",
                         hint=_RESTART_HINT)
    try:
        search.parents.load(path, record)
    except ValueError as err:
        raise UsageError(f"the checkpoint in {folder} is damaged: the levels kept for traces, "
                         f"{err}", hint=_RESTART_HINT) from None


#: Slots read at a time when a checkpoint's table is streamed back.
STREAM_SLOTS = 1 << 22


def _refill(search: CompiledSearch, data: Any, words: int) -> None:
    """The table from a checkpoint's arrays read whole."""
    keys = np.asarray(data["table_keys"], dtype=np.int64)
    used = keys != SIGN
    mode = int(np.asarray(data["table_meta"])[M_EXACT])    # kernel/widths.py
    tags = np.asarray(data["table_tags"])
    table = {"keys": keys[used], "tags": tags[used] if len(tags) else tags,
             "exact": np.array([mode])}
    if mode:
        side = words if mode == MODE_EXACT else 1
        table["states"] = np.asarray(data["table_states"]).reshape(-1, side)[used]
    search.table = refilled(search, table)


def _stream_table(search: CompiledSearch, data: Any) -> bool:
    """A checkpoint's keys and tags read a few million at a time into the
    search's preallocated table (made at the start, still empty), never
    whole in memory beside it; False where that does not apply (no
    preallocated table, --exact, shards: ``_refill``)."""
    t = search.table
    if (not getattr(t, "fixed", False) or t.side or t.count or search.shard_count() != 1
            or int(np.asarray(data["table_meta"])[M_EXACT])):
        return False
    members = [data.zip.open(f"{name}.npy") for name in ("table_keys", "table_tags")]
    try:
        shapes = []
        for f in members:
            version = np.lib.format.read_magic(f)
            shape, _, dtype = (np.lib.format.read_array_header_1_0(f) if version == (1, 0)
                               else np.lib.format.read_array_header_2_0(f))
            shapes.append((shape, dtype))
        n = shapes[0][0][0]
        none = np.zeros((1, t.words), dtype=np.int64)
        for lo in range(0, n, STREAM_SLOTS):
            m = min(STREAM_SLOTS, n - lo)
            keys = np.frombuffer(members[0].read(8 * m), dtype=shapes[0][1])
            # a table without tags (parents on disk) saved an empty array
            mt = m if shapes[1][0][0] else 0
            tags = np.frombuffer(members[1].read(shapes[1][1].itemsize * mt), dtype=shapes[1][1])
            if len(keys) != m or len(tags) != mt:
                raise ValueError("the checkpoint's table ends early")
            used = keys != SIGN
            t.fill_from(np.ascontiguousarray(keys[used], dtype=np.int64),
                        np.ascontiguousarray(tags[used] if mt else tags, dtype=np.uint32), none)
    finally:
        for f in members:
            f.close()
    return True


def _load(search: CompiledSearch, folder: str, path: Path) -> None:
    with np.load(path) as data:
        meta = loads_json(bytes(data["meta"]), f"the checkpoint {path}")
        _check_width(search, folder, meta["signature"])
        if meta["signature"] != _signature(search):
            raise UsageError(f"the checkpoint in {folder} was written for another spec, "
                             f"constants or options",
                             hint="resume with the same spec, -D values, --exact, "
                                  "--no-deadlock and --invariant options")
        _parents_as_saved(search, folder, "parents" in meta)
        words = search.k.layout.words
        if not _stream_table(search, data):
            _refill(search, data, words)
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
        if "levels" in meta:
            _load_levels(search, folder, meta["levels"])
        if "parents" in meta:
            _load_parents(search, folder, meta["parents"])
        search.restored()
    search.depth = int(meta["depth"])
    search.found_level = list(meta["found_level"])
    search.elapsed_before = float(meta["elapsed"])
    search.chunk = int(meta["chunk"])
