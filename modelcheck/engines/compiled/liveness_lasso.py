"""Each liveness check on the recorded graph: its fair sets (``streett``),
the nearest one reached the way its form asks (``lasso_bfs``), and the lasso
as a trace (docs/design.md, "Liveness").

Only states whose successors were all recorded take part: after a bound, a
fair set among them is still a fair set of the whole graph (its steps and
enabled conditions are all known), so a violation found then is real; no
violation then is UNKNOWN.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from modelcheck.engines.base import PropertyResult, Status
from modelcheck.engines.compiled.liveness_scc import lasso_bfs, path_within, streett, taking_edges
from modelcheck.engines.compiled.rebuild import trace_of
from modelcheck.ir import nodes as ir
from modelcheck.trace.trace import Step, Trace

if TYPE_CHECKING:
    from modelcheck.engines.compiled.liveness_graph import LivenessSearch
    from modelcheck.engines.temporal import LivenessCheck

__all__ = ["check_liveness"]

_K = ir.TemporalKind


def check_liveness(search: "LivenessSearch", n: int, finished: bool,
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


def _lasso(search: "LivenessSearch", check: "LivenessCheck", pc: int, qc: int, n: int,
           weak: np.ndarray) -> Trace | None:
    g = search.graph
    expanded = np.zeros(n, dtype=np.uint8)
    expanded[:search.expanded] = 1
    not_q = (1 - g.predicate(qc, n)) & expanded
    ones = np.ones(n, dtype=np.uint8)
    if check.kind is _K.EVENTUALLY_ALWAYS:
        allowed, need, trigger = expanded, not_q, ones
    elif check.kind is _K.LEADS_TO:
        allowed, need, trigger = not_q, ones, g.predicate(pc, n) & not_q
    else:
        allowed, need, trigger = not_q, ones, ones
    label = np.zeros(n, dtype=np.int32)
    acc = np.zeros(n, dtype=np.uint8)
    off, dst = g.off[:n + 1], g.dst[:g.edges]
    emask = g.emask[:g.edges]
    ena = g.ena[:n]
    if streett(off, dst, emask, ena, weak, allowed, need, label, acc) == 0:
        return None
    initial = search.initial_ids()
    target, par = lasso_bfs(off, dst, initial, check.kind is not _K.EVENTUALLY, allowed,
                            trigger, acc)
    if target < 0:
        return None
    prefix: list[int] = []
    x = int(target)
    while x >= 0:
        if not prefix or prefix[-1] != x >> 1:
            prefix.append(x >> 1)
        x = int(par[x])
    prefix.reverse()
    cycle, wants = _cycle(search, prefix[-1], label, need, weak, off, dst, emask, ena)
    ids = prefix + cycle[1:-1]
    all_wants = [-1] * len(prefix) + wants[1:-1]
    path = search.replay(ids, all_wants)
    trace = trace_of(search.k, path, "counterexample", check.name)
    trace.loop = len(prefix) - 1
    if len(cycle) > 1:
        aid, words = search.step_to_id(path[-1][1], cycle[-1], wants[-1])
        name, params = search.k.action_label(aid)
        trace.loop_back = Step(name, params, search.k.decode_dict(words))
    if check.instance:
        trace.meta["instance"] = check.label
    return trace


def _cycle(search: "LivenessSearch", e: int, label: np.ndarray, need: np.ndarray,
           weak: np.ndarray, off: np.ndarray, dst: np.ndarray, emask: np.ndarray,
           ena: np.ndarray) -> tuple[list[int], list[int]]:
    """A cycle from ``e`` back to ``e`` inside ``e``'s fair set, through one
    edge taking each condition some edge of the set takes, a state disabling
    each weak condition no edge takes, and a ``need`` state: the ids (``[e]``
    alone for a stutter) and, per step, the condition it should take (-1)."""
    lab = int(label[e])
    members = np.flatnonzero(label == lab).astype(np.int64)
    nc = len(search.conditions)
    edges = taking_edges(off, dst, emask, label, lab, members, nc)
    stops: list[tuple[int, int, int]] = []       # (state, then state, condition) or (state, -1, -1)
    for f in range(nc):
        if edges[f, 0] >= 0:
            stops.append((int(edges[f, 0]), int(edges[f, 1]), f))
        elif weak[f]:
            off_states = members[((ena[members, f >> 3] >> (f & 7)) & 1) == 0]
            stops.append((int(off_states[0]), -1, -1))
    if not need[e]:
        stops.append((int(members[need[members] != 0][0]), -1, -1))
    ids, wants = [e], [-1]
    for u, v, f in stops:
        _walk(ids, wants, off, dst, label, lab, u)
        if v >= 0:
            ids.append(v)
            wants.append(f)
    _walk(ids, wants, off, dst, label, lab, e)
    if len(ids) == 1:
        return ids, wants
    if ids[-1] != e:
        raise RuntimeError("internal error: a liveness cycle does not close")
    return ids, wants


def _walk(ids: list[int], wants: list[int], off: np.ndarray, dst: np.ndarray,
          label: np.ndarray, lab: int, to: int) -> None:
    path = path_within(off, dst, label, np.int64(lab), np.int64(ids[-1]), np.int64(to))
    if len(path) == 0:
        raise RuntimeError("internal error: a fair set is not strongly connected")
    for v in path[1:]:
        ids.append(int(v))
        wants.append(-1)
