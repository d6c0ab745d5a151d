"""The liveness run of the compiled engine: the safety search that also
records the state graph (live_driver.py), then each liveness check on it
(liveness/lasso.py).

State ids are breadth-first order (the frontier of a level is a run of
consecutive ids), and the table's tag of each entry holds its id.  Per state
the graph keeps its number of successors, the enabled conditions and the
predicate bits (4 + ceil(C/8) + ceil(L/8) bytes, for C fairness conditions
and L predicates); per edge the target id and the conditions taken (4 +
ceil(C/8) bytes), in a buffer of ``EDGE_BLOCK`` edges that goes to a
temporary file whenever it fills, so the search holds the table, the
per-state arrays and the frontier only.  After the search the table moves
to a file (mapped back for the few look-ups a lasso makes), and the edges
are read back once into a coded byte string (liveness/edges.py, about 3.7
bytes an edge on Raft), its byte offsets written in place of the degrees:
docs/engines/liveness.md, "Memory".  No parents: a trace to a state is a
breadth-first search of the graph (as short as the parents' would be).
"""
from __future__ import annotations

import mmap
import tempfile
import time
from typing import Any, Iterator

import numpy as np

from modelcheck.engines.base import CheckOptions, CheckResult, PropertyResult, Reporter, Status
from modelcheck.engines.compiled.kernel.driver import (AT_BOUND, C_NEXT, DONE, FAULT, O_GROW_AT,
                                                STOPPED)
from modelcheck.engines.compiled.search.faults import fault_error
from modelcheck.engines.compiled.kernels import CompiledModel
from modelcheck.engines.compiled.kernel.live_driver import GROW_EDGES, GROW_STATES
from modelcheck.engines.compiled.liveness.edges import encode, encoded_size
from modelcheck.engines.compiled.search.rebuild import Path, RebuildError, Stop, check_stop
from modelcheck.engines.compiled.search.serial import CHUNK_TARGET_S, CompiledSearch
from modelcheck.evaluate.temporal import FairCondition, LivenessCheck

__all__ = ["LiveGraph", "LivenessSearch", "fair_masks", "spill_table", "unknown_results",
           "EDGE_BLOCK", "READ_BLOCK"]

#: The most edges held in memory during the search; past that, the buffer
#: goes to a temporary file whenever it is full (5 bytes an edge for up to 8
#: fairness conditions: 320 KiB).
EDGE_BLOCK = 1 << 16
#: Edges read back from the files at a time.
READ_BLOCK = 1 << 16


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


#: The reason of a liveness property whose cycle analysis the user stopped.
CYCLES_CUT = "interrupted (Ctrl-C or SIGTERM) before the cycle analysis ended"


