"""A kernel compiled in a background process, both ends.

The default engine (engines/auto.py) starts one when a search on the
reference explorer runs long enough to want the compiled engine::

    job = BackgroundCompile(model, options)
    job.start()          # a child process: find the kernel in the cache, or compile it
    job.compiling        # a threading.Event, set once the child found no cached kernel
    job.ready            # a threading.Event, set once the kernel is in the cache
    job.declined         # why the compiled engine cannot run the spec, if it cannot
    job.stop()           # kill the child and its precompile workers (idempotent)
    job.detach()         # or: let it finish the kernel after this process ends
    job.look()           # or: let it finish looking in the cache (no compile)

and ``compile_after_run`` starts one process that, after a ``verdicts`` run,
finds or compiles in turn the kernels its rows wanted (``auto.KERNEL_WANTED``).

Everything that costs time happens in the child, so the reference search
in the parent loses nothing to it: generating the kernel (numpy, code
generation), looking for it in the cache, and on a miss compiling it, which
is exactly what ``compile_model`` does (``CompiledModel.__init__`` and
``warm_up``: every entry point, then the ``.warm`` manifest).  The child is
a plain Python process (not multiprocessing, so a caller's script is never
re-imported) that lowers its priority, then runs ``main``:

    python -c <_BOOT> JOB.pickle

``JOB.pickle`` holds the IR model and the ``CheckOptions``.  The child says
``cold`` on stdout when it starts compiling, or ``declined: <why>`` for a
spec the compiled engine would hand to the reference explorer; it exits 0
once the kernel is in the cache.  It runs at a lower priority and in its
own process group, so ``stop`` ends it and every precompile worker it
started at once; it dies with its parent too (the end of its stdin, a
pipe from the parent, tells it, and on Linux the parent-death signal kills
it at once, however busy the machine: ``_listen``), unless the parent
said ``detach`` there first: then it finishes the kernel for the next run
(the default engine asks for that after a long reference search).  Or the parent says
``look``: the child finishes looking for the kernel, which notes a warm
one in the kernel index for the next run's default engine, and exits
without compiling a cold one (a reference search that ended before the
child had looked: on a busy machine the child, at its lower priority,
can take longer to look than the search takes).  The compile holds the
kernel's lock (``kcache.compile_lock``), so a run that wants the same kernel
meanwhile waits for it.  A child killed half-way leaves nothing
that is trusted: the kernel file and its hash record are written
atomically, and numba's files without the ``.warm`` manifest are thrown away
by the next run (kcache.py).
"""
from __future__ import annotations

import contextlib
import os
import pickle
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

__all__ = ["BackgroundCompile", "BOOST_ENV", "main", "NICENESS", "COLD", "DECLINED", "DETACH", "LOOK",
           "LOOKED_COLD", "compile_after_run", "after_run_main"]

#: The child runs at a lower priority: the reference explorer in the parent
#: is the one giving the answer now; the compile is a bet on a long search.
#: Not the lowest: Linux schedules a process group's share across the cores
#: by weight, so at niceness 19 on a busy machine the compile got 1% of a
#: core and a half-hour search never handed over.
NICENESS = 10
#: ``0``: never lift a build's lower priority (``BackgroundCompile.boost``).
BOOST_ENV = "MODELCHECK_BUILD_BOOST"
#: What the child says on stdout: it is compiling; the spec is not for it.
COLD, DECLINED = "cold", "declined: "
#: What the parent says on the child's stdin: finish after I am gone; and
#: the child's answer, once it no longer ends with its parent.
DETACH, DETACHED = "detach", "detached"
#: What the parent says instead to let the child finish only its look; the
#: child's exit status when it then found no kernel (and compiled none).
LOOK, LOOKED_COLD = "look", 3
#: How long the parent waits for that answer (the child's listening thread
#: answers at once, unless the machine is very busy).
DETACH_WAIT_S = 10.0


#: The child's first lines: lower its priority before anything is imported
#: (importing modelcheck alone takes a third of a second of CPU), then run
#: ``main``; ``python -m`` would import the package first.
_BOOT = ("import os, sys\n"
         "if hasattr(os, 'nice'):\n    os.nice({niceness})\n"
         "from modelcheck.engines.compiled.cache.background import {main}\n"
         "sys.exit({main}(sys.argv[1:]))\n")


