"""A long trace file is read one state at a time, and a view keeps only the
steps it shows: what reading holds does not grow with the trace's length
(beyond the file's text).  Checked by construction, by counting what is
decoded and kept, never by timing or memory use."""
from __future__ import annotations

import dataclasses
import json

import pytest

from hand_models import die_hard
from modelcheck.cli.trace_load import load_trace
from modelcheck.engines.base import CheckOptions
from modelcheck.engines.reference import ReferenceEngine
from modelcheck.trace.itf import from_itf, itf_steps, open_itf, read_itf
from modelcheck.trace.itf_json import TraceFileError, stream_itf
from modelcheck.trace.replay import ReplayStream, replay
from modelcheck.trace.trace import Trace
from modelcheck.trace.view import EDGE_STEPS, KeptSteps, step_window


def _long(steps: int) -> dict:
    return {"#meta": {"format": "ITF"}, "vars": ["c"],
            "states": [{"#meta": {"index": i}, "c": i} for i in range(steps + 1)]}


@pytest.fixture
def long_file(tmp_path):
    path = tmp_path / "long.itf.json"
    path.write_text(json.dumps(_long(1_000)))
    return path


def test_the_states_are_decoded_one_at_a_time(long_file, monkeypatch):
    head, states, _ = open_itf(long_file)
    assert head == {"#meta": {"format": "ITF"}, "vars": ["c"]}
    decoded: list = []
    real = json.JSONDecoder.raw_decode

    def counting(self, text, idx=0):
        value, end = real(self, text, idx)
        decoded.append(value)
        return value, end
    monkeypatch.setattr(json.JSONDecoder, "raw_decode", counting)
    steps = itf_steps(head, states, None, str(long_file))
    assert next(steps).state == {"c": 0} and len(decoded) == 1
    assert next(steps).state == {"c": 1} and len(decoded) == 2


def test_the_whole_file_reader_is_the_streaming_one(tmp_path):
    # "states" before the members it needs, as another tool may write it
    data = _long(3)
    path = tmp_path / "t.itf.json"
    path.write_text(json.dumps({"states": data["states"], "vars": ["c"], "#meta": {"format": "ITF"}}))
    trace = read_itf(path)
    assert [s.state["c"] for s in trace.steps] == [0, 1, 2, 3]
    assert trace.steps == from_itf(json.loads(path.read_text())).steps


def test_a_duplicate_key_reads_as_json_reads_it():
    text = json.dumps(_long(2))[:-1] + ', "states": [{"c": 7}]}'
    head, states = stream_itf(text, "t")
    assert states is not None and [s["c"] for s in states()] == [7]


def test_a_bad_value_after_good_ones_is_the_same_diagnostic(tmp_path):
    text = json.dumps(_long(300)).replace('"c": 250', '"c": 2.5')
    path = tmp_path / "bad.itf.json"
    path.write_text(text)
    with pytest.raises(TraceFileError) as err:
        read_itf(path)
    assert err.value.diagnostic.code == "MC3202"
    assert err.value.diagnostic.message.startswith("states[250].c: 2.5 is a float")


@pytest.mark.parametrize("steps, show_all, kept", [
    (None, False, 3 * EDGE_STEPS + 2),     # the two ends, the step before the last end
    ("500:509", False, 12),                # step 0, 499 (shown against) and 500 to 509
    ("990:", False, 13),                   # step 0, 989, and 990 to the end (1000)
    (None, True, 1_001),                   # --all: asked for
])
def test_a_view_keeps_only_what_it_shows(long_file, steps, show_all, kept):
    loaded = load_trace(str(long_file), keep=lambda: KeptSteps(steps, show_all))
    held = loaded.trace.steps
    assert isinstance(held, KeptSteps) and len(held) == 1_001 and held.kept <= kept
    window = step_window(len(held), steps, show_all)
    for i in window:
        assert held[i].state == {"c": i}
        if i > 0:
            assert held[i - 1].state == {"c": i - 1}


def test_a_step_not_kept_is_an_index_error(long_file):
    held = load_trace(str(long_file), keep=KeptSteps).trace.steps
    with pytest.raises(IndexError):
        held[500]


def _die_hard_trace() -> Trace:
    return ReferenceEngine().check(die_hard(), CheckOptions()).get_property("NotFour").trace


def test_replaying_step_by_step_answers_as_replay():
    good = _die_hard_trace()
    # the actions left out, as other tools write traces: replay fills them in
    bare = Trace(good.model_name, [dataclasses.replace(s, action=None, params=()) for s in good.steps])
    stream = ReplayStream(die_hard())
    filled = [stream.feed(s) for s in bare.steps]
    assert stream.result().ok and [s.action for s in filled] == [s.action for s in good.steps]
    # a step that does not replay, and a value outside its type later: the
    # value is reported, as replay reports it
    steps = list(good.steps)
    steps[1] = dataclasses.replace(steps[1], state={**steps[1].state, "big": 4})
    steps[-1] = dataclasses.replace(steps[-1], state={**steps[-1].state, "small": 99})
    stream = ReplayStream(die_hard())
    for s in steps:
        stream.feed(s)
    expected = replay(die_hard(), Trace(good.model_name, list(steps)))
    got = stream.result()
    assert not got.ok and (got.step, got.reason) == (expected.step, expected.reason)
    assert got.step == len(steps) - 1
