"""Counterexamples from the fingerprint table: walk the parent tags back to an
initial state, then re-execute forward from concrete states.

The table stores, per state, the 40-bit tag of its parent.  Walking back
gives a chain of stored (canonical) states; a tag shared by two entries is
resolved by trying each, and a chain is accepted only if it reaches an
initial state in exactly the right number of steps *and* re-executes: from
the concrete initial state, each step takes the first successor whose
canonical fingerprint (canonical words, with ``exact``) is the next one in
the chain.  With symmetry the concrete successor is kept, not its
representative, so the trace is a behaviour of the un-reduced spec.
"""
from __future__ import annotations

from typing import Any, Iterator

import numpy as np

from modelcheck.engines.compiled.kernels import CompiledModel
from modelcheck.engines.compiled.table import FingerprintTable, tag_from_fp
from modelcheck.trace.trace import Step, Trace

__all__ = ["Path", "find_path", "trace_of", "step_after", "RebuildError"]

#: At most this many entries are considered for one parent tag.
_TAG_CANDIDATES = 64


class RebuildError(RuntimeError):
    """No chain in the table re-executes: an internal error."""


Path = list[tuple[int | None, np.ndarray]]   # (action id or None for Init, concrete words)


def _chains(table: FingerprintTable, slot: int, steps: int) -> Iterator[list[int]]:
    """Slot chains ending at ``slot`` that reach an initial entry in ``steps`` steps
    (listed from the initial entry)."""
    ptag = table.parent_tag(slot)
    if steps == 0:
        if ptag == 0:
            yield [slot]
        return
    if ptag == 0:
        return
    for cand in table.find_tag(ptag, _TAG_CANDIDATES):
        for chain in _chains(table, cand, steps - 1):
            yield chain + [slot]


def _canonical_fps(kernels: CompiledModel, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    canon = kernels.canonicalize(rows)
    return canon, kernels.fingerprint(canon)


def _replay_chain(kernels: CompiledModel, table: FingerprintTable, chain: list[int],
                  initial: np.ndarray) -> Path | None:
    exact = table.exact
    canon, fps = _canonical_fps(kernels, initial)
    start = None
    for i in range(len(initial)):
        if int(fps[i]) == table.fingerprint_at(chain[0]) and \
                (not exact or np.array_equal(canon[i].view(np.int64), table.states[chain[0]])):
            start = i
            break
    if start is None:
        return None
    path: Path = [(None, initial[start].copy())]
    current = initial[start]
    for slot in chain[1:]:
        succ, _, aid, fault = kernels.expand(current)
        if fault is not None:
            return None
        canon, fps = _canonical_fps(kernels, succ)
        target = table.fingerprint_at(slot)
        hit = None
        for j in range(len(succ)):
            if int(fps[j]) == target and \
                    (not exact or np.array_equal(canon[j].view(np.int64), table.states[slot])):
                hit = j
                break
        if hit is None:
            return None
        current = succ[hit].copy()
        path.append((int(aid[hit]), current))
    return path


def find_path(kernels: CompiledModel, table: FingerprintTable, row: np.ndarray, level: int,
              initial: np.ndarray) -> Path:
    """A concrete path from an initial state to a state whose representative
    is the stored ``row`` (found at ``level``: initial states are level 1)."""
    row = np.asarray(row).view(np.int64)
    fp = int(kernels.fingerprint(row)[0])
    slot = table.lookup(fp, row)
    if slot < 0:
        raise RebuildError("internal error: the state to rebuild a trace to is not in the table")
    for chain in _chains(table, slot, level - 1):
        path = _replay_chain(kernels, table, chain, initial)
        if path is not None:
            return path
    raise RebuildError(f"internal error: no path of {level - 1} steps to the state re-executes")


def step_after(kernels: CompiledModel, current: np.ndarray, target_canonical: np.ndarray,
               accept: Any = None) -> tuple[int, np.ndarray] | None:
    """The first successor of ``current`` whose representative is
    ``target_canonical`` (and for which ``accept(post)`` holds, if given)."""
    succ, _, aid, fault = kernels.expand(current)
    if fault is not None:
        return None
    canon, _ = _canonical_fps(kernels, succ)
    want = np.asarray(target_canonical).view(np.uint64)
    for j in range(len(succ)):
        if np.array_equal(canon[j], want) and (accept is None or accept(succ[j])):
            return int(aid[j]), succ[j].copy()
    return None


def trace_of(kernels: CompiledModel, path: Path, kind: str, prop: str | None) -> Trace:
    steps = []
    for aid, words in path:
        state = kernels.decode_dict(words)
        if aid is None:
            steps.append(Step(None, (), state))
        else:
            name, params = kernels.action_label(aid)
            steps.append(Step(name, params, state))
    return Trace(kernels.model.name, steps, kind=kind, property_name=prop)


def tag_of_row(kernels: CompiledModel, row: np.ndarray) -> int:
    return tag_from_fp(int(kernels.fingerprint(row)[0]))
