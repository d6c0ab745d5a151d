"""`check` says when its bounds are too small to show a violation that the
verdict file beside the spec records (modelcheck/cli/bounds_note.py,
docs/cli.md "Bounds too small to show a known violation")."""
from __future__ import annotations

from pathlib import Path

import pytest

SPEC = """\
# Losing the message takes two crashes when acks are early; none when late.
module lossy
type AckMode = enum { early, late }
const ack_mode: AckMode = early
const max_crashes: 0..3 = 1
const N: 1..3 = 2
var crashes: 0..3 = 0
var lost: bool = false
action Crash() {
    require crashes < max_crashes
    crashes := crashes + 1
    lost := ack_mode == early and crashes >= 1
}
invariant NoLoss: not lost
"""

VERDICTS = """\
[[row]]
id = "L-1"
spec = "lossy.mc"
description = "early acks: two crashes lose the message"
consts = { ack_mode = "early", max_crashes = 2 }
[[row.check]]
property = "NoLoss"
expect = "violated"
steps = 2

[[row]]
id = "L-2"
spec = "lossy.mc"
description = "late acks: nothing is lost"
consts = { ack_mode = "late", max_crashes = 3 }
[[row.check]]
property = "NoLoss"
expect = "holds"
[[row.mutant]]
removes = "late acks"
consts = { ack_mode = "early" }
property = "NoLoss"
steps = 2
"""


@pytest.fixture
def lossy(mc) -> Path:
    folder = mc.out_dir / "specs"
    folder.mkdir(parents=True)
    (folder / "lossy.mc").write_text(SPEC, encoding="utf-8")
    (folder / "verdicts.toml").write_text(VERDICTS, encoding="utf-8")
    return folder / "lossy.mc"


def test_holds_at_small_bounds_names_the_rows_that_violate_it(mc, lossy, golden):
    run = mc("check", "OUT/specs/lossy.mc", "--engine", "reference", "--no-write", "--no-deadlock")
    assert run.exit_code == 0
    golden.check("cli/check_bounds_note.txt", run.transcript())
    assert "L-1, max_crashes=2 (here 1): violated in 2 steps" in run.stdout
    # the mutant of a row with other settings, agreeing with the run's
    assert "L-2-mutant1, max_crashes=3 (here 1): violated in 2 steps" in run.stdout


def test_another_setting_or_bounds_large_enough_say_nothing(mc, lossy):
    late = mc("check", "OUT/specs/lossy.mc", "--engine", "reference", "--no-write", "--no-deadlock",
              "-D", "ack-mode=late")
    assert late.exit_code == 0 and "note:" not in late.stdout
    # the run violates it itself: nothing to add
    big = mc("check", "OUT/specs/lossy.mc", "--engine", "reference", "--no-write", "--no-deadlock",
             "-D", "max_crashes=2")
    assert big.exit_code == 1 and "note:" not in big.stdout


def test_the_suggested_command_keeps_the_runs_own_consts(mc, lossy):
    run = mc("check", "OUT/specs/lossy.mc", "--engine", "reference", "--no-write", "--no-deadlock",
             "-D", "ack-mode=early")
    assert "try: modelcheck check <OUT>/specs/lossy.mc -D ack_mode=early -D max_crashes=2" in run.stdout
    # a bound the run sets and the row leaves at the spec's default is one the row changes
    other = mc("check", "OUT/specs/lossy.mc", "--engine", "reference", "--no-write", "--no-deadlock",
               "-D", "N=3")
    assert "L-1, max_crashes=2 (here 1), N=2 (here 3): violated in 2 steps" in other.stdout
    assert "try: modelcheck check <OUT>/specs/lossy.mc -D N=2 -D max_crashes=2" in other.stdout


def test_no_verdict_file_beside_the_spec_no_note(mc, lossy):
    (lossy.parent / "verdicts.toml").unlink()
    run = mc("check", "OUT/specs/lossy.mc", "--engine", "reference", "--no-write", "--no-deadlock")
    assert run.exit_code == 0 and "note:" not in run.stdout


def test_the_shipped_classic_spec_defaults_point_at_cmq_1(mc):
    run = mc("check", "specs/classic_mirrored_queue.mc", "--engine", "reference", "--no-write",
             "-q", "--property", "NoLostConfirmed")
    assert run.exit_code == 0
    assert "NoLostConfirmed holds at these bounds, but specs/verdicts.toml has rows" in run.stdout
    assert "  CMQ-1, max_crashes=2 (here 1): violated in 5 steps" in run.stdout
    assert "try: modelcheck check specs/classic_mirrored_queue.mc -D max_crashes=2" in run.stdout