def _kernel_options(options: Any, compile_jobs: int) -> Any:
    """What of ``options`` shapes the kernel (``extra`` may hold anything
    that does not pickle), with the child's precompile processes and the
    backend chosen here (the child would read the environment again)."""
    from modelcheck.engines.compiled.cache.plan_key import resolve_backend
    return replace(options, timeout_s=None, dump_kernel=None,
                   extra={"compile_jobs": compile_jobs,
                          "kernel_backend": resolve_backend(options.extra.get("kernel_backend"))})


class BackgroundCompile:
    """The kernel the compiled engine would use for ``model`` under
    ``options``, found or compiled by a child process.  ``workers`` is the
    child's precompile processes (default: one less than the cores, so that
    one core is left to the reference explorer); ``niceness``, how much it
    yields to the reference explorer (tests that wait for it give 0)."""

    def __init__(self, model: Any, options: Any, workers: int | None = None,
                 niceness: int = NICENESS) -> None:
        self.model = model
        self.niceness = niceness
        cores = os.cpu_count() or 1
        jobs = workers if workers is not None else max(1, cores - 1)
        self.options = _kernel_options(options, jobs)
        self.ready = threading.Event()
        self.compiling = threading.Event()
        self.finished = threading.Event()
        self.declined: str | None = None
        self.returncode: int | None = None
        self._proc: subprocess.Popen | None = None
        self._job: Path | None = None
        self._lock = threading.Lock()
        self.detached_pid: int | None = None
        self._detached = threading.Event()
        #: How long a build usually takes here: once the reference search
        #: has run that long, the build gets a fair share (``boost``).
        self.boost_after_s = _expected_build_s(self.options)
        self.boosted: bool | None = None      # None: not asked; False: not allowed

    @property
    def pid(self) -> int | None:
        return self.detached_pid if self._proc is None else self._proc.pid

    @property
    def failed(self) -> str | None:
        """Why the child ended without the kernel, once it has."""
        if not self.finished.is_set() or self.ready.is_set() or self.declined is not None:
            return None
        return f"the background compile ended with exit status {self.returncode}"

    def start(self) -> None:
        fd, name = tempfile.mkstemp(prefix="modelcheck-compile-", suffix=".pickle")
        self._job = Path(name)
        with os.fdopen(fd, "wb") as f:
            pickle.dump((self.model, self.options), f, protocol=pickle.HIGHEST_PROTOCOL)
        # Linux's parent-death signal (see _listen) comes when the thread
        # that started the child ends: only the main thread lasts as long as
        # this process, so only it has the child ask for one.
        parent = os.getpid() if threading.current_thread() is threading.main_thread() else 0
        self._proc = subprocess.Popen(
            [sys.executable, "-c", _BOOT.format(niceness=int(self.niceness), main="main"), name,
             str(parent)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            text=True,
            # Its own process group: Ctrl-C at a terminal does not reach it
            # (stop() ends it), and one signal ends it with its workers.  Not
            # its own session: Linux would give a new session its own
            # scheduling group (autogroup), where its niceness no longer
            # yields to the reference explorer.
            **({"process_group": 0} if hasattr(os, "setpgid") else {}))
        threading.Thread(target=self._watch, args=(self._proc,), daemon=True,
                         name="modelcheck-background-compile").start()

    def _watch(self, proc: subprocess.Popen) -> None:
        assert proc.stdout is not None
        with proc.stdout:
            for line in proc.stdout:
                line = line.rstrip("\n")
                if line == COLD:
                    self.compiling.set()
                elif line == DETACHED:
                    self._detached.set()
                elif line.startswith(DECLINED):
                    self.declined = line[len(DECLINED):]
        code = proc.wait()
        self.returncode = code
        if code == 0 and self.declined is None:
            self.ready.set()
        self.finished.set()

    def stop(self) -> None:
        """End the child and its workers if they still run; remove the job file."""
        with self._lock:
            proc, self._proc = self._proc, None
            if proc is not None:
                # While the child is not reaped its pid cannot name another
                # process group, so the group signal reaches only its own.
                if proc.poll() is None:
                    with contextlib.suppress(ProcessLookupError, PermissionError):
                        if hasattr(os, "killpg"):
                            os.killpg(proc.pid, signal.SIGKILL)
                        else:
                            proc.kill()
                proc.wait()
            if self._job is not None:
                with contextlib.suppress(FileNotFoundError):
                    self._job.unlink()
                self._job = None

    def boost(self) -> bool:
        """Lift the child's lower priority (niceness 0, for it and its
        precompile workers, its whole process group): the reference search
        has run longer than the build would take, so the kernel is now the
        quicker way to the answer, and on a busy machine a build at
        NICENESS gets almost nothing (issue 39).  Lowering a niceness needs
        root or an RLIMIT_NICE that allows it; without either the build
        keeps its priority and this returns False."""
        with self._lock:
            proc = self._proc
            if proc is None or proc.poll() is not None or not hasattr(os, "setpriority"):
                return False
            try:
                os.setpriority(os.PRIO_PGRP, proc.pid, 0)
                self.boosted = True
            except OSError:
                self.boosted = False
            return bool(self.boosted)

    def detach(self) -> None:
        """Let the child finish the kernel after this process ends (it says
        nothing more).  Its compile holds the kernel's lock, so the next run
        that wants the kernel waits for it instead of compiling it again."""
        self._let_go(DETACH, wait=True)

    def look(self) -> None:
        """Let the child finish looking for the kernel after this process
        ends, and not compile it (see the module doc).  Not waited for: the
        child reads the word before the end of the pipe, whenever it gets to
        it, and a look wrongly ended costs only the next run's time."""
        self._let_go(LOOK, wait=False)

    def _let_go(self, word: str, wait: bool) -> None:
        with self._lock:
            proc, self._proc = self._proc, None
            if proc is None or proc.poll() is not None:
                return
            assert proc.stdin is not None
            with contextlib.suppress(BrokenPipeError, OSError):
                proc.stdin.write(word + "\n")
                proc.stdin.flush()
            if wait:
                # Until the child answers, this process ending (and closing
                # the pipe) would still end it.
                self._detached.wait(DETACH_WAIT_S)
            with contextlib.suppress(BrokenPipeError, OSError):
                proc.stdin.close()
            self.detached_pid = proc.pid

    def __enter__(self) -> "BackgroundCompile":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.stop()


def _tell_parent(word: str) -> None:
    """One line of the child's protocol on its stdout, which is a pipe to
    the parent (BackgroundCompile reads it): no user ever sees it.  A parent
    that has gone (after ``detach``) is not told."""
    with contextlib.suppress(BrokenPipeError, OSError):
        sys.stdout.write(word + "\n")
        sys.stdout.flush()


def _lowest_priority() -> None:
    """The look is for the next run: it yields even to the compiles left
    behind by earlier rows (detached, at NICENESS), which the next rows
    want sooner.  Linux keeps niceness per thread, and the main thread
    (whose id is the process's) is the one that works."""
    if hasattr(os, "setpriority"):
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, os.getpid(), 19)


