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


def _replays_counted(monkeypatch) -> list:
    import modelcheck.trace.store as store
    calls: list = []
    real = store.trace_problem

    def counted(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(store, "trace_problem", counted)
    return calls


def test_a_trace_verified_for_the_model_is_written_without_a_second_replay(tmp_path,
                                                                           monkeypatch):
    from modelcheck.trace.verify import verify_trace
    model, trace = die_hard(), counterexample()
    verify_trace(model, trace, "reference")
    calls = _replays_counted(monkeypatch)
    write_trace(trace, model, tmp_path)
    assert calls == []
    write_trace(trace, die_hard(), tmp_path)       # another model object: replayed
    assert len(calls) == 1


def test_a_verified_trace_changed_afterwards_is_verified_again(tmp_path, monkeypatch):
    from modelcheck.trace.verify import verify_trace
    model, trace = die_hard(), counterexample()
    verify_trace(model, trace, "reference")
    calls = _replays_counted(monkeypatch)
    trace.steps[3].state["big"] = 1                # changed in place
    with pytest.raises(TraceReplayError, match="does not replay"):
        write_trace(trace, model, tmp_path / "out")
    assert len(calls) == 1 and not (tmp_path / "out").exists()
    fresh = counterexample()
    verify_trace(model, fresh, "reference")
    fresh.steps.pop()                              # no longer reaches the violation
    with pytest.raises(TraceReplayError):
        write_trace(fresh, model, tmp_path / "out")
    assert len(calls) == 2
