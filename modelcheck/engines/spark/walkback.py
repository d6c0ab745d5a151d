"""Counterexamples from fingerprints: walk the parents back, then re-execute forward.

The search keeps only fingerprints and parent fingerprints.  To turn the
fingerprint of a bad state into a trace:

1. ``walk_back`` follows parent fingerprints to a root, for every wanted
   state at once: one lookup per step, which the Spark backend routes to the
   partitions owning the fingerprints asked for;
2. ``replay_forward`` re-executes the path on the driver with the kernels:
   from the initial state with the first fingerprint, expand and keep the
   successor whose representative has the next fingerprint, which recovers
   the states and the action instances taken (under symmetry the states are
   real successors, not the stored representatives);
3. ``to_trace`` decodes the rows into the reference evaluator's states.

Level-synchronous search stores, for each state, a parent one level up, so
the path is a shortest one.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from modelcheck.evaluate.evaluator import Evaluator
from modelcheck.engines.spark.kernels import SearchKernels, keys
from modelcheck.trace.trace import Trace
from modelcheck.trace.paths import trace_of

__all__ = ["WalkBackError", "walk_back", "replay_forward", "successor_with", "to_trace", "PathStep"]

#: (action instance id or None for the initial state, packed state row)
PathStep = tuple[int | None, np.ndarray]


class WalkBackError(RuntimeError):
    """The stored parents do not lead back to a root, or a path cannot be
    re-executed: a fingerprint collision or a kernel disagreeing with itself.
    Reported as an internal error, never as a verdict."""


def walk_back(lookup: Callable[[list[int]], dict[int, int]], targets: list[int],
              max_steps: int) -> dict[int, list[int]]:
    """For each target fingerprint, the fingerprints from a root to it."""
    paths: dict[int, list[int]] = {t: [t] for t in targets}
    pending = {t: t for t in targets}        # target -> fingerprint to look up next
    for _ in range(max_steps + 1):
        if not pending:
            return {t: list(reversed(p)) for t, p in paths.items()}
        asked = sorted(set(pending.values()))
        parents = lookup(asked)
        missing = [fp for fp in asked if fp not in parents]
        if missing:
            raise WalkBackError(f"state {missing[0]:#018x} is not in the seen set")
        for target, fp in list(pending.items()):
            parent = parents[fp]
            if parent == fp:                 # a root is its own parent
                del pending[target]
            else:
                paths[target].append(parent)
                pending[target] = parent
    raise WalkBackError(f"no root within {max_steps} steps: the parent chain loops")


def replay_forward(kernels: SearchKernels, path: list[int]) -> list[PathStep]:
    """Re-execute a path of fingerprints from an initial state."""
    init = np.ascontiguousarray(kernels.initial_states(), dtype=np.uint64)
    rows = np.flatnonzero(keys(kernels, init)[1] == np.uint64(path[0]))
    if not len(rows):
        raise WalkBackError(f"no initial state has fingerprint {path[0]:#018x}")
    row = init[rows[0]]
    out: list[PathStep] = [(None, row)]
    for fp in path[1:]:
        action, row = successor_with(kernels, row, fp)
        out.append((action, row))
    return out


def successor_with(kernels: SearchKernels, row: np.ndarray, fp: int,
                   accept: Callable[[np.ndarray, np.ndarray, int], bool] | None = None
                   ) -> tuple[int, np.ndarray]:
    """The first successor of ``row`` (in canonical order) with fingerprint
    ``fp`` (and, if given, satisfying ``accept(pre, post, action)``)."""
    exp = kernels.expand(row[None, :])
    if len(exp.failed):
        raise WalkBackError("a state on the path fails to expand")
    fps = keys(kernels, exp.succ)[1]
    for i in np.flatnonzero(fps == np.uint64(fp)):
        action = int(exp.action[i])
        if accept is None or accept(row, exp.succ[i], action):
            return action, exp.succ[i]
    raise WalkBackError(f"no successor with fingerprint {fp:#018x} on the path")


def to_trace(kernels: SearchKernels, evaluator: Evaluator, steps: list[PathStep], kind: str,
             property_name: str | None) -> Trace:
    path: list[tuple[str | None, tuple[tuple[str, Any], ...], tuple]] = []
    for action, row in steps:
        name, params = (None, ()) if action is None else kernels.action_label(action)
        path.append((name, tuple(params), kernels.decode(row)))
    return trace_of(evaluator, path, kind, property_name)
