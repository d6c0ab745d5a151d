"""Several assignments to parts of one variable on one path (issue 11, item 4):
they compose in order as TLA+'s EXCEPT, each reading the pre-state, and every
path still assigns each variable once in the IR."""
from __future__ import annotations

import pytest

from modelcheck import api
from modelcheck.engines.base import Status
from modelcheck.ir import nodes as ir


def _paths(body):
    """Every path through an IR body, as the list of its statements."""
    if not body:
        return [[]]
    head, rest = body[0], body[1:]
    if isinstance(head, ir.If):
        return [p + q for branch in (head.then, head.else_) for p in _paths(branch)
                for q in _paths(rest)]
    if isinstance(head, ir.Either):
        return [p + q for branch in head.branches for p in _paths(branch)
                for q in _paths(rest)]
    return [[head] + q for q in _paths(rest)]


def _assigns_per_path(model, action):
    body = next(a for a in model.actions if a.name == action).body
    return [sorted(s.var for s in path if isinstance(s, ir.Assign)) for path in _paths(body)]


MAP = """module t
type K = 0..2
var m: map[K, 0..3] = {k: 0 for k in K}
"""


def test_each_path_assigns_each_variable_once():
    model = api.load_source(MAP + """
action A(i: K, j: K) {
    m[i] := 1
    if i < 2 { m[j] := 2 } else { require m[0] == 0 }
    either { m[0] := 3 } or { }
}
""")
    assert _assigns_per_path(model, "A") == [["m"]] * 4


@pytest.mark.parametrize("body, message", [
    ("m := {k: 1 for k in K}\n    m := {k: 2 for k in K}", "'m' is assigned twice on one path"),
    ("m := {k: 1 for k in K}\n    m[0] := 2",
     "a part of 'm' is assigned after the whole of it on one path"),
    ("m[0] := 2\n    m := {k: 1 for k in K}",
     "'m' is assigned as a whole after a part of it on one path"),
    ("if m[0] == 0 { m := {k: 1 for k in K} }\n    m[1] := 2",
     "a part of 'm' is assigned after the whole of it on one path"),
    ("m[1] := 2\n    either { m[0] := 1 } or { m := {k: 1 for k in K} }",
     "'m' is assigned as a whole after a part of it on one path"),
])
def test_whole_and_part_still_clash(spec_errors, body, message):
    diags = spec_errors(MAP + f"action A() {{\n    {body}\n}}\n", prelude=False)
    assert [(d.code, d.message) for d in diags] == [("MC4002", message)]
    assert len(diags[0].notes) == 1 and diags[0].notes[0].startswith("first assigned at t.mc:5:")


def _check(source):
    result = api.check(api.load_source(source), engine="reference")
    assert result.error is None, result.error
    return result


def test_equal_keys_later_update_wins():
    # From all zeros, Set(i, i) gives one 2 and no 1: [m EXCEPT ![i] = 1, ![i] = 2].
    result = _check(MAP + """
def hits(v: 0..3) -> 0..3 = sum(1 for k in K if m[k] == v)
action Set(i: K, j: K) {
    require hits(0) == 3
    m[i] := 1
    m[j] := 2
}
sometimes LaterWon: hits(2) == 1 and hits(1) == 0
invariant NeverFirst: not (hits(1) == 1 and hits(2) == 0)
""")
    assert result.get_property("LaterWon").status is Status.HOLDS
    assert result.get_property("NeverFirst").status is Status.HOLDS
    # the initial state, 3 states with i == j, 6 with i != j
    assert result.stats.distinct_states == 10


def test_right_hand_sides_read_the_pre_state():
    # m[1] := m[0] reads m[0] before the step, not the 3 just written.
    result = _check(MAP + """
action Copy() {
    require m[0] == 0
    m[0] := 3
    m[1] := m[0] + 1
}
invariant OldRead: m[0] == 3 => m[1] == 1
""")
    assert result.get_property("OldRead").status is Status.HOLDS
    assert result.stats.distinct_states == 2


def test_fields_nested_parts_and_branches():
    result = _check("""module t
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
""")
    for name in ("Sum", "Marked"):
        assert result.get_property(name).status is Status.HOLDS, name
    # hand-computed with a Python model of the EXCEPT chains (generated counts
    # the initial state too, as TLC does)
    assert (result.stats.distinct_states, result.stats.generated_states) == (34, 65)


