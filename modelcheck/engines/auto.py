"""``AutoEngine``: the default engine.  The compiled engine's speed without
waiting for numba on a spec's first run.

* The kernel is in the cache (an earlier run compiled it): the compiled
  engine runs at once.
* It is not: the kernel compiles in a background process
  (compiled/background.py) while the reference explorer searches here.  If
  the reference search ends first, its result is the answer and the compile
  is stopped.  If the kernel is ready first, the reference search is stopped
  and the compiled engine searches from the start (the same counts and
  verdicts; it is about a hundred times faster).
* Runs that only the compiled engine can do (checkpoints, a memory cap, a
  kernel dump) go straight to the compiled engine, as do specs it hands to
  the reference explorer itself (with its note).
* Symmetry reduction does not keep a spec off the race: it changes the
  counts (orbit representatives), never a verdict or the length of a
  shortest counterexample, and waiting a minute for numba to count 314
  orbits instead of 8,832 states found in a second is what this engine is
  here to avoid.  When the reference explorer answers, a note says that its
  counts are of every state.

The compile starts only once the reference search has run ``grace_s``
seconds: most small specs are answered before that, at no cost in
processes.  The result's ``engine`` names the engine that gave the answer,
and its notes say how it came about.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any, Protocol

from modelcheck.engines.base import (CheckOptions, CheckResult, NullReporter, Progress, Reporter)
from modelcheck.ir.nodes import Model

__all__ = ["AutoEngine", "CompileJob", "GRACE_S", "SYMMETRY_NOTE", "compiled_only"]

#: Seconds the reference explorer runs alone before the compile starts.
GRACE_S = 0.5

#: Symmetry reduction changes the counts, never a verdict or the length of a
#: shortest counterexample; the reference explorer has none.
SYMMETRY_NOTE = ("symmetry reduction not applied: the reference explorer answered, and these "
                 "are the counts of every state (--engine compiled for orbit counts)")


class CompileJob(Protocol):
    """What the race needs of a background compile (``BackgroundCompile``;
    tests give one that is ready at once, or never)."""
    ready: Any            # a threading.Event, set when the kernel is cached

    def start(self) -> None: ...
    def stop(self) -> None: ...

    @property
    def failed(self) -> str | None: ...


def compiled_only(model: Model, options: CheckOptions) -> str | None:
    """Why ``options`` ask for what only the compiled engine gives, or None
    when the reference explorer would give the same answer."""
    if options.checkpoint_dir or options.resume_dir:
        return "checkpoints"
    if options.extra.get("max_memory_mib") is not None:
        return "a memory cap"
    if options.dump_kernel:
        return "a kernel dump"
    return None


class _Watch:
    """The reporter the reference search reports to during the race: it
    passes everything on, and starts the compile on the first tick after
    ``grace_s`` seconds (in this thread, so the note is shown in order)."""

    def __init__(self, reporter: Reporter, begin: Callable[[], None], grace_s: float) -> None:
        self.reporter = reporter
        self.begin = begin
        self.grace_s = grace_s
        self.started_at: float | None = None

    def progress(self, progress: Progress) -> None:
        if self.started_at is None and progress.elapsed_s >= self.grace_s:
            self.started_at = time.monotonic()
            self.begin()
        self.reporter.progress(progress)

    def note(self, message: str) -> None:
        self.reporter.note(message)


class AutoEngine:
    """The compiled engine, with the reference explorer answering while a
    new kernel compiles.  ``start_compile`` and ``grace_s`` are test seams."""

    name = "auto"

    def __init__(self, start_compile: Callable[[Model, Any], CompileJob] | None = None,
                 grace_s: float = GRACE_S) -> None:
        self.start_compile = start_compile or _background
        self.grace_s = grace_s

    def check(self, model: Model, options: CheckOptions | None = None,
              reporter: Reporter | None = None) -> CheckResult:
        options = options if options is not None else CheckOptions()
        reporter = reporter if reporter is not None else NullReporter()
        from modelcheck.engines.compiled.engine import CompiledEngine, available, plan_run
        from modelcheck.engines.reference.engine import ReferenceEngine
        if options.simulate:
            return ReferenceEngine().check(model, options, reporter)
        usable, _ = available()
        if not usable or compiled_only(model, options):
            # The compiled engine says itself why it cannot run, if it cannot.
            return CompiledEngine().check(model, options, reporter)
        plan = plan_run(model, options)
        if plan.fallback is not None or _straight_to_compiled(model, plan.kernel_options):
            return CompiledEngine().check(model, options, reporter)
        return self._race(model, options, plan.kernel_options, reporter)

    def _race(self, model: Model, options: CheckOptions, kernel_options: Any,
              reporter: Reporter) -> CheckResult:
        from modelcheck.engines.reference.explorer import STOPPED, explore
        start = time.monotonic()
        job: CompileJob | None = None

        def begin() -> None:
            nonlocal job
            reporter.note(f"compiling the kernel for {model.name} in the background (first "
                          f"run of this spec); the reference explorer searches meanwhile")
            job = self.start_compile(model, kernel_options)
            job.start()

        watch = _Watch(reporter, begin, self.grace_s)
        stop = _Ready(lambda: job)
        try:
            result = explore(model, options, watch, stop)
        finally:
            # Whatever ended the search (its end, a bound, Ctrl-C, the
            # kernel being ready) ends the child; a finished one is reaped.
            if job is not None:
                job.stop()
        if result.reason != STOPPED:
            if job is not None:
                result.notes.append(self._why_reference(job, result))
            if options.symmetry and model.symmetric_types:
                result.notes.append(SYMMETRY_NOTE)
            return result
        return self._hand_over(model, options, reporter, start, watch)

    @staticmethod
    def _why_reference(job: CompileJob, result: CheckResult) -> str:
        failed = job.failed
        if failed is not None:
            return f"{failed}; the reference explorer went on alone"
        if job.ready.is_set():
            return "the kernel compiled as the reference explorer finished (cached for the next run)"
        if result.reason is None:
            return "the reference explorer finished before the kernel compiled (compile stopped)"
        return "the kernel compile was stopped with the search"

    @staticmethod
    def _hand_over(model: Model, options: CheckOptions, reporter: Reporter, start: float,
                   watch: _Watch) -> CheckResult:
        from modelcheck.engines.compiled.engine import CompiledEngine
        now = time.monotonic()
        compile_s = now - (watch.started_at if watch.started_at is not None else start)
        note = f"kernel ready after {compile_s:.1f} s: continuing on the compiled engine"
        reporter.note(note)
        if options.timeout_s is not None:
            # The time spent is spent: the compiled search gets what is left.
            options = replace(options, timeout_s=max(options.timeout_s - (now - start), 1e-3))
        result = CompiledEngine().check(model, options, reporter)
        result.notes.insert(0, note)
        result.stats.extras["handed_over_after_s"] = round(now - start, 3)
        return result


class _Ready:
    """The reference search's stop signal: the compile job is ready."""

    def __init__(self, job: Callable[[], CompileJob | None]) -> None:
        self.job = job

    def is_set(self) -> bool:
        job = self.job()
        return job is not None and job.ready.is_set()


def _straight_to_compiled(model: Model, kernel_options: Any) -> bool:
    """Whether the kernel is cached, so the compiled engine can start at
    once; a spec the compiled engine cannot lay out goes to it as well (it
    hands the spec to the reference explorer with its note)."""
    from modelcheck.engines.compiled.kernels import kernel_looks_warm
    from modelcheck.engines.compiled.reps import Unsupported
    try:
        return kernel_looks_warm(model, kernel_options)
    except Unsupported:
        return True


def _background(model: Model, kernel_options: Any) -> CompileJob:
    from modelcheck.engines.compiled.background import BackgroundCompile
    return BackgroundCompile(model, kernel_options)
