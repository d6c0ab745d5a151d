"""The trace files ``check`` writes: with the user's umask, a new time-stamped
file per run by default, one stable file with ``--latest``, none with
``--no-write``."""
from __future__ import annotations

import json
import os
import re
import stat

import pytest

DIE_HARD = "specs/examples/die_hard.mc"
REF = ("--engine", "reference")


@pytest.fixture
def umask():
    """Set the process's umask for the test; restored after it."""
    previous = os.umask(0o022)
    os.umask(previous)

    def set_to(mask: int) -> None:
        os.umask(mask)
    yield set_to
    os.umask(previous)


@pytest.mark.parametrize("mask, mode", [(0o022, 0o644), (0o027, 0o640), (0o002, 0o664)])
def test_trace_files_get_the_mode_the_umask_gives(mc, umask, mask, mode):
    umask(mask)
    assert mc("check", DIE_HARD, *REF, "--out", "OUT").exit_code == 1
    [trace] = mc.out_dir.glob("die_hard-NotFour-*.itf.json")
    assert stat.S_IMODE(trace.stat().st_mode) == mode


def test_latest_names_one_file_that_each_run_replaces(mc):
    first = mc("check", DIE_HARD, *REF, "--latest", "--out", "OUT")
    latest = mc.out_dir / "die_hard-NotFour-latest.itf.json"
    assert first.exit_code == 1 and "<OUT>/die_hard-NotFour-latest.itf.json" in first.stdout
    latest.write_text("{}")
    assert mc("check", DIE_HARD, *REF, "--latest", "--out", "OUT").exit_code == 1
    assert sorted(p.name for p in mc.out_dir.iterdir()) == [latest.name]
    assert json.loads(latest.read_text())["states"]


def test_without_latest_the_name_carries_the_time_of_the_run(mc):
    mc("check", DIE_HARD, *REF, "--out", "OUT")
    [trace] = mc.out_dir.iterdir()
    assert re.fullmatch(r"die_hard-NotFour-\d{8}T\d{6}\.itf\.json", trace.name)


def test_no_write_writes_nothing_and_still_shows_the_trace(mc):
    run = mc("check", DIE_HARD, *REF, "--no-write", "--out", "OUT")
    assert run.exit_code == 1 and not mc.out_dir.exists()
    assert "counterexample to NotFour" in run.stdout and "written to" not in run.stdout
    as_json = json.loads(mc("check", DIE_HARD, *REF, "--no-write", "--json", "--out", "OUT").stdout)
    assert as_json["properties"]["NotFour"]["trace_file"] is None


def test_no_write_and_latest_together_are_a_usage_error(mc):
    run = mc("check", DIE_HARD, *REF, "--no-write", "--latest")
    assert run.exit_code == 2 and "--no-write and --latest contradict" in run.stderr
