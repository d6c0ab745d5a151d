"""A long trace in ``check``'s output: its first and last steps, a line for
the steps left out that says how to see them, and the whole trace in its
file (a witness of half a million steps would take minutes to print)."""
from __future__ import annotations

import json

from modelcheck.trace.view import EDGE_STEPS


def test_a_long_witness_shows_its_ends_and_names_its_file(mc):
    run = mc("check", "specs/examples/hanoi.mc", "-D", "N=7", "--engine", "reference",
             "--out", "OUT")
    assert run.exit_code == 0, run.stdout + run.stderr
    steps = 2 ** 7 - 1
    omitted = steps + 1 - 2 * EDGE_STEPS
    assert f"... {omitted} steps omitted; every step: modelcheck trace show <OUT>/" in run.stdout
    assert f"Step {EDGE_STEPS - 1}  " in run.stdout and f"Step {steps}  " in run.stdout
    assert f"Step {EDGE_STEPS}  " not in run.stdout
    written = list(mc.out_dir.glob("hanoi-Solved-*.itf.json"))
    assert len(written) == 1
    assert len(json.loads(written[0].read_text())["states"]) == steps + 1


def test_a_short_trace_is_shown_whole(mc):
    run = mc("check", "specs/examples/hanoi.mc", "-D", "N=5", "--engine", "reference",
             "--out", "OUT")
    assert "omitted" not in run.stdout
    assert "Step 31  " in run.stdout