def test_run_time_errors_keep_the_span_of_their_update():
    model = api.load_source("""module t
var s: seq[0..3, 2] = [0, 0]
action A(i: 0..2) {
    s[0] := 1
    s[i] := 2
}
""")
    result = api.check(model, engine="reference")
    diag = result.error.diagnostic
    assert diag.code == "MC5003"
    assert (diag.span.line, diag.span.col) == (5, 6)   # the [i] of the second update


# --- several 'for' clauses in a set comprehension (issue 11, item 5) ---------

def test_set_comprehension_with_several_clauses_is_a_union_chain():
    model = api.load_source("""module t
var p: set[0..4] = {}
invariant P: p == {a + b for a in 0..2 if a != 1 for b in {0, 2} if a + b < 4}
""")
    expr = model.get_property("P").expr.args[1]
    # one term per value of the outer clause's element type, joined by UNION
    terms = []
    while isinstance(expr, ir.Apply) and expr.op.name == "UNION":
        expr, last = expr.args
        terms.append(last)
    terms.append(expr)
    assert len(terms) == 3 and all(isinstance(t, ir.LetExpr) for t in terms)
    assert isinstance(terms[0].body.then, ir.SetComp)


@pytest.mark.parametrize("expr, expected", [
    ("{a + b for a in 0..2 if a != 1 for b in {0, 2} if a + b < 4}", "{0, 2}"),
    ("{a * 3 + b for a in 0..1 for b in 0..2}", "0..5"),
    ("{a for a in 0..3 for b in 0..3 if b > a}", "0..2"),
    ("{a for a in 0..3 if a > 5 for b in 0..3}", "p"),
    ("{a + b + c for a in 0..1 for b in 0..1 if b != a for c in 0..1 if c == a}", "{1, 2}"),
])
def test_set_comprehension_values(expr, expected):
    result = _check(f"""module t
var p: set[0..9] = {{}}
invariant P: {expr} == {expected}
""")
    assert result.get_property("P").status is Status.HOLDS


# --- an enum member named like a state variable (issue 11, item 5) -----------

KINDS = """module t
type Kind = enum { req, ack }
var req: 0..2 = 0
var last: Kind = ack
"""


def test_shared_name_is_resolved_by_the_expected_type():
    model = api.load_source(KINDS + """
action Send() {
    req := req + 1
    last := req
}
invariant P: last == req or req == 0
""")
    send = model.actions[0].body
    assert send[0].value.args[0] == ir.Var("req", send[0].value.args[0].type)
    assert isinstance(send[1].value, ir.Const) and send[1].value.value == "req"
    left, right = model.get_property("P").expr.args
    assert isinstance(left.args[1], ir.Const)          # compared with a Kind
    assert isinstance(right.args[0], ir.Var)           # compared with an int


@pytest.mark.parametrize("body, code", [
    ("invariant P: req == req", "MC2007"),
    ("def f() = req\ninvariant P: f() == 0", "MC2007"),
    ("var ack: bool = false\nvar ack: bool = true", "MC2002"),
    ("type Other = enum { req }", "MC2002"),
])
def test_shared_name_errors(spec_errors, body, code):
    diags = spec_errors(KINDS + body, prelude=False)
    assert [d.code for d in diags] == [code]


# --- none in a def without a result type (issue 11, item 5) ------------------

def test_none_in_a_def_is_typed_at_each_call():
    result = _check("""module t
var o: option[0..2] = some(0)
def cleared() = none
def maybe(b: bool) = if b then some(2) else none
action Clear() { o := cleared() }
action Set(b: bool) { o := maybe(b) }
invariant Known: o == cleared() or o == some(0) or o == some(2)
""")
    assert result.get_property("Known").status is Status.HOLDS
    assert result.stats.distinct_states == 3


def test_none_in_a_def_untyped_at_a_call_is_mc3005_there(spec_errors):
    diags = spec_errors("""module t
def cleared() = none
invariant P: cleared() == cleared()
""", prelude=False)
    assert [d.code for d in diags] == ["MC3005"]
    assert "give def 'cleared' a result type" in diags[0].hint
    assert diags[0].notes == ("in the call in invariant 'P' at t.mc:3:14",)
