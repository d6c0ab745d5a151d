"""One check from the command line's point of view, without printing: load
the spec, run an engine, write every trace it returned.  ``check``, sweeps and
the verdict table all go through here."""
from __future__ import annotations

import re
import time
import signal
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from modelcheck import api
from modelcheck.engines.base import CheckOptions, CheckResult, Reporter
from modelcheck.ir.nodes import Model
from modelcheck.trace.store import write_trace

__all__ = ["Outcome", "WriteError", "load_model", "run_engine", "engine_that_ran", "save_traces",
           "trace_path", "interrupts_deferred", "InterruptWatch", "exit_code",
           "combined_exit_code", "ERROR_TRACE", "PLAIN", "STAMPED", "LATEST"]

#: The name under which the trace to a run-time error is written.
ERROR_TRACE = "error"

#: How ``save_traces`` names files: ``PLAIN`` ``<stem>-<name>`` (sweeps and
#: verdict rows, whose stems already tell runs apart); ``STAMPED`` adds the
#: time, so repeated ``check`` runs keep every trace; ``LATEST`` adds
#: ``-latest``, so each run replaces the previous run's file (``--latest``).
PLAIN, STAMPED, LATEST = "plain", "stamped", "latest"


@dataclass(frozen=True)
class WriteError:
    """A result file that could not be written (a full disk, a folder not
    writable): its path and why.  The verdict stands without it."""
    path: str
    reason: str

    #: Its code where errors are shown: "a result file could not be written".
    code = "MC6001"

    def message(self) -> str:
        return f"could not write {self.path}: {self.reason}"


@dataclass
class Outcome:
    """A finished (or interrupted) check: what was asked and what came back.
    ``error_trace_file`` is the trace to a run-time error, when one was
    written; ``write_errors`` the traces that could not be."""
    spec: str
    model: Model
    engine: str
    result: CheckResult
    error_trace_file: str | None = None
    options: CheckOptions | None = None     # as the engine was given them
    write_errors: list[WriteError] = field(default_factory=list)


def load_model(spec: str, defines: Mapping[str, str]) -> Model:
    """The spec compiled to IR with the ``-D`` values applied.  Raises
    ``CompileError`` or ``UsageError``."""
    return api.load(spec, consts=dict(defines))


def run_engine(model: Model, engine: str, options: CheckOptions, reporter: Reporter) -> CheckResult:
    """The engine's result; ``modelcheck.api.check`` replays every trace an
    engine returns under the reference semantics before handing it over."""
    return api.check(model, engine=engine, options=options, reporter=reporter)


def engine_that_ran(requested: str, result: CheckResult) -> str:
    """The engine a report names: the one that gave the answer.  The default
    engine (``auto``) answers with the compiled or the reference engine, and
    an engine asked for by name may hand the spec on (the compiled or the
    Spark engine to the reference explorer, for a range beyond 64 bits): a
    report that named the engine asked for would credit it with an answer
    it did not give.  The result's notes say why it was handed on."""
    return result.engine or requested


def exit_code(result: CheckResult) -> int:
    """0 all hold, 1 a property violated, 2 a run-time error in the spec,
    3 unknown.  A violation outranks an incomplete search: its trace has been
    replayed, so it stands even when the search was cut short (Ctrl-C)."""
    code = result.exit_code
    if code == 0 and not result.complete:
        return 3
    return code


def combined_exit_code(codes: list[int]) -> int:
    """The exit code of several checks: a spec error (2) first, then a
    violation (1), then unknown (3); 0 when every check passed."""
    for code in (2, 1, 3):
        if code in codes:
            return code
    return 0


_UNSAFE = re.compile(r"[^A-Za-z0-9_.=+-]")


def trace_path(out_dir: str | Path, stem: str, name: str, stamp: str | None = None) -> Path:
    """``<out>/<stem>-<name>[-<stamp>].itf.json``, with characters a file name
    should not hold replaced, so names stay portable."""
    suffix = f"-{stamp}" if stamp else ""
    return Path(out_dir) / f"{_UNSAFE.sub('_', stem)}-{_UNSAFE.sub('_', name)}{suffix}.itf.json"


