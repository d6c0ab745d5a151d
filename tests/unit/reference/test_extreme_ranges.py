"""The reference explorer on huge ranges and huge ints: len, in, min and max
of a range are arithmetic, quantifiers and comprehensions over a range run in
constant memory and honour the timeout, a huge range is never built as a set
(MC5007), and out-of-type values are caught exactly (MC5001)."""
from __future__ import annotations

import tracemalloc

import pytest

from modelcheck.engines.base import CheckOptions, Status
from modelcheck.engines.reference import ReferenceEngine
from modelcheck.pipeline import load_source

TOGGLE = "module m\nvar x: 0..1 = 0\naction A() { x := 1 - x }\n"


def check(source, **options):
    return ReferenceEngine().check(load_source(source, "t.mc"), CheckOptions(**options))


class Ticks:
    def __init__(self):
        self.ticks = []

    def progress(self, progress):
        self.ticks.append(progress)

    def note(self, message):
        pass


@pytest.mark.timeout(10)
@pytest.mark.parametrize("prop, status", [
    ("len(0..1000000000000000000000) == 1000000000000000000001", Status.HOLDS),
    ("len(x..1000000000000000000000) > 1000000000000000000000", Status.VIOLATED),
    ("len(5..x) == 0", Status.HOLDS),
    ("x + 999999999999999999999 in 0..1000000000000000000000", Status.HOLDS),
    ("x + 1000000000000000000000 in 0..1000000000000000000000", Status.VIOLATED),
    ("max(0..1000000000000000000000 + x) == 1000000000000000000000", Status.VIOLATED),
    ("min(x..1000000000000000000000) == x", Status.HOLDS),
    ("not (x - 1 in x..1000000000000000000000)", Status.HOLDS),
])
def test_questions_about_a_huge_range_are_arithmetic(prop, status):
    result = check(TOGGLE + f"invariant P: {prop}\n", deadlock=False)
    assert result.get_property("P").status is status


def test_min_of_an_empty_range_is_mc5006():
    result = check(TOGGLE + "invariant P: min(5..x) >= 0\n")
    assert result.error.diagnostic.code == "MC5006"
    assert result.error.diagnostic.span.line == 4


@pytest.mark.timeout(60)
def test_a_quantifier_over_a_big_range_runs_in_constant_memory():
    # The invariant reads x, so it is evaluated per state, not folded at load.
    source = TOGGLE + "invariant Q: all(i + x >= 0 for i in 0..2000000)\n"
    model = load_source(source, "t.mc")
    tracemalloc.start()
    try:
        result = ReferenceEngine().check(model, CheckOptions(deadlock=False))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.get_property("Q").status is Status.HOLDS
    # The 2,000,001 ints as a set would take well over 50 MB.
    assert peak < 8 * 2 ** 20


@pytest.mark.timeout(60)
def test_sum_and_set_comprehension_over_a_range_iterate_it():
    source = TOGGLE + ("invariant S: sum(i for i in 0..200000 if i % 100000 == x) == 300000 - 2 * x"
                       "\ninvariant C: len({i // 100000 for i in 0..200000}) == 3\n")
    result = check(source, deadlock=False)
    assert result.get_property("S").status is Status.VIOLATED
    assert result.get_property("C").status is Status.HOLDS


@pytest.mark.timeout(30)
@pytest.mark.parametrize("prop", [
    "all(i + x >= 0 for i in 0..1000000000000)",           # per state
    "all(i >= 0 for i in 0..1000000000000)",               # constant: folded at load
])
def test_a_long_quantifier_reports_progress_and_stops_at_the_timeout(prop):
    ticks = Ticks()
    model = load_source(TOGGLE + f"invariant Q: {prop}\n", "t.mc")
    result = ReferenceEngine().check(model, CheckOptions(timeout_s=1), ticks)
    assert result.get_property("Q").status is Status.UNKNOWN
    assert result.reason.startswith("timeout")
    assert len(ticks.ticks) >= 1


@pytest.mark.timeout(10)
def test_a_huge_range_kept_as_a_set_is_mc5007_not_built():
    result = check(TOGGLE + "invariant P: len((0..1000000000000 + x) | {3}) > 0\n")
    diag = result.error.diagnostic
    assert diag.code == "MC5007"
    assert (diag.span.line, diag.span.col) == (4, 19)
    assert "1048576" in diag.message
    assert result.exit_code == 2


def test_a_range_within_the_limit_is_still_a_set():
    result = check(TOGGLE + "invariant P: len((0..100000 + x) & {3, 200000}) == 1\n",
                   deadlock=False)
    assert result.get_property("P").status is Status.HOLDS


def test_initial_values_in_a_big_range_are_all_explored():
    result = check("module m\nvar x: 0..100000 in 0..100000\ninvariant I: x <= 100000\n",
                   deadlock=False)
    assert result.stats.distinct_states == 100001
    assert result.get_property("I").status is Status.HOLDS


OVF_NEG = """module ovf_neg
var x: -9223372036854775808..9223372036854775807 = -9223372036854775808
action A() { require x < 0
  x := -x }
invariant Neg: x < 0
"""


def test_negating_the_int64_minimum_is_mc5001():
    result = check(OVF_NEG)
    diag = result.error.diagnostic
    assert diag.code == "MC5001"
    assert "9223372036854775808" in diag.message
    assert (diag.span.line, diag.span.col) == (4, 3)
    assert result.exit_code == 2


def test_products_beyond_64_bits_are_exact():
    source = ("module ovf_mul\nconst C: 0..4611686018427387904 = 4611686018427387904\n"
              "var x: 0..1 = 0\naction A() { require x == 0\n  x := 1 }\n"
              "invariant Pos: x * C + x * C > 0 or x == 0\n")
    result = check(source, deadlock=False)
    assert result.get_property("Pos").status is Status.HOLDS


@pytest.mark.timeout(10)
def test_a_huge_out_of_type_value_is_mc5001_and_rendered():
    # 2^128 - 1 to the 40th power has over 4,300 digits: the message stays readable.
    power = " * ".join(["340282366920938463463374607431768211455"] * 40)
    source = f"module m\nvar x: 0..1 = 0\naction A() {{ x := {power} }}\n"
    result = check(source)
    diag = result.error.diagnostic
    assert diag.code == "MC5001"
    assert "digits>" in diag.message


@pytest.mark.timeout(30)
def test_simulation_also_stops_a_long_quantifier_at_the_timeout():
    model = load_source(TOGGLE + "invariant Q: all(i + x >= 0 for i in 0..1000000000000)\n",
                        "t.mc")
    result = ReferenceEngine().check(model, CheckOptions(simulate=3, timeout_s=1))
    assert result.get_property("Q").status is Status.UNKNOWN
    assert "timeout" in result.reason
