"""The progress display: one live line on a terminal; elsewhere a plain line
every so often, so that a long run in a pipe or a CI log is not silent."""
from __future__ import annotations

import io
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from modelcheck.cli.progress import (PLAIN_EVERY_S, ProgressDisplay, current_rss, format_elapsed,
                                     format_memory, format_progress, plain_progress_every)
from modelcheck.engines.base import Progress
from modelcheck.errors import UsageError

ROOT = Path(__file__).resolve().parents[2]
MIB = 1 << 20


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_progress_line_has_states_rate_depth_queue_and_elapsed():
    p = Progress(distinct_states=12345, generated_states=40000, depth=9, queue=310,
                 elapsed_s=3.0)
    assert format_progress(p, "[1/2] N=3") == (
        "[1/2] N=3  explore  12,345 states (4,115/s)  40,000 generated  depth 9  queue 310  0:03")
    assert format_elapsed(3725) == "1:02:05" and format_elapsed(83.9) == "1:23"


def test_the_memory_figure_comes_before_the_elapsed_time():
    p = Progress(10, 20, 2, 5, 1.0)
    assert format_progress(p, rss=300 * MIB).endswith("queue 5  mem 300 MiB  0:01")
    assert format_memory(12 * 1024 * MIB + 300 * MIB) == "12.3 GiB"


def test_on_a_terminal_the_line_is_live_and_notes_are_printed():
    buf = io.StringIO()
    console = Console(file=buf, force_terminal=True, width=120, color_system=None)
    with ProgressDisplay(console, "run", memory=lambda: 300 * MIB) as display:
        display.progress(Progress(10, 20, 2, 5, 1.0))
        display.note("compiling kernels")
    text = buf.getvalue()
    assert ("run  explore  10 states (10/s)  20 generated  depth 2  queue 5  mem 300 MiB  0:01"
            in text)
    assert "note: compiling kernels" in text
    assert display.notes == ["compiling kernels"]
    assert display.last == Progress(10, 20, 2, 5, 1.0)


def test_off_a_terminal_a_plain_line_is_printed_once_per_interval():
    buf, clock = io.StringIO(), FakeClock()
    console = Console(file=buf, width=120)
    with ProgressDisplay(console, "[2/5] QQ-1", every_s=30, clock=clock,
                         memory=lambda: 64 * MIB) as display:
        display.progress(Progress(10, 20, 2, 5, 1.0))       # too early: nothing
        display.note("a note")
        clock.now += 30
        display.progress(Progress(600, 900, 4, 50, 30.0))
        clock.now += 10
        display.progress(Progress(800, 1200, 5, 60, 40.0))  # 10 s after the last line
        clock.now += 25
        display.progress(Progress(1300, 2000, 6, 70, 65.0))
    assert buf.getvalue() == (
        "note: a note\n"
        "progress: [2/5] QQ-1  explore  600 states (20/s)  900 generated  depth 4  queue 50"
        "  mem 64 MiB  0:30\n"
        "progress: [2/5] QQ-1  explore  1,300 states (20/s)  2,000 generated  depth 6  queue 70"
        "  mem 64 MiB  1:05\n")


def test_a_disabled_display_prints_only_notes():
    buf, clock = io.StringIO(), FakeClock()
    with ProgressDisplay(Console(file=buf, width=120), enabled=False, every_s=0,
                         clock=clock) as display:
        clock.now += 100
        display.progress(Progress(10, 20, 2, 5, 1.0))
        display.note("a note")
    assert buf.getvalue() == "note: a note\n"


@pytest.mark.parametrize("value, every", [(None, PLAIN_EVERY_S), ("60", 60.0), ("0", 0.0),
                                          (" OFF ", math.inf)])
def test_the_interval_comes_from_the_environment(value, every):
    environ = {} if value is None else {"MODELCHECK_PROGRESS_EVERY": value}
    assert plain_progress_every(environ) == every


@pytest.mark.parametrize("value", ["soon", "-1", "nan", "inf"])
def test_a_bad_interval_is_a_usage_error(value):
    with pytest.raises(UsageError, match="MODELCHECK_PROGRESS_EVERY"):
        plain_progress_every({"MODELCHECK_PROGRESS_EVERY": value})


def test_the_resident_memory_is_read():
    rss = current_rss()
    assert rss is None or rss > MIB


def test_a_piped_run_prints_progress_lines_with_every_figure(tmp_path):
    # A real pipe (not a terminal), through `python -m modelcheck`; an interval
    # of 0 prints every tick instead of waiting 30 s.
    env = dict(os.environ, NO_COLOR="1", MODELCHECK_PROGRESS_EVERY="0")
    proc = subprocess.run([sys.executable, "-m", "modelcheck", "check",
                           "specs/examples/die_hard.mc", "--engine", "reference",
                           "--out", str(tmp_path)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.startswith("progress: ")]
    assert lines, proc.stderr
    figures = re.compile(r"progress: explore  [\d,]+ states \([\d,]+/s\)  [\d,]+ generated  "
                         r"depth \d+  queue [\d,]+  mem [\d,.]+ [MG]iB  \d+:\d\d$")
    assert all(figures.match(line) for line in lines), lines
    assert "NotFour   invariant  violated in 6 steps" in proc.stdout
