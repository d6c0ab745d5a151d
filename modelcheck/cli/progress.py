"""The progress display: a ``Reporter`` that the CLI hands to engines.

On a terminal it shows one live line on stderr (states, states/s, depth,
queue, elapsed) that disappears when the search ends; elsewhere (a pipe, a CI
log) it stays silent so that output is the same on every run.  Engine notes
are printed on stderr either way."""
from __future__ import annotations

from types import TracebackType

from rich.console import Console
from rich.live import Live
from rich.text import Text

from modelcheck.engines.base import Progress

__all__ = ["ProgressDisplay", "format_progress", "format_elapsed"]


def format_elapsed(seconds: float) -> str:
    """``83.2`` -> ``"1:23"``; ``3725`` -> ``"1:02:05"``."""
    whole = int(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def format_progress(p: Progress, label: str = "") -> str:
    """One line: ``explore  12,345 states (4,100/s)  depth 9  queue 310  0:03``."""
    rate = p.distinct_states / p.elapsed_s if p.elapsed_s > 0 else 0.0
    prefix = f"{label}  " if label else ""
    return (f"{prefix}{p.phase}  {p.distinct_states:,} states ({rate:,.0f}/s)  "
            f"{p.generated_states:,} generated  depth {p.depth}  queue {p.queue:,}  "
            f"{format_elapsed(p.elapsed_s)}")


class ProgressDisplay:
    """A ``Reporter`` for the duration of one ``with`` block.  ``label`` names
    the run (a sweep configuration, a verdict row)."""

    def __init__(self, console: Console, label: str = "", enabled: bool = True) -> None:
        self._console = console
        self._label = label
        self._live: Live | None = None
        self._enabled = enabled and console.is_terminal
        self.last: Progress | None = None
        self.notes: list[str] = []

    def __enter__(self) -> "ProgressDisplay":
        if self._enabled:
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
            self._live.update(Text(format_progress(progress, self._label)), refresh=True)

    def note(self, message: str) -> None:
        self.notes.append(message)
        # rich keeps the live line below whatever is printed meanwhile.
        self._console.print(Text(f"note: {message}"))
