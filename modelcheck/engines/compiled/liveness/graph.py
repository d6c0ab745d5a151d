"""The liveness run of the compiled engine: the safety search that also
records the state graph (live_driver.py), then each liveness check on it
(liveness/lasso.py).

State ids are breadth-first order (the frontier of a level is a run of
consecutive ids), and the table's tag of each entry holds its id.  Per state
the graph keeps its number of successors, the enabled conditions and the
predicate bits; per edge the target id and the conditions taken: 4 +
ceil(C/8) + ceil(L/8) bytes per state and 4 + ceil(C/8) per edge, for C
fairness conditions and L predicates.  No parents: a trace to a state is a
breadth-first search of the graph (as short as the parents' would be).
"""
from __future__ import annotations

import time

import numpy as np

from modelcheck.engines.base import CheckOptions, CheckResult, PropertyResult, Reporter, Status
from modelcheck.engines.compiled.kernel.driver import (AT_BOUND, C_NEXT, DONE, FAULT, O_GROW_AT,
                                                STOPPED)
from modelcheck.engines.compiled.search.faults import fault_error
from modelcheck.engines.compiled.kernels import CompiledModel
from modelcheck.engines.compiled.kernel.live_driver import GROW_EDGES, GROW_STATES
from modelcheck.engines.compiled.search.rebuild import Path, RebuildError
from modelcheck.engines.compiled.search.serial import CHUNK_TARGET_S, CompiledSearch
from modelcheck.evaluate.temporal import FairCondition, LivenessCheck

__all__ = ["LiveGraph", "LivenessSearch", "fair_masks", "unknown_results"]


def fair_masks(kernels: CompiledModel, conditions: list[FairCondition]) -> np.ndarray:
    """(instances, ceil(C/8)) bits: the conditions each action instance's
    steps take (when they change the state)."""
    nb = (len(conditions) + 7) // 8
    out = np.zeros((max(1, kernels.instances), nb), dtype=np.uint8)
    for aid in range(kernels.instances):
        name, params = kernels.action_label(aid)
        for f, cond in enumerate(conditions):
            if cond.matches(name, params):
                out[aid, f >> 3] |= np.uint8(1 << (f & 7))
    return out


