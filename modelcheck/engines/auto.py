"""``AutoEngine``: the default engine.  The compiled engine's speed without
waiting for numba on a spec's first run, and never much slower than the
reference explorer on a small spec.

In a process that has imported numba already (a ``verdicts`` worker after
its first compiled row), a cached kernel loads in 0.1-0.2 s: there, where
the cache holds a compiled kernel of the spec (``kcache.spec_warm``), the
kernel index is read first, and a kernel it knows searches alone; the
reference explorer does not even compile its actions.  Otherwise the
reference explorer starts at once.  A search over within ``probe_s``
(most small specs) is the answer: nothing else starts, not even numba,
whose import and kernel load take longer than such a search.  Then the
kernel index (compiled/kcache.py) says in milliseconds whether an earlier
run left the spec's kernel compiled: if so, the reference search stops
once the kernel's load would cost less than what the search has taken
(``warm_grace_s``: longer while this process has not imported numba), and
the compiled engine searches from the start.  Otherwise, after ``grace_s``,
where the cache holds a compiled kernel of another configuration of the spec
(``kcache.spec_warm``), this process generates the kernel to look for it
(0.3-0.8 s for the quorum queue): configurations of one layout share a
kernel, and a look in a background process at its lower priority, on a
machine busy with other searches (``make check``'s rows), took longer than
the search.  A kernel found takes over at once.  Otherwise a background
process (compiled/background.py) looks for the spec's kernel in the cache
and, on a miss, compiles it, while the reference explorer goes on
(everything costly happens in that process, at a lower priority):

* the kernel was cached (an earlier run compiled it), or is now compiled:
  the reference search is stopped and the compiled engine searches from
  the start (the same counts and verdicts; it is about a hundred times
  faster);
* the reference search ends first: its result is the answer and the
  compile is stopped.
* Runs that only the compiled engine can do (checkpoints, a memory cap, a
  kernel dump) go straight to the compiled engine.  A spec the compiled
  engine cannot lay out stays on the reference explorer, with the note the
  compiled engine gives when it hands such a spec over.
* Symmetry reduction does not keep a spec off the race: the reference
  explorer reduces by the same symmetric types (by brute force, one state
  per orbit), so either engine gives the same counts.  Past its group limit
  (more than 720 renamings a state) it searches un-reduced; when it answers
  such a run, a note says that its counts are of every state (the verdicts
  and shortest counterexamples are the same).

The result's ``engine`` names the engine that gave the answer,
and its notes say how it came about.
"""
from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any, Protocol

from modelcheck.engines.base import (CheckOptions, CheckResult, NullReporter, Progress, Reporter)
from modelcheck.engines.liveness_scope import SYMMETRY_OFF_NOTE
from modelcheck.ir.nodes import Model

__all__ = ["AutoEngine", "CompileJob", "DETACH_AFTER_S", "GRACE_S", "KERNEL_WANTED",
           "LOOK_AFTER_S", "PROBE_S", "SYMMETRY_NOTE", "WARM_GRACE_S", "compiled_only"]

#: Seconds the reference explorer runs alone before the kernel is looked
#: for.  A compile running beside it slows it by a fifth on a busy two-core
#: machine (measured with bench/first_verdict.py), so searches of a few
#: seconds are spared most of that; a long search hands over a second later.
GRACE_S = 1.0

#: Seconds the reference explorer runs before the kernel index is read (a
#: look of 0.02 s of planning and a digest of the model, 60 ms for the quorum
#: queue): most small specs end sooner.
PROBE_S = 0.2

#: Seconds the reference explorer runs before a cached kernel takes over,
#: in a process that has imported numba (a verdicts worker after its first
#: compiled row): the hand-over then costs loading the kernel's plan and
#: module, 0.1-0.2 s.  Without numba it costs about a second more, and the
#: search waits ``GRACE_S``: no search takes much more than twice as long as
#: the quicker of the two engines would have.
WARM_GRACE_S = 0.3

#: A reference search that took this long finishes before the kernel, and
#: the next run of the spec would take as long again: the kernel's compile
#: goes on after the run instead of being thrown away, so that the next run
#: hands over to it at once (``make check``'s next row with the same kernel
#: waits for it: kcache.compile_lock).  A shorter search is not worth the
#: compile's CPU after the answer.
DETACH_AFTER_S = 5.0

