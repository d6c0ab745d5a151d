"""The breadth-first search on several cores (``--workers N``), with the
counts, verdicts, traces and faults of the one-core search (serial.py).

A level is still expanded in the frontier's order, chunk by chunk, and each
chunk in the three phases of par_driver.py: the workers expand a slice of
rows each, then store the candidates of the shards they own (each shard in
the serial order of its candidates), then one thread settles the chunk in
the serial order from the marks the workers left.  A state is new exactly
when the one-core search would find it new (the first candidate of its key
in the serial order is the one stored), so the next level holds the same
states in the same order, and the first violation found is the same one.

Python only hands out slices and waits: the kernels release the GIL
(``nogil``), so the threads run on as many cores.  The settling pass is the
part that does not scale; it touches each candidate once, without hashing.
"""
from __future__ import annotations

import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Callable

import numpy as np
from numba import njit

from modelcheck.engines.base import CheckOptions, CheckResult, Reporter
from modelcheck.engines.compiled.kernel.driver import AT_BOUND, C_NEXT, DONE, FAULT, STOPPED
from modelcheck.engines.compiled.search.faults import fault_error
from modelcheck.engines.compiled.kernels import CompiledModel
from modelcheck.engines.compiled.search.claims import Claims, claim_chunk
from modelcheck.engines.compiled.kernel.par_driver import C_DISTINCT, MAX_STEP_COLUMNS, O_EXACT
from modelcheck.engines.compiled.search.buffers import Candidates, Scratch
from modelcheck.engines.compiled.search.serial import CompiledSearch
from modelcheck.engines.compiled.search.shards import (ShardedTable, entries_of, shard_of_keys,
                                                table_from_entries)
from modelcheck.engines.compiled.kernel.table import FingerprintTable

__all__ = ["ParallelSearch", "make_search", "resolve_workers"]

#: A chunk with fewer rows than this per worker runs on the calling thread.
INLINE_ROWS = 64
#: Seconds of search on one core before the next level goes parallel:
#: compiling the parallel kernels costs a cold kernel a few seconds more
#: (cached after that), which a search this short would not win back.
PARALLEL_AFTER_S = 1.0
#: A level narrower than this stays on one core.  Each parallel chunk hands
#: work to the threads three times and writes every successor down for the
#: next phase; on a level of a few thousand rows (a millisecond of work)
#: that costs more than the second core gives back.  A deep search of
#: narrow levels (tests/faults/grid.mc: 5,001 levels of at most 2,501 rows)
#: then never leaves the one-core search.
WIDE_ROWS = 4096


@njit(cache=True, nogil=True)
def count_actions(oaid: np.ndarray, act_of: np.ndarray, act_counts: np.ndarray,
                  counts: np.ndarray, cap: np.int64, w_stop: np.int64, g_stop: np.int64) -> None:
    """Add the steps of a chunk up to candidate ``g_stop`` (exclusive) of
    worker ``w_stop`` to the per-action counts."""
    for w in range(w_stop + 1):
        end = g_stop if w == w_stop else w * cap + counts[w]
        for g in range(w * cap, end):
            act_counts[act_of[oaid[g]]] += 1


def resolve_workers(options: CheckOptions) -> int:
    """The number of search threads: ``options.workers``, or every core this
    process may run on when it is not given or 0.  A search only goes
    parallel once it has run a while and reached a wide level, so a short or
    narrow one stays on one core whatever this says."""
    if options.workers:
        return options.workers
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:      # not on Linux
        return max(1, os.cpu_count() or 1)


def make_search(kernels: CompiledModel, options: CheckOptions,
                reporter: Reporter) -> CompiledSearch:
    """The one-core search, or the parallel one when there are several
    workers and the kernel allows it (at most MAX_STEP_COLUMNS step
    invariants: their failures travel as a bit mask)."""
    workers = resolve_workers(options)
    if workers > 1 and len(kernels.step_columns) <= MAX_STEP_COLUMNS:
        return ParallelSearch(kernels, options, reporter, workers)
    return CompiledSearch(kernels, options, reporter)