def save_traces(outcome: Outcome, out_dir: str | Path | None, stem: str,
                naming: str = PLAIN, early: Mapping[str, str] | None = None) -> list[str]:
    """Write the trace of every violated or witnessed property (and the trace
    to a run-time error) as ITF JSON; record each file on its PropertyResult.
    ``naming`` is ``PLAIN``, ``STAMPED`` (``-YYYYmmddTHHMMSS``) or ``LATEST``;
    ``out_dir`` None writes nothing (``--no-write``).  Returns the files
    written, in property order.  ``write_trace`` replays each trace before
    writing it, and writes atomically; a ``STAMPED`` name that another run
    took in the same second gets ``-2``, ``-3``...  A file that cannot be
    written (OSError: a full disk) is added to ``outcome.write_errors`` and
    its trace has no file; the others are still written.  ``early``: the
    files already written while the search went on (``EarlyTraces``), by
    property name: kept, not written again."""
    written: list[str] = []
    if out_dir is None:
        return written
    result = outcome.result
    todo: list[tuple[Any, Path]] = []
    stamp = {PLAIN: None, STAMPED: time.strftime("%Y%m%dT%H%M%S"), LATEST: LATEST}[naming]
    for prop in result.properties:
        if prop.trace is not None and early and prop.name in early:
            prop.trace_file = early[prop.name]
            written.append(early[prop.name])
        elif prop.trace is not None:
            todo.append((prop, trace_path(out_dir, stem, prop.name, stamp)))
    error_trace = getattr(result.error, "trace", None)
    # Each file is written atomically; holding Ctrl-C until the last one is
    # done means the traces of one result are all on disk or none is cut.
    fresh = naming == STAMPED
    with interrupts_deferred():
        for prop, path in todo:
            done = _write(outcome, prop.trace, path, fresh)
            if done is not None:
                prop.trace_file = done
                written.append(done)
        if error_trace is not None and error_trace.steps:
            path = trace_path(out_dir, stem, ERROR_TRACE, stamp)
            done = _write(outcome, error_trace, path, fresh)
            if done is not None:
                outcome.error_trace_file = done
                written.append(done)
    return written


def _write(outcome: Outcome, trace: Any, path: Path, fresh: bool) -> str | None:
    """The file ``trace`` went to, or None, with the reason kept on ``outcome``."""
    try:
        return str(write_trace(trace, outcome.model, path.parent, path.name, fresh=fresh))
    except OSError as err:
        outcome.write_errors.append(WriteError(str(path), err.strerror or str(err)))
        return None


@contextmanager
def interrupts_deferred() -> Iterator[None]:
    """Hold a Ctrl-C until the block is done, then raise it.  Only the main
    thread can own signal handlers; elsewhere the block runs as is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[tuple[int, Any]] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: received.append((signum, frame)))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if received and callable(previous):
        previous(*received[0])


class InterruptWatch:
    """Notes whether Ctrl-C was pressed during the block and passes it on
    unchanged (the engine still gets its KeyboardInterrupt and returns partial
    results), so that a sweep or a verdict table knows to stop there."""

    def __init__(self) -> None:
        self.hit = False
        self._previous: Any = None
        self._installed = False

    def __enter__(self) -> "InterruptWatch":
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.getsignal(signal.SIGINT)
            signal.signal(signal.SIGINT, self._handle)
            self._installed = True
        return self

    def __exit__(self, *exc_info: Any) -> None:
        if self._installed:
            signal.signal(signal.SIGINT, self._previous)
            self._installed = False

    def _handle(self, signum: int, frame: Any) -> None:
        self.hit = True
        if callable(self._previous):
            self._previous(signum, frame)
        else:
            raise KeyboardInterrupt