#: A reference search this long, of a spec with some kernel compiled, is
#: worth a look for its own kernel after it ends (``look_after``): a kernel
#: found takes over the next run from its start, at 0.1-0.2 s.
LOOK_AFTER_S = 0.3

#: The key of ``stats.extras`` that marks a result the reference explorer
#: gave after ``LOOK_AFTER_S`` or more, with no compiled kernel for it and
#: none being compiled: a run made again and again (``modelcheck
#: verdicts``' rows) is worth compiling it for, after the run
#: (compiled/background.py, ``compile_after_run``).
KERNEL_WANTED = "kernel_wanted"

#: Symmetry reduction changes the counts, never a verdict or the length of a
#: shortest counterexample; the reference explorer reduces only up to its
#: group limit (reference/orbits.py).
SYMMETRY_NOTE = ("symmetry reduction not applied: the reference explorer answered, and these "
                 "are the counts of every state (--engine compiled for orbit counts)")


class CompileJob(Protocol):
    """What the race needs of a background compile (``BackgroundCompile``;
    tests give one that is ready at once, or never)."""
    ready: Any            # a threading.Event: the kernel is in the cache
    compiling: Any        # a threading.Event: it was not, and is being compiled
    finished: Any         # a threading.Event: the job has ended
    declined: str | None  # why the compiled engine would not run the spec

    def start(self) -> None: ...
    def stop(self) -> None: ...
    def detach(self) -> None: ...          # let it finish after this process ends
    def look(self) -> None: ...            # let it finish looking, not compiling
    # Optional: ``boost_after_s`` (float) and ``boost()``, lifting the
    # build's lower priority once the search has run that long.

    @property
    def pid(self) -> int | None: ...

    @property
    def failed(self) -> str | None: ...


def compiled_only(model: Model, options: CheckOptions) -> str | None:
    """Why ``options`` ask for what only the compiled engine gives, or None
    when the reference explorer would give the same answer."""
    if options.checkpoint_dir or options.resume_dir:
        return "checkpoints"
    if options.extra.get("max_memory_mib") is not None:
        return "a memory cap"
    if options.extra.get("preallocate"):
        return "a table sized once"
    if options.extra.get("frontier_dir") is not None or options.extra.get("frontier_memory_mib"):
        return "levels on disk"
    if options.dump_kernel:
        return "a kernel dump"
    return None