class LiveGraph:
    """The recorded graph's arrays.  The per-state ones grow by doubling
    (calloc'd: pages past the states recorded are never touched); the edges
    are held in a buffer of at most ``EDGE_BLOCK`` edges and, past that,
    appended to temporary files, read back coded (``close``)."""

    def __init__(self, npreds: int, amask: np.ndarray, states: int = 1024):
        self.nb = amask.shape[1]
        self.lb = max(1, (npreds + 7) // 8)
        self.amask = amask
        states = max(1024, states)
        self.deg = np.zeros(states, dtype=np.uint32)
        self.off = np.zeros(1, dtype=np.int64)      # the CSR offsets, made by close()
        self.ena = np.zeros((states, self.nb), dtype=np.uint8)
        self.lp = np.zeros((states, self.lb), dtype=np.uint8)
        first = min(4096, EDGE_BLOCK)
        self.dst = np.zeros(first, dtype=np.int32)
        self.emask = np.zeros((first, self.nb), dtype=np.uint8)
        self.gmeta = np.zeros(2, dtype=np.int64)     # [0]: edges in the buffer
        self.spilled = 0                            # edges in the files
        self.files: tuple[Any, Any] | None = None   # (targets, masks), once spilled
        self.final = False                          # close(final=True) done: deg is off
        self.eb = np.zeros(0, dtype=np.uint8)       # the coded edges, made by close()

    @property
    def edges(self) -> int:
        return self.spilled + int(self.gmeta[0])

    def grow_states(self, limit: int) -> None:
        n = self.deg.shape[0] * 2
        if n >= limit:
            raise MemoryError(f"more than {limit:,} states: the graph's ids are 32-bit")
        self.deg = _grown(self.deg, n)
        self.ena = _grown(self.ena, n)
        self.lp = _grown(self.lp, n)

    def grow_edges(self) -> None:
        """Room for the next state's edges: a larger buffer, or the buffer's
        edges moved to the files (states are recorded whole, so the buffer
        holds no part of one when the kernel asks)."""
        if self.dst.shape[0] >= EDGE_BLOCK and self.gmeta[0] > 0:
            self.spill()
            return
        n = self.dst.shape[0] * 2
        self.dst = np.resize(self.dst, n)
        self.emask = _grown(self.emask, n)

    def spill(self) -> None:
        """Append the buffer's edges to the files and empty it."""
        m = int(self.gmeta[0])
        if m == 0:
            return
        if self.files is None:
            self.files = (tempfile.TemporaryFile(prefix="mc-live-dst-"),
                          tempfile.TemporaryFile(prefix="mc-live-emask-"))
        self.files[0].write(memoryview(self.dst[:m]))
        if self.nb:
            self.files[1].write(memoryview(self.emask[:m]))
        self.spilled += m
        self.gmeta[0] = 0

    def nbytes(self, states: int) -> int:
        """Bytes the graph of ``states`` states takes in memory for the
        analysis (after ``close``): the offsets, the per-state bits and the
        coded edges."""
        return self.off.nbytes + states * (self.nb + self.lb) + self.eb.nbytes

    def close(self, states: int, final: bool = False) -> None:
        """The graph as the analysis reads it (liveness/edges.py): the coded
        edges ``eb`` and the byte offsets ``off`` (states never expanded
        have no successors), read from the files and the buffer in blocks,
        twice (the size first, so ``eb`` is made once, at its size).
        ``final``: after the search, ``off`` is made in place of the degrees
        (int32 while the bytes allow) and the files and the buffer go."""
        if self.final:
            return
        total = int(self.deg[:states].sum(dtype=np.int64))
        st = np.array([-1, 0, 0, 0], dtype=np.int64)
        for dst, _ in self._blocks(total, masks=False):
            encoded_size(dst, self.deg, st, self.nb)
        size = int(st[3])
        eb = np.empty(size, dtype=np.uint8)
        if final and size < 2**31 - 1:
            if self.deg.shape[0] < states + 1:
                self.deg = _grown(self.deg, states + 1)
            off = self.deg.view(np.int32)[:states + 1]
        else:
            off = np.empty(states + 1, dtype=np.int32 if size < 2**31 - 1 else np.int64)
        st[:] = (-1, 0, 0, 0)
        for dst, emask in self._blocks(total, masks=True):
            encode(dst, emask, self.deg, off, eb, st, self.nb)
        off[int(st[0]) + 1:] = size
        self.eb, self.off = eb, off
        if final:
            self.final = True
            self.deg = self.deg[:0]
            self.dst = self.dst[:0].copy()
            self.emask = self.emask[:0].copy()
            if self.files is not None:
                for f in self.files:
                    f.close()
                self.files = None

    def _blocks(self, total: int, masks: bool) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """The first ``total`` edges, spilled ones first, in blocks."""
        left = total
        if self.files is not None:
            fd, fm = self.files
            fd.flush()
            fm.flush()
            fd.seek(0)
            fm.seek(0)
            dst = np.empty(READ_BLOCK, dtype=np.int32)
            emask = np.empty((READ_BLOCK if masks else 0, self.nb), dtype=np.uint8)
            done = 0
            while done < self.spilled and left > 0:
                k = min(READ_BLOCK, self.spilled - done, left)
                _read_into(fd, dst[:k])
                if masks:
                    _read_into(fm, emask[:k])
                yield dst[:k], emask[:k]
                done += k
                left -= k
            fd.seek(0, 2)
            fm.seek(0, 2)
        k = min(left, int(self.gmeta[0]))
        if k > 0:
            yield self.dst[:k], self.emask[:k]

    def predicate(self, col: int, states: int) -> np.ndarray:
        out = self.lp[:states, col >> 3] >> np.uint8(col & 7)
        out &= np.uint8(1)
        return out


def _trim() -> None:
    """Hand the C heap's free pages back to the OS (glibc's malloc_trim):
    the search's frontier buffers, freed, would otherwise stay resident
    while the analysis makes its arrays elsewhere."""
    try:
        import ctypes
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):       # not glibc
        pass


def _read_into(f: Any, a: np.ndarray) -> None:
    if a.size == 0:
        return
    view = memoryview(a).cast("B")
    got = 0
    while got < len(view):
        n = f.readinto(view[got:])
        if not n:
            raise RuntimeError("internal error: the liveness graph's edge file is short")
        got += n


def _grown(a: np.ndarray, n: int) -> np.ndarray:
    out = np.zeros((n,) + a.shape[1:], dtype=a.dtype)
    out[:a.shape[0]] = a
    return out


