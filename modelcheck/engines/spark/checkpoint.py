"""Durable checkpoints of the partitioned search, and resuming from them.

Layout of a checkpoint directory::

    manifest.json              the driver's state; written last, atomically
    level-000012/part-00003.npz  one file per partition: seen set and frontier

A checkpoint is taken after a complete level, so resuming re-runs nothing
and ends with the same counts as an uninterrupted run.  Part files are written
by whoever holds the part (the driver in-process, the executors on Spark), so
on a cluster the directory must be a path every executor and the driver can
read and write (a shared file system).  The manifest names the model by a
digest of its IR and of the options that change the state space, so a
checkpoint is never resumed against another model.
"""
from __future__ import annotations

import dataclasses
import enum
import hashlib
import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from modelcheck.engines.base import CheckOptions
from modelcheck.engines.spark.partition import Part
from modelcheck.errors import UsageError
from modelcheck.ir.nodes import Model

__all__ = ["FORMAT", "Hit", "LevelLog", "SearchState", "model_digest", "part_path",
           "level_folder", "write_part", "read_part", "write_manifest", "read_manifest",
           "CheckpointManifest"]

FORMAT = "modelcheck-spark-checkpoint/1"
MANIFEST = "manifest.json"


@dataclass(frozen=True)
class Hit:
    """A settled property, kept as fingerprints until the trace is built.
    ``what``: "state" (fps = the state), "step" (fps = pre, post) or
    "deadlock"; ``column``: the kernel column of a state or step property."""
    name: str
    what: str
    fps: tuple[int, ...]
    level: int
    column: int = -1


@dataclass(frozen=True)
class LevelLog:
    """Where one level ran, for the notes: ``level`` is the depth of the
    states it produced (1: the initial states), ``expanded`` how many states
    of the level before were expanded to produce them."""
    level: int
    where: str
    expanded: int
    new_states: int
    seconds: float


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
    parts: int
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


def part_path(directory: str, folder: str, index: int) -> str:
    return os.path.join(directory, folder, f"part-{index:05d}.npz")


def write_part(path: str, part: Part) -> None:
    """Write one part; a crash leaves a ``.tmp`` file, never a torn part."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        np.savez(f, seen_fp=part.seen_fp, seen_parent=part.seen_parent,
                 frontier_fp=part.frontier_fp, frontier=part.frontier)
    os.replace(tmp, path)


def read_part(path: str) -> Part:
    with np.load(path) as data:
        return Part(data["seen_fp"], data["seen_parent"], data["frontier_fp"], data["frontier"])


def write_manifest(directory: str, digest: str, folder: str, parts: int, words: int,
                   state: SearchState) -> None:
    """Point the checkpoint at ``folder`` (whose parts are written), then drop
    the folders of older checkpoints."""
    body = {"format": FORMAT, "digest": digest, "folder": folder, "parts": parts,
            "words": words, "state": state.to_json()}
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".manifest-", suffix=".tmp")
    with os.fdopen(fd, "w") as f:
        json.dump(body, f, indent=1)
    os.replace(tmp, os.path.join(directory, MANIFEST))
    for name in os.listdir(directory):
        if name.startswith("level-") and name != folder:
            shutil.rmtree(os.path.join(directory, name), ignore_errors=True)


def read_manifest(directory: str, digest: str) -> CheckpointManifest:
    """The checkpoint in ``directory``; a UsageError if there is none or it is
    for another model or options."""
    path = os.path.join(directory, MANIFEST)
    try:
        with open(path) as f:
            body = json.load(f)
    except FileNotFoundError:
        raise UsageError(f"no checkpoint in {directory!r} (no {MANIFEST})",
                         hint="resume from the directory given as the checkpoint directory "
                              "of the stopped run") from None
    except (OSError, ValueError) as err:
        raise UsageError(f"cannot read the checkpoint in {directory!r}: {err}") from None
    if body.get("format") != FORMAT:
        raise UsageError(f"{path} is not a Spark engine checkpoint "
                         f"(format {body.get('format')!r}, expected {FORMAT!r})")
    if body["digest"] != digest:
        raise UsageError(f"the checkpoint in {directory!r} is for another model or other options",
                         hint="resume with the same spec, -D constants, property selection, "
                              "deadlock and symmetry options as the stopped run")
    return CheckpointManifest(body["digest"], body["folder"], body["parts"], body["words"],
                              SearchState.from_json(body["state"]))