class _Race:
    """The reference search's reporter and stop signal during the race.  On
    the first progress tick after ``grace_s`` seconds it starts the
    background job, which finds the kernel in the cache or compiles it; the
    search stops as soon as the kernel is ready.  Notes are given from this
    thread, on progress ticks, so that they come in order."""

    def __init__(self, engine: "AutoEngine", model: Model, options: CheckOptions,
                 reporter: Reporter) -> None:
        self.engine, self.model, self.options, self.reporter = engine, model, options, reporter
        self.start = time.monotonic()
        self.started_at: float | None = None
        self.announced_at: float | None = None
        self.job: CompileJob | None = None
        self.unstarted: str | None = None     # why the background job could not start
        self.detached = False                 # the compile goes on after the run
        self.warm: bool | None = None         # the index has the kernel (None: not asked yet)
        self.looking = False                  # the job finishes its look after the run
        self.again = False                    # an earlier run of this configuration made its kernel's code
        self.warm_grace_s = engine.grace_s
        self.boost_asked = False              # the build's priority was lifted (or tried)

    # ------------------------------------------------------------ Reporter

    def progress(self, progress: Progress) -> None:
        if self.job is None and self.unstarted is None and not self.warm \
                and progress.elapsed_s >= self.engine.grace_s:
            # Asked before the look below, which writes the entry in this run.
            self.again = self.engine.kernel_known(self.model, self.options)
            if self.warm is False and self.engine.kernel_look(self.model, self.options):
                self.warm = True
                self.warm_grace_s = 0.0
            else:
                self.started_at = time.monotonic()
                self.begin()
        if self.job is not None and not self.boost_asked \
                and time.monotonic() - self.start >= getattr(self.job, "boost_after_s", math.inf):
            # The search has run longer than a build takes: the kernel is
            # now the quicker way to the answer, so its build stops yielding.
            self.boost_asked = True
            boost = getattr(self.job, "boost", None)
            if boost is not None:
                boost()
        if self.job is not None and self.announced_at is None and self.job.compiling.is_set():
            self.announced_at = time.monotonic()
            self.reporter.note(f"compiling the kernel for {self.model.name} in the background "
                               f"(first run of this spec); the reference explorer searches "
                               f"meanwhile")
        self.reporter.progress(progress)

    def note(self, message: str) -> None:
        self.reporter.note(message)

    def begin(self) -> None:
        job = self.engine.start_compile(self.model, self.options)
        try:
            job.start()
        except Exception as err:  # noqa: BLE001 - only a speedup is lost
            # A model that does not pickle, no process to be had: the
            # reference explorer goes on alone, and says why.
            job.stop()
            self.unstarted = f"{type(err).__name__}: {err}"
            return
        self.job = job

    # ------------------------------------------------------------ StopSignal

    def is_set(self) -> bool:
        if self.job is not None:
            return bool(self.job.ready.is_set())
        if self.unstarted is not None:
            return False
        elapsed = time.monotonic() - self.start
        if self.warm is None:
            if elapsed < self.engine.probe_s:
                return False
            self.warm = self.engine.kernel_warm(self.model, self.options)
            if self.warm:
                self.warm_grace_s = self.engine.warm_grace_s()
        return bool(self.warm) and elapsed >= self.warm_grace_s

    # ------------------------------------------------------------ the end

    def stop_compile(self) -> None:
        if self.job is not None:
            self.job.stop()

    def worth_finishing(self, result: CheckResult, after_s: float) -> bool:
        """Whether the kernel should be finished for the next run: the
        reference search ran to its end (not Ctrl-C, not a bound), and took
        ``after_s`` seconds or more, which the kernel would save; or it took
        the grace period (a job was started) and this configuration has run
        before (``again``: the index has its kernel's entry, written when an
        earlier run made the kernel's code), so it is run again and again, as
        ``make check``'s rows are.  The job need not have said yet that it
        compiles: at its lower priority, on a machine busy with other
        searches, it can take longer to look in the cache than such a search
        takes; told to finish, it loads a cached kernel or compiles a new one."""
        job = self.job
        return (job is not None and not job.ready.is_set() and not job.finished.is_set()
                and job.failed is None and job.declined is None and result.complete
                and (self.again or time.monotonic() - self.start >= after_s))

    def kernel_wanted(self, result: CheckResult, warm_now: bool) -> bool:
        """Whether this configuration has no compiled kernel, none is being
        compiled, and its reference search took long enough to want one
        (``KERNEL_WANTED``).  ``warm_now``: the look after the search found it."""
        job = self.job
        return (result.complete and result.error is None and not self.detached
                and self.warm is not True and not warm_now
                and time.monotonic() - self.start >= LOOK_AFTER_S
                and (job is None or (not job.ready.is_set() and job.declined is None)))

    def still_looking(self) -> bool:
        """Whether the background job has not yet said whether the kernel
        is cached."""
        job = self.job
        return (job is not None and not job.compiling.is_set() and not job.ready.is_set()
                and not job.finished.is_set() and job.declined is None)

    def let_it_look(self) -> None:
        assert self.job is not None
        self.job.look()
        self.looking = True

    def detach_compile(self) -> None:
        assert self.job is not None
        self.job.detach()
        self.detached = True

    def reference_notes(self, result: CheckResult) -> list[str]:
        """What the result of a reference search that ran to its end says."""
        job = self.job
        if self.unstarted is not None:
            return [f"the background compile could not start ({self.unstarted}); the reference "
                    f"explorer answered"]
        if job is None:
            return []
        notes = []
        if self.looking:
            pass            # it had not said yet, and what it says now is the next run's
        elif job.declined is not None:
            notes.append(f"compiled engine unavailable ({job.declined}); "
                         f"the reference explorer answered")
        elif job.failed is not None:
            notes.append(f"{job.failed}; the reference explorer went on alone")
        elif job.ready.is_set():
            notes.append("the kernel was ready as the reference explorer finished")
        elif self.detached:
            notes.append(f"the reference explorer finished before the kernel compiled; the "
                         f"compile goes on in the background (process {job.pid}) so that the "
                         f"next run of this spec finds the kernel ready")
        elif job.compiling.is_set():
            notes.append("the reference explorer finished before the kernel compiled (compile "
                         "stopped)" if result.reason is None else
                         "the kernel compile was stopped with the search")
        if job.declined is None and self.options.symmetry and self.model.symmetric_types \
                and "symmetry" not in result.stats.extras \
                and SYMMETRY_OFF_NOTE not in result.notes:
            notes.append(SYMMETRY_NOTE)
        return notes


