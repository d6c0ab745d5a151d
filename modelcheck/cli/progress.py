"""The progress display: a ``Reporter`` that the CLI hands to engines.

On a terminal it shows one live line on stderr (states, states/s, depth,
queue, memory, elapsed) that disappears when the search ends.  Elsewhere (a
pipe, a CI log) a live line would be noise, yet a long run must not be
silent: a plain ``progress: ...`` line is printed every 30 s instead (as TLC
prints one a minute), so a run shorter than that prints the same text on
every run.  ``MODELCHECK_PROGRESS_EVERY`` sets the interval in seconds (0:
every tick; ``off``: never).  Engine notes are printed on stderr either way."""
from __future__ import annotations

import math
import os
import sys
import time
from collections.abc import Callable, Mapping
from types import TracebackType

from rich.console import Console
from rich.live import Live
from rich.text import Text

from modelcheck.engines.base import Progress
from modelcheck.errors import UsageError

__all__ = ["ProgressDisplay", "format_progress", "format_elapsed", "format_memory",
           "current_rss", "plain_progress_every", "PLAIN_EVERY_S", "PROGRESS_EVERY_ENV"]

#: Seconds between two plain progress lines when stderr is not a terminal.
PLAIN_EVERY_S = 30.0
#: The environment variable that overrides ``PLAIN_EVERY_S``.
PROGRESS_EVERY_ENV = "MODELCHECK_PROGRESS_EVERY"


def format_elapsed(seconds: float) -> str:
    """``83.2`` -> ``"1:23"``; ``3725`` -> ``"1:02:05"``."""
    whole = int(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def format_memory(size: int) -> str:
    """``431_000_000`` -> ``"411 MiB"``; over 10 GiB: ``"12.3 GiB"``."""
    mib = size / (1 << 20)
    return f"{mib / 1024:.1f} GiB" if mib >= 10 * 1024 else f"{mib:,.0f} MiB"


def format_progress(p: Progress, label: str = "", rss: int | None = None) -> str:
    """One line: ``explore  12,345 states (4,100/s)  40,000 generated  depth 9
    queue 310  mem 411 MiB  0:03`` (no memory figure when ``rss`` is None)."""
    rate = p.distinct_states / p.elapsed_s if p.elapsed_s > 0 else 0.0
    prefix = f"{label}  " if label else ""
    memory = f"mem {format_memory(rss)}  " if rss is not None else ""
    return (f"{prefix}{p.phase}  {p.distinct_states:,} states ({rate:,.0f}/s)  "
            f"{p.generated_states:,} generated  depth {p.depth}  queue {p.queue:,}  "
            f"{memory}{format_elapsed(p.elapsed_s)}")


def current_rss() -> int | None:
    """This process's resident memory in bytes, or None where it cannot be
    read.  Linux gives the current figure; elsewhere getrusage gives the peak,
    which is what a user watching for a memory limit wants anyway.  Engines
    that run in other processes (Spark's executors) are not counted."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        pass
    try:
        import resource
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    except (ImportError, OSError):
        return None
    # ru_maxrss is in bytes on macOS, in KiB on Linux and the BSDs.
    return peak if sys.platform == "darwin" else peak * 1024


def plain_progress_every(environ: Mapping[str, str] = os.environ) -> float:
    """Seconds between plain progress lines: ``MODELCHECK_PROGRESS_EVERY``
    (a number >= 0, or ``off`` for never: ``inf``), else ``PLAIN_EVERY_S``.
    Raises ``UsageError`` on any other value."""
    raw = environ.get(PROGRESS_EVERY_ENV, "").strip()
    if not raw:
        return PLAIN_EVERY_S
    if raw.lower() == "off":
        return math.inf
    try:
        every = float(raw)
    except ValueError:
        every = math.nan
    if not math.isfinite(every) or every < 0:
        raise UsageError(f"{PROGRESS_EVERY_ENV}={raw!r} is not a number of seconds >= 0",
                         hint=f"for example {PROGRESS_EVERY_ENV}=60, or "
                              f"{PROGRESS_EVERY_ENV}=off for no progress lines")
    return every


class ProgressDisplay:
    """A ``Reporter`` for the duration of one ``with`` block.  ``label`` names
    the run (a sweep configuration, a verdict row).  ``every_s`` is the
    interval of plain lines off a terminal (None: ``plain_progress_every()``);
    ``clock`` and ``memory`` are there for tests."""

    def __init__(self, console: Console, label: str = "", enabled: bool = True, *,
                 every_s: float | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 memory: Callable[[], int | None] = current_rss,
                 on_found: Callable[..., None] | None = None,
                 hide_note: Callable[[str], bool] = lambda message: False) -> None:
        self._console = console
        self._hide_note = hide_note
        if on_found is not None:
            # Reporter.found: a verdict settled while the search goes on
            # (only when asked: the compiled engine rebuilds its trace then).
            self.found = on_found
        self._label = label
        self._live: Live | None = None
        self._terminal = console.is_terminal
        self._enabled = enabled
        self._every_s = plain_progress_every() if every_s is None else every_s
        self._clock = clock
        self._memory = memory
        self._last_line_at = 0.0
        self.last: Progress | None = None
        self.notes: list[str] = []

    def __enter__(self) -> "ProgressDisplay":
        self._last_line_at = self._clock()
        if self._enabled and self._terminal:
            self._live = Live(Text(f"{self._label}  starting" if self._label else "starting"),
                              console=self._console, transient=True, refresh_per_second=4)
            self._live.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None

    def relabel(self, label: str) -> None:
        self._label = label

    def progress(self, progress: Progress) -> None:
        self.last = progress
        if self._live is not None:
            self._live.update(Text(format_progress(progress, self._label, self._memory())),
                              refresh=True)
        elif self._enabled and not self._terminal:
            now = self._clock()
            if now - self._last_line_at >= self._every_s:
                self._last_line_at = now
                line = format_progress(progress, self._label, self._memory())
                self._console.print(Text(f"progress: {line}"))

    def note(self, message: str) -> None:
        self.notes.append(message)
        if self._hide_note(message):
            return
        # rich keeps the live line below whatever is printed meanwhile.
        self._console.print(Text(f"note: {message}"))