def _listen(look_only: threading.Event, parent: int, armed: threading.Event) -> None:
    """The parent's end of stdin.  ``detach``: this process finishes the
    kernel whatever the parent does next; ``look``: it finishes looking for
    the kernel, and sets ``look_only``.  The end of the pipe without it:
    the parent has ended (however it ended, SIGKILL included), and so does
    this process, with its precompile workers (its process group).

    Reading the pipe's end takes the CPU, which a busy machine may not give
    this process (at its lower priority, and while the compile holds the
    GIL) for seconds.  So, on Linux, this thread also asks for the
    parent-death signal (``parent``, the checker's pid, when it started the
    child from its main thread): SIGKILL the moment the checker ends, with
    no CPU needed here.  Linux keeps that request per thread, so this is the
    thread that makes it, and takes it back on ``detach`` or ``look`` before
    it answers.  ``armed`` is set once it is made."""
    try:
        from modelcheck.engines.compiled.cache.precompile import death_signal, end_with_parent
        if parent:
            end_with_parent(parent)
    finally:
        armed.set()
    for line in sys.stdin:
        word = line.strip()
        if word == LOOK:
            look_only.set()
            _lowest_priority()
        if word in (DETACH, LOOK):
            # Before the answer: the parent may end as soon as it reads it.
            death_signal(0)
            _tell_parent(DETACHED)
            return
    if hasattr(os, "killpg"):
        os.killpg(os.getpgid(0), signal.SIGKILL)
    os._exit(1)


def main(argv: list[str]) -> int:
    job = Path(argv[0])
    parent = int(argv[1]) if len(argv) > 1 else 0
    look_only, armed = threading.Event(), threading.Event()
    threading.Thread(target=_listen, args=(look_only, parent, armed), daemon=True,
                     name="modelcheck-parent").start()
    armed.wait()
    model, options = pickle.loads(job.read_bytes())
    # Gone even if the checker is killed outright (its own clean-up then never runs).
    job.unlink(missing_ok=True)
    from modelcheck.engines.compiled.engine import plan_run
    from modelcheck.engines.compiled.kernels import kernel_looks_warm
    from modelcheck.engines.compiled.reps import Unsupported
    plan = plan_run(model, options)
    if plan.fallback is not None:
        _tell_parent(DECLINED + plan.fallback)
        return 0
    try:
        if kernel_looks_warm(model, plan.kernel_options):
            return 0
        if look_only.is_set():
            return LOOKED_COLD
        _tell_parent(COLD)
        _queued_build(model, plan.kernel_options, look_only)
    except Unsupported as err:
        _tell_parent(DECLINED + str(err))
    return 0


