"""Level-synchronous breadth-first search over packed states.

Each level (the frontier) is an (n, W) int64 array.  ``explore_chunk`` (in
the generated module) expands a slice of it in native code: successors,
deadlock, step invariants, canonical form, the table insert, and the
invariants and ``sometimes`` of each new state.  Between chunks this module
grows whatever filled up, reports progress, enforces the timeout, writes
checkpoints and notices Ctrl-C.  Counts and verdicts follow the reference
explorer (``engines/reference/explorer.py``) exactly: the same order of
states, of checks, and the same bounds.
"""
from __future__ import annotations

import signal
import threading
import time
from contextlib import contextmanager
from typing import Any, Iterator

import numpy as np

from modelcheck.engines.base import (DEADLOCK, CheckOptions, CheckResult, Progress, Reporter,
                                     Stats, settled_note, stops_when_settled)
from modelcheck.engines.compiled.search import checkpoint
from modelcheck.engines.compiled.kernel.driver import (AT_BOUND, C_CUT, C_GENERATED, C_NEXT, DONE,
                                                FAULT, GROW_NEXT, GROW_SUCC, GROW_TABLE,
                                                O_CROSSED, O_DEADLOCK, O_FOUND, O_FRONT,
                                                O_GROW_AT, O_LEVELS, O_MAX_STATES, O_ROWS,
                                                O_STOP_FIRST, O_STORE, O_SYMMETRY, O_WIDE,
                                                OPTS_SIZE, STOPPED)
from modelcheck.engines.compiled.search.faults import fault_error
from modelcheck.engines.compiled.codegen.symmetry import TIE_LIMIT
from modelcheck.engines.compiled.kernels import CompiledModel
from modelcheck.engines.compiled.kernel.runtime import SIGN
from modelcheck.engines.compiled.cache.sizes import (START_CAPACITY, expected_states, record_states,
                                                     size_key)
from modelcheck.engines.compiled.kernel.table import growth_steps
from modelcheck.engines.compiled.kernel.widths import collision_probability
from modelcheck.engines.compiled.search.frontier import Frontier, FrontierError, SpillPolicy
from modelcheck.engines.compiled.search.memory import TableFull, new_table
from modelcheck.engines.compiled.search.finds import Finds
from modelcheck.engines.compiled.search.parents import archive_for
from modelcheck.engines.compiled.search.stats import search_stats
from modelcheck.engines.reference.explorer import (PROGRESS_EVERY_S, Verdicts, orbit_note,
                                                   select_properties)
from modelcheck.errors import EvalError
from modelcheck.ir.nodes import PropertyKind

__all__ = ["CompiledSearch"]

#: Seconds one call into native code should take (between safe points).
CHUNK_TARGET_S = 0.2
#: Entries of the cache of recent keys (a power of two; 128 KiB of keys).
RECENT = 1 << 14


class _Bound(Exception):
    """The search hit a bound; the message is the reason."""


@contextmanager
def _sigint_flag() -> Iterator[list[bool]]:
    """Ctrl-C sets a flag the search reads between chunks (a KeyboardInterrupt
    inside native code would leave the table half-updated)."""
    box = [False]
    main = threading.current_thread() is threading.main_thread()
    if not main or signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield box
        return

    def handler(signum: int, frame: Any) -> None:
        box[0] = True
    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield box
    finally:
        signal.signal(signal.SIGINT, previous)


