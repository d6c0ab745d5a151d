"""The two rich consoles every command writes to: results on stdout, progress
and diagnostics on stderr.  Made per command call so that the streams and
the width are those in force at that moment (a test runner swaps them).
Both soft-wrap: rich never breaks a line, so a trace path stays whole, a
caret stays under its source line, and the text does not depend on the
terminal width."""
from __future__ import annotations

import os
import sys
from typing import TextIO

from rich.console import Console

__all__ = ["out_console", "err_console", "PIPE_WIDTH"]

#: Width of tables written to a file or a pipe (no terminal to fit, unless
#: COLUMNS says otherwise): wide enough for a verdict table to read unwrapped.
PIPE_WIDTH = 120


class _Console(Console):
    def on_broken_pipe(self) -> None:
        # rich would exit 1, which reads as "violated"; the command group
        # gives every closed pipe the same exit code instead.
        raise BrokenPipeError


def out_console() -> Console:
    console = _Console(file=sys.stdout, highlight=False, markup=False, emoji=False, soft_wrap=True)
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console.width = PIPE_WIDTH
    return console


def err_console(file: TextIO | None = None) -> Console:
    """stderr's console, or one writing to ``file`` with the same settings
    (a worker process keeps what it would print for its parent)."""
    return _Console(file=file if file is not None else sys.stderr, highlight=False,
                    markup=False, emoji=False, soft_wrap=True)
