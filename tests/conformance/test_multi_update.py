"""Several updates of one variable on one path (issue 11, item 4) and set
comprehensions with several ``for`` clauses (item 5) on every explicit engine
and on BMC, against counts and verdicts computed by hand with
a Python model of TLA+'s EXCEPT composition (the later update wins on equal
keys; every right-hand side reads the pre-state)."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from modelcheck import api
from modelcheck.engines.base import CheckOptions, Status

#: Move(i, i) leaves m[i] at 0: the later update wins.
MAP_SPEC = """module conf_map
type K = 0..2
var m: map[K, 0..3] = {k: 0 for k in K}
action Move(i: K, j: K) {
    require m[i] < 3
    m[i] := m[i] + 1
    m[j] := 0
}
invariant SomeZero: any(m[k] == 0 for k in K)
invariant Low: all(m[k] < 2 for k in K)
"""

#: Record fields, a map of records, a map of maps, parts in if/either branches.
NESTED_SPEC = """module conf_nested
type K = 0..1
type R = record { f: 0..3, g: 0..3 }
var r: R = R(f=0, g=0)
var n: map[K, R] = {k: R(f=0, g=0) for k in K}
var q: map[K, map[K, 0..2]] = {k: {l: 0 for l in K} for k in K}
action Step(i: K) {
    require r.f < 3
    r.f := r.f + 1
    if i == 0 { r.g := r.g + 1 }
    n[i].f := n[i].f + 1
    n[i].g := 3
    q[i][0] := 1
    either { q[i][1] := 2 } or { q[1 - i][i] := 2 }
}
invariant Sum: r.f == n[0].f + n[1].f
invariant Marked: all(n[k].f > 0 => n[k].g == 3 for k in K)
invariant Short: r.f < 2
"""

#: Set comprehensions with several 'for' clauses, over state and over constants.
PAIRS_SPEC = """module conf_pairs
type Node = model(3)
var s: set[Node] = {}
var p: set[0..4] = {}
action Add(n: Node) {
    require n not in s
    s := s | {n}
}
action Sums() {
    p := {a + b for a in 0..2 if a != 1 for b in {0, 2} if a + b < 4}
}
invariant Pairs: len({(x, y) for x in s for y in s if x != y}) == len(s) * (len(s) - 1)
invariant SumsSeen: p == {} or p == {0, 2}
invariant FewPairs: len({(x, y) for x in s for y in s if x != y}) < 2
"""

# (source, distinct, generated incl. the initial state, depth,
#  {invariant: steps of the shortest counterexample, None if it holds})
CASES = {
    "map": (MAP_SPEC, 37, 271, 7, {"SomeZero": None, "Low": 2}),
    "nested": (NESTED_SPEC, 34, 65, 4, {"Sum": None, "Marked": None, "Short": 2}),
    "pairs": (PAIRS_SPEC, 16, 41, 5, {"Pairs": None, "SumsSeen": None, "FewPairs": 2}),
}


def _verdicts(result):
    return {p.name: p.steps if p.status is Status.VIOLATED else None
            for p in result.properties if p.name != "deadlock"}


@pytest.mark.parametrize("engine", ["reference", "compiled"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_explicit_engines_match_hand_counts(engine, case):
    if engine == "compiled":
        pytest.importorskip("numba")
    source, distinct, generated, depth, verdicts = CASES[case]
    result = api.check(api.load_source(source), engine=engine,
                       options=CheckOptions(deadlock=False))
    assert result.error is None and result.complete, result.reason
    assert (result.stats.distinct_states, result.stats.generated_states,
            result.stats.depth) == (distinct, generated, depth)
    assert _verdicts(result) == verdicts


@pytest.mark.parametrize("case", sorted(CASES))
def test_bmc_to_depth_3_matches(case):
    pytest.importorskip("z3")
    source, _, _, _, verdicts = CASES[case]
    result = api.check(api.load_source(source), engine="bmc",
                       options=CheckOptions(deadlock=False, depth=3, timeout_s=60.0))
    assert result.error is None
    for p in result.properties:
        if p.name == "deadlock":
            continue
        if verdicts[p.name] is None:
            assert p.trace is None and p.status is Status.HOLDS_UP_TO_BOUND, p.name
        else:
            assert p.status is Status.VIOLATED and p.steps == verdicts[p.name], p.name


# --- differential: random EXCEPT chains on the reference explorer ------------

_KEYS = ["0", "1", "2", "i", "j"]
#: one update: (key, (constant, read key or None), guarded by 'if i < j')
_UPDATE = st.tuples(st.sampled_from(_KEYS),
                    st.tuples(st.integers(0, 3), st.one_of(st.none(), st.sampled_from(_KEYS))),
                    st.booleans())


def _except_chain(updates, i, j):
    """The map after one step: TLA+'s EXCEPT composition, reading the pre-state."""
    pre = (1, 2, 3)
    key = {"0": 0, "1": 1, "2": 2, "i": i, "j": j}
    post = list(pre)
    for k, (c, read), guarded in updates:
        if guarded and not i < j:
            continue
        post[key[k]] = (c + (pre[key[read]] if read is not None else 0)) % 4
    return tuple(post)


def _update_source(k, value, guarded):
    c, read = value
    rhs = f"({c} + m[{read}]) % 4" if read is not None else str(c)
    line = f"m[{k}] := {rhs}"
    return f"if i < j {{ {line} }}" if guarded else line


@settings(max_examples=25, deadline=None)
@given(st.lists(_UPDATE, min_size=1, max_size=5))
def test_random_except_chains_match_a_python_model(updates):
    body = "\n    ".join(_update_source(*u) for u in updates)
    source = f"""module chain
type K = 0..2
var m: map[K, 0..3] = {{k: k + 1 for k in K}}
var done: bool = false
action U(i: K, j: K) {{
    require not done
    done := true
    {body}
}}
"""
    expected = {_except_chain(updates, i, j) for i in range(3) for j in range(3)}
    exact = " or ".join(f"(m[0] == {a} and m[1] == {b} and m[2] == {c})"
                        for a, b, c in sorted(expected))
    result = api.check(api.load_source(source + f"invariant Exact: not done or {exact}\n"),
                       engine="reference", options=CheckOptions(deadlock=False))
    assert result.error is None and result.complete
    assert result.get_property("Exact").status is Status.HOLDS
    assert result.stats.distinct_states == 1 + len(expected)
