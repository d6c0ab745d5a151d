"""Each liveness check on the recorded graph: its fair sets (``streett``),
the nearest one reached the way its form asks (``lasso_prefix``), and the lasso
as a trace (docs/design.md, "Liveness").

Only states whose successors were all recorded take part: after a bound, a
fair set among them is still a fair set of the whole graph (its steps and
enabled conditions are all known), so a violation found then is real; no
violation then is UNKNOWN.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from modelcheck.engines.base import PropertyResult, Status
from modelcheck.engines.compiled.liveness.scc import lasso_prefix, path_to_set, streett, taking_edges
from modelcheck.engines.compiled.search.rebuild import trace_of
from modelcheck.ir import nodes as ir
from modelcheck.trace.trace import Step, Trace

if TYPE_CHECKING:
    from modelcheck.evaluate.temporal import LivenessCheck

__all__ = ["check_liveness"]

#: The search whose graph holds the lasso: liveness/graph.py's LivenessSearch.
#: Named, not imported: that module imports this one.
LivenessSearch = Any

_K = ir.TemporalKind


def check_liveness(search: LivenessSearch, n: int, finished: bool,
                   why: str) -> list[PropertyResult]:
    """One result per liveness property: the first violated binding's lasso,
    HOLDS when the search finished, else UNKNOWN with ``why``."""
    out: dict[str, PropertyResult] = {}
    weak = np.array([1 if c.kind is ir.FairKind.WEAK else 0 for c in search.conditions],
                    dtype=np.uint8)
    for check, (pc, qc) in zip(search.checks, search.columns):
        if check.name in out and out[check.name].status is Status.VIOLATED:
            continue
        trace = _lasso(search, check, pc, qc, n, weak)
        if trace is not None:
            out[check.name] = PropertyResult(check.name, ir.PropertyKind.LIVENESS,
                                             Status.VIOLATED, trace=trace)
        elif check.name not in out:
            out[check.name] = (PropertyResult(check.name, ir.PropertyKind.LIVENESS, Status.HOLDS)
                               if finished else
                               PropertyResult(check.name, ir.PropertyKind.LIVENESS,
                                              Status.UNKNOWN, reason=why))
    return list(out.values())


def _lasso(search: LivenessSearch, check: "LivenessCheck", pc: int, qc: int, n: int,
           weak: np.ndarray) -> Trace | None:
    g = search.graph
    ones = np.broadcast_to(np.uint8(1), (n,))      # no memory
    if search.expanded >= n:
        expanded = ones
    else:
        expanded = np.zeros(n, dtype=np.uint8)
        expanded[:search.expanded] = 1
    not_q = (1 - g.predicate(qc, n)) & expanded
    # allowed: the states a fair set may hold; move1: where the prefix may go
    # once triggered (reference/liveness.py, ``find_lasso`` and ``_prefix``).
    trigger, start_mode, move1 = ones, 1, ones
    if check.kind is _K.EVENTUALLY_ALWAYS:
        allowed, need = expanded, not_q
    elif check.kind is _K.LEADS_TO:
        allowed, need, move1 = not_q, ones, not_q
        trigger, start_mode = g.predicate(pc, n) & not_q, 0
    elif check.kind is _K.EVENTUALLY:
        allowed, need, move1 = not_q, ones, not_q
    else:
        allowed, need = not_q, ones
    label = np.zeros(n, dtype=np.int32)
    acc = np.zeros(n, dtype=np.uint8)
    off, eb = g.off[:n + 1], g.eb
    ena = g.ena[:n]
    if streett(off, eb, ena, weak, allowed, need, label, acc) == 0:
        return None
    target, par = lasso_prefix(off, eb, g.nb, search.initial_ids(), start_mode, move1, trigger,
                               acc)
    del acc, allowed, move1, trigger, expanded
    if target < 0:
        return None
    prefix: list[int] = []
    x = int(target)
    while x >= 0:
        if not prefix or prefix[-1] != x >> 1:      # a mode switch is not a step
            prefix.append(x >> 1)
        x = int(par[x])
    del par         # the walk's memory (docs/engines/liveness.md, "Memory")
    prefix.reverse()
    path = search.replay(prefix)
    walk = _Walk(search, prefix[-1], path[-1][1], label, off, eb)
    walk.round(weak, ena, need if check.kind is _K.EVENTUALLY_ALWAYS else None)
    trace = trace_of(search.k, path + walk.steps[:-1], "counterexample", check.name)
    trace.loop = len(prefix) - 1
    if walk.steps:
        aid, row = walk.steps[-1]
        name, params = search.k.action_label(aid)
        trace.loop_back = Step(name, params, search.k.decode_dict(row))
    if check.instance:
        trace.meta["instance"] = check.label
    return trace


class _Walk:
    """The cycle of a lasso, from its first state ``entry`` back to it inside
    ``entry``'s fair set, chosen as the reference explorer chooses it
    (reference/liveness.py, ``_cycle``), so that both engines give lassos of
    one length.  Each step is re-executed as it is chosen: which conditions
    the walk has taken so far depends on the action each step runs (the
    first one reaching the next state, or one taking the condition the step
    is for), not on every action the recorded edge stands for."""

    def __init__(self, search: LivenessSearch, entry: int, row: np.ndarray, label: np.ndarray,
                 off: np.ndarray, eb: np.ndarray) -> None:
        self.search, self.entry, self.label, self.off, self.eb = search, entry, label, off, eb
        self.nb = search.graph.nb
        self.lab = np.int32(label[entry])
        self.members = np.flatnonzero(label == self.lab).astype(np.int64)
        self.here, self.row = entry, row
        self.nc = len(search.conditions)
        self.taken = np.zeros(self.nc, dtype=bool)
        self.visited = np.zeros(label.shape[0], dtype=np.uint8)
        self.visited[entry] = 1
        self.steps: list[tuple[int, np.ndarray]] = []   # (action instance, state); the last returns

    def round(self, weak: np.ndarray, ena: np.ndarray, need: np.ndarray | None) -> None:
        """Through a step taking each condition some step inside takes (the
        first such edge: members in id order, edges in order), a state
        disabling each weak condition none takes, a ``need`` state, and home;
        a waypoint the walk already met is skipped, and no step at all when
        standing still will do."""
        edges = taking_edges(self.off, self.eb, self.nb, self.label, self.lab, self.members,
                             self.nc)
        for f in range(self.nc):
            if self.taken[f]:
                continue
            if edges[f, 0] >= 0:
                self._go(self._path(self._only(int(edges[f, 0]))), int(edges[f, 1]), f)
            elif weak[f]:
                off_states = self.members[((ena[self.members, f >> 3] >> (f & 7)) & 1) == 0]
                if not self.visited[off_states].any():
                    self._go(self._path(self._only(*off_states)))
        if need is not None:
            wanted = self.members[need[self.members] != 0]
            if not self.visited[wanted].any():
                self._go(self._path(self._only(*wanted)))
        if self.steps:
            self._go(self._path(self._only(self.entry)))
            if self.here != self.entry:
                raise RuntimeError("internal error: a liveness cycle does not close")

    def _only(self, *states: int) -> np.ndarray:
        goal = np.zeros(self.label.shape[0], dtype=np.uint8)
        goal[list(states)] = 1
        return goal

    def _path(self, goal: np.ndarray) -> list[int]:
        path = path_to_set(self.off, self.eb, self.nb, self.label, self.lab, self.here, goal)
        if len(path) == 0 and not goal[self.here]:
            raise RuntimeError("internal error: a fair set is not strongly connected")
        return [int(v) for v in path]

    def _go(self, ids: list[int], last: int = -1, want: int = -1) -> None:
        amask = self.search.graph.amask
        for i, v in enumerate(ids + ([last] if last >= 0 else [])):
            aid, self.row = self.search.step_to_id(self.row, v, want if i == len(ids) else -1)
            for f in range(self.nc):
                if (amask[aid, f >> 3] >> (f & 7)) & 1:
                    self.taken[f] = True
            self.visited[v] = 1
            self.here = v
            self.steps.append((aid, self.row))
