"""Durable checkpoints of the level-synchronous search, and resuming from them.

Layout of a checkpoint directory::

    manifest.json                 the driver's state; written last, atomically
    level-000012/                 the level the manifest names:
      part-00000.npz                a part (seen set and frontier) per file: one
      part-00001.npz ...            written by the in-process search, or one per
                                    partition written by Spark's executors
                                    (``rdds.SparkPartitions.save``)

A checkpoint is taken after a complete level, so resuming re-runs nothing
and ends with the same counts as an uninterrupted run.  Files are written by
whoever holds the data (the driver in-process, the executors on Spark), so
on a cluster the directory must be a path every executor and the driver can
read and write (a shared file system).  The manifest names the model by a
digest of its IR and of the options that change the state space, so a
checkpoint is never resumed against another model.  It also lists every file
of the level with its sha256, checked on resume, so a torn or changed file is
refused rather than resumed into another search.  The driver fsyncs every
file before it writes the manifest (an npz part is also written to a
temporary name and renamed; on Spark the executor that writes a part
syncs it and reports its sha256); temporary files and level folders a
killed run left behind are removed
when the checkpoint is next read or written.
"""
from __future__ import annotations

import dataclasses
import enum
import hashlib
import json
import os
import shutil
import zipfile
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from modelcheck.engines.base import CheckOptions
from modelcheck.engines.spark.partition import Part
from modelcheck.errors import UsageError
from modelcheck.fsutil import (atomic_writer, read_json_file, remove_stale_temps, sha256_file,
                               write_atomic)
from modelcheck.ir.nodes import Model

__all__ = ["FORMAT", "NPZ", "Hit", "LevelLog", "SearchState", "model_digest",
           "part_name", "level_folder", "write_part", "read_part", "read_parts",
           "write_manifest", "read_manifest", "CheckpointManifest"]

FORMAT = "modelcheck-spark-checkpoint/4"
#: The layout of a level folder (see the module's docstring).
NPZ = "npz"
_FORMAT_FAMILY = "modelcheck-spark-checkpoint/"
_RESTART_HINT = "start the run again without --resume (or resume from another checkpoint folder)"
MANIFEST = "manifest.json"


@dataclass(frozen=True)
class Hit:
    """A settled property, kept as fingerprints until the trace is built.
    ``what``: "state" (fps = the state), "step" (fps = pre, post),
    "outside" (fps = parent, state: a state failing a constraint, never
    stored; an initial one is its own parent) or "deadlock"; ``column``: the kernel column of a state or step property."""
    name: str
    what: str
    fps: tuple[int, ...]
    level: int
    column: int = -1


@dataclass(frozen=True)
class LevelLog:
    """Where one level ran, for the notes: ``level`` is the depth of the
    states it produced (1: the initial states), ``expanded`` how many states
    of the level before were expanded to produce them; on Spark, the bytes
    of numpy data its Python tasks read from the JVM and gave back, and the
    bytes of candidates its shuffle moved (or, ``exchanged``, that went
    through the exchange files instead)."""
    level: int
    where: str
    expanded: int
    new_states: int
    seconds: float
    to_python: int = 0
    from_python: int = 0
    shuffled: int = 0
    exchanged: int = 0


@dataclass
class SearchState:
    """Everything the driver knows between two levels."""
    depth: int = 0
    distinct: int = 0
    generated: int = 0
    action_counts: list[int] = field(default_factory=list)
    hits: dict[str, Hit] = field(default_factory=dict)
    levels: list[LevelLog] = field(default_factory=list)
    elapsed_before_s: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {"depth": self.depth, "distinct": self.distinct, "generated": self.generated,
                "action_counts": list(self.action_counts),
                "hits": [dataclasses.asdict(h) for h in self.hits.values()],
                "levels": [dataclasses.asdict(lv) for lv in self.levels],
                "elapsed_before_s": self.elapsed_before_s}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "SearchState":
        hits = [Hit(h["name"], h["what"], tuple(h["fps"]), h["level"], h["column"])
                for h in data["hits"]]
        return cls(data["depth"], data["distinct"], data["generated"], list(data["action_counts"]),
                   {h.name: h for h in hits}, [LevelLog(**lv) for lv in data["levels"]],
                   data.get("elapsed_before_s", 0.0))


@dataclass(frozen=True)
class CheckpointManifest:
    digest: str
    folder: str
    layout: str                 # NPZ
    files: tuple[str, ...]      # relative to the level folder
    words: int
    state: SearchState


# ------------------------------------------------------------------ identity

