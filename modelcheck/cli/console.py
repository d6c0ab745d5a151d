"""The two rich consoles every command writes to: results on stdout, progress
and diagnostics on stderr.  Made per command call so that the streams and
the width are those in force at that moment (a test runner swaps them).
Both soft-wrap: rich never breaks a line, so a trace path stays whole, a
caret stays under its source line, and the text does not depend on the
terminal width."""
from __future__ import annotations

import sys

from rich.console import Console

__all__ = ["out_console", "err_console"]


def out_console() -> Console:
    return Console(file=sys.stdout, highlight=False, markup=False, emoji=False, soft_wrap=True)


def err_console() -> Console:
    return Console(file=sys.stderr, highlight=False, markup=False, emoji=False, soft_wrap=True)
