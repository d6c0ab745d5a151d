"""Writing traces: replayed first, named by spec, property and time, written atomically."""
from __future__ import annotations

import dataclasses
import re

import pytest

from hand_models import die_hard
from modelcheck.engines.base import CheckOptions
from modelcheck.engines.reference import ReferenceEngine
from modelcheck.trace.itf import read_itf
from modelcheck.trace.replay import TraceReplayError, replay
from modelcheck.trace.store import write_trace
from modelcheck.trace.trace import Trace


def counterexample():
    return ReferenceEngine().check(die_hard(), CheckOptions()).get_property("NotFour").trace


def test_writes_a_trace_that_reads_back_and_replays(tmp_path):
    folder = tmp_path / "deep" / "counterexamples"
    path = write_trace(counterexample(), die_hard(), folder)
    assert path.parent == folder
    assert re.fullmatch(r"die_hard-NotFour-\d{8}T\d{6}\.itf\.json", path.name)
    back = read_itf(path, die_hard())
    assert back.steps == counterexample().steps
    assert replay(die_hard(), back).ok
    assert [p.name for p in folder.iterdir()] == [path.name]      # no temporary file left


def test_given_name_and_no_clobbering_of_default_names(tmp_path):
    named = write_trace(counterexample(), die_hard(), tmp_path, name="mine.itf.json")
    assert named == tmp_path / "mine.itf.json"
    again = write_trace(counterexample(), die_hard(), tmp_path, name="mine.itf.json")
    assert again == named                                          # a given name is replaced
    first = write_trace(counterexample(), die_hard(), tmp_path)
    second = write_trace(counterexample(), die_hard(), tmp_path)
    assert first != second and first.exists() and second.exists()


def test_refuses_a_trace_that_does_not_replay(tmp_path):
    trace = counterexample()
    steps = list(trace.steps)
    steps[3] = dataclasses.replace(steps[3], state={"small": 1, "big": 1})
    bad = Trace(trace.model_name, steps, trace.kind, trace.property_name)
    with pytest.raises(TraceReplayError, match="does not replay"):
        write_trace(bad, die_hard(), tmp_path / "out")
    assert not (tmp_path / "out").exists()