class AutoEngine:
    """The compiled engine, with the reference explorer answering small
    specs and while a new kernel compiles.  ``start_compile``,
    ``kernel_warm``, ``kernel_look``, ``kernel_hinted``, ``kernel_known`` and
    the times are test seams."""

    name = "auto"

    def __init__(self, start_compile: Callable[[Model, CheckOptions], CompileJob] | None = None,
                 grace_s: float = GRACE_S, detach_after_s: float = DETACH_AFTER_S,
                 kernel_warm: Callable[[Model, CheckOptions], bool] | None = None,
                 probe_s: float = PROBE_S,
                 kernel_look: Callable[[Model, CheckOptions], bool] | None = None,
                 kernel_hinted: Callable[[Model, CheckOptions], bool] | None = None,
                 kernel_known: Callable[[Model, CheckOptions], bool] | None = None) -> None:
        self.start_compile = start_compile or _background
        self.kernel_warm = kernel_warm or _kernel_warm
        self.kernel_look = kernel_look or _kernel_look
        self.kernel_hinted = kernel_hinted or _kernel_hinted
        self.kernel_known = kernel_known or _kernel_known
        self.grace_s = grace_s
        self.probe_s = probe_s
        self.detach_after_s = detach_after_s

    def warm_at_start(self, model: Model, options: CheckOptions) -> bool:
        """Whether the kernel takes over before the reference explorer even
        compiles its actions: in a process that has numba imported (a
        ``verdicts`` worker after its first compiled row), a cached kernel
        loads in 0.1-0.2 s, and a spec with a compiled kernel in the cache
        (``kcache.spec_warm``) had a search long enough to start a compile,
        so the index is worth reading now.  Elsewhere the probe decides."""
        import sys
        return ("numba" in sys.modules and self.kernel_hinted(model, options)
                and self.kernel_warm(model, options))

    def look_after(self, model: Model, options: CheckOptions) -> bool:
        """After a reference search that ended before the grace period but
        took ``LOOK_AFTER_S`` or more, for a spec with a compiled kernel in
        the cache: generate this configuration's kernel once, to look for it
        (``kernel_look``), so that the index knows it from then on.  Where
        it is compiled (configurations of one layout share a kernel), the
        next run hands over at the start; where it is not, the next run
        reads no at a glance.  Each configuration pays the 0.3-0.8 s once.
        True when the look found the kernel compiled."""
        if self.kernel_hinted(model, options) and not self.kernel_known(model, options):
            return self.kernel_look(model, options)
        return False

    def warm_grace_s(self) -> float:
        """How long the reference explorer goes on before a cached kernel
        takes over: about what the hand-over costs."""
        import sys
        return min(self.grace_s, WARM_GRACE_S) if "numba" in sys.modules else self.grace_s

    def check(self, model: Model, options: CheckOptions | None = None,
              reporter: Reporter | None = None) -> CheckResult:
        options = options if options is not None else CheckOptions()
        reporter = reporter if reporter is not None else NullReporter()
        from modelcheck.engines.compiled.engine import CompiledEngine, available
        from modelcheck.engines.reference.engine import ReferenceEngine
        if options.simulate:
            return ReferenceEngine().check(model, options, reporter)
        usable, _ = available()
        if not usable or compiled_only(model, options):
            # The compiled engine says itself why it cannot run, if it cannot.
            return CompiledEngine().check(model, options, reporter)
        return self._race(model, options, reporter)

    def _race(self, model: Model, options: CheckOptions, reporter: Reporter) -> CheckResult:
        from modelcheck.engines.reference.explorer import STOPPED, explore
        race = _Race(self, model, options, reporter)
        if self.warm_at_start(model, options):
            race.warm = True
            return self._hand_over(model, options, reporter, race)
        try:
            result = explore(model, options, race, race)
        except BaseException:
            race.stop_compile()
            raise
        if race.worth_finishing(result, self.detach_after_s):
            # A search this long is worth a kernel next time: the compile
            # goes on after this run (compiled/background.py, "detach").
            race.detach_compile()
        elif result.complete and race.still_looking():
            # Its answer is the next run's: a warm kernel goes in the index.
            race.let_it_look()
        else:
            # Whatever else ended the search (a short search, a bound,
            # Ctrl-C, the kernel being ready) ends the child.
            race.stop_compile()
        if result.reason != STOPPED:
            warm_now = False
            if race.job is None and race.warm is not True and result.complete \
                    and time.monotonic() - race.start >= LOOK_AFTER_S:
                warm_now = self.look_after(model, options)
            if race.kernel_wanted(result, warm_now):
                result.stats.extras[KERNEL_WANTED] = True
            result.notes.extend(race.reference_notes(result))
            return result
        return self._hand_over(model, options, reporter, race)

    @staticmethod
    def _hand_over(model: Model, options: CheckOptions, reporter: Reporter,
                   race: _Race) -> CheckResult:
        from modelcheck.engines.compiled.engine import CompiledEngine
        now = time.monotonic()
        note = None
        # A kernel found in the cache takes over without a word; a compiled
        # one is announced (even when it was ready before the next tick).
        if race.job is not None and race.job.compiling.is_set() and race.started_at is not None:
            note = (f"kernel ready after {now - race.started_at:.1f} s: continuing on the "
                    f"compiled engine")
            reporter.note(note)
        if options.timeout_s is not None:
            # The time spent is spent: the compiled search gets what is left.
            options = replace(options,
                              timeout_s=max(options.timeout_s - (now - race.start), 1e-3))
        result = CompiledEngine().check(model, options, reporter)
        if note is not None:
            result.notes.insert(0, note)
        result.stats.extras["handed_over_after_s"] = round(now - race.start, 3)
        return result


