"""``modelcheck.testing``: the assertion helpers pass on what a result shows
and fail, with a message saying what was found, on anything else."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

import modelcheck
from modelcheck import CheckOptions, assert_holds, assert_reachable, assert_violated

DIE_HARD = Path(__file__).resolve().parents[2] / "specs" / "examples" / "die_hard.mc"

COUNTER = """module counter
var n: 0..2 = 0
action Tick() { n := (n + 1) % 3 }
invariant InRange: n >= 0 and n <= 2
sometimes ReachesTwo: n == 2
sometimes NeverThree: n == 3
"""


@pytest.fixture(scope="module")
def die_hard():
    model = modelcheck.load(str(DIE_HARD))
    return model, modelcheck.check(model, engine="reference")


@pytest.fixture(scope="module")
def counter():
    return modelcheck.check(modelcheck.load_source(COUNTER, "counter.mc"), engine="reference")


def test_assert_violated_passes_and_gives_the_counterexample(die_hard):
    _, result = die_hard
    prop = assert_violated(result, "NotFour", steps=6)
    assert prop.trace.steps[-1].state["big"] == 4
    assert assert_violated(result, "NotFour").steps == 6


def test_assert_violated_with_the_wrong_length_says_both(die_hard):
    _, result = die_hard
    with pytest.raises(AssertionError) as info:
        assert_violated(result, "NotFour", steps=5)
    message = str(info.value)
    assert message.startswith("die_hard: property 'NotFour': expected violated in 5 steps, "
                              "found violated in 6 steps\n")
    assert "trace: counterexample of 6 steps, not written to a file" in message
    assert "engine: reference" in message


def test_assert_violated_on_a_property_that_holds(die_hard):
    _, result = die_hard
    with pytest.raises(AssertionError, match="'deadlock': expected violated, found holds"):
        assert_violated(result, "deadlock")


def test_assert_holds_names_the_trace_file(die_hard, tmp_path):
    model, result = die_hard
    prop = result.get_property("NotFour")
    written = dataclasses.replace(prop, trace_file=str(prop.trace.save(tmp_path / "t.itf.json", model)))
    saved = dataclasses.replace(result, properties=[written, result.get_property("deadlock")])
    assert assert_holds(saved, "deadlock").name == "deadlock"
    with pytest.raises(AssertionError) as info:
        assert_holds(saved, "NotFour")
    message = str(info.value)
    assert "expected holds, found violated in 6 steps" in message
    assert "status: violated" in message
    assert f"in {tmp_path / 't.itf.json'}" in message


def test_assert_holds_without_a_name_lists_what_does_not_hold(die_hard, counter):
    _, result = die_hard
    with pytest.raises(AssertionError) as info:
        assert_holds(result)
    message = str(info.value)
    assert message.startswith("die_hard: expected every property to hold")
    assert "NotFour: violated in 6 steps" in message
    assert "deadlock" not in message
    with pytest.raises(AssertionError, match="NeverThree: violated: never reachable"):
        assert_holds(counter)


def test_assert_holds_without_a_name_passes_when_all_hold():
    model = modelcheck.load_source(COUNTER, "counter.mc")
    result = modelcheck.check(model, engine="reference",
                              options=CheckOptions(invariants=("InRange", "ReachesTwo")))
    assert assert_holds(result) is None


def test_assert_reachable(counter, die_hard):
    assert assert_reachable(counter, "ReachesTwo", steps=2).trace.kind == "witness"
    with pytest.raises(AssertionError, match="expected reachable, found violated: never reachable"):
        assert_reachable(counter, "NeverThree")
    with pytest.raises(AssertionError, match="expected reachable in 3 steps, found reachable in 2"):
        assert_reachable(counter, "ReachesTwo", steps=3)
    with pytest.raises(AssertionError, match="'NotFour' is an invariant, not a 'sometimes' property"):
        assert_reachable(die_hard[1], "NotFour")


def test_an_unknown_property_name_gets_a_suggestion(die_hard):
    with pytest.raises(AssertionError) as info:
        assert_violated(die_hard[1], "notfour")
    assert str(info.value) == ("die_hard: no property 'notfour' was checked (did you mean "
                               "'NotFour'?); checked: NotFour, deadlock")


def test_an_unknown_verdict_gives_its_reason():
    model = modelcheck.load_source(COUNTER, "counter.mc")
    result = modelcheck.check(model, engine="reference", options=CheckOptions(max_states=1))
    with pytest.raises(AssertionError) as info:
        assert_holds(result, "InRange")
    message = str(info.value)
    assert "expected holds, found unknown: stopped at the state bound" in message
    assert "status: unknown" in message


def test_a_run_time_error_fails_assert_holds():
    source = ("module overflow\nvar x: 0..3 = 0\naction Up() { x := x + 1 }\n"
              "invariant Small: x <= 3\n")
    result = modelcheck.check(modelcheck.load_source(source, "overflow.mc"), engine="reference")
    assert result.error is not None
    with pytest.raises(AssertionError, match="run-time error: "):
        assert_holds(result, "Small")


FAILOVER = """module failover
type Node = model(2)
var up: map[Node, bool] = {n: true for n in Node}
var primary: Node = node1
var written: bool = false

