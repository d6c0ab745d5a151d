"""Resident seen sets: each executor keeps the fingerprints of the partitions
its tasks merged, between levels, in files in its own scratch directory.

A Spark task cannot keep state between levels, and the cached runs of the
seen set (``rdds.py``) reach a merge task only through the JVM-to-Python
pipe: every level re-read the whole seen set (16 bytes a state).  Here the
merge task of partition ``i`` at level ``k`` reads partition ``i``'s
fingerprints from files that the task of partition ``i`` at level ``k - 1``
wrote on the same executor (memory-mapped: the page cache holds them, and
every Python worker of the executor shares it), and writes level ``k``'s:

    <root>/<search>/p<i>/gen-<k>.json      the manifest: the run files, their
                                           sizes and the total (written last,
                                           by an atomic rename)
    <root>/<search>/p<i>/run-<k>[-c].npy   sorted uint64 fingerprints

``root`` is the executor's SparkFiles directory (one per executor, removed
with the application; in local mode the driver's).  Only fingerprints are
kept (8 bytes a state): the parents stay in the cached runs, which are read
only for traces, checkpoints and the fallback.

A resident copy is **valid** only if it is the generation the driver
expects (the level before) and holds exactly the number of states the
driver counted for the partition.  Anything else (a task placed on another
executor, an executor or worker restarted, the files cleared, a copy left
by an older level) is a **miss**: the task says so, and the driver runs the
level's merge again from the cached runs (the lineage), which also writes
the resident copies afresh.  So the resident copies only ever make a level
faster; the counts never depend on them.

The runs of a partition are log-structured: a new run is merged with the
newer runs no larger than twice it (a linear merge of sorted arrays), so a
partition holds O(log n) files and a lookup costs one galloping pass per
file.
"""
from __future__ import annotations

import json
import os
import shutil
import uuid
from typing import Any

import numpy as np

__all__ = ["resident_root", "ResidentKey", "load", "store", "clear", "member_sorted",
           "merge_sorted_fp"]

_U64 = np.uint64
#: The directory under the executor's scratch directory.
DIRNAME = "modelcheck-resident"

try:
    from numba import njit
except ImportError:          # pragma: no cover - numba ships with the compiled engine
    njit = None


def resident_root() -> str:
    """The executor's directory for resident copies (in a Python worker: the
    executor's SparkFiles directory; elsewhere a temporary directory)."""
    root = None
    try:
        from pyspark import SparkFiles
        root = SparkFiles._root_directory                  # set in a Python worker
        if root is None:
            from pyspark import SparkContext
            if SparkContext._active_spark_context is not None:
                root = SparkFiles.getRootDirectory()
    except Exception:       # pragma: no cover - no pyspark
        root = None
    if not root:
        import tempfile
        root = tempfile.gettempdir()
    return os.path.join(root, DIRNAME)


class ResidentKey:
    """Where partition ``part`` of search ``search`` keeps its copy."""

    def __init__(self, search: str, part: int, root: str | None = None):
        self.dir = os.path.join(root or resident_root(), search, f"p{part}")

    def manifest(self, gen: int) -> str:
        return os.path.join(self.dir, f"gen-{gen}.json")


def load(key: ResidentKey, gen: int, expected: int) -> list[np.ndarray] | None:
    """The runs of generation ``gen`` (memory-mapped), or None when there is
    no valid copy (missing, another generation, another size, unreadable)."""
    try:
        with open(key.manifest(gen)) as f:
            man = json.load(f)
        if man.get("gen") != gen or man.get("n") != expected:
            return None
        runs = []
        for name, n in man["runs"]:
            arr = np.load(os.path.join(key.dir, name), mmap_mode="r")
            if arr.dtype != _U64 or arr.ndim != 1 or len(arr) != n:
                return None
            runs.append(arr)
        if sum(len(r) for r in runs) != expected:
            return None
        return runs
    except (OSError, ValueError, KeyError, TypeError):
        return None


def store(key: ResidentKey, gen: int, runs: list[np.ndarray], new: np.ndarray,
          fresh: bool = False) -> None:
    """Write generation ``gen``: the runs of ``gen - 1`` (already on disk
    unless ``fresh``) plus ``new`` (sorted), the newest runs merged while a
    newer one is at least half the size of the one before it.  Never raises:
    a copy that cannot be written is simply missing next time."""
    try:
        os.makedirs(key.dir, exist_ok=True)
        names: list[tuple[str, int]] = []
        arrays: list[np.ndarray] = []
        if fresh:
            # From the cached runs (the fallback): one file for them all.
            whole = merge_all([np.asarray(r, _U64) for r in runs if len(r)])
            runs = [whole] if len(whole) else []
            names = [(_write(key, f"run-{gen}-b.npy", whole), len(whole))] if len(whole) else []
        else:
            names = [(os.path.basename(r.filename), len(r)) if isinstance(r, np.memmap)
                     else (_write(key, f"run-{gen}-o{i}.npy", r), len(r))
                     for i, r in enumerate(runs)]
        arrays = list(runs)
        new = np.asarray(new, _U64)
        tag = 0
        # Log-structured: fold the new run into the newest ones no larger
        # than twice it.
        while arrays and len(arrays[-1]) <= 2 * len(new):
            new = merge_sorted_fp(np.asarray(arrays.pop()), new)
            names.pop()
            tag += 1
        if len(new):
            names.append((_write(key, f"run-{gen}-{tag}.npy", new), len(new)))
        man = {"gen": gen, "n": int(sum(n for _, n in names)), "runs": names}
        tmp = key.manifest(gen) + f".{uuid.uuid4().hex}.tmp"
        with open(tmp, "w") as f:
            json.dump(man, f)
        os.replace(tmp, key.manifest(gen))
        _tidy(key, gen, {n for n, _ in names})
    except OSError:
        try:
            os.unlink(key.manifest(gen))
        except OSError:
            pass


