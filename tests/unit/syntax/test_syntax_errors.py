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
    assert d.message == "unexpected end of file: expected a statement or '}'"
    assert (d.span.line, d.span.col) == (3, 11)
    assert d.hint == "is a closing '}' missing?"


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
