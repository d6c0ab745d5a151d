"""Counterexamples from the fingerprint table: walk the parent tags back to an
initial state, then re-execute forward.

The table stores, per state, the 32-bit tag of its parent.  Walking back
gives a chain of stored (canonical) states; a tag shared by two entries is
resolved by trying each, and a chain is accepted only if it reaches an
initial state in exactly the right number of steps *and* re-executes.

With symmetry the table holds orbit representatives, and the search expanded
exactly those.  Re-execution follows them (each step takes the first
successor whose representative is the next entry of the chain) while it
carries the permutation from the representative to the concrete state; the
concrete successor is the permuted successor, and the action instance is
the one that takes the concrete state there.  The trace is therefore a
behaviour of the un-reduced spec, whether or not the representative of an
orbit is unique.
"""
from __future__ import annotations

from typing import Iterator

import numpy as np

from modelcheck.engines.compiled.kernels import CompiledModel
from modelcheck.engines.compiled.search.shards import ShardedTable
from modelcheck.engines.compiled.kernel.table import FingerprintTable, tag_from_fp
from modelcheck.trace.trace import Step, Trace

__all__ = ["Path", "Target", "find_path", "replay_chain", "trace_of", "step_after",
           "concrete_step", "RebuildError"]

#: At most this many entries are considered for one parent tag.
_TAG_CANDIDATES = 64


class RebuildError(RuntimeError):
    """No chain in the table re-executes: an internal error."""


Path = list[tuple[int | None, np.ndarray]]   # (action id or None for Init, concrete words)
#: The seen-state table of the one-core or the parallel search.
Table = FingerprintTable | ShardedTable


def _chains(table: Table, slot: int, steps: int) -> Iterator[list[int]]:
    """Slot chains ending at ``slot`` that reach an initial entry in ``steps`` steps
    (listed from the initial entry).  A depth-first walk back along the
    parent tags, on a stack of its own: a trace may have millions of steps."""
    path: list[int] = []                # the slots from ``slot`` back
    stack = [iter((slot,))]             # each one's candidates left to try
    while stack:
        cand = next(stack[-1], None)
        if cand is None:
            stack.pop()
            if path:
                path.pop()
            continue
        cand = int(cand)
        path.append(cand)
        ptag = table.parent_tag(cand)
        if len(path) - 1 == steps:
            if ptag == 0:
                yield path[::-1]
            path.pop()
        elif ptag == 0:
            path.pop()
        else:
            stack.append(iter(table.find_tag(ptag, _TAG_CANDIDATES)))


def _representatives(kernels: CompiledModel, rows: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(representatives, their fingerprints, the permutations row -> representative)."""
    canon, perms = kernels.canonicalize_with_perms(rows)
    return canon, kernels.fingerprint(canon), perms


#: A stored state to reach: its fingerprint, and its words where they must
#: match too (``--exact``, or levels on disk), else None.
Target = tuple[int, np.ndarray | None]


def _target(table: Table, slot: int) -> Target:
    return table.fingerprint_at(slot), (table.row_at(slot) if table.exact else None)


def _match(target: Target, canon: np.ndarray, fps: np.ndarray) -> int | None:
    """The first row whose representative is ``target``."""
    fp, words = target
    for j in range(len(fps)):
        if int(fps[j]) == fp and \
                (words is None or np.array_equal(canon[j].view(np.int64), words)):
            return j
    return None


def concrete_step(kernels: CompiledModel, current: np.ndarray, post: np.ndarray) -> int | None:
    """The action instance taking ``current`` to ``post`` (the first one, in order)."""
    succ, _, aid, fault = kernels.expand(current)
    want = np.asarray(post).view(np.uint64)
    for k in range(len(succ)):
        if np.array_equal(succ[k], want):
            return int(aid[k])
    return None


def replay_chain(kernels: CompiledModel, chain: list[Target],
                 initial: np.ndarray) -> tuple[Path, np.ndarray] | None:
    """Re-execute the chain through the stored representatives ``r`` (whose
    successors the search computed), carrying the permutation ``pi`` with
    ``concrete = pi(r)``: the concrete successor of a step r -> t is pi(t)."""
    canon, fps, perms = _representatives(kernels, initial)
    start = _match(chain[0], canon, fps)
    if start is None:
        return None
    concrete = initial[start].copy()
    rep = canon[start].copy()
    pi = kernels.invert(perms[start])
    path: Path = [(None, concrete)]
    # Without symmetry every state is its own representative and pi the
    # identity: the successor matched is the concrete one, and the first
    # successor equal to it is the one matched (an earlier equal row would
    # have matched first), so its action instance is the step's.  A trace
    # of a deep search has as many steps as levels: one expansion a step.
    plain = not kernels.symmetric
    for target in chain[1:]:
        succ, _, aids, fault = kernels.expand(rep)
        if fault is not None:
            return None
        if plain:
            j = _match(target, succ, kernels.fingerprint(succ))
            if j is None:
                return None
            concrete = rep = succ[j].copy()
            path.append((int(aids[j]), concrete))
            continue
        canon, fps, perms = _representatives(kernels, succ)
        j = _match(target, canon, fps)
        if j is None:
            return None
        post = kernels.permute(succ[j], pi)[0]
        aid = concrete_step(kernels, concrete, post)
        if aid is None:
            return None
        path.append((aid, post.copy()))
        concrete, rep = post.copy(), canon[j].copy()
        pi = kernels.compose(pi, kernels.invert(perms[j]))
    return path, pi


def find_path(kernels: CompiledModel, table: Table, row: np.ndarray, level: int,
              initial: np.ndarray) -> tuple[Path, np.ndarray]:
    """A concrete path from an initial state to ``pi(row)``, where ``row`` is a
    stored representative found at ``level`` (initial states are level 1);
    returns the path and ``pi``."""
    row = np.asarray(row).view(np.int64)
    fp = int(kernels.fingerprint(row)[0])
    slot = table.lookup(fp, row)
    if slot < 0:
        raise RebuildError("internal error: the state to rebuild a trace to is not in the table")
    for chain in _chains(table, slot, level - 1):
        found = replay_chain(kernels, [_target(table, s) for s in chain], initial)
        if found is not None:
            return found
    raise RebuildError(f"internal error: no path of {level - 1} steps to the state re-executes")


def step_after(kernels: CompiledModel, concrete: np.ndarray, pi: np.ndarray,
               post_of_rep: np.ndarray) -> tuple[int, np.ndarray] | None:
    """The concrete counterpart of the step ``rep -> post_of_rep`` taken from
    ``concrete = pi(rep)``: (action instance, ``pi(post_of_rep)``)."""
    post = kernels.permute(np.asarray(post_of_rep).view(np.int64), pi)[0]
    aid = concrete_step(kernels, concrete, post)
    return None if aid is None else (aid, post.copy())


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
