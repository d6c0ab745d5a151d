"""The non-printing core of a check: exit codes, trace names, Ctrl-C handling."""
from __future__ import annotations

import os
import signal

import pytest

from modelcheck.cli.runner import (InterruptWatch, combined_exit_code, exit_code,
                                   interrupts_deferred, trace_path)
from modelcheck.engines.base import CheckResult, PropertyResult, Stats, Status


def _result(*statuses: Status, reason: str | None = None) -> CheckResult:
    props = [PropertyResult(f"P{i}", None, s) for i, s in enumerate(statuses)]
    return CheckResult("m", "reference", props, Stats(), reason=reason)


def test_exit_codes():
    assert exit_code(_result(Status.HOLDS)) == 0
    assert exit_code(_result(Status.HOLDS, Status.VIOLATED)) == 1
    assert exit_code(_result(Status.UNKNOWN, reason="interrupted")) == 3
    assert exit_code(_result(Status.HOLDS_UP_TO_BOUND)) == 3
    # a replayed counterexample stands even if the search was cut short
    assert exit_code(_result(Status.VIOLATED, Status.UNKNOWN, reason="interrupted")) == 1
    # an incomplete search with nothing left to settle is still not "all hold"
    assert exit_code(_result(reason="interrupted")) == 3


def test_combined_exit_code_ranks_error_then_violation_then_unknown():
    assert combined_exit_code([0, 3, 1, 0]) == 1
    assert combined_exit_code([3, 2, 1]) == 2
    assert combined_exit_code([0, 3]) == 3
    assert combined_exit_code([0, 0]) == 0


def test_trace_names_are_stable_and_safe(tmp_path):
    assert trace_path(tmp_path, "CMQ-1", "NoLost") == tmp_path / "CMQ-1-NoLost.itf.json"
    assert trace_path(tmp_path, "m-N=3", "a/b c").name == "m-N=3-a_b_c.itf.json"


def test_ctrl_c_is_held_until_the_block_ends():
    done = []
    with pytest.raises(KeyboardInterrupt):
        with interrupts_deferred():
            os.kill(os.getpid(), signal.SIGINT)
            done.append("rest of the block")
    assert done == ["rest of the block"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_interrupt_watch_notes_ctrl_c_and_passes_it_on():
    with pytest.raises(KeyboardInterrupt):
        with InterruptWatch() as watch:
            os.kill(os.getpid(), signal.SIGINT)
    assert watch.hit
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    with InterruptWatch() as quiet:
        pass
    assert not quiet.hit