def _queued_build(model: Any, options: Any, look_only: threading.Event | None) -> None:
    """Build the kernel in the machine's queue (build_queue.py): wait,
    holding no slot, while another process builds this very kernel (it is
    then loaded, not built); else wait for a slot, look again (a kernel
    built meanwhile is not built twice) and build.  A parent that said
    ``look`` meanwhile gets no build."""
    from modelcheck.engines.compiled.cache.build_queue import build_slot, kernel_busy, record_build_time
    from modelcheck.engines.compiled.kernels import compile_model, kernel_file, kernel_looks_warm
    stop = (lambda: look_only.is_set()) if look_only is not None else None
    path = kernel_file(model, options)
    while kernel_busy(path.with_suffix(".lock")):
        if stop is not None and stop():
            return
        time.sleep(0.1)
    with build_slot(path.parent, stop=stop) as slot:
        if slot is None and stop is not None and stop():
            return
        if kernel_looks_warm(model, options):
            return
        start = time.monotonic()
        built = compile_model(model, options)
        record_build_time(path.parent, built.backend, time.monotonic() - start)


def _expected_build_s(options: Any) -> float:
    """When the race lifts the build's priority: after a build's usual
    time, or never with ``MODELCHECK_BUILD_BOOST=0`` (the benches' baseline)."""
    if os.environ.get(BOOST_ENV, "").strip() == "0":
        return float("inf")
    from modelcheck.engines.compiled.cache.build_queue import expected_build_s
    from modelcheck.engines.compiled.cache.kcache import kernel_path
    return expected_build_s(kernel_path(options.cache_dir, "0").parent,
                            options.extra.get("kernel_backend") or "numba")


def compile_after_run(configs: list[tuple[Any, Any]],
                      niceness: int = NICENESS) -> subprocess.Popen:
    """Start one process that finds or compiles the kernel of each
    ``(model, options)`` in turn; nobody need wait for it.  For the end of a
    suite (``modelcheck verdicts``) whose rows are run again and again: the
    configurations whose searches ended before their kernels were worth
    waiting for.  Compiled during the run, they would have taken the cores
    from the rows still to run; compiled after it, the next run hands them
    over at the start.  The process outlives this one (its own process
    group), and holds a lock of the kernel cache while it works, so that the
    compiles that two runs leave do not run side by side."""
    # After the run, every core compiles.
    jobs = [(model, _kernel_options(options, os.cpu_count() or 1)) for model, options in configs]
    fd, name = tempfile.mkstemp(prefix="modelcheck-after-run-", suffix=".pickle")
    with os.fdopen(fd, "wb") as f:
        pickle.dump(jobs, f, protocol=pickle.HIGHEST_PROTOCOL)
    proc = subprocess.Popen(
        [sys.executable, "-c", _BOOT.format(niceness=int(niceness), main="after_run_main"),
         name],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        **({"process_group": 0} if hasattr(os, "setpgid") else {}))
    return proc


def after_run_main(argv: list[str]) -> int:
    """The process ``compile_after_run`` starts."""
    job = Path(argv[0])
    configs = pickle.loads(job.read_bytes())
    job.unlink(missing_ok=True)
    if not configs:
        return 0
    from modelcheck.engines.compiled.engine import plan_run
    from modelcheck.engines.compiled.cache.kcache import compile_lock, kernel_path
    from modelcheck.engines.compiled.kernels import kernel_looks_warm
    cache_dir = configs[0][1].cache_dir
    with compile_lock(kernel_path(cache_dir, "0").parent / "after-run.py"):
        for model, options in configs:
            # Configurations of one layout share a kernel: once the first is
            # compiled, the others are found warm.  A spec the compiled engine
            # declines (reps.Unsupported), or any failure, loses one kernel,
            # which the next run compiles if it wants it.
            with contextlib.suppress(Exception):
                plan = plan_run(model, options)
                if plan.fallback is None and not kernel_looks_warm(model, plan.kernel_options):
                    _queued_build(model, plan.kernel_options, None)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
