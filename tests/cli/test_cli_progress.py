"""The progress display: one live line on a terminal, silence elsewhere."""
from __future__ import annotations

import io

from rich.console import Console

from modelcheck.cli.progress import ProgressDisplay, format_elapsed, format_progress
from modelcheck.engines.base import Progress


def test_progress_line_has_states_rate_depth_queue_and_elapsed():
    p = Progress(distinct_states=12345, generated_states=40000, depth=9, queue=310,
                 elapsed_s=3.0)
    assert format_progress(p, "[1/2] N=3") == (
        "[1/2] N=3  explore  12,345 states (4,115/s)  40,000 generated  depth 9  queue 310  0:03")
    assert format_elapsed(3725) == "1:02:05" and format_elapsed(83.9) == "1:23"


def test_on_a_terminal_the_line_is_live_and_notes_are_printed():
    buf = io.StringIO()
    console = Console(file=buf, force_terminal=True, width=120, color_system=None)
    with ProgressDisplay(console, "run") as display:
        display.progress(Progress(10, 20, 2, 5, 1.0))
        display.note("compiling kernels")
    text = buf.getvalue()
    assert "run  explore  10 states (10/s)  20 generated  depth 2  queue 5  0:01" in text
    assert "note: compiling kernels" in text
    assert display.notes == ["compiling kernels"]
    assert display.last == Progress(10, 20, 2, 5, 1.0)


def test_off_a_terminal_only_notes_are_printed():
    buf = io.StringIO()
    console = Console(file=buf, width=120)
    with ProgressDisplay(console) as display:
        display.progress(Progress(10, 20, 2, 5, 1.0))
        display.note("a note")
    assert buf.getvalue() == "note: a note\n"
