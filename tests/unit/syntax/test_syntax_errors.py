"""Syntax errors: codes, positions, plain-words messages, recovery."""
from __future__ import annotations

import pytest

from modelcheck.diagnostics import Span
from modelcheck.errors import CompileError
from modelcheck.syntax.messages import describe_expected
from modelcheck.syntax.parser import MAX_SYNTAX_ERRORS, parse


def errors(source: str):
    with pytest.raises(CompileError) as info:
        parse(source, "t.mc")
    assert info.value.sources == {"t.mc": source}
    return info.value.diagnostics


def test_unexpected_token_says_what_was_found_and_expected():
    (d,) = errors("module m\nvar x: 0..3 = )\n")
    assert d.code == "MC1001"
    assert d.message == "unexpected ')': expected an expression"
    assert d.span == Span("t.mc", 2, 15, 2, 16)


def test_unexpected_character():
    (d,) = errors("module m\ninvariant P: a @ b\n")
    assert d.code == "MC1002"
    assert d.message == "unexpected character '@'"
    assert (d.span.line, d.span.col) == (2, 16)


def test_unexpected_end_of_file_points_after_the_last_text():
    (d,) = errors("module m\naction A() {\n    x := 1\n\n")
    assert d.code == "MC1003"
    assert d.message == ("unexpected end of file: the block of action 'A' opened at line 2, "
                         "column 12 is not closed")
    assert (d.span.line, d.span.col) == (3, 11)
    assert d.hint == "add '}' at the end to close action 'A'"


def test_unexpected_end_of_file_elsewhere_says_what_was_expected():
    (d,) = errors("module m\ninvariant P: (x\n")
    assert d.code == "MC1003"
    assert d.message.startswith("unexpected end of file: expected ")
    assert d.hint == "is a closing ')' missing?"


@pytest.mark.parametrize("source, hint", [
    ("module m\naction A() { x = 1 }", "assignment is written ':='"),
    ("module m\ninvariant P: x = 1", "equality is written '=='"),
    ("module m\ninvariant P: a && b", "the boolean operators are 'and', 'or' and 'not'"),
    ("module m\ninvariant P: !a", "negation is written 'not'; not-equal is '!='"),
    ("module m\nvar x: bool = true;",
     "no ';' is needed: declarations and statements need no separators"),
    ("module m\nvar x: 0..3 = \"a\"",
     "the language has no strings: use an enum member or a model value"),
])
def test_hints_for_common_slips(source, hint):
    (d,) = errors(source)
    assert d.hint == hint


def test_keyword_found_is_named_as_keyword():
    (d,) = errors("module m\nrequire x")
    assert d.message == "unexpected keyword 'require': expected a declaration or end of file"


@pytest.mark.parametrize("source", [
    "module m\naction A() { let in = 1 }",
    "module m\nvar set: bool = true",
    "module m\ninvariant P: all(true for step in S)",
])
def test_keywords_are_reserved_as_names(source):
    (d,) = errors(source)
    assert d.code == "MC1001" and "is a keyword and cannot be used as a name" in d.message


def test_keywords_may_name_record_fields():
    module = parse("module m\ntype M = record {type: bool}\n"
                   "invariant P: m.type and M(type=true) == m with .type = false", "t.mc")
    assert module.items[0].definition.fields[0].name == "type"


def test_several_errors_are_reported_one_per_declaration():
    diags = errors("""module m
var x: 0..3 = )
action A() { x = 1 }
var y: bool = true
invariant P: a @ b
invariant Q: x == 1
""")
    assert [(d.code, d.span.line) for d in diags] == [("MC1001", 2), ("MC1001", 3),
                                                       ("MC1002", 5)]


def test_recovery_stops_at_the_limit():
    source = "module m\n" + "var x: bool = )\n" * (MAX_SYNTAX_ERRORS + 5)
    assert len(errors(source)) == MAX_SYNTAX_ERRORS


def test_error_in_module_header_is_reported_once():
    diags = errors("modul m\nvar x: bool = true\n")
    assert len(diags) == 1 and diags[0].code == "MC1001"


def test_empty_file():
    (d,) = errors("")
    assert d.code == "MC1003"
    assert d.message == "unexpected end of file: expected 'module'"


@pytest.mark.parametrize("keys, words", [
    ({"INT", "NAME", "(", "[", "{", "-", "not", "true", "false", "none", "let", "if"},
     "an expression"),
    ({"require", "let", "pick", "if", "either", "NAME", "}"}, "a statement or '}'"),
    ({"const", "type", "var", "action", "$END"}, "a declaration or end of file"),
    ({":="}, "':='"),
    ({"NAME"}, "a name"),
    (set(), "nothing more"),
])
def test_expected_sets_in_plain_words(keys, words):
    assert describe_expected(keys) == words


def test_nesting_is_bounded():
    from modelcheck.syntax.parser import MAX_NESTING
    ok = "module m\ninvariant P: " + " + ".join(["1"] * (MAX_NESTING - 10)) + " > 0"
    parse(ok, "t.mc")
    (d,) = errors("module m\ninvariant P: " + " + ".join(["1"] * (MAX_NESTING + 10)) + " > 0")
    assert d.code == "MC1004"
    assert d.message == f"this declaration nests more than {MAX_NESTING} levels deep"
    assert (d.span.line, d.span.col) == (2, 1)


