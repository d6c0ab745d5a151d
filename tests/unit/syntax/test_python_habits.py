"""The errors Python (and TLA+) habits cause are said as such, at the habit,
with what to write instead (issue 16, item 4)."""
from __future__ import annotations

import pytest

from modelcheck.errors import CompileError
from modelcheck.pipeline import load_source

HEADER = "module m\ntype N = model(2)\nvar x: 0..3 = 0\nvar s: set[N] = {}\n"

CASES = [
    ("action A() {\n    if x == 0 { x := 1 } elif x == 1 { x := 2 }\n}",
     "unexpected name 'elif'", "else if", (7, 26)),
    ("action A() {\n    x += 1\n}", "no augmented assignment", "x := x +", (7, 7)),
    ("action A() {\n    for n in N { s := s | {n} }\n}", "actions have no loops",
     "comprehension", (7, 5)),
    ("action A() {\n    while x < 3 { x := x + 1 }\n}", "actions have no loops", "atomic",
     (7, 5)),
    ("var b: bool = True", "unknown name 'True'", "did you mean 'true'?", (6, 15)),
    ("var o: option[N] = None", "unknown name 'None'", "did you mean 'none'?", (6, 20)),
    ("invariant I: exists(n in s for n in N)", "unknown function 'exists'",
     "did you mean 'any'?", (6, 14)),
    ("invariant I: Len(s) < 3", "unknown function 'Len'", "did you mean 'len'?", (6, 14)),
    ("invariant I: X == 0", "unknown name 'X'", "did you mean 'x'?", (6, 14)),
    # item 10 of "The language without friction for TLA+ and Python users"
    ("var m: map[N, bool] = {n: false for n in N}\naction A() {\n    require x == 0\n"
     "    for n in N { m[n] := true }\n}", "unexpected keyword 'for': actions have no loops",
     "m := {n: true for n in N}", (9, 5)),
    ("type M = variant { P, Q }\nvar v: M = P\naction A() {\n    match v {\n"
     "        case P { v := Q }\n        case Q { v := P }\n    }\n}",
     "unexpected name 'case'", "`P { ... }`", (10, 9)),
    ("def f(v: M) -> 0..1 = match v { case P => 0, _ => 1 }", "unexpected name 'case'",
     "`P => value`", (6, 33)),
    ("var b: bag[N] = {}", "a bag needs a capacity", "bag[N, 4]", (6, 13)),
    ("var q: seq[0..3] = []", "a seq needs a capacity", "seq[0..3, 4]", (6, 16)),
    ("var b: bag[N, 2] = {}\naction A(n: N) {\n    b := b.remove(n)\n}",
     "'.remove(...)' calls a method", "take(b, n)", (8, 11)),
    ("var q: seq[0..3, 2] = []\naction A() {\n    q := q.append(x)\n}",
     "'.append(...)' calls a method", "append(q, x)", (8, 11)),
    ("def big(t: set[N]) -> bool:\n    return len(t) > 1\ninvariant I: not big(s)",
     "a def is written with '='", "def big(t: set[N]) -> bool = len(t) > 1", (6, 27)),
    ("def big(t: set[N]):\n    y = len(t)\n    return y > 1", "a def is written with '='",
     "def big(t: set[N]) = expression", (6, 19)),
    ("action Inc() { x := 1 }\naction Two() {\n    Inc()\n}",
     "an action cannot call another action ('Inc')", "def", (8, 5)),
    ("def ok() = x < 3\naction Two() {\n    ok()\n}", "a call is not a statement",
     "require ok(...)", (8, 5)),
]


@pytest.mark.parametrize("extra,message,hint,where", CASES, ids=[c[1] for c in CASES])
def test_habit_is_named_with_what_to_write(extra, message, hint, where):
    with pytest.raises(CompileError) as info:
        load_source(HEADER + "\n" + extra + "\n", "m.mc")
    first = info.value.diagnostics[0]
    assert message in first.message
    assert hint in (first.hint or "")
    assert (first.span.line, first.span.col) == where


def test_a_missing_module_line_is_one_error_not_a_cascade():
    source = "var x: 0..3 = 0\naction A() { x := 1 }\ninvariant I: x < 3\n"
    with pytest.raises(CompileError) as info:
        load_source(source, "my-spec.mc")
    assert len(info.value.diagnostics) == 1
    d = info.value.diagnostics[0]
    assert d.message == "a spec starts with its 'module' line"
    assert d.hint == "add `module my_spec` as the first line"