class ParallelSearch(CompiledSearch):
    def __init__(self, kernels: CompiledModel, options: CheckOptions, reporter: Reporter,
                 workers: int):
        super().__init__(kernels, options, reporter)
        self.workers = workers
        self.nshards = 1 << (workers - 1).bit_length()
        self.after_s = float(options.extra.get("parallel_after_s", PARALLEL_AFTER_S))
        self.wide_rows = int(options.extra.get("parallel_wide_rows", WIDE_ROWS))
        self.inline_rows = int(options.extra.get("parallel_inline_rows", INLINE_ROWS))
        # the one-core kernel runs narrow levels on without Python between
        # them, and stops before a level that may go parallel (wide_rows 0:
        # any level may; one level a call)
        self.cross_wide = max(1, self.wide_rows)
        # a narrow level after the search went parallel runs on one core
        # (the shared table only): the row budget of its calls, apart
        self.one_core = False
        self.one_chunk = self.chunk
        # False: a kernel without its parallel kernels compiles them at once
        # (the search waits), so when a search goes parallel does not depend
        # on how long a compile took
        self.background = bool(options.extra.get("parallel_background", True))
        self.parallel = False       # levels so far ran on one core (search.py)
        # The parallel kernels of a kernel not yet compiled with them compile
        # on another thread while the search goes on, on one core.
        self.compiler: threading.Thread | None = None
        self.compiled = threading.Event()
        self.compile_failed: str | None = None
        self.background_compile_s = 0.0
        # rows in the caches of recent keys: --exact, or a key narrower than the fingerprint
        rows = options.exact or options.fingerprint_bits > 64
        self.scratch = [Scratch.like(kernels, self.nstep, rows, len(self.act_counts),
                                      self.nstate)
                        for _ in range(workers)]
        # One table shared by the workers (search/claims.py) where nothing needs
        # the candidates of phase one after the serial order: no step
        # invariants (checked on every step, known states' too), and
        # fingerprints (--exact would store whole states
        # beside the keys, which a compare-and-swap of the key cannot cover).
        # A wide fingerprint's second word is not covered by it either.
        self.claiming = (not kernels.step_columns and not rows
                         and bool(options.extra.get("parallel_claims", True)))
        self.claims = Claims(workers, 1024, kernels.layout.words)
        # a row per worker, 16 words wide: each on a cache line of its own
        self.wstat = np.zeros((workers, 16), dtype=np.int64)
        self.sres = np.zeros(2, dtype=np.int64)
        self.opts[O_EXACT] = 1 if rows else 0
        self.cand = Candidates(workers, 1024, kernels.layout.words, self.nstate,
                                bool(kernels.symmetric))
        self.offs = np.zeros(self.nshards + 1, dtype=np.int64)
        self.rowk = np.zeros(0, dtype=np.int64)
        self.rown = np.zeros(0, dtype=np.int64)
        self.term = np.zeros(0, dtype=np.int64)
        self.pool = ThreadPoolExecutor(workers, thread_name_prefix="modelcheck-search")
        # wall seconds in each phase, and candidates settled: the figures of
        # the cost model in docs/engines/compiled.md ("Every core")
        self.phase_s = {"expand": 0.0, "store": 0.0, "settle": 0.0}
        self.candidates = 0

    def _go_parallel(self) -> None:
        """From here on every level runs on all workers: the parallel kernels
        compiled (or loaded), the table split into shards."""
        self.warm_up()
        if not self.claiming:
            self.table = table_from_entries(self.k.layout.words, entries_of(self.table),
                                            self.nshards)
        self.ctr[C_DISTINCT] = self.table.count
        self.parallel = True

    def warm_up(self) -> None:
        """Compile (or load) the parallel kernels before the search's clock
        starts, on empty input: their compile is reported as compile time."""
        if self.compiled.is_set():
            return                  # on the other thread, beside the search
        began = time.perf_counter()
        self._compile_parallel_kernels()
        spent = time.perf_counter() - began
        self.k.compile_s += spent
        self.start += spent         # compile time, not search time

    def _compile_parallel_kernels(self) -> None:
        from modelcheck.engines.compiled.cache.kcache import compile_lock, mark_warm
        if self.k.backend == "c":
            # built with the rest of the library: a call of each checks them
            self._compile_entry_points(lambda: None)
            return
        # numba adds these entry points' files to the kernel's cache: the
        # warm marker must list them, or the next run would not trust them
        # (kcache.is_warm) and compile them again.  It is written after each
        # one, so that a compile cut short by the end of the search still
        # saves what it finished, and short runs get there one by one.
        with compile_lock(self.k.path):
            self._compile_entry_points(lambda: mark_warm(self.k.path))

    def _kernels_ready(self) -> bool:
        """Whether the parallel kernels can be had now: compiled by an earlier
        run (loading them takes moments), or on the other thread.  Otherwise
        that thread is started (once), and the search stays on one core."""
        from modelcheck.engines.compiled.cache.kcache import has_compiled
        if self.compiled.is_set():
            return self.compile_failed is None
        if self.compiler is not None:
            return False
        if (self.after_s <= 0 or not self.background or self.k.backend == "c"
                or has_compiled(self.k.path, self.last_kernel)):
            return True
        self.compiler = threading.Thread(target=self._compile_in_background, daemon=True,
                                         name="modelcheck-compile-parallel")
        self.compiler.start()
        return False

    def _compile_in_background(self) -> None:
        """The parallel kernels' compile, beside the one-core search: numba
        compiles a function once per process, and the search's threads call
        the same dispatchers once this is done.  A search that ends first does
        not wait: whatever numba wrote without the warm marker is discarded
        by the next run (kcache.is_warm)."""
        began = time.perf_counter()
        try:
            self._compile_parallel_kernels()
        except Exception as exc:    # noqa: BLE001 - only a speed-up is lost
            self.compile_failed = f"{type(exc).__name__}: {exc}"
        finally:
            self.background_compile_s = time.perf_counter() - began
            self.compiled.set()

    def _compile_entry_points(self, compiled_one: Callable[[], None]) -> None:
        """Every parallel entry point called on empty input, ``compiled_one``
        after each.  Every array is a copy: this may run beside the one-core
        search, which owns the originals (a copy has the same numba type, so
        the same code serves)."""
        k, s = self.k, self.scratch[0]
        c = Candidates(1, 16, k.layout.words, self.nstate, bool(k.symmetric))
        t = FingerprintTable(k.layout.words, self.options.exact, capacity=64,
                             bits=self.options.fingerprint_bits)
        empty = np.zeros((0, k.layout.words), dtype=np.int64)
        none = np.zeros(0, dtype=np.int64)
        opts, want_step, want, kinds, ctr, sres, found, frows, frows2, faid, flags, sflags = (
            a.copy() for a in (self.opts, self.want_step, self.want, self.kinds, self.ctr,
                               self.sres, self.found, self.frows, self.frows2, self.faid,
                               self.flags, self.sflags))
        nxt = np.zeros((1, self.nxt.shape[1]), dtype=np.int64)    # the level's may be large
        U, P, S, V, buf, bufaid, err = (a.copy() for a in (s.U, s.P, s.S, s.V, s.buf,
                                                            s.bufaid, s.err))
        if self.claiming:
            self._compile_claim_kernels(t, empty, opts, want, kinds, ctr, sres, found, frows,
                                        frows2, faid, flags, U, P, S, V, buf, bufaid, err, nxt,
                                        compiled_one=compiled_one)
            return
        self.module.par_initial(empty, c.out, c.okeys, opts, U, S)
        compiled_one()
        self.module.par_expand(empty, 0, 0, c.out, c.post, c.okeys, c.optag, c.oaid, c.osbits,
                               none, none, 0, want_step, opts, U, P, S, V, buf, bufaid, err,
                               s.sflags.copy(), s.rkeys.copy(), s.rrows.copy(), none,
                               k.action_of.copy(), s.wact.copy())
        compiled_one()
        self.module.par_insert(t.keys, t.tags, t.states, t.meta, c.idx, 0, 0, c.out, c.okeys,
                               c.optag, c.ostate, c.pflags, c.pstat, want, opts, t.grow_at(), V,
                               S, err)
        compiled_one()
        bounds = np.zeros(self.workers + 1, dtype=np.int64)
        self.module.par_settle(empty, 0, 0, bounds, c.cap, none, none, none, c.out, c.post,
                               c.okeys, c.oaid, c.osbits, c.pos, c.ostate, c.pflags, c.pstat, nxt,
                               ctr, sres, want, kinds, want_step, opts, found, frows, frows2,
                               faid, U, P, S, V, buf, bufaid, err, flags, sflags)
        compiled_one()
        self.module.par_admit_settle(empty, 0, c.out, c.pos, c.ostate, c.pflags, c.pstat, nxt,
                                     ctr, want, kinds, opts, found, frows, frows2, faid, V, S,
                                     err, flags)
        compiled_one()
        shard_of_keys(c.okeys, np.zeros(1, dtype=np.int64), np.int64(c.cap),
                      np.int64(self.nshards), c.idx, np.zeros(self.nshards + 1, dtype=np.int64),
                      c.pos)

    @property
    def last_kernel(self) -> str:
        """The entry point compiled last: once numba has its file, the
        parallel kernels of this search's kind are all there."""
        return "claim_count_actions" if self.claiming else "par_admit_settle"

    def _compile_claim_kernels(self, t: FingerprintTable, empty: np.ndarray, *arrays,
                               compiled_one: Callable[[], None]) -> None:
        """The kernels of search/claims.py on empty input (arrays: copies, as in
        _compile_entry_points): a search compiles those of its own kind."""
        (opts, want, kinds, ctr, sres, found, frows, frows2, faid, flags, U, P, S, V, buf, bufaid,
         err, nxt) = arrays
        k, s = self.k, self.scratch[0]
        cl = Claims(1, 16, k.layout.words)
        none = np.zeros(0, dtype=np.int64)
        bounds = np.zeros(2, dtype=np.int64)
        self.module.claim_expand(empty, 0, 0, 0, t.keys, t.tags, cl.side, t.meta, none, cl.keys,
                                 cl.slot, cl.rowi, cl.succ, cl.aid, cl.rows, cl.posts, cl.kind, cl.hit, 0,
                                 none, none, none, opts, want, kinds, U, P, S, V, buf, bufaid,
                                 s.cbuf.copy(), s.skeys.copy(), err, flags, s.rkeys.copy(),
                                 k.action_of.copy(), s.wact.copy(), np.zeros(1, dtype=np.int64))
        compiled_one()
        self.module.claim_fix(t.keys, t.tags, cl.side, t.meta, empty, cl.keys, cl.slot, cl.rowi,
                              cl.kind, 0, 0, 0, cl.valid)
        compiled_one()
        self.module.claim_settle(empty, bounds, bounds, cl.cap, 0, none, none, none, cl.valid,
                                 cl.rows, cl.posts, cl.kind, cl.succ, cl.aid, cl.hit, nxt, ctr,
                                 sres, want, kinds, opts, found, frows, frows2, faid, U, P, S, V,
                                 buf, bufaid, err, flags)
        compiled_one()
        self.module.claim_count_actions(empty, 0, -1, 0, U, P, S, buf, bufaid, err,
                                        k.action_of.copy(), np.zeros(1, dtype=np.int64))
        compiled_one()

    # ------------------------------------------------------------ figures

    @property
    def distinct(self) -> int:
        if self.parallel and not self.one_core:
            return int(self.ctr[C_DISTINCT])
        return self.table.count

    def shard_count(self) -> int:
        return self.nshards if self.parallel and not self.claiming else 1

    def restored(self) -> None:
        self.ctr[C_DISTINCT] = self.table.count

    def run(self) -> CheckResult:
        try:
            result = super().run()
        finally:
            self.pool.shutdown(wait=True)
        result.stats.extras["workers"] = self.workers if self.parallel else 1
        if self.compiler is not None:
            # compiled beside the search: not part of the compile time the
            # user waited for; None while it is still going
            result.stats.extras["parallel_compile_s"] = (
                round(self.background_compile_s, 3) if self.compiled.is_set() else None)
        if self.parallel:
            result.stats.extras["phase_s"] = {p: round(t, 3) for p, t in self.phase_s.items()}
            result.stats.extras["table"] = "shared" if self.claiming else "shards"
            result.stats.extras["candidates"] = self.candidates
        return result

    # ------------------------------------------------------------ threads

    def _each(self, job: Callable[[int], None], inline: bool = False) -> None:
        """``job(w)`` for every worker, on the pool (the calling thread waits)."""
        if inline:
            for w in range(self.workers):
                job(w)
            return
        for future in [self.pool.submit(job, w) for w in range(self.workers)]:
            future.result()

    def _collect_inexact(self) -> None:
        if not self.k.perm_types:
            return
        at = self.module.INEXACT_OFF
        for s in self.scratch:
            self.k.S[at] += s.S[at]
            s.S[at] = 0

    # ------------------------------------------------------------ initial states

    def _initial(self) -> None:
        if self.after_s > 0:
            super()._initial()
            return
        if self.claiming:
            # few states: the one-core admission, every level after parallel
            super()._initial()
            self._go_parallel()
            return
        self._go_parallel()
        k = self.k
        rows = np.ascontiguousarray(self.initial_rows().view(np.int64))
        n = len(rows)
        self.depth = 1 if n else 0
        self._ensure_next(n)
        c = Candidates(1, max(1, n), k.layout.words, self.nstate, False)
        self.module.par_initial(rows, c.out, c.okeys, self.opts, k.U, k.S)
        c.counts[0] = n
        self._insert(c, inline=n < self.inline_rows * self.workers)
        status, pos = self.module.par_admit_settle(
            rows, n, c.out, c.pos, c.ostate, c.pflags, c.pstat, self.nxt, self.ctr, self.want,
            self.kinds, self.opts, self.found, self.frows, self.frows2, self.faid, k.V, k.S,
            k.err, self.flags)
        self._note_found(1, 1)
        if status == FAULT:
            raise fault_error(self, rows[pos], None, initial=True)
        if status == STOPPED:
            self.stopped = True
        elif status == AT_BOUND:
            raise self._state_bound()
        self._initial_admitted()
        self._next_level()

    # ------------------------------------------------------------ a level

    def _expand_level(self) -> None:
        if not self.parallel:
            if self.pos > 0 or not self._worth_parallel():
                super()._expand_level()
                return
            self._go_parallel()
        elif self._narrow():
            self._one_core_level()
            return
        n = len(self.front)
        if len(self.rowk) < n:      # every row's entry is written before it is read
            self.rowk = np.empty(max(n, 2 * len(self.rowk)), dtype=np.int64)
            self.rown = np.empty(len(self.rowk), dtype=np.int64)
            self.term = np.empty(len(self.rowk), dtype=np.int64)
        while self.pos < n:
            stop = min(n, self.pos + self.chunk)
            began = time.perf_counter()
            status, reached = self._chunk(self.pos, stop)
            if self._chunk_done(status, reached, began):
                return
            self._safe_point()

    def _narrow(self) -> bool:
        """Whether this level of a search gone parallel runs on one core, as
        the levels before the switch did: narrower than ``wide_rows``, the
        table the shared one (search/claims.py: the one-core kernel's
        table), and not a search told to be parallel from its first level
        (``parallel_after_s`` 0, as the tests of the parallel kernels are)."""
        return (self.claiming and self.after_s > 0 and len(self.front) < self.wide_rows
                and self.table.count == int(self.ctr[C_DISTINCT]))

    def _one_core_level(self) -> None:
        """The rest of a narrow level on one core, and the narrow levels
        after it in the same kernel calls (serial.py, ``_crossing``: the
        kernel stops before a level of ``wide_rows``)."""
        self.one_core = True
        self.chunk, self.one_chunk = self.one_chunk, self.chunk
        try:
            super()._expand_level()
        finally:
            self.one_core = False
            self.chunk, self.one_chunk = self.one_chunk, self.chunk
            self.ctr[C_DISTINCT] = self.table.count

    def _worth_parallel(self) -> bool:
        """At the start of a level: whether it goes parallel (and every level
        after it).  Not before the search has run ``after_s`` seconds, nor on
        a level narrower than ``wide_rows``, nor before the kernels are there."""
        if len(self.front) < self.wide_rows:
            return False
        if self.elapsed() - self.elapsed_before < self.after_s:
            return False
        return self._kernels_ready()

    def _notes(self) -> list[str]:
        notes = super()._notes()
        if self.compile_failed is not None:
            notes.append(f"the parallel kernels did not compile ({self.compile_failed}); "
                         f"the search ran on one core")
        return notes

    def _slices(self, start: int, stop: int) -> np.ndarray:
        """Where each worker's rows begin (and the last ends)."""
        return np.linspace(start, stop, self.workers + 1).astype(np.int64)

    def _chunk(self, start: int, stop: int) -> tuple[int, int]:
        k = self.k
        inline = stop - start < self.inline_rows * self.workers
        if self.claiming:
            return claim_chunk(self, start, stop, inline)
        wstart = self._slices(start, stop)
        t0 = time.perf_counter()
        self._expand(wstart, inline)
        c = self.cand
        t1 = time.perf_counter()
        self._insert(c, inline)
        t2 = time.perf_counter()
        self._collect_inexact()
        self._ensure_room(int(c.counts.sum()))
        self.candidates += int(c.counts.sum())
        out = self.module.par_settle(
            self.front, start, stop, wstart, c.cap, self.rowk, self.rown, self.term, c.out,
            c.post, c.okeys, c.oaid, c.osbits, c.pos, c.ostate, c.pflags, c.pstat, self.nxt,
            self.ctr, self.sres, self.want, self.kinds, self.want_step, self.opts, self.found,
            self.frows, self.frows2, self.faid, k.U, k.P, k.S, k.V, k.buf, k.bufaid, k.err,
            self.flags, self.sflags)
        if out[0] == DONE:
            for s in self.scratch:
                self.act_counts += s.wact
        else:
            # stopped inside the chunk: only the steps the serial order had
            # reached count, as in explore_chunk
            count_actions(c.oaid, k.action_of, self.act_counts, c.counts, np.int64(c.cap),
                          self.sres[0], self.sres[1])
        t3 = time.perf_counter()
        self.phase_s["expand"] += t1 - t0
        self.phase_s["store"] += t2 - t1
        self.phase_s["settle"] += t3 - t2
        return out

    def _expand(self, wstart: np.ndarray, inline: bool) -> None:
        """Phase one: each worker expands its slice; a worker whose room for
        candidates ran out goes on once the room is doubled."""
        reached = wstart[:-1].copy()
        self.cand.counts[:] = 0
        for s in self.scratch:
            s.wact[:] = 0

        def job(w: int) -> None:
            s, c = self.scratch[w], self.cand
            while reached[w] < wstart[w + 1]:
                status, row, m = self.module.par_expand(
                    self.front, reached[w], wstart[w + 1], c.out[w * c.cap:(w + 1) * c.cap],
                    c.post[w * c.cap:(w + 1) * c.cap], c.okeys[w * c.cap:],
                    c.optag[w * c.cap:], c.oaid[w * c.cap:], c.osbits[w * c.cap:], self.rowk,
                    self.term, c.counts[w], self.want_step, self.opts, s.U, s.P, s.S, s.V,
                    s.buf, s.bufaid, s.err, s.sflags, s.rkeys, s.rrows, self.rown,
                    self.k.action_of, s.wact)
                reached[w], c.counts[w] = row, m
                if status == 3:
                    s.grow_buffer()
                elif status == 2:
                    return
        while True:
            self._each(job, inline)
            if (reached >= wstart[1:]).all():
                return
            self.cand = self.cand.grown()

    def _insert(self, c: Candidates, inline: bool) -> None:
        """Phase two: the candidates bucketed by shard, each worker storing
        its shards' in order."""
        shard_of_keys(c.okeys, c.counts, np.int64(c.cap), np.int64(self.nshards), c.idx,
                      self.offs, c.pos)
        limit = self.max_table_bytes()
        max_bytes = None if limit is None else limit // self.nshards
        shards = self.table.shards if isinstance(self.table, ShardedTable) else [self.table]

        def job(w: int) -> None:
            s = self.scratch[w]
            for n in range(w, len(shards), self.workers):
                t = shards[n]
                p, hi = int(self.offs[n]), int(self.offs[n + 1])
                while p < hi:
                    status, p = self.module.par_insert(
                        t.keys, t.tags, t.states, t.meta, c.idx, p, hi, c.out, c.okeys,
                        c.optag, c.ostate, c.pflags, c.pstat, self.want, self.opts,
                        t.grow_at(), s.V, s.S, s.err)
                    if status == 1:
                        t.grow(max_bytes)
        self._each(job, inline)

    def _ensure_room(self, more: int) -> None:
        need = int(self.ctr[C_NEXT]) + more
        if self.nxt.shape[0] < need and self._spill_next(need):
            need = more
        if self.nxt.shape[0] < need:
            old = self.nxt
            self.nxt = np.empty((max(need, 2 * old.shape[0]), old.shape[1]), dtype=np.int64)
            self.nxt[:int(self.ctr[C_NEXT])] = old[:int(self.ctr[C_NEXT])]