def test_parentheses_do_not_nest_the_tree():
    parse("module m\ninvariant P: " + "(" * 500 + "true" + ")" * 500, "t.mc")


def test_brackets_are_bounded_before_the_parser_runs():
    from modelcheck.syntax.parser import MAX_BRACKETS
    parse("module m\ninvariant P: " + "(" * MAX_BRACKETS + "true" + ")" * MAX_BRACKETS, "t.mc")
    # A comment's brackets do not count; the first bracket past the bound is named.
    deep = ("module m\n# (((\ninvariant P: [" + "(" * MAX_BRACKETS + "true"
            + ")" * MAX_BRACKETS + "][0]\n")
    (d,) = errors(deep)
    assert d.code == "MC1004"
    assert d.message == f"brackets nest more than {MAX_BRACKETS} levels deep here"
    assert (d.span.line, d.span.col) == (3, 14 + MAX_BRACKETS)


# A missing '}': one error naming the block left open, not one per later declaration.

def test_missing_brace_names_the_block_once():
    diags = errors("module m\nvar x: 0..3 = 0\naction Inc() {\n    x := 1\n\n"
                   "action Dec() {\n    x := 0\n}\ninvariant P: x <= 3\ninvariant Q: x >= 0\n")
    (d,) = diags
    assert d.code == "MC1001"
    assert d.message == ("missing '}': the block of action 'Inc' opened at line 3, column 14 "
                         "is not closed")
    assert (d.span.line, d.span.col) == (6, 1)
    assert d.hint == "add '}' before this declaration to close action 'Inc'"


def test_errors_after_a_missing_brace_are_still_reported():
    diags = errors("module m\naction A() {\n    x := 1\ninvariant P: x = 1\n")
    assert [(d.code, d.span.line) for d in diags] == [("MC1001", 4), ("MC1001", 4)]
    assert "action 'A'" in diags[0].message and diags[1].hint == "equality is written '=='"


def test_a_brace_indented_for_an_outer_block_points_at_the_inner_one():
    source = """module m
type M = variant { P, Q }
var v: M = P
var x: 0..3 = 0
action Flip() {
    match v {
        P {
            if x < 3 {
                x := x + 1
            v := Q
        }
        Q { v := P }
    }
}
invariant I: x <= 3
"""
    (d,) = errors(source)
    assert d.message == ("missing '}': the block of the 'if' opened at line 8, column 22 is "
                         "not closed")
    assert (d.span.line, d.span.col) == (11, 9)
    assert d.notes == ("this '}' is indented as the match arm 'P' (line 7), but it closes the "
                       "'if'", "the parser stopped at line 12, column 11: unexpected '{'")


def test_a_brace_missing_at_the_end_of_the_file_names_the_inner_block():
    (d,) = errors("module m\naction A() {\n    if x > 0 {\n        x := 1\n}\n")
    assert d.code == "MC1003"
    assert d.message == ("unexpected end of file: the block of the 'if' opened at line 3, "
                         "column 14 is not closed")
    assert (d.span.line, d.span.col) == (5, 1)


@pytest.mark.parametrize("source, owner", [
    ("action A() { if c { x := 1 }\ninvariant P: true", "action 'A'"),
    ("action A() { either { x := 1 } or { x := 2 \ninvariant P: true", "the 'or' branch"),
    ("action A() { if c { x := 1 } else { x := 2\ninvariant P: true", "the 'else'"),
    ("type K = enum { a, b\ninvariant P: true", "enum 'K'"),
])
def test_the_open_block_is_named_by_its_construct(source, owner):
    (d,) = errors("module m\n" + source + "\n")
    assert f"the block of {owner} opened at line 2" in d.message


def test_an_open_set_literal_is_named_as_a_brace():
    (d,) = errors("module m\nvar s: set[0..3] = {1, 2\ninvariant P: true\n")
    assert d.message == "missing '}': the '{' opened at line 2, column 20 is not closed"


def test_a_sloppy_indent_is_not_blamed_when_the_braces_balance():
    (d,) = errors("module m\naction A() {\n    if c {\n        x := 1\n  }\n    y = 2\n}\n")
    assert d.message.startswith("unexpected '='") and d.hint == "assignment is written ':='"


def test_an_unfinished_declaration_is_one_error_at_the_next_keyword():
    # `= var` reads the next keyword as a name: without this, each later
    # declaration failed in turn.
    (d,) = errors("module m\nvar x: 0..3 =\nvar y: bool = true\ninvariant P: y\n"
                  "invariant Q: y\n")
    assert d.message == "unexpected keyword 'var': expected an expression"
    assert (d.span.line, d.span.col) == (3, 1)
    assert d.hint == "the declaration at line 2 is not finished"


def test_an_unfinished_statement_before_the_next_action_is_one_error():
    (d,) = errors("module m\naction A() {\n    y :=\naction B() { x := 2 }\n"
                  "invariant P: true\n")
    assert d.message == "unexpected keyword 'action': expected an expression"
    assert (d.span.line, d.span.col) == (4, 1)
