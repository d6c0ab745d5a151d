"""The compiled engine computes ints exactly or declines: it never wraps.

Its kernels compute in int64; where a static range of the spec does not fit
(``engines/compiled/ranges.py``), it runs the reference explorer with a
notice.  Either way the answer is the reference's.
"""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from modelcheck import api
from modelcheck.engines.base import CheckOptions
from modelcheck.engines.compiled.engine import CompiledEngine
from modelcheck.errors import CompileError

pytest.importorskip("numba")

I64_MIN, I64_MAX = -(1 << 63), (1 << 63) - 1


class Notes:
    def __init__(self):
        self.notes = []

    def progress(self, p):
        pass

    def note(self, message):
        self.notes.append(message)


def answer(result) -> dict:
    """What must agree with the reference explorer."""
    error = result.error.diagnostic.code if result.error is not None else None
    return {
        "distinct": result.stats.distinct_states,
        "properties": {p.name: (p.status, None if p.trace is None else len(p.trace.steps))
                       for p in result.properties},
        "error": error,
        "exit": result.exit_code,
    }


def compiled_and_reference(source: str):
    model = api.load_source(source)
    notes = Notes()
    got = CompiledEngine().check(model, CheckOptions(), notes)
    want = api.check(model, "reference", CheckOptions())
    return got, want, notes.notes


OVF_MUL = """module ovf_mul
const C: 0..4611686018427387904 = 4611686018427387904
var x: 0..1 = 0
action A() { require x == 0
  x := 1 }
invariant Pos: x * C + x * C > 0 or x == 0
"""

OVF_NEG = """module ovf_neg
var x: -9223372036854775808..9223372036854775807 = -9223372036854775808
action A() { require x < 0
  x := -x }
invariant Neg: x < 0
"""

WIDE_VAR = """module wide
var x: 0..100000000000000000000 = 0
action A() { require x < 3
  x := x + 1 }
invariant I: x >= 0
"""


@pytest.mark.parametrize("source", [OVF_MUL, OVF_NEG, WIDE_VAR], ids=["mul", "neg", "wide-var"])
def test_a_range_beyond_64_bits_is_declined_with_the_reference_answer(source):
    got, want, notes = compiled_and_reference(source)
    assert answer(got) == answer(want)
    assert got.engine == "reference"
    assert len(notes) == 1 and "beyond 64-bit integers" in notes[0]
    assert "using the reference explorer" in notes[0]


def test_negation_at_the_bottom_of_int64_stops_with_mc5001():
    got, _, _ = compiled_and_reference(OVF_NEG)
    assert got.error is not None and got.error.diagnostic.code == "MC5001"
    assert got.exit_code == 2


def test_a_folded_constant_only_needs_its_value_to_fit():
    # -9223372036854775808 is the negation of 2**63: folded, it fits.
    got, want, notes = compiled_and_reference("""module edge
var x: 0..1 = 0
action A() { require x == 0
  x := 1 }
invariant Low: x * 2 > -9223372036854775808
""")
    assert got.engine == "compiled" and not any("reference explorer" in n for n in notes)
    assert answer(got) == answer(want)


def test_a_set_at_the_bitset_limit_is_declined_before_compiling():
    got, want, notes = compiled_and_reference("""module bigset
var s: set[0..65535] = {}
var n: 0..2 = 0
action A(v: 0..1) { require n < 2
  s := s | {v * 65535}
  n := n + 1 }
invariant I: len(s) <= 2
""")
    assert answer(got) == answer(want)
    assert "words" in notes[0] and "using the reference explorer" in notes[0]


def test_large_ranges_are_counted_not_built():
    # The reference explorer walks the 10**9 values in Python (minutes): the
    # expected answer is written down instead.
    model = api.load_source("""module big_ranges
var x: 0..1 = 0
action A() { require x == 0
  x := 1 }
invariant Q: all(i >= x for i in x..1000000000)
invariant L: len(0..1000000000) == 1000000001
""")
    notes = Notes()
    got = CompiledEngine().check(model, CheckOptions(), notes)
    assert got.engine == "compiled" and not any("reference explorer" in n for n in notes.notes)
    assert {p.name: p.status.name for p in got.properties if p.name in "QL"} == \
        {"Q": "HOLDS", "L": "HOLDS"}
    assert got.stats.distinct_states == 2


def test_spark_declines_the_same_way():
    from modelcheck.engines.spark.engine import SparkEngine
    model = api.load_source(OVF_MUL)
    notes = Notes()
    got = SparkEngine().check(model, CheckOptions(), notes)
    want = api.check(model, "reference", CheckOptions())
    assert answer(got) == answer(want)
    assert any("beyond 64-bit integers" in n for n in notes.notes)


# ---------------------------------------------------------------- differential

EXTREMES = [0, 1, -1, 2, 3, 7, (1 << 31), (1 << 62) - 1, 1 << 62, -(1 << 62),
            (1 << 62) + 1, I64_MAX, I64_MIN, I64_MAX - 1, I64_MIN + 1, 1 << 63, -(1 << 63) - 1]
OPS = ["+", "-", "*", "//", "%"]


@st.composite
def small_specs(draw) -> str:
    """One var whose values sit near an extreme, one constant, and an
    arithmetic invariant over both; the actions move the var by one."""
    base = draw(st.sampled_from(EXTREMES))
    lo = draw(st.sampled_from([base - 2, base]))
    hi = lo + draw(st.integers(1, 3))
    c = draw(st.sampled_from(EXTREMES))
    clo, chi = min(c, 0), max(c, 0)

    def term(depth: int) -> str:
        if depth == 0 or draw(st.booleans()):
            return draw(st.sampled_from(["x", "C", "1", str(draw(st.sampled_from(EXTREMES)))]))
        kind = draw(st.sampled_from(["bin", "bin", "neg", "minmax", "sum"]))
        a, b = term(depth - 1), term(depth - 1)
        if kind == "neg":
            return f"(-{a})"
        if kind == "minmax":
            return f"{draw(st.sampled_from(['min', 'max']))}({a}, {b})"
        if kind == "sum":
            return f"sum(({a}) + k for k in 0..1)"
        return f"({a} {draw(st.sampled_from(OPS))} {b})"

    expr = term(3)
    cmp = draw(st.sampled_from(["<", "<=", "==", "!=", ">="]))
    other = draw(st.sampled_from(["0", "x", "C", str(draw(st.sampled_from(EXTREMES)))]))
    step = draw(st.sampled_from(["x + 1", "x - 1", "-x", "x * 2", "C - x"]))
    return f"""module gen
const C: {clo}..{chi} = {c}
var x: {lo}..{hi} = {lo}
action Step() {{ require x < {hi}
  x := {step} }}
action Back() {{ require x > {lo}
  x := x - 1 }}
invariant P: {expr} {cmp} {other}
"""


def _differential(source: str) -> None:
    try:
        got, want, _ = compiled_and_reference(source)
    except CompileError:
        return      # a generated spec the type checker refuses (both engines never see it)
    assert answer(got) == answer(want), source


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(small_specs())
def test_compiled_agrees_with_the_reference_on_extreme_ints(source):
    _differential(source)


# Each example that fits in int64 compiles a kernel of its own (7 s on CI's
# two cores): 25 of them, with the 12 above, on every CI run; the examples
# differ from run to run, so the runs add up to more.
@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(small_specs())
def test_compiled_agrees_with_the_reference_on_extreme_ints_long(source):
    _differential(source)
