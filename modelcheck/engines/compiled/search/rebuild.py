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

A 32-bit tag is shared by another entry once in 2^32 / n lookups (n states
stored), and the walk back cannot tell them apart until it reaches an
initial state: a wrong turn costs the length of that entry's own chain,
which has wrong turns of its own.  When the trace is long and the table
large (depth times states well past 2^32: Hanoi with 14 disks, 4.8M states
and 16,383 steps), that branching grows without end.  So the walk has a
budget, a few lookups a step; past it, the levels are made again from the
initial states, keeping of each successor only what the table holds with
that parent's tag (the search's own tree, with no second table), and the
path is found level by level from the end, as from levels kept on disk
(search/kept_levels.py).

A trace of half a million steps takes minutes to rebuild, so every loop
here asks ``stop`` (the search's Ctrl-C/SIGTERM flag) as it goes and raises
``RebuildInterrupted``: the search's handler only sets that flag (a
KeyboardInterrupt inside a kernel would leave its tables half-updated), and
without the question a rebuild ran on after the user had asked to stop.
"""
from __future__ import annotations

import zlib
from typing import Callable, Iterator

import numpy as np
from numba import njit

from modelcheck.engines.compiled.kernels import CompiledModel
from modelcheck.engines.compiled.search.shards import ShardedTable
from modelcheck.engines.compiled.kernel.table import (FingerprintTable, key_of, table_lookup,
                                                      tag_from_fp)
from modelcheck.trace.trace import Step, Trace

__all__ = ["Path", "Target", "find_path", "replay_chain", "trace_of", "step_after",
           "concrete_step", "RebuildError", "RebuildInterrupted", "Stop", "check_stop",
           "representatives_of", "EXPAND_ROWS"]

#: At most this many entries are considered for one parent tag.
_TAG_CANDIDATES = 64
#: The walk back's budget: tag lookups a step of the trace (each replay
#: tried counts as many as the trace's steps), and a floor.
_LOOKUPS_A_STEP, _LOOKUPS_FLOOR = 4, 4096
#: Rows of a level expanded at once when the levels are made again or a
#: parent is looked for in them.
EXPAND_ROWS = 1 << 14


class RebuildError(RuntimeError):
    """No chain in the table re-executes: an internal error."""


class RebuildInterrupted(KeyboardInterrupt):
    """The user asked to stop (Ctrl-C, SIGTERM) while a trace was rebuilt."""


#: Whether the user has asked to stop; None where nobody can.
Stop = Callable[[], bool] | None


def check_stop(stop: Stop) -> None:
    if stop is not None and stop():
        raise RebuildInterrupted


class _OverBudget(Exception):
    """The walk back along the tags has spent its budget."""


Path = list[tuple[int | None, np.ndarray]]   # (action id or None for Init, concrete words)
#: The seen-state table of the one-core or the parallel search.
Table = FingerprintTable | ShardedTable


def _chains(table: Table, slot: int, steps: int, budget: list[int],
            stop: Stop = None) -> Iterator[list[int]]:
    """Slot chains ending at ``slot`` that reach an initial entry in ``steps`` steps
    (listed from the initial entry).  A depth-first walk back along the
    parent tags, on a stack of its own: a trace may have millions of steps.
    Raises _OverBudget once it has looked up ``budget[0]`` tags."""
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
            budget[0] -= 1
            if budget[0] < 0:
                raise _OverBudget
            check_stop(stop)
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


def replay_chain(kernels: CompiledModel, chain: list[Target], initial: np.ndarray,
                 stop: Stop = None) -> tuple[Path, np.ndarray] | None:
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
        check_stop(stop)
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
              initial: np.ndarray, stop: Stop = None) -> tuple[Path, np.ndarray]:
    """A concrete path from an initial state to ``pi(row)``, where ``row`` is a
    stored representative found at ``level`` (initial states are level 1);
    returns the path and ``pi``."""
    row = np.asarray(row).view(np.int64)
    fp = int(kernels.fingerprint(row)[0])
    slot = table.lookup(fp, row)
    if slot < 0:
        raise RebuildError("internal error: the state to rebuild a trace to is not in the table")
    budget = [_LOOKUPS_A_STEP * level + _LOOKUPS_FLOOR]
    try:
        for chain in _chains(table, slot, level - 1, budget, stop):
            found = replay_chain(kernels, [_target(table, s) for s in chain], initial, stop)
            if found is not None:
                return found
            budget[0] -= level
    except _OverBudget:
        return _path_by_levels_again(kernels, table, row, level, initial, stop)
    raise RebuildError(f"internal error: no path of {level - 1} steps to the state re-executes")


@njit(cache=True, nogil=True, _nrt=False)
def _held_with_tags(keys: np.ndarray, tags: np.ndarray, states: np.ndarray, meta: np.ndarray,
                    fps: np.ndarray, rows: np.ndarray, ptags: np.ndarray, out: np.ndarray) -> None:
    """``out[i]``: whether the table holds state ``i`` (fingerprint ``fps[i]``)
    with the parent tag ``ptags[i]``: whether the search stored it as a
    successor of a state with that tag."""
    for i in range(fps.shape[0]):
        slot = table_lookup(keys, states, meta, key_of(fps[i]), rows[i])
        out[i] = slot >= 0 and np.int64(tags[slot]) == ptags[i]


def _children(table: Table, fps: np.ndarray, rows: np.ndarray, ptags: np.ndarray) -> np.ndarray:
    """Which of the states the table holds with the parent tags ``ptags``
    (each shard of a sharded table asked for its own)."""
    out = np.zeros(len(fps), dtype=np.bool_)
    parts = [(table, np.arange(len(fps)))] if isinstance(table, FingerprintTable) else \
        [(t, np.flatnonzero(table.shard_of(fps) == n)) for n, t in enumerate(table.shards)]
    for t, sel in parts:
        if len(t.tags) == 0:
            raise RebuildError("internal error: the levels made again need the parent tags")
        if len(sel):
            held = np.zeros(len(sel), dtype=np.bool_)
            _held_with_tags(t.keys, t.tags, t.states, t.meta, fps[sel].view(np.int64),
                            np.ascontiguousarray(rows[sel]).view(np.int64),
                            ptags[sel].astype(np.int64), held)
            out[sel] = held
    return out


def representatives_of(kernels: CompiledModel, rows: np.ndarray) -> np.ndarray:
    """The rows' orbit representatives (the rows themselves without symmetry)."""
    return kernels.canonicalize(rows) if kernels.symmetric else rows