class LiveGraph:
    """The recorded graph's arrays, grown by doubling."""

    def __init__(self, npreds: int, amask: np.ndarray):
        self.nb = amask.shape[1]
        self.lb = max(1, (npreds + 7) // 8)
        self.amask = amask
        self.deg = np.zeros(1024, dtype=np.uint32)
        self.off = np.zeros(1, dtype=np.int64)      # the CSR offsets, made by close()
        self.ena = np.zeros((1024, self.nb), dtype=np.uint8)
        self.lp = np.zeros((1024, self.lb), dtype=np.uint8)
        self.dst = np.zeros(4096, dtype=np.int32)
        self.emask = np.zeros((4096, self.nb), dtype=np.uint8)
        self.gmeta = np.zeros(2, dtype=np.int64)     # [0]: edges recorded

    @property
    def edges(self) -> int:
        return int(self.gmeta[0])

    def grow_states(self, limit: int) -> None:
        n = self.deg.shape[0] * 2
        if n >= limit:
            raise MemoryError(f"more than {limit:,} states: the graph's ids are 32-bit")
        self.deg = _grown(self.deg, n)
        self.ena = _grown(self.ena, n)
        self.lp = _grown(self.lp, n)

    def grow_edges(self) -> None:
        n = self.dst.shape[0] * 2
        self.dst = np.resize(self.dst, n)
        self.emask = _grown(self.emask, n)

    def nbytes(self, states: int) -> int:
        """Bytes the graph of ``states`` states takes (its used part)."""
        per_state = 4 + self.nb + self.lb
        return states * per_state + self.edges * (4 + self.nb)

    def close(self, states: int) -> None:
        """The CSR offsets (states never expanded have no successors)."""
        self.off = np.zeros(states + 1, dtype=np.int64)
        np.cumsum(self.deg[:states], out=self.off[1:])

    def predicate(self, col: int, states: int) -> np.ndarray:
        return ((self.lp[:states, col >> 3] >> (col & 7)) & 1).astype(np.uint8)


def _grown(a: np.ndarray, n: int) -> np.ndarray:
    out = np.zeros((n,) + a.shape[1:], dtype=a.dtype)
    out[:a.shape[0]] = a
    return out


class LivenessSearch(CompiledSearch):
    """CompiledSearch with the graph recorded, then the liveness checks."""

    STOPS_WHEN_SETTLED = False     # liveness needs the whole graph

    def __init__(self, kernels: CompiledModel, options: CheckOptions, reporter: Reporter,
                 checks: list[LivenessCheck], conditions: list[FairCondition],
                 columns: list[tuple[int, int]]):
        super().__init__(kernels, options, reporter)
        self.checks = checks
        self.conditions = conditions
        self.columns = columns          # per check: (column of p or -1, column of q)
        self.graph = LiveGraph(len(kernels.live_preds), fair_masks(kernels, conditions))
        self.base = 0                   # id of front[0]
        self.expanded = 0               # states whose successors are all recorded
        self.initial_count = 0          # the initial states in the model: ids 0 ..

    # ------------------------------------------------------------ the search

    def _admit(self, rows: np.ndarray, pos: int) -> tuple[int, int]:
        t, g = self.table, self.graph
        return self.module.live_admit(
            rows, pos, t.keys, t.tags, t.states, t.meta, self.nxt, self.ctr, self.want,
            self.kinds, self.opts, self.found, self.frows, self.k.U, self.k.S, self.k.V,
            self.crow, self.k.err, self.flags, self.frows2, self.faid, g.deg, g.lp)

    def _initial_admitted(self) -> None:
        self.initial_count = self.table.count

    def _next_level(self) -> None:
        n = int(self.ctr[C_NEXT])
        super()._next_level()
        self.base = self.table.count - n

    def _expand_level(self) -> None:
        k, t, g = self.k, self.table, self.graph
        n = len(self.front)
        while self.pos < n:
            stop = min(n, self.pos + self.chunk)
            began = time.perf_counter()
            self.opts[O_GROW_AT] = t.grow_at()
            status, reached = self.module.live_chunk(
                self.front, self.pos, stop, self.base, t.keys, t.tags, t.states, t.meta,
                self.nxt, self.ctr, self.act_counts, k.action_of, self.want, self.kinds,
                self.want_step, self.opts, self.found, self.frows, self.frows2, self.faid,
                k.U, k.P, k.S, k.V, k.buf, k.bufaid, k.err, self.flags, self.sflags,
                g.deg, g.ena, g.lp, g.dst, g.emask, g.amask, g.gmeta)
            self.pos = int(reached)
            self._note_found(self.depth + 1, self.depth)
            if status == DONE:
                self.expanded = self.base + self.pos
                spent = max(time.perf_counter() - began, 1e-6)
                scale = min(4.0, max(0.25, CHUNK_TARGET_S / spent))
                self.chunk = int(min(1 << 20, max(64, self.chunk * scale)))
            elif status == FAULT:
                raise fault_error(self, self.front[self.pos], self.depth)
            elif status == STOPPED:
                self.stopped = True
                return
            elif status == AT_BOUND:
                self.expanded = self.base + self.pos
                raise self._state_bound()
            else:
                self.expanded = self.base + self.pos
                self._grow(status)
                t = self.table
            self._safe_point()

    def _grow(self, status: int) -> None:
        if status == GROW_EDGES:
            self.graph.grow_edges()
        elif status == GROW_STATES:
            self.graph.grow_states(1 << 32)
        else:
            super()._grow(status)

    # ------------------------------------------------------------ traces

    def ids_to(self, sid: int) -> list[int]:
        """The ids of a shortest path from an initial state to ``sid``."""
        from modelcheck.engines.compiled.liveness.scc import lasso_prefix
        n = self.distinct
        self.graph.close(n)
        ones = np.ones(n, dtype=np.uint8)
        target = np.zeros(n, dtype=np.uint8)
        target[sid] = 1
        x, par = lasso_prefix(self.graph.off, self.graph.dst[:self.graph.edges],
                              self.initial_ids(), 1, ones, ones, target)
        if x < 0:
            raise RebuildError("internal error: no path in the graph to the trace's state")
        out = []
        while x >= 0:
            out.append(int(x) >> 1)
            x = par[x]
        return out[::-1]

    def initial_ids(self) -> np.ndarray:
        return np.arange(self.initial_count, dtype=np.int64)

    def id_of(self, row: np.ndarray) -> int:
        row = np.asarray(row).view(np.int64)
        slot = self.table.lookup(int(self.k.fingerprint(row)[0]), row)
        return -1 if slot < 0 else int(self.table.tags[slot])

    def replay(self, ids: list[int], wants: list[int] | None = None) -> Path:
        """Re-execute the id path from its initial state: each step takes the
        first action instance reaching the next id (one that takes condition
        ``wants[i]`` for the step into ``ids[i]`` when asked)."""
        initial = self.initial_rows()
        start = next((r for r in initial if self.id_of(r) == ids[0]), None)
        if start is None:
            raise RebuildError("internal error: a liveness trace starts at no initial state")
        path: Path = [(None, start.copy())]
        for i, tid in enumerate(ids[1:], 1):
            want = -1 if wants is None else wants[i]
            path.append(self.step_to_id(path[-1][1], tid, want))
        return path

    def step_to_id(self, concrete: np.ndarray, tid: int, want: int) -> tuple[int, np.ndarray]:
        succ, _, aid, fault = self.k.expand(concrete)
        pick = None
        for j in range(len(succ)):
            if np.array_equal(succ[j], concrete) or self.id_of(succ[j]) != tid:
                continue
            a = int(aid[j])
            if want < 0 or (self.graph.amask[a, want >> 3] >> (want & 7)) & 1:
                return a, succ[j].copy()
            if pick is None:
                pick = (a, succ[j].copy())
        if pick is None:
            raise RebuildError("internal error: a step of a liveness trace does not re-execute")
        return pick

    def _path_to(self, row: np.ndarray, level: int, initial: np.ndarray) -> tuple:
        sid = self.id_of(row)
        if sid < 0:
            raise RebuildError("internal error: the state to rebuild a trace to is not stored")
        path = self.replay(self.ids_to(sid))
        pi = self.k.canonicalize_with_perms(np.asarray(row).reshape(1, -1))[1][0]
        return path, pi

    # ------------------------------------------------------------ results

    def run(self) -> CheckResult:
        result = super().run()
        from modelcheck.engines.compiled.liveness.lasso import check_liveness
        finished = result.reason is None and result.error is None and not self.stopped
        why = result.reason or ("the search did not finish" if result.error is None else
                                f"stopped by a run-time error ({result.error.diagnostic.code})")
        n = self.distinct
        began = time.perf_counter()
        self.graph.close(n)
        result.properties.extend(check_liveness(self, n, finished, why))
        result.stats.extras["liveness_check_s"] = round(time.perf_counter() - began, 3)
        graph_bytes = self.graph.nbytes(n)
        result.stats.extras.update({
            "liveness_graph_bytes": graph_bytes,
            "liveness_bytes_per_state": round(graph_bytes / max(1, n), 2),
            "liveness_edges": self.graph.edges,
            "liveness_fair_conditions": len(self.conditions),
            "liveness_memory_ratio": round(graph_bytes / max(1, self.table.nbytes()), 2),
        })
        return result


def unknown_results(checks: list[LivenessCheck], reason: str) -> list[PropertyResult]:
    """UNKNOWN for each liveness property, once per name."""
    from modelcheck.ir.nodes import PropertyKind
    names: list[str] = []
    for c in checks:
        if c.name not in names:
            names.append(c.name)
    return [PropertyResult(name, PropertyKind.LIVENESS, Status.UNKNOWN, reason=reason)
            for name in names]