def _write(key: ResidentKey, name: str, arr: np.ndarray) -> str:
    tmp = os.path.join(key.dir, f".{uuid.uuid4().hex}.npy")
    np.save(tmp, np.ascontiguousarray(arr, dtype=_U64))
    os.replace(tmp, os.path.join(key.dir, name))
    return name


def _tidy(key: ResidentKey, gen: int, keep: set[str]) -> None:
    """Remove the manifests older than ``gen - 1`` and the files neither
    ``gen`` nor ``gen - 1`` uses (a task of ``gen`` that runs again still
    finds ``gen - 1``)."""
    try:
        prev = key.manifest(gen - 1)
        if os.path.exists(prev):
            with open(prev) as f:
                keep = keep | {n for n, _ in json.load(f)["runs"]}
    except (OSError, ValueError, KeyError):
        pass
    for name in os.listdir(key.dir):
        path = os.path.join(key.dir, name)
        if name.startswith("gen-") and name.endswith(".json"):
            try:
                g = int(name[4:-5])
            except ValueError:
                continue
            if g < gen - 1 or g > gen:
                _unlink(path)
        elif name.startswith("run-") and name not in keep:
            _unlink(path)


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def clear(search: str, root: str | None = None) -> None:
    """Remove every resident copy of ``search`` under ``root``."""
    shutil.rmtree(os.path.join(root or resident_root(), search), ignore_errors=True)


def merge_all(runs: list[np.ndarray]) -> np.ndarray:
    if not runs:
        return np.empty(0, _U64)
    out = runs[0]
    for r in runs[1:]:
        out = merge_sorted_fp(out, r)
    return np.asarray(out, _U64)


def _merge_py(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    out = np.concatenate([a, b])
    out.sort(kind="stable")
    return out


def _member_py(run: np.ndarray, fp: np.ndarray) -> np.ndarray:
    if len(run) == 0:
        return np.zeros(len(fp), dtype=bool)
    pos = np.searchsorted(run, fp)
    pos[pos == len(run)] = 0
    return run[pos] == fp


if njit is not None:
    @njit(cache=True, nogil=True)
    def _merge_nb(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        out = np.empty(len(a) + len(b), dtype=np.uint64)
        i = j = k = 0
        while i < len(a) and j < len(b):
            if a[i] <= b[j]:
                out[k] = a[i]
                i += 1
            else:
                out[k] = b[j]
                j += 1
            k += 1
        while i < len(a):
            out[k] = a[i]
            i += 1
            k += 1
        while j < len(b):
            out[k] = b[j]
            j += 1
            k += 1
        return out

    @njit(cache=True, nogil=True)
    def _member_nb(run: np.ndarray, fp: np.ndarray) -> np.ndarray:
        """For sorted ``fp``: which are in sorted ``run``, by galloping from
        the last position (O(m log(n/m)) for m needles in n)."""
        out = np.zeros(len(fp), dtype=np.bool_)
        n = len(run)
        lo = 0
        for i in range(len(fp)):
            f = fp[i]
            if lo >= n:
                break
            if run[lo] >= f:
                out[i] = run[lo] == f
                continue
            # run[lo] < f: gallop to a bound hi with run[hi] >= f (or n)
            step = 1
            hi = lo + 1
            while hi < n and run[hi] < f:
                lo = hi
                step <<= 1
                hi = lo + step
            if hi > n:
                hi = n
            # run[lo] < f <= run[hi] (hi may be n): binary search
            while hi - lo > 1:
                mid = (lo + hi) >> 1
                if run[mid] < f:
                    lo = mid
                else:
                    hi = mid
            lo = hi
            if lo < n:
                out[i] = run[lo] == f
        return out


def merge_sorted_fp(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Two sorted uint64 arrays as one (linear)."""
    if not len(a):
        return np.array(b, _U64)
    if not len(b):
        return np.array(a, _U64)
    if njit is None:
        return _merge_py(np.asarray(a, _U64), np.asarray(b, _U64))
    return _merge_nb(np.asarray(a, _U64), np.asarray(b, _U64))


def member_sorted(run: Any, fp: np.ndarray) -> np.ndarray:
    """Which of the sorted fingerprints ``fp`` the sorted ``run`` holds."""
    if njit is None or len(fp) < 64:
        return _member_py(np.asarray(run), fp)
    return _member_nb(np.asarray(run), np.asarray(fp, _U64))