class CompiledSearch(Finds):
    #: Whether the search may end once every property checked is settled
    #: (not the liveness search, which needs the whole graph).
    STOPS_WHEN_SETTLED = True
    SPILLS_LEVELS = True    # a large next level may go to disk (frontier.py)
    PARENTS_ON_DISK = True  # may keep its levels for traces, no tags (parents.py)

    def __init__(self, kernels: CompiledModel, options: CheckOptions, reporter: Reporter):
        self.k = kernels
        self.model = kernels.model
        self.options = options
        self.reporter = reporter
        self.module = kernels.module
        props = select_properties(self.model, options)
        self.verdicts = Verdicts(props, options.deadlock)
        names = {p.name for p in props}
        self.settled_early = False
        self.reported: set[int] = set()     # finds handed to the reporter mid-search
        self.built: dict[int, tuple] = {}   # their verdicts with the traces rebuilt then
        cols, steps = kernels.state_columns, kernels.step_columns
        self.nstate, self.nstep = len(cols), len(steps)
        self.want = np.array([1 if c.kind is not PropertyKind.TERMINAL and c.name in names else 0
                              for c in cols], dtype=np.int64)
        self.kinds = np.array([{PropertyKind.INVARIANT: 0, PropertyKind.SOMETIMES: 1}.get(c.kind, 2)
                               for c in cols], dtype=np.int64)
        self.want_step = np.array([1 if c.name in names else 0 for c in steps], dtype=np.int64)
        w = kernels.layout.words
        nf = self.nstate + self.nstep + 1
        self.found = np.zeros(nf, dtype=np.int64)
        self.frows = np.zeros((nf, w), dtype=np.int64)
        self.frows2 = np.zeros((nf, w), dtype=np.int64)
        self.faid = np.zeros(nf, dtype=np.int64)
        self.found_level: list[int | None] = [None] * nf
        # Sized from the last complete search (sizes.py), or once (memory.py).
        self.size_key = size_key(self.model, bool(kernels.symmetric))
        # The current and next level past a size go to disk (frontier.py).
        self.frontier = Frontier(SpillPolicy.from_extra(options.extra, w), w)
        self.preallocate = bool(options.extra.get("preallocate"))
        expected = None if self.preallocate else expected_states(options.cache_dir, self.size_key)
        # every level kept on disk, the table's slots keys alone (parents.py)
        self.parents = archive_for(self.frontier, options.extra, self.PARENTS_ON_DISK)
        self.table, self.sized_for = new_table(options, w, expected, START_CAPACITY,
                                               self.frontier, self.max_table_bytes(),
                                               parents=self.parents is None)
        # Recently seen keys (and states, for --exact): a direct-mapped cache
        # that spares most duplicates a lookup in the big table.
        self.rkeys = np.full(RECENT, SIGN, dtype=np.int64)
        # (a wide fingerprint compares rows there too: a key alone is 64 bits)
        self.rrows = np.zeros((RECENT if options.exact or options.fingerprint_bits > 64 else 1,
                               w), dtype=np.int64)
        self.ctr = np.zeros(4, dtype=np.int64)
        self.act_counts = np.zeros(max(1, len(kernels.actions)), dtype=np.int64)
        self.opts = np.zeros(OPTS_SIZE, dtype=np.int64)
        self.opts[O_DEADLOCK] = 1 if options.deadlock else 0
        self.opts[O_STORE] = 1
        self.opts[O_SYMMETRY] = 1 if kernels.symmetric else 0
        self.opts[O_STOP_FIRST] = 1 if options.stop_on_first else 0
        self.opts[O_MAX_STATES] = -1 if options.max_states is None else options.max_states
        self.nxt = np.zeros((1024, w), dtype=np.int64)
        self.crow = np.zeros(w, dtype=np.int64)
        self.flags = np.zeros(max(1, self.nstate), dtype=np.int64)
        self.sflags = np.zeros(max(1, self.nstep), dtype=np.int64)
        self.front = np.zeros((0, w), dtype=np.int64)
        # The array the frontier is the first rows of: explore_chunk copies
        # the next level into it when it goes on past a level's end.
        self.fbuf = self.front
        # Finds when the current level began (-1: unknown, no crossing at
        # its end): a level that finds something ends the kernel's call, so
        # that the level of each find and the settled check stay Python's.
        self.level_finds = 0
        #: Whether explore_chunk may run several levels in one call (the
        #: default; ``options.extra["cross_levels"]`` False: one level a
        #: call at most, as the tests of level-by-level stops ask), and the
        #: width of a level it stops before (0: none; the parallel search's
        #: WIDE_ROWS, where it may go parallel).
        #: Never with the levels kept: Python must see each one to keep it.
        self.cross_levels = bool(options.extra.get("cross_levels", True)) and not self.parents
        self.cross_wide = 0
        self.pos = 0
        self.level_start = True     # front is the first piece of its level
        self.depth = 0
        self.chunk = 256
        self.stopped = False
        self.interrupt = [False]
        self.rebuild_cut = False        # a trace's rebuild was stopped by the user
        self.elapsed_before = 0.0       # search time of the run a checkpoint came from
        self.start = time.monotonic()
        self.inexact_before = kernels.inexact_states
        self.last_tick = self.start
        self.last_checkpoint = self.start
        self.checkpoint_failed = False      # the last try to write one failed
        self.checkpoint_notes: list[str] = []
        self._initial_rows: np.ndarray | None = None

    # ------------------------------------------------------------ figures

    @property
    def distinct(self) -> int:
        return self.table.count

    @property
    def generated(self) -> int:
        return int(self.ctr[C_GENERATED])

    def max_table_bytes(self) -> int | None:
        """The table's memory cap (``--max-memory``, carried in options.extra)."""
        limit = self.options.extra.get("max_memory_mib")
        return None if limit is None else int(float(limit) * 2**20)

    def elapsed(self) -> float:
        return self.elapsed_before + time.monotonic() - self.start

    def shard_count(self) -> int:
        """How many shards the table has (a resumed checkpoint is refilled so)."""
        return 1

    def restored(self) -> None:
        """Called once a checkpoint is loaded (a subclass's hook)."""

    def queue(self) -> int:
        return len(self.front) - self.pos + int(self.ctr[C_NEXT]) + self.frontier.queued()

    # ------------------------------------------------------------ the run

    def run(self) -> CheckResult:
        reason: str | None = None
        error: EvalError | None = None
        try:
            with _sigint_flag() as flag:
                self.interrupt = flag
                if self.options.resume_dir:
                    checkpoint.restore(self, self.options.resume_dir)
                else:
                    self._initial()
                self._levels()
        except _Bound as bound:
            reason = str(bound)
        except TableFull as full:
            reason = f"{full}; depth {self.depth} (a larger --max-memory sizes a larger table)"
        except FrontierError as err:
            reason = f"{err}: {self.distinct:,} distinct states, depth {self.depth}"
        except KeyboardInterrupt:
            reason = "interrupted"
            self._checkpoint(note=True)
        except MemoryError as err:
            why = f" ({err})" if str(err) else ""
            reason = f"out of memory at {self.distinct:,} distinct states, depth {self.depth}{why}"
        except EvalError as err:
            error = err
            reason = f"stopped by a run-time error ({err.diagnostic.code})"
        finally:
            self.frontier.close()
        if self.stopped and reason is None:
            reason = "stopped at the first violation (stop_on_first)"
        early = None
        if self.settled_early and reason is None:
            early = settled_note(self.depth, self.distinct)
            self.reporter.note(early)
        try:
            # A Ctrl-C or SIGTERM now stops the traces' rebuild, not the answer.
            with _sigint_flag() as flag:
                self.interrupt = flag
                self._settle_found()
        finally:
            if self.parents is not None:
                self.parents.close()
        if reason is None:
            self._report(force=True)
            record_states(self.options.cache_dir, self.size_key, self.distinct)
        notes = self._notes()
        if early is not None:
            notes.insert(0, early)
        if self.rebuild_cut:
            notes.append("interrupted while traces were rebuilt: the properties found without "
                         "a trace are UNKNOWN")
        return CheckResult(self.model.name, "compiled",
                           self.verdicts.results(reason is None, reason), self._stats(),
                           reason=None if error is not None else reason, error=error,
                           notes=notes)

    def initial_rows(self) -> np.ndarray:
        if self._initial_rows is None:
            self._initial_rows = self.k.initial_states()
        return self._initial_rows

    def _initial(self) -> None:
        rows = self.initial_rows().view(np.int64)
        self.depth = 1 if len(rows) else 0
        self._ensure_next(len(rows))
        pos = 0
        while True:
            self.opts[O_GROW_AT] = self.table.grow_at()
            status, pos = self._admit(rows, pos)
            self._note_found(1, 1)
            if status == DONE:
                break
            if status == FAULT:
                raise fault_error(self, rows[pos], None, initial=True)
            if status == STOPPED:
                self.stopped = True
                break
            if status == AT_BOUND:
                raise self._state_bound()
            self._grow(status)
        self._initial_admitted()
        self._next_level()

    def _admit(self, rows: np.ndarray, pos: int) -> tuple[int, int]:
        """Run the kernel that checks and stores initial states from ``pos``."""
        t = self.table
        return self.module.admit(
            rows, pos, t.keys, t.tags, t.states, t.meta, self.nxt, self.ctr, self.want,
            self.kinds, self.opts, self.found, self.frows, self.k.U, self.k.S, self.k.V,
            self.crow, self.k.err, self.flags, self.frows2, self.faid)

    def _initial_admitted(self) -> None:
        """Called once every initial state is stored (a subclass's hook)."""

    def _levels(self) -> None:
        """Expand level after level; ``depth`` is the level being expanded
        (initial states: 1), as in the reference explorer."""
        max_depth = self.options.max_depth
        # every successor is one action's: the states generated are the
        # initial ones and the action counts (a resumed run's too)
        initial = int(self.ctr[C_GENERATED]) - int(self.act_counts.sum())
        while not self.stopped:
            if self.pos >= len(self.front) and not self._next_piece():
                if self.ctr[C_NEXT] == 0 and self.frontier.next_disk is None:
                    return
                self._next_level()
                self.depth += 1
                self._report(force=True)
            if self.pos == 0 and self.level_start and self._all_settled():
                return
            at_bound = max_depth is not None and self.depth >= max_depth
            self.opts[O_STORE] = 0 if at_bound else 1
            self._expand_level()
            if self.stopped:
                # TLC counts a state's successors up to the violation, as the
                # action counts do, not the rest of them (the kernel counted
                # them all)
                self.ctr[C_GENERATED] = initial + int(self.act_counts.sum())
                if self.ctr[C_NEXT] or self.frontier.next_disk is not None:
                    # states of the next level are stored (and counted):
                    # the depth is theirs, as TLC's and the reference's
                    self.depth += 1
                return
            if at_bound and not self.frontier.level_has_more():
                if self.ctr[C_CUT]:
                    raise _Bound(f"stopped at the depth bound: depth {self.depth} "
                                 f"(max_depth={max_depth}) has successors not explored; "
                                 f"{self.distinct:,} distinct states")
                return

    def _all_settled(self) -> bool:
        """At the start of a level: every property checked has been found
        (settled), so the search ends here, as the reference explorer's does."""
        v = self.verdicts
        checked = len(v.properties) + v.deadlock
        if not self.STOPS_WHEN_SETTLED or not stops_when_settled(self.options, checked):
            return False
        wanted = {p.name for p in v.properties} | ({DEADLOCK} if v.deadlock else set())
        self.settled_early = wanted <= self._found_names()
        return self.settled_early

    def _next_level(self) -> None:
        n = int(self.ctr[C_NEXT])
        piece = self.frontier.next_level(self.nxt[:n])
        self.fbuf = self.nxt if piece is None else piece
        self.front = self.nxt[:n] if piece is None else piece
        self.level_start = True
        self.level_finds = int(np.count_nonzero(self.found))
        self.pos = 0
        self.nxt = np.empty((max(1024, n), self.k.layout.words), dtype=np.int64)
        self.ctr[C_NEXT] = 0

    def _next_piece(self) -> bool:
        """The level's next piece from disk as the frontier; False: done."""
        piece = self.frontier.next_piece()
        if piece is None:
            return False
        self.front = self.fbuf = piece
        self.pos = 0
        self.level_start = False
        return True

    def _spill_next(self, need: int) -> bool:
        """The next level's rows to disk, if ``need`` rows pass its share."""
        n = int(self.ctr[C_NEXT])
        if not self.SPILLS_LEVELS or not self.frontier.should_spill(need, n):
            return False
        self.frontier.spill(self.nxt[:n])
        self.ctr[C_NEXT] = 0
        return True

    def _expand_level(self) -> None:
        """Expand the rest of the level, and maybe levels after it: a call
        whose chunk reaches the level's end may go on into the next levels
        (explore_chunk, ``O_LEVELS``), ``depth`` and ``front`` following."""
        k, t = self.k, self.table
        while self.pos < len(self.front):
            n = len(self.front)
            stop = min(n, self.pos + self.chunk)
            began = time.perf_counter()
            self.opts[O_GROW_AT] = t.grow_at()
            front = self._crossing(stop)
            status, reached = self.module.explore_chunk(
                front, self.pos, stop, t.keys, t.tags, t.states, t.meta, self.nxt,
                self.ctr, self.act_counts, k.action_of, self.want, self.kinds, self.want_step,
                self.opts, self.found, self.frows, self.frows2, self.faid, k.U, k.P, k.S, k.V,
                k.buf, k.bufaid, k.cbuf, k.ckeys, k.err, self.flags, self.sflags, self.rkeys,
                self.rrows)
            crossed = int(self.opts[O_CROSSED]) if self.opts[O_LEVELS] else 0
            if crossed:
                self.depth += crossed
                self.front = self.fbuf[:int(self.opts[O_FRONT])]
            if self._chunk_done(status, reached, began):
                return
            if status != DONE:
                self._grow(status)
                t = self.table
            self._safe_point()

    def _crossing(self, stop: int) -> np.ndarray:
        """The settings of one explore_chunk call across levels, and the
        array to pass as the frontier: its buffer where the call may cross
        into the next level (the chunk reaches the level's end, the depth
        bound is not near), the frontier itself otherwise."""
        self.opts[O_LEVELS] = 0
        n = len(self.front)
        if not self.cross_levels or stop < n or self.frontier.on_disk():
            return self.front
        levels = 1 << 62
        if self.options.max_depth is not None:
            # never into the level at the bound, whose successors are not stored
            levels = self.options.max_depth - 1 - self.depth
        if levels <= 0:
            return self.front
        buf = self.fbuf
        if (buf.shape[0] < n or buf.ctypes.data != self.front.ctypes.data
                or not buf.flags.c_contiguous):
            buf = self.fbuf = self.front
        self.opts[O_LEVELS] = levels
        self.opts[O_WIDE] = self.cross_wide
        self.opts[O_FOUND] = self.level_finds
        self.opts[O_ROWS] = self.chunk
        self.opts[O_CROSSED] = 0
        self.opts[O_FRONT] = n
        return buf

    def _chunk_done(self, status: int, reached: int, began: float) -> bool:
        """After a chunk of a level: the row reached, the finds, the next
        chunk's size; True when the search stops here (a violation with
        stop_on_first).  A fault or the state bound raises; a status asking
        for more room is the caller's."""
        self.pos = int(reached)
        self._note_found(self.depth + 1, self.depth)
        self._report_finds()
        if status == DONE:
            spent = max(time.perf_counter() - began, 1e-6)
            scale = min(4.0, max(0.25, CHUNK_TARGET_S / spent))
            self.chunk = int(min(1 << 20, max(64, self.chunk * scale)))
        elif status == FAULT:
            raise fault_error(self, self.front[self.pos], self.depth)
        elif status == STOPPED:
            self.stopped = True
            return True
        elif status == AT_BOUND:
            raise self._state_bound()
        return False

    def _grow(self, status: int) -> None:
        if status == GROW_TABLE:
            t = self.table
            steps = (growth_steps(t, int(self.ctr[C_NEXT]), self.pos, len(self.front) - self.pos)
                     if t.needs_growth() else 1)
            t.grow(self.max_table_bytes(), steps=steps)
        elif status == GROW_NEXT:
            if self._spill_next(2 * self.nxt.shape[0]):
                return
            old = self.nxt
            self.nxt = np.empty((old.shape[0] * 2, old.shape[1]), dtype=np.int64)
            self.nxt[:int(self.ctr[C_NEXT])] = old[:int(self.ctr[C_NEXT])]
        elif status == GROW_SUCC:
            self.k.grow_buffer()
        else:
            raise RuntimeError(f"internal error: unexpected kernel status {status}")

    def _ensure_next(self, n: int) -> None:
        if self.nxt.shape[0] < n:
            self.nxt = np.empty((n, self.k.layout.words), dtype=np.int64)

    def _state_bound(self) -> _Bound:
        limit = self.options.max_states
        return _Bound(f"stopped at the state bound: {self.distinct:,} distinct states "
                      f"(max_states={limit:,}), depth {self.depth}")

    # ------------------------------------------------------------ safe points

    def _safe_point(self) -> None:
        self._spill_next(int(self.ctr[C_NEXT]))     # a chunk may have stored past its share
        if self.interrupt[0]:
            raise KeyboardInterrupt
        timeout = self.options.timeout_s
        # The kernel's compile counted against the same --timeout.
        if timeout is not None and self.elapsed() + self.k.codegen_s + self.k.compile_s >= timeout:
            raise _Bound(f"timeout after {timeout:g} s: {self.distinct:,} distinct states, "
                         f"depth {self.depth}")
        self._report()
        every = self.options.checkpoint_every_s
        if self.options.checkpoint_dir and time.monotonic() - self.last_checkpoint >= every:
            self._checkpoint()

    def _report(self, force: bool = False) -> None:
        now = time.monotonic()
        if force or now - self.last_tick >= PROGRESS_EVERY_S:
            self.last_tick = now
            self.reporter.progress(Progress(self.distinct, self.generated, self.depth,
                                            self.queue(), self.elapsed()))

    def _checkpoint(self, note: bool = False) -> None:
        checkpoint.write(self, note)

    # ------------------------------------------------------------ results

    def _stats(self) -> Stats:
        return search_stats(self)

    def _notes(self) -> list[str]:
        notes = list(self.k.notes) + self.checkpoint_notes
        if self.k.symmetric:
            notes.append(orbit_note(self.k.symmetric, self.distinct))
            inexact = self.k.inexact_states - self.inexact_before
            if inexact:
                notes.append(f"symmetry: {inexact:,} states had more than {TIE_LIMIT:,} orderings "
                             f"of interchangeable members; each was reduced to a permutation of "
                             f"itself, not always the smallest, so the distinct count may exceed "
                             f"the number of orbits")
        if not self.table.exact and self.distinct > 1:
            n, bits = self.distinct, self.table.bits
            notes.append(f"fingerprint collision probability: "
                         f"{collision_probability(n, bits):.1e} (birthday bound over {n:,} "
                         f"states, {bits}-bit fingerprints); use --exact to store whole states")
        return notes
