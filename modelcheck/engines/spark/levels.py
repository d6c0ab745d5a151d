"""The driver of the level-synchronous search.

It owns no states: a backend (in-process or Spark) holds the partitions and
runs one level per ``step``; the driver sums the level reports, settles the
properties (the first level that settles one gives its shortest trace),
enforces the bounds, takes checkpoints and decides when a level is wide
enough to hand the search over to Spark.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol

from modelcheck.engines.base import DEADLOCK, CheckOptions, Progress, Reporter, stops_when_settled
from modelcheck.engines.spark.batch import BATCH_LEVELS, BATCH_ROWS, BATCH_SECONDS, BatchRule
from modelcheck.engines.spark.checkpoint import (Hit, LevelLog, SearchState, level_folder,
                                                 write_manifest)
from modelcheck.engines.spark.kernels import PropertyPlan
from modelcheck.engines.spark.partition import LevelReport, Part
from modelcheck.ir.nodes import PropertyKind

__all__ = ["LevelBackend", "LevelCancelled", "LevelSearch", "DEFAULT_THRESHOLD",
           "CHECKPOINT_LEVELS"]

#: Frontier size from which a level runs on Spark rather than in-process.
DEFAULT_THRESHOLD = 200_000
#: A durable checkpoint is written at least every this many levels.
CHECKPOINT_LEVELS = 10


class LevelCancelled(Exception):
    """A level was cancelled (timeout); the backend is back at the level before."""


class LevelBackend(Protocol):
    where: str

    @property
    def partitions(self) -> int: ...

    def frontier_size(self) -> int: ...

    def seen_size(self) -> int: ...

    def step(self, check_deadlock: bool, commit: bool,
             time_left_s: float | None) -> tuple[LevelReport, LevelReport]:
        """Expand the frontier and merge the successors; raise LevelCancelled
        (leaving the previous level in place) if it runs past ``time_left_s``."""
        ...

    def parents(self, fps: list[int]) -> dict[int, int]: ...

    def save(self, directory: str, folder: str) -> tuple[str, list[str] | dict[str, str]]:
        """Write the seen set and the frontier under ``directory/folder``;
        returns the layout (checkpoint.NPZ) and the files written, relative
        to the folder (with their sha256 when the writers computed it)."""
        ...

    def close(self) -> None: ...


class LevelSearch:
    """Runs levels until the frontier is empty or a bound stops the search."""

    def __init__(self, backend: LevelBackend, plan: PropertyPlan, options: CheckOptions,
                 reporter: Reporter, state: SearchState, digest: str, words: int,
                 to_spark: Callable[[list[Part]], LevelBackend] | None,
                 open_names: set[str]):
        self.backend = backend
        self.plan = plan
        self.options = options
        self.reporter = reporter
        self.state = state
        self.digest = digest
        self.words = words
        self.to_spark = to_spark
        self.open_names = open_names          # properties (and deadlock) still to settle
        self.start = time.monotonic()
        self.reason: str | None = None
        self.failed: tuple[int, int] | None = None   # (fingerprint, level) of a failing state
        self.finished = False
        self.settled_early = False      # ended: every property checked was settled
        self._checked = len(open_names)
        self._last_checkpoint = (time.monotonic(), state.depth)
        self._written_depth: int | None = None     # the depth of this run's last checkpoint

    # ------------------------------------------------------------ the loop

    def run(self) -> None:
        opts = self.options
        try:
            while True:
                if self.backend.frontier_size() == 0:
                    self.finished = True
                    return
                if not self.open_names and stops_when_settled(opts, self._checked):
                    # every verdict is final: end here, as the other engines do
                    self.finished = self.settled_early = True
                    return
                if opts.timeout_s is not None and self.elapsed() >= opts.timeout_s:
                    self.reason = (f"timeout after {opts.timeout_s:g} s: {self.state.distinct:,} "
                                   f"distinct states, depth {self.state.depth}")
                    break
                self.maybe_hand_over()
                self.one_level()
                if self.failed is not None or self.reason is not None:
                    break
                self.maybe_checkpoint()
        except LevelCancelled:
            self.reason = (f"timeout after {opts.timeout_s:g} s: {self.state.distinct:,} "
                           f"distinct states, depth {self.state.depth}")
        except KeyboardInterrupt:
            self.reason = "interrupted"
        if self.reason is not None and opts.checkpoint_dir and self.failed is None:
            self.checkpoint()

    def one_level(self) -> None:
        """The next level, or the next levels where the backend runs them
        in one job (``step_many``, batch.py): each is then taken as if it
        had been run alone."""
        opts, st = self.options, self.state
        commit = opts.max_depth is None or st.depth < opts.max_depth
        check_deadlock = opts.deadlock and DEADLOCK in self.open_names
        started = time.monotonic()
        expanded_size = self.backend.frontier_size()
        remaining = None if opts.timeout_s is None else max(0.0, opts.timeout_s - self.elapsed())
        many = getattr(self.backend, "step_many", None)
        rule = self.batch_rule(check_deadlock) if commit and many is not None else None
        if rule is not None:
            pairs = many(check_deadlock, remaining, rule)
        else:
            pairs = [self.backend.step(check_deadlock, commit, remaining)]
        seconds = (time.monotonic() - started) / len(pairs)
        for expanded, merged in pairs:
            self.take_level(expanded, merged, commit, expanded_size, seconds)
            if self.failed is not None or self.reason is not None:
                return
            expanded_size = merged.new_states

    def take_level(self, expanded: LevelReport, merged: LevelReport, commit: bool,
                   expanded_size: int, seconds: float) -> None:
        """One level's reports: its counts, what it settles, the bounds.
        Of a batch's levels only the last can settle anything or hit a
        bound (batch.BatchRule), so stopping here leaves none untaken."""
        opts, st = self.options, self.state
        level = st.depth
        self.absorb_expansion_hits(expanded)
        if expanded.failed is not None:
            self.failed = (expanded.failed, st.depth)
            return
        if not commit and merged.new_states and merged.failed is None:
            # The level is not kept (a resumed run expands it again), so its
            # counts are not either; what it settled stays settled.
            self.reason = (f"stopped at the depth bound: depth {st.depth} "
                           f"(max_depth={opts.max_depth}), {st.distinct:,} distinct states")
            return
        self.absorb_expansion_counts(expanded)
        if merged.new_states:
            st.depth += 1
            st.distinct += merged.new_states
        # states outside the model settle properties without adding a level
        self.absorb_states(merged, level + 1)
        if merged.failed is not None:
            self.failed = (merged.failed, st.depth)
            return
        st.levels.append(LevelLog(level + 1, self.backend.where, expanded_size, merged.new_states,
                                  round(seconds, 3),
                                  expanded.to_python + merged.to_python,
                                  expanded.from_python + merged.from_python,
                                  expanded.from_python if self.backend.where == "spark" else 0,
                                  expanded.exchanged))
        self.tick(merged.new_states)
        if opts.max_states is not None and st.distinct > opts.max_states:
            self.reason = (f"stopped at the state bound: {st.distinct:,} distinct states "
                           f"(max_states={opts.max_states:,}), depth {st.depth}")
        elif opts.stop_on_first and self.any_violation():
            self.reason = "stopped at the first violation (stop_on_first)"

    def batch_rule(self, check_deadlock: bool) -> BatchRule | None:
        """How far the backend may run levels in one job: while nothing
        still open is settled, within the bounds, up to the next checkpoint
        (batch.py).  None: one level."""
        opts, st = self.options, self.state
        levels = int(opts.extra.get("spark_batch_levels", BATCH_LEVELS))
        seconds = BATCH_SECONDS
        if opts.max_depth is not None:
            levels = min(levels, opts.max_depth - st.depth)     # each level kept
        if opts.checkpoint_dir:
            at, depth = self._last_checkpoint
            every_levels = int(opts.extra.get("checkpoint_levels", CHECKPOINT_LEVELS))
            every_s = opts.checkpoint_every_s or CheckOptions().checkpoint_every_s
            levels = min(levels, every_levels - (st.depth - depth))
            seconds = min(seconds, max(0.0, every_s - (time.monotonic() - at)))
        if opts.timeout_s is not None:
            # ended by its rule well before the timer cancels it (a batch
            # cancelled keeps none of its levels)
            seconds = min(seconds, max(0.0, opts.timeout_s - self.elapsed()) / 2)
        if levels < 2:
            return None
        return BatchRule(
            max_levels=levels,
            states_left=None if opts.max_states is None else opts.max_states - st.distinct,
            rows=BATCH_ROWS, seconds=seconds,
            state_cols=frozenset(c for c, p in enumerate(self.plan.state)
                                 if p.name in self.open_names),
            step_cols=frozenset(c for c, p in enumerate(self.plan.step)
                                if p.name in self.open_names),
            deadlock=check_deadlock)

    def seed(self, report: LevelReport, generated: int) -> None:
        """Account for the initial states (level 1)."""
        st = self.state
        st.generated += generated
        st.distinct += report.new_states
        # TLC: depth 1 even when every initial state fails a constraint
        st.depth = 1 if generated else 0
        self.absorb_states(report, 1)
        st.levels.append(LevelLog(1, self.backend.where, 0, report.new_states, 0.0))
        self.tick()
        if report.failed is not None:
            self.failed = (report.failed, 1)
        if self.options.stop_on_first and self.any_violation():
            self.reason = "stopped at the first violation (stop_on_first)"

    # ------------------------------------------------------------ verdicts

    def absorb_expansion_counts(self, report: LevelReport) -> None:
        st = self.state
        st.generated += report.generated
        if report.action_counts is not None:
            if not st.action_counts:
                st.action_counts = [0] * len(report.action_counts)
            st.action_counts = [a + int(b) for a, b in zip(st.action_counts, report.action_counts)]

    def absorb_expansion_hits(self, report: LevelReport) -> None:
        st = self.state
        if report.deadlock is not None and DEADLOCK in self.open_names and self.options.deadlock:
            self.settle(Hit(DEADLOCK, "deadlock", (report.deadlock,), st.depth))
        for column, (pre, post) in sorted(report.step_hits.items()):
            name = self.plan.step[column].name
            if name in self.open_names:
                self.settle(Hit(name, "step", (pre, post), st.depth, column))

    def absorb_states(self, report: LevelReport, level: int) -> None:
        for column, fp in sorted(report.state_hits.items()):
            name = self.plan.state[column].name
            if name in self.open_names:
                self.settle(Hit(name, "state", (fp,), level, column))
        for column, (fp, parent) in sorted(report.outside_hits.items()):
            name = self.plan.state[column].name
            if name in self.open_names:
                self.settle(Hit(name, "outside", (parent, fp), level, column))

    def settle(self, hit: Hit) -> None:
        self.open_names.discard(hit.name)
        self.state.hits[hit.name] = hit

    def any_violation(self) -> bool:
        def witness(h: Hit) -> bool:
            return h.what in ("state", "outside") and self.plan.state[h.column].kind is PropertyKind.SOMETIMES
        return any(not witness(h) for h in self.state.hits.values())

    # ------------------------------------------------------------ Spark, checkpoints

    def threshold(self) -> int:
        t = self.options.spark_threshold
        return DEFAULT_THRESHOLD if t is None else t

    def maybe_hand_over(self) -> None:
        if self.to_spark is None or self.backend.where != "in-process":
            return
        size = self.backend.frontier_size()
        if size < self.threshold():
            return
        parts = self.backend.parts()         # type: ignore[attr-defined]  (InProcessLevels)
        self.backend.close()
        self.backend = self.to_spark(parts)
        self.reporter.note(f"level {self.state.depth}: {size:,} states in the frontier "
                           f"(threshold {self.threshold():,}); the search continues on Spark "
                           f"with {self.backend.partitions} partitions")

    def maybe_checkpoint(self) -> None:
        if not self.options.checkpoint_dir:
            return
        at, depth = self._last_checkpoint
        every_levels = int(self.options.extra.get("checkpoint_levels", CHECKPOINT_LEVELS))
        every_s = self.options.checkpoint_every_s or CheckOptions().checkpoint_every_s
        if self.state.depth - depth >= every_levels or time.monotonic() - at >= every_s:
            self.checkpoint()

    def checkpoint(self) -> None:
        directory = self.options.checkpoint_dir
        assert directory is not None
        if self._written_depth == self.state.depth:
            return                # this level is in the checkpoint already
        folder = level_folder(self.state.depth)
        self.state.elapsed_before_s = self.total_elapsed()
        layout, files = self.backend.save(directory, folder)
        write_manifest(directory, self.digest, folder, layout, files, self.words, self.state)
        self._last_checkpoint = (time.monotonic(), self.state.depth)
        self._written_depth = self.state.depth
        self.reporter.note(f"checkpoint written at depth {self.state.depth} to {directory}")

    # ------------------------------------------------------------ progress

    def elapsed(self) -> float:
        return time.monotonic() - self.start

    def total_elapsed(self) -> float:
        return self.state.elapsed_before_s + self.elapsed()

    def tick(self, frontier: int | None = None) -> None:
        st = self.state
        queue = self.backend.frontier_size() if frontier is None else frontier
        self.reporter.progress(Progress(st.distinct, st.generated, st.depth, queue,
                                        self.elapsed()))