def _ask(model: Model, options: CheckOptions, question: Callable[[Model, Any], bool]) -> bool:
    """``question(model, kernel_options)`` for the compiled engine's plan of
    this run; False where the compiled engine would hand the run over, and
    on any failure: these answers only choose the way to the verdict (the
    background job, if one starts, says what went wrong)."""
    from modelcheck.engines.compiled.engine import plan_run
    try:
        plan = plan_run(model, options)
        return plan.fallback is None and bool(question(model, plan.kernel_options))
    except Exception:  # noqa: BLE001 - a way to the verdict, not the verdict
        return False


def _kernel_hinted(model: Model, options: CheckOptions) -> bool:
    """Whether some configuration of the spec has a compiled kernel in the
    cache (a look of one file)."""
    from modelcheck.engines.compiled.cache.kcache import spec_warm
    return _ask(model, options, lambda m, ko: spec_warm(ko.cache_dir, m.name))


def _kernel_look(model: Model, options: CheckOptions) -> bool:
    """Whether the kernel of this run is compiled, found by generating it in
    this process, which also notes it in the index; False at once unless
    another configuration of the spec has a compiled kernel in the cache."""
    from modelcheck.engines.compiled.kernels import kernel_looks_warm
    return _kernel_hinted(model, options) and _ask(model, options, kernel_looks_warm)


def _kernel_known(model: Model, options: CheckOptions) -> bool:
    """Whether the kernel index has an entry for this run, warm or not (an
    earlier run made the kernel's code)."""
    from modelcheck.engines.compiled.cache.plan_key import kernel_indexed
    return _ask(model, options, kernel_indexed)


def _kernel_warm(model: Model, options: CheckOptions) -> bool:
    """Whether the kernel index has the compiled engine's kernel for this
    run, compiled."""
    from modelcheck.engines.compiled.cache.plan_key import kernel_known_warm
    return _ask(model, options, kernel_known_warm)


def _background(model: Model, options: CheckOptions) -> CompileJob:
    from modelcheck.engines.compiled.cache.background import BackgroundCompile
    return BackgroundCompile(model, options)