def _pack(a: np.ndarray) -> bytes:
    return zlib.compress(np.ascontiguousarray(a).tobytes(), 1)


def _path_by_levels_again(kernels: CompiledModel, table: Table, row: np.ndarray, level: int,
                          initial: np.ndarray, stop: Stop = None) -> tuple[Path, np.ndarray]:
    """The levels 1..``level`` of the search made again, then the path to
    ``row`` read back through them.  Level 1 is the initial representatives
    the table holds as initial; level k + 1 the successors of level k that
    it holds with their parent's tag: those the search stored from level
    k, and now and then one whose tag is another's (it is a successor all
    the same, so a path through it has the right length).  Each level is
    kept compressed, with the row in the level before of each of its rows."""
    words = kernels.layout.words
    row = np.asarray(row).view(np.int64)
    kept: list[tuple[bytes, bytes]] = []      # (rows, parent rows), compressed

    def members(rows: np.ndarray, ptags: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        canon = representatives_of(kernels, rows)
        fps = kernels.fingerprint(canon)
        keep = np.flatnonzero(_children(table, fps, canon, ptags))
        _, first = np.unique(fps[keep], return_index=True)
        keep = keep[np.sort(first)]
        return canon[keep], keep

    current, _ = members(initial, np.zeros(len(initial), dtype=np.int64))
    kept.append((_pack(current), b""))
    for _ in range(1, level):
        parts, parents = [], []
        for lo in range(0, len(current), EXPAND_ROWS):
            check_stop(stop)
            rows = current[lo:lo + EXPAND_ROWS]
            succ, parent, _, _ = kernels.expand(rows)
            tags = tag_from_fp(kernels.fingerprint(rows)).astype(np.int64)
            found, at = members(succ.view(np.int64), tags[parent])
            parts.append(found)
            parents.append(parent[at] + lo)
        current = np.concatenate(parts) if parts else np.zeros((0, words), dtype=np.int64)
        kept.append((_pack(current), _pack(np.concatenate(parents) if parents else
                                           np.zeros(0, dtype=np.int64))))
    at = np.flatnonzero((current == row).all(axis=1))
    if len(at) == 0:
        raise RebuildError(f"internal error: the state a trace goes to is not among the "
                           f"{len(current):,} states of level {level} made again")
    index = int(at[0])
    chain: list[Target] = []
    for n in range(level, 0, -1):
        blob, parent_blob = kept[n - 1]
        rep = np.frombuffer(zlib.decompress(blob), dtype=np.int64).reshape(-1, words)[index]
        chain.append((int(kernels.fingerprint(rep)[0]), rep.copy()))
        if n > 1:
            index = int(np.frombuffer(zlib.decompress(parent_blob), dtype=np.int64)[index])
    found = replay_chain(kernels, chain[::-1], initial, stop)
    if found is None:
        raise RebuildError(f"internal error: the path of {level - 1} steps through the levels "
                           f"made again does not re-execute")
    return found


def step_after(kernels: CompiledModel, concrete: np.ndarray, pi: np.ndarray,
               post_of_rep: np.ndarray) -> tuple[int, np.ndarray] | None:
    """The concrete counterpart of the step ``rep -> post_of_rep`` taken from
    ``concrete = pi(rep)``: (action instance, ``pi(post_of_rep)``)."""
    post = kernels.permute(np.asarray(post_of_rep).view(np.int64), pi)[0]
    aid = concrete_step(kernels, concrete, post)
    return None if aid is None else (aid, post.copy())


def trace_of(kernels: CompiledModel, path: Path, kind: str, prop: str | None,
             stop: Stop = None) -> Trace:
    steps = []
    for n, (aid, words) in enumerate(path):
        if n & 1023 == 0:
            check_stop(stop)
        state = kernels.decode_dict(words)
        if aid is None:
            steps.append(Step(None, (), state))
        else:
            name, params = kernels.action_label(aid)
            steps.append(Step(name, params, state))
    return Trace(kernels.model.name, steps, kind=kind, property_name=prop)


def tag_of_row(kernels: CompiledModel, row: np.ndarray) -> int:
    return tag_from_fp(int(kernels.fingerprint(row)[0]))