def spill_table(table: Any) -> Any:
    """Move the table's arrays to a temporary file, mapped back read-only
    (copy on write, never written): after the search the liveness run looks
    states up only to rebuild a lasso, a few pages; the rest of the table's
    memory is free for the cycle analysis.  Returns the file (kept open as
    long as the maps are used)."""
    arrays = [("keys", table.keys), ("tags", table.tags)]
    if table.side:      # the words (--exact) or a wide fingerprint's second word
        arrays.append(("states", table.states))
    f = tempfile.TemporaryFile(prefix="mc-live-table-")
    at = []
    pos = 0
    for _, a in arrays:
        pad = -pos % 8
        if pad:
            f.write(b"\0" * pad)
            pos += pad
        at.append(pos)
        f.write(memoryview(np.ascontiguousarray(a)).cast("B"))
        pos += a.nbytes
    f.flush()
    area = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_COPY)
    for (name, a), start in zip(arrays, at):
        view = np.frombuffer(area, dtype=a.dtype, count=a.size, offset=start).reshape(a.shape)
        setattr(table, name, view)
    return f


class LivenessSearch(CompiledSearch):
    """CompiledSearch with the graph recorded, then the liveness checks."""

    STOPS_WHEN_SETTLED = False     # liveness needs the whole graph
    SPILLS_LEVELS = False          # ids are positions in whole levels (base + row)
    PARENTS_ON_DISK = False        # its kernels keep each entry's id in the tags

    def __init__(self, kernels: CompiledModel, options: CheckOptions, reporter: Reporter,
                 checks: list[LivenessCheck], conditions: list[FairCondition],
                 columns: list[tuple[int, int]]):
        super().__init__(kernels, options, reporter)
        self.checks = checks
        self.conditions = conditions
        self.columns = columns          # per check: (column of p or -1, column of q)
        # Per-state arrays as long as the table holds before it grows: the
        # pages past the states recorded are never touched.
        self.graph = LiveGraph(len(kernels.live_preds), fair_masks(kernels, conditions),
                               self.table.grow_at() + 1)
        self.table_file: Any = None     # the table's file, once moved there (spill_table)
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
        ones = np.broadcast_to(np.uint8(1), (n,))
        target = np.zeros(n, dtype=np.uint8)
        target[sid] = 1
        g = self.graph
        x, par = lasso_prefix(g.off, g.eb, g.nb, self.initial_ids(), 1, ones, ones, target)
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

    def replay(self, ids: list[int], wants: list[int] | None = None, stop: Stop = None) -> Path:
        """Re-execute the id path from its initial state: each step takes the
        first action instance reaching the next id (one that takes condition
        ``wants[i]`` for the step into ``ids[i]`` when asked)."""
        initial = self.initial_rows()
        start = next((r for r in initial if self.id_of(r) == ids[0]), None)
        if start is None:
            raise RebuildError("internal error: a liveness trace starts at no initial state")
        path: Path = [(None, start.copy())]
        for i, tid in enumerate(ids[1:], 1):
            check_stop(stop)
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

    def _path_to(self, row: np.ndarray, level: int, initial: np.ndarray,
                 stop: Stop = None) -> tuple:
        sid = self.id_of(row)
        if sid < 0:
            raise RebuildError("internal error: the state to rebuild a trace to is not stored")
        path = self.replay(self.ids_to(sid), stop=stop)
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
        table_bytes = self.table.nbytes()
        began = time.perf_counter()
        # The analysis's memory: the search's buffers go, the table moves to
        # a file (a lasso looks a few states up), the edges are read back
        # from theirs (docs/engines/liveness.md, "Memory").
        w = self.k.layout.words
        self.front = np.zeros((0, w), dtype=np.int64)
        self.nxt = np.zeros((1024, w), dtype=np.int64)
        self.table_file = spill_table(self.table)
        _trim()
        self.graph.close(n, final=True)
        graph_bytes = self.graph.nbytes(n)
        try:
            result.properties.extend(check_liveness(self, n, finished, why))
        except KeyboardInterrupt:
            # the safety verdicts stand (their traces are out); the cycles are not known
            result.properties.extend(unknown_results(self.checks, CYCLES_CUT))
            result.notes.append(f"interrupted during the cycle analysis: {CYCLES_CUT}")
        result.stats.extras["liveness_check_s"] = round(time.perf_counter() - began, 3)
        result.stats.extras.update({
            "liveness_graph_bytes": graph_bytes,
            "liveness_bytes_per_state": round(graph_bytes / max(1, n), 2),
            "liveness_edges": self.graph.edges,
            "liveness_edges_spilled": self.graph.spilled,
            "liveness_edge_bytes": int(self.graph.eb.nbytes),
            "liveness_fair_conditions": len(self.conditions),
            "liveness_memory_ratio": round(graph_bytes / max(1, table_bytes), 2),
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