action Write(p: Node) {
    require up[p] and p == primary and not written
    written := true
}

action Crash(n: Node) {
    require up[n] and written
    up[n] := false
}

action FailOver(n: Node) {
    require up[n] and not up[primary]
    primary := n
}

invariant StaysOnFirst: not (written and primary != node1)
"""


@pytest.fixture(scope="module")
def failover():
    model = modelcheck.load_source(FAILOVER, "failover.mc")
    return modelcheck.check(model, engine="reference", options=CheckOptions(deadlock=False))


def test_the_message_shows_the_counterexample_step_by_step(failover):
    with pytest.raises(AssertionError) as info:
        assert_holds(failover, "StaysOnFirst")
    assert "  steps: Init → Write(p=node1) → Crash(n=node1) → FailOver(n=node2)\n" \
        in str(info.value)
    with pytest.raises(AssertionError) as info:
        assert_holds(failover)
    assert "steps: Init → Write(p=node1) → Crash(n=node1) → FailOver(n=node2)" in str(info.value)
    with pytest.raises(AssertionError) as info:
        assert_violated(failover, "StaysOnFirst", steps=2)
    assert "steps: Init → Write(p=node1) → Crash(n=node1) → FailOver(n=node2)" in str(info.value)


def test_a_long_counterexample_shows_its_first_and_last_steps():
    source = ("module long\nvar x: 0..30 = 0\naction Up() { require x < 30\n x := x + 1 }\n"
              "invariant Low: x < 30\n")
    result = modelcheck.check(modelcheck.load_source(source, "long.mc"), engine="reference",
                              options=CheckOptions(deadlock=False))
    with pytest.raises(AssertionError) as info:
        assert_holds(result, "Low")
    steps, = [line for line in str(info.value).splitlines() if line.startswith("  steps: ")]
    assert steps == "  steps: " + " → ".join(["Init"] + ["Up"] * 9 + ["... (11 more steps)"]
                                             + ["Up"] * 10)


def test_a_run_time_error_shows_the_steps_to_it():
    source = ("module overflow\nvar x: 0..3 = 0\naction Up() { x := x + 1 }\n"
              "invariant Small: x <= 3\n")
    result = modelcheck.check(modelcheck.load_source(source, "overflow.mc"), engine="reference")
    with pytest.raises(AssertionError) as info:
        assert_holds(result)
    assert "steps to it: Init → Up → Up → Up" in str(info.value)


@pytest.mark.parametrize("call", [
    lambda r: assert_holds(r, "StaysOnFirst"),
    lambda r: assert_holds(r),
    lambda r: assert_violated(r, "StaysOnFirst", steps=1),
    lambda r: assert_reachable(r, "StaysOnFirst"),
    lambda r: assert_violated(r, "Nope"),
], ids=["holds", "holds-all", "violated", "reachable", "unknown-name"])
def test_pytest_hides_the_helpers_frames(failover, call):
    with pytest.raises(AssertionError) as info:
        call(failover)
    tb, ours = info.value.__traceback__, []
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == modelcheck.testing.__file__:
            ours.append(tb.tb_frame.f_locals.get("__tracebackhide__"))
        tb = tb.tb_next
    assert ours and all(hide is True for hide in ours)
