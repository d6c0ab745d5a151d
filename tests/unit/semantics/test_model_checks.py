"""Model well-formedness (MC4xxx) and definitions that refer to themselves."""
from __future__ import annotations

import pytest


@pytest.mark.parametrize("body, code, message", [
    ("var i: int = 0", "MC4001", "plain 'int' is unbounded, and every type here must be finite"),
    ("def f(a: int) = a", "MC4001", "plain 'int' is unbounded, and every type here must be finite"),
    ("action A() { x := 1  x := 2 }", "MC4002", "'x' is assigned twice on one path"),
    ("action A() { if x > 0 { x := 1 } x := 2 }", "MC4002", "'x' is assigned twice on one path"),
    ("action A() { either { m := {n: true for n in Node} } or { } m[node2] := true }", "MC4002",
     "a part of 'm' is assigned after the whole of it on one path"),
    ("def f(n: 0..3) -> 0..3 = f(n)\ninvariant P: f(1) == 1", "MC4003",
     "def 'f' calls itself (f -> f)"),
    ("def f() -> bool = g()\ndef g() -> bool = f()\ninvariant P: f()", "MC4003",
     "def 'g' calls itself (g -> f -> g)"),
    ("var y: 0..3 = x", "MC4004", "the initial value of 'y' reads state variable 'x'"),
    ("def g() = x\nvar y: 0..3 in {g()}", "MC4004",
     "the initial value of 'y' reads state variable 'x'"),
    ("invariant P: x' == x", "MC4005",
     "x' (the value after the step) can only be read in a step invariant, not in invariant 'P'"),
    ("action A() { x := x' }", "MC4005",
     "x' (the value after the step) can only be read in a step invariant, not in action 'A'"),
    ("var big: map[0..100000, bool] = {k: true for k in 0..100000}", "MC4007",
     "the map key type 0..100000 has more than 65536 values, too many to enumerate"),
    ("var big: map[set[0..16], bool] = {k: true for k in set[0..16]}", "MC1001", None),
    ("type K = set[0..16]\nvar big: map[K, bool] = {k: true for k in K}", "MC4007",
     "the map key type set[0..16] has more than 65536 values, too many to enumerate"),
    ("var b: set[0..3, 70000] = {}", "MC4007",
     "a capacity of 70000 is more than the 65536 places an engine can lay out"),
    ("action A(p: 0..70000) { }", "MC4007", None),
    ("action A() { pick n in m  x := 1 }", "MC4008",
     "pick chooses from a set, found map[Node, bool]"),
    ("type T = 3..1", "MC4009", "the range 3..1 is empty"),
    ("var q: seq[bool, 0 - 1] = []", "MC4009", "a capacity cannot be negative (found -1)"),
    ("symmetric type C = enum {a, b}", "MC4010",
     "only model types can be symmetric, and 'C' is an enum"),
    ("const A: 0..B = 1\nconst B: 0..A = 1", "MC2006", "'A' is defined in terms of itself"),
    ("type R = record {next: set[R]}", "MC2006", "'R' is defined in terms of itself"),
    ("type Peer = model(2)\nvar peer1: bool = true", "MC2002",
     "'peer1', a value of model type 'Peer', is already defined"),
])
def test_model_check(spec_errors, body, code, message):
    diags = spec_errors(body)
    assert diags[0].code == code
    if message is not None:
        assert diags[0].message == message


def test_assigning_in_both_branches_is_fine(compile_spec):
    model = compile_spec("""
action A() {
    if x > 0 { x := 1 s := {} } else { x := 2 }
    either { m[node1] := true } or { m[node2] := true }
}
""")
    assert len(model.action("A").body) == 2


def test_twice_assigned_note_points_at_the_first(spec_errors):
    (d,) = spec_errors("action A() {\n    x := 1\n    x := 2\n}")
    assert d.notes == ("first assigned at t.mc:8:5",)


def test_step_invariants_may_use_defs_reading_primed_variables(compile_spec):
    model = compile_spec("def grew() = x' > x\nstep invariant S: grew() or x' == 0")
    assert model.get_property("S").expr.op.name == "OR"


def test_empty_model_type_is_an_empty_type(spec_errors):
    # docs/language.md: an empty type is MC4009, model(0) included.
    diags = spec_errors("const K: 0..2 = 0\ntype Peer = model(K)\nvar p: set[Peer] = {}")
    assert [d.code for d in diags] == ["MC4009"]
    assert "model(1)" in diags[0].hint


def test_defs_inlined_too_deep_are_reported_not_crashed(spec_errors):
    chain = "".join(f"def d{i}() -> 0..1000000 = d{i + 1}() + " + " + ".join(["1"] * 100) + "\n"
                    for i in range(6))
    diags = spec_errors(chain + "def d6() -> 0..1000000 = 1\ninvariant P: d0() > 0\n")
    assert {d.code for d in diags} == {"MC1004"}
    assert diags[-1].message == "'P' nests too deeply once its defs are inlined"
