"""Type errors (MC3xxx): each says what was expected and what was found."""
from __future__ import annotations

import pytest


@pytest.mark.parametrize("body, code, message", [
    ("invariant P: x", "MC3001", "expected bool for invariant 'P', found an int (0..3)"),
    ("action A() { x := true }", "MC3001", "expected an int for 'x', found bool"),
    ("var y: set[Node] = {n: true for n in Node}", "MC3001",
     "expected a set for 'y', found map[Node, bool]"),
    ("var y: set[Node] = {red}", "MC3001", "expected set[Node] for 'y', found set[Color]"),
    ("invariant P: m[1]", "MC3001", "expected Node as the map key, found the int 1"),
    ("invariant P: s == m", "MC3002", "cannot compare set[Node] with map[Node, bool]"),
    ("invariant P: x + s == 1", "MC3002",
     "'+' needs two ints or two sequences, found an int (0..3) and set[Node]"),
    ("invariant P: s + s == s", "MC3002",
     "'+' needs two ints or two sequences, found set[Node] and set[Node]"),
    ("invariant P: x < s", "MC3002",
     "'<' compares two ints or two sets, found an int (0..3) and set[Node]"),
    ("invariant P: len(m) > 0", "MC3002",
     "len() needs a set, a sequence or a bag, found map[Node, bool]"),
    ("invariant P: s[0] == node1", "MC3002", "cannot index set[Node]"),
    ("invariant P: (if true then 1 else red) == 1", "MC3001",
     "the branches of 'if' have different types: the int 1 and Color"),
    ("invariant P: len(1, 2) == 0", "MC3003", "len() takes 1 argument, found 2"),
    ("def f(a: bool) = a\ninvariant P: f()", "MC3003", "'f' takes 1 argument, found 0"),
    ("type R = record {a: bool}\ninvariant P: R(b=true).a", "MC3004", "R has no field 'b'"),
    ("type R = record {a: bool, b: bool}\ninvariant P: R(a=true).a", "MC3004",
     "R(...) is missing field 'b'"),
    ("type R = record {a: bool}\ninvariant P: R(a=true, a=false).a", "MC3004",
     "field 'a' is given twice"),
    ("type R = record {a: bool}\nvar r: R = R(a=true)\ninvariant P: r.c", "MC3004",
     "R has no field 'c'"),
    ("invariant P: {} == {}", "MC3005", "cannot tell the type of the empty set '{}' here"),
    ("invariant P: none == none", "MC3005", "cannot tell which option type 'none' has here"),
    ("invariant P: [] == []", "MC3005",
     "cannot tell the type of the empty sequence '[]' here"),
    ("type T = 0..x", "MC3006",
     "the upper bound of a range must be a constant, but it reads state variable 'x'"),
    ("const K: 0..3 = 5", "MC3007", "the value 5 of 'K' is outside its type 0..3"),
    ("var t: tuple[bool, bool] = (true, false)\ninvariant P: t[2]", "MC3008",
     "tuple index 2 is out of range for tuple[bool, bool]"),
    ("var t: tuple[bool, bool] = (true, false)\ninvariant P: t[x]", "MC3008",
     "a tuple index must be a constant"),
    ("def f(a: bool) = a\ninvariant P: f", "MC3009",
     "'f' is a def: call it with its arguments, f(...)"),
    ("action A() { }\ninvariant P: A", "MC3009", "'A' is an action, not a value"),
    ("invariant P: x(1)", "MC3009", "'x' is a state variable, not a function"),
    ("invariant P: Color(1)", "MC3009",
     "'Color' is the type Color, not a record type, so it cannot be called"),
    ("const K: 0..1 = 0\naction A() { K := 1 }", "MC3010", "cannot assign to 'K': it is a const"),
    ("action A(n: Node) { n := node1 }", "MC3010",
     "cannot assign to 'n': it is a local name (a parameter, let or pick)"),
    ("invariant P: {n for i in 0..999 for n in Node} == s", "MC3011",
     "the outer 'for' clauses of this set comprehension range over 1,000 values, "
     "more than 256"),
    ("var c: map[Node, bool] = {n: true for n in {node1}}", "MC3011",
     "a map comprehension must range over every key of the map"),
    ("var c: map[Node, bool] = {node1: true for n in Node}", "MC3011",
     "the key of a map comprehension must be its variable 'n'"),
    ("invariant P: max(x for n in Node) == 0", "MC3011",
     "only all, any, sum and choose take a generator, not max"),
    ("var o: option[option[bool]] = none", "MC3012",
     "options do not nest: option[option[bool]]"),
    ("invariant P: some(some(1)) == none", "MC3012", "options do not nest: some() of an option"),
])
def test_type_error(spec_errors, body, code, message):
    diags = spec_errors(body)
    assert [(d.code, d.message) for d in diags][:1] == [(code, message)]


def test_mismatch_hints(spec_errors):
    (d,) = spec_errors("var o: option[Node] = node1")
    assert d.hint == "wrap the value: some(...)"
    (d,) = spec_errors("var o: option[Node] = none\ninvariant P: o == node1")
    assert d.code == "MC3002"
    (d,) = spec_errors("var y: set[Node] = node1")
    assert d.hint == "a single element is not a set: write {x}"
    (d,) = spec_errors("invariant P: s + s == s")
    assert d.hint == "the union of sets is written '|'"


def test_errors_in_several_declarations_are_all_reported(spec_errors):
    diags = spec_errors("""
invariant P: x
action A() {
    x := true
    s := 1
}
invariant Q: s
""")
    assert [(d.code, d.span.line) for d in diags] == [
        ("MC3001", 8), ("MC3001", 10), ("MC3001", 11), ("MC3001", 13)]


def test_a_failed_let_does_not_cascade(spec_errors):
    diags = spec_errors("action A() {\n let y = x + red\n x := y\n}")
    assert [d.code for d in diags] == ["MC3002"]


def test_an_error_inside_a_def_is_reported_once(spec_errors):
    diags = spec_errors("def f(a: Node) = x + a\ninvariant P: f(node1) > 0\n"
                        "invariant Q: f(node2) > 0")
    assert [(d.code, d.span.line) for d in diags] == [("MC3002", 7)]


def test_diagnostics_come_out_in_source_order(spec_errors):
    diags = spec_errors("invariant Q: y2\nvar y2: 0..1 = true\nconst C: 0..1 = 9")
    lines = [d.span.line for d in diags]
    assert lines == sorted(lines)


def test_assigning_to_a_counted_model_value(spec_errors):
    (d,) = spec_errors("action A() { node1 := node2 }")
    assert (d.code, d.message) == ("MC3010", "cannot assign to 'node1': it is a model value")
