"""Analyses of the open buffers, kept off the protocol's thread (``Live``).

The compiler takes about a millisecond a declaration, so a big buffer
analysed on the thread that reads the protocol would leave every request
(hover, shutdown) waiting for minutes.  Here:

* a change is analysed after ``DEBOUNCE_S`` without a newer one (typing
  produces a change per key), an open or a save at once;
* analyses run one at a time on a worker thread; one whose buffer changed
  meanwhile is stopped between compiler phases, and its result is never
  published: only the latest text of a buffer is analysed to the end;
* a buffer over ``MAX_LIVE_CHARS`` is not compiled: its one diagnostic
  (MCL005) says it is too large for live analysis;
* a request waits at most ``REQUEST_WAIT_S`` for the analysis of the latest
  text, then answers from the last analysis there is.

Everything but the analysis itself runs on the event loop's thread."""
from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass

from modelcheck.diagnostics import Diagnostic, Severity
from modelcheck.lsp.analysis import Analysis, Superseded, analyze

__all__ = ["Live", "Text", "DEBOUNCE_S", "MAX_LIVE_CHARS", "REQUEST_WAIT_S", "too_large"]

#: Quiet time after a change before it is analysed (seconds).
DEBOUNCE_S = 0.25
#: The largest buffer analysed as it is typed: 4x the largest shipped spec
#: (59 KB), about 15 s of compiling on a loaded 2-core machine.
MAX_LIVE_CHARS = 262_144
#: How long a request waits for the analysis of the latest text (seconds).
REQUEST_WAIT_S = 3.0


@dataclass(frozen=True)
class Text:
    """What to analyse: a buffer's text, its file path and its version."""
    source: str
    path: str
    version: int | None = None


def too_large(text: Text, limit: int = MAX_LIVE_CHARS) -> Analysis:
    """The analysis of a buffer too large to compile as it is typed."""
    diag = Diagnostic("MCL005", f"this document has {len(text.source):,} characters: too large "
                                f"for live analysis (at most {limit:,}); no diagnostics, hover "
                                f"or navigation", None,
                      hint=f"check it with: modelcheck parse {text.path}",
                      severity=Severity.WARNING)
    return Analysis(text.path, text.source, (diag,), None, (), None)


class _Worker:
    """One daemon thread running jobs in order: a daemon, so a long analysis
    never holds up the process's exit."""

    def __init__(self) -> None:
        self._jobs: queue.Queue[Callable[[], None]] = queue.Queue()
        self._thread: threading.Thread | None = None

    def submit(self, job: Callable[[], None]) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="modelcheck-analysis",
                                            daemon=True)
            self._thread.start()
        self._jobs.put(job)

    def _run(self) -> None:
        while True:
            self._jobs.get()()


class Live:
    """The analyses of the open buffers, by URI.  ``publish(uri, text,
    analysis)`` is called on the loop's thread for each analysis of the
    latest text; ``log(code, message)`` for an analysis that failed."""

    def __init__(self, publish: Callable[[str, Text, Analysis], None],
                 log: Callable[[str, str], None],
                 analyze_fn: Callable[..., Analysis] = analyze,
                 debounce_s: float = DEBOUNCE_S, max_chars: int = MAX_LIVE_CHARS):
        self.analyses: dict[str, Analysis] = {}
        self._publish = publish
        self._log = log
        self._analyze = analyze_fn
        self._debounce_s = debounce_s
        self._max_chars = max_chars
        self._texts: dict[str, Text] = {}
        # Bumped by every change: a job whose generation is not the latest is stale.
        self._gen: dict[str, int] = {}
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._running: set[str] = set()
        self._again: set[str] = set()
        self._idle: dict[str, asyncio.Event] = {}
        self._worker = _Worker()

    # ---------------------------------------------------------------- events

    def changed(self, uri: str, text: Text, debounce: bool = True) -> None:
        """The buffer ``uri`` now holds ``text``: analyse it (soon)."""
        self._texts[uri] = text
        self._gen[uri] = self._gen.get(uri, 0) + 1
        self._event(uri).clear()
        timer = self._timers.pop(uri, None)
        if timer is not None:
            timer.cancel()
        loop = asyncio.get_running_loop()
        delay = self._debounce_s if debounce else 0.0
        self._timers[uri] = loop.call_later(delay, self._start, uri)

    def closed(self, uri: str) -> None:
        timer = self._timers.pop(uri, None)
        if timer is not None:
            timer.cancel()
        self._gen[uri] = self._gen.get(uri, 0) + 1
        self._texts.pop(uri, None)
        self.analyses.pop(uri, None)
        self._event(uri).set()

    async def current(self, uri: str, text: Callable[[], Text],
                      wait_s: float = REQUEST_WAIT_S) -> Analysis:
        """The analysis to answer a request from: that of the latest text if
        it comes within ``wait_s``, else the last one.  A buffer never
        analysed (not opened) is analysed from ``text()``."""
        if uri not in self._texts and uri not in self.analyses:
            self.changed(uri, text(), debounce=False)
        try:
            await asyncio.wait_for(self._event(uri).wait(), wait_s)
        except asyncio.TimeoutError:
            pass
        found = self.analyses.get(uri)
        if found is None:
            latest = self._texts.get(uri) or text()
            found = Analysis(latest.path, latest.source, (), None, (), None)
        return found

    # ---------------------------------------------------------------- running

    def _event(self, uri: str) -> asyncio.Event:
        event = self._idle.get(uri)
        if event is None:
            event = self._idle[uri] = asyncio.Event()
            event.set()
        return event

    def _start(self, uri: str) -> None:
        self._timers.pop(uri, None)
        text = self._texts.get(uri)
        if text is None:
            return
        if uri in self._running:
            # The job running is stale now and stops at its next phase.
            self._again.add(uri)
            return
        if len(text.source) > self._max_chars:
            self._finish(uri, self._gen[uri], text, too_large(text, self._max_chars), None)
            return
        gen = self._gen[uri]
        previous = self.analyses.get(uri)
        loop = asyncio.get_running_loop()
        self._running.add(uri)

        def stale() -> bool:
            return self._gen.get(uri) != gen

        def job() -> None:
            result, error = None, None
            try:
                if not stale():
                    result = self._analyze(text.source, text.path, previous, stale)
            except Superseded:
                pass
            except Exception as exc:  # noqa: BLE001 - a compiler bug must not kill the worker
                error = exc
            try:
                loop.call_soon_threadsafe(self._done, uri, gen, text, result, error)
            except RuntimeError:
                pass        # the loop has closed: the server is exiting

        self._worker.submit(job)

    def _done(self, uri: str, gen: int, text: Text, result: Analysis | None,
              error: BaseException | None) -> None:
        self._running.discard(uri)
        self._finish(uri, gen, text, result, error)
        if uri in self._again:
            self._again.discard(uri)
            if uri not in self._timers:
                self._start(uri)

    def _finish(self, uri: str, gen: int, text: Text, result: Analysis | None,
                error: BaseException | None) -> None:
        latest = self._gen.get(uri) == gen and uri in self._texts
        if error is not None and latest:
            self._log("MCL006", f"analysing {text.path} failed: "
                                f"{type(error).__name__}: {error}")
        if result is not None and latest:
            self.analyses[uri] = result
            self._publish(uri, text, result)
        if latest and uri not in self._timers and uri not in self._again:
            self._event(uri).set()