def _canonical(obj: Any) -> Any:
    """A JSON-able form of IR objects that does not depend on hash order."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return [type(obj).__name__] + [[f.name, _canonical(getattr(obj, f.name))]
                                       for f in dataclasses.fields(obj)
                                       if f.compare and f.name != "span"]
    if isinstance(obj, enum.Enum):
        return [type(obj).__name__, obj.name]
    if isinstance(obj, (frozenset, set)):
        items = [json.dumps(_canonical(x), sort_keys=True) for x in obj]
        return ["set"] + sorted(items)
    if isinstance(obj, dict) or hasattr(obj, "items") and hasattr(obj, "keys"):
        items = [[json.dumps(_canonical(k), sort_keys=True), _canonical(v)] for k, v in obj.items()]
        return ["map"] + sorted(items, key=lambda kv: kv[0])
    if isinstance(obj, (list, tuple)):
        return ["seq"] + [_canonical(x) for x in obj]
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    return repr(obj)


def model_digest(model: Model, options: CheckOptions, words: int) -> str:
    """Names the state space: the model and the options that shape it."""
    shape = {"model": _canonical(model), "symmetry": options.symmetry, "exact": options.exact,
             "invariants": list(options.invariants) if options.invariants is not None else None,
             "deadlock": options.deadlock, "words": words}
    return hashlib.sha256(json.dumps(shape, sort_keys=True).encode()).hexdigest()


# ------------------------------------------------------------------ files

def level_folder(depth: int) -> str:
    return f"level-{depth:06d}"


def part_name(index: int) -> str:
    return f"part-{index:05d}.npz"


def write_part(directory: str, folder: str, name: str, part: Part) -> None:
    """Write one part; a crash leaves a temporary file, never a torn part."""
    path = os.path.join(directory, folder, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with atomic_writer(path, binary=True, durable=True) as f:
        np.savez(f, seen_fp=part.seen_fp, seen_parent=part.seen_parent,
                 frontier_fp=part.frontier_fp, frontier=part.frontier)


def read_part(path: str) -> Part:
    try:
        with np.load(path) as data:
            return Part(data["seen_fp"], data["seen_parent"], data["frontier_fp"],
                        data["frontier"])
    except (OSError, ValueError, KeyError, zipfile.BadZipFile) as err:
        raise UsageError(f"cannot read the checkpoint part {path}: {err}",
                         hint=_RESTART_HINT) from None


def read_parts(directory: str, manifest: "CheckpointManifest") -> list[Part]:
    """The parts of an NPZ checkpoint."""
    return [read_part(os.path.join(directory, manifest.folder, name)) for name in manifest.files]


def _clean_stale(directory: str, keep: str) -> None:
    """Drop what a killed run left: temporary files, and level folders other
    than ``keep`` (the one the manifest names)."""
    for name in os.listdir(directory):
        full = os.path.join(directory, name)
        if name.startswith("level-") and name != keep:
            shutil.rmtree(full, ignore_errors=True)
    remove_stale_temps(directory)
    remove_stale_temps(os.path.join(directory, keep))


def write_manifest(directory: str, digest: str, folder: str, layout: str,
                   files: list[str] | dict[str, str],
                   words: int, state: SearchState) -> None:
    """Point the checkpoint at ``folder`` (whose ``files`` are written), then
    drop the folders of older checkpoints."""
    if isinstance(files, dict):
        # Written, synced and checksummed by the executors (``SparkPartitions.save``).
        checksums = dict(files)
    else:
        checksums = {}
        for name in files:
            path = os.path.join(directory, folder, name)
            _fsync(path)
            checksums[name] = sha256_file(path)
    body = {"format": FORMAT, "digest": digest, "folder": folder, "layout": layout,
            "words": words, "sha256": checksums, "state": state.to_json()}
    write_atomic(os.path.join(directory, MANIFEST), json.dumps(body, indent=1), durable=True)
    _clean_stale(directory, folder)


def _fsync(path: str) -> None:
    """Make a file durable before the manifest names it (Spark's writers do
    not sync; the npz writer already has)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def read_manifest(directory: str, digest: str) -> CheckpointManifest:
    """The checkpoint in ``directory``; a UsageError if there is none, it is
    for another model or options, or a part file fails its checksum."""
    path = os.path.join(directory, MANIFEST)
    try:
        body = read_json_file(path)
    except FileNotFoundError:
        raise UsageError(f"no checkpoint in {directory!r} (no {MANIFEST})",
                         hint="resume from the directory given as the checkpoint directory "
                              "of the stopped run") from None
    except (OSError, ValueError) as err:
        raise UsageError(f"cannot read the checkpoint in {directory!r}: {err}",
                         hint=_RESTART_HINT) from None
    fmt = body.get("format") if isinstance(body, dict) else None
    if isinstance(fmt, str) and fmt.startswith(_FORMAT_FAMILY) and fmt != FORMAT:
        raise UsageError(f"the checkpoint in {directory!r} has format {fmt!r}; this modelcheck "
                         f"reads {FORMAT!r} only", hint=_RESTART_HINT)
    if fmt != FORMAT:
        raise UsageError(f"{path} is not a Spark engine checkpoint "
                         f"(format {fmt!r}, expected {FORMAT!r})")
    try:
        checksums = dict(body["sha256"])
        manifest = CheckpointManifest(body["digest"], body["folder"], body["layout"],
                                      tuple(sorted(checksums)), body["words"],
                                      SearchState.from_json(body["state"]))
        if manifest.layout != NPZ:
            raise ValueError(f"unknown layout {manifest.layout!r}")
    except (KeyError, TypeError, ValueError) as err:
        raise UsageError(f"the checkpoint manifest {path} is damaged ({err!r})",
                         hint=_RESTART_HINT) from None
    if manifest.digest != digest:
        raise UsageError(f"the checkpoint in {directory!r} is for another model or other options",
                         hint="resume with the same spec, -D constants, property selection, "
                              "deadlock and symmetry options as the stopped run")
    _verify_parts(directory, manifest, checksums)
    _clean_stale(directory, manifest.folder)
    return manifest


def _verify_parts(directory: str, manifest: CheckpointManifest,
                  checksums: dict[str, str]) -> None:
    for name in manifest.files:
        part = os.path.join(directory, manifest.folder, name)
        if not os.path.exists(part):
            raise UsageError(f"the checkpoint in {directory!r} is incomplete: {part} is missing",
                             hint=_RESTART_HINT)
        if checksums[name] != sha256_file(part):
            raise UsageError(f"the checkpoint part {part} is damaged: its sha256 does not match "
                             f"the manifest (truncated or changed on disk)", hint=_RESTART_HINT)
