"""Extreme specs (tests/property/spec_extreme.py) through the front end and the
reference explorer: each ends in an answer or a coded diagnostic, never an
internal error, and no example runs away (a watchdog on CPU time stops any
that takes more than HANG_S seconds, the fuzzing tier's definition of a hang)."""
from __future__ import annotations

import random
import signal
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spec_extreme import classify, extreme_spec, extreme_specs

HANG_S = 10


class Hang(Exception):
    pass


def _bounded(source: str) -> str:
    """classify(source), stopped with Hang after HANG_S s of CPU time.
    A CPU-time timer, not a wall clock: other processes sharing the machine
    do not count, and pytest-timeout keeps SIGALRM."""
    def on_timer(signum, frame):
        raise Hang(f"more than {HANG_S} s on:\n{source[:2000]}")
    previous = signal.signal(signal.SIGVTALRM, on_timer)
    signal.setitimer(signal.ITIMER_VIRTUAL, HANG_S)
    try:
        return classify(source)
    finally:
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)
        signal.signal(signal.SIGVTALRM, previous)


@pytest.mark.timeout(600)
@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.randoms(use_true_random=False))
def test_extreme_specs_end_in_an_answer_or_a_diagnostic(rng):
    _, source = extreme_spec(rng)
    assert _bounded(source) in ("answer", "diagnostic", "runtime")


def test_the_generator_is_deterministic_and_covers_every_kind():
    first = list(extreme_specs(7, 40))
    assert first == list(extreme_specs(7, 40))
    assert len({name for name, _ in first}) == 40
    kinds = Counter(name.split("-")[0] for name, _ in first)
    assert set(kinds) == {"int_range", "model_type", "range_question", "deep", "mutated"}


@pytest.mark.timeout(120)
@pytest.mark.parametrize("source, expected", [
    ("module m\ntype Node = model(10000000000000000000000)\n", "diagnostic"),
    ("module m\nvar x: 0..1 = 0\ninvariant I: x < " + "9" * 5000 + "\n", "diagnostic"),
    ("module m\nvar x: 0..1 = 0\naction A() { x := 1 - x }\n"
     "invariant L: len(0..1000000000000000000000) > 0\n", "answer"),
    ("module m\nvar x: 0..1 = 0\naction A() { x := 1 - x }\n"
     "invariant Q: all(i >= 0 for i in 0..1000000000)\n", "answer"),
    ("module m\nvar x: 0..1 = 0\ninvariant I: " + "(" * 1000 + "x" + ")" * 1000
     + " < 2\n", "answer"),
    ("module m\nvar x: 0..1 = 0\ninvariant I: " + "(" * 100_000 + "x" + ")" * 100_000
     + " < 2\n", "diagnostic"),
])
def test_the_issue_table_ends_in_bounded_time(source, expected):
    assert _bounded(source) == expected


def test_a_long_fixed_campaign_has_no_internal_error():
    outcomes = Counter(_bounded(source) for _, source in extreme_specs(2026, 40))
    assert sum(outcomes.values()) == 40
    assert outcomes["diagnostic"] > 0 and outcomes["answer"] > 0


def test_random_seeds_are_plain_ints():
    # The fuzzing tier passes its own seeds: any int works.
    assert len(list(extreme_specs(random.Random(1).randrange(2 ** 64), 3))) == 3
