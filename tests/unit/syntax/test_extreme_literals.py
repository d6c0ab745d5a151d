"""Integer literals beyond MAX_INT_LITERAL are MC1005, found before Python
converts the digits (it refuses more than 4,300), in bounded time."""
from __future__ import annotations

import pytest

from modelcheck.errors import CompileError
from modelcheck.syntax.parser import MAX_INT_LITERAL, parse


def literal_errors(digits: str) -> list:
    source = f"module m\nvar x: 0..1 = 0\ninvariant I: x < {digits}\n"
    with pytest.raises(CompileError) as info:
        parse(source, "t.mc")
    return info.value.diagnostics


@pytest.mark.timeout(10)
@pytest.mark.parametrize("digits", [str(MAX_INT_LITERAL + 1), "9" * 40, "9" * 5000,
                                    "1" + "0" * 100_000])
def test_a_literal_too_large_is_mc1005(digits):
    (diag,) = literal_errors(digits)
    assert diag.code == "MC1005"
    assert (diag.span.line, diag.span.col) == (3, 18)
    assert diag.span.end_col - diag.span.col == len(digits)
    assert f"{len(digits):,} digits" in diag.message
    assert "2^128 - 1" in diag.message
    assert diag.hint


def test_the_largest_literal_is_accepted():
    module = parse(f"module m\nconst C: 0..1 = {MAX_INT_LITERAL}\n", "t.mc")
    assert module.items[0].value.value == MAX_INT_LITERAL


@pytest.mark.timeout(10)
def test_leading_zeros_do_not_count():
    module = parse("module m\nconst C: 0..1 = " + "0" * 5000 + "1\n", "t.mc")
    assert module.items[0].value.value == 1


@pytest.mark.timeout(30)
def test_deep_parentheses_parse_in_bounded_time():
    # Lark collapses parentheses, so they never deepen the tree.
    parse("module m\nconst C: 0..1 = " + "(" * 1000 + "1" + ")" * 1000 + "\n", "t.mc")


@pytest.mark.timeout(10)
def test_parentheses_past_the_bracket_limit_are_mc1004_before_parsing():
    # Each redundant pair costs the LALR parser ~15 reductions: 100,000 pairs
    # took 6-10 s of CPU before the bracket bound.
    depth = 100_000
    with pytest.raises(CompileError) as info:
        parse("module m\nconst C: 0..1 = " + "(" * depth + "1" + ")" * depth + "\n", "t.mc")
    (diag,) = info.value.diagnostics
    assert diag.code == "MC1004" and "1000" in diag.message


@pytest.mark.timeout(30)
@pytest.mark.parametrize("depth", [1000, 100_000])
def test_deep_negation_is_mc1004_with_the_limit(depth):
    with pytest.raises(CompileError) as info:
        parse("module m\nconst C: -9..9 = " + "-" * depth + "1\n", "t.mc")
    (diag,) = info.value.diagnostics
    assert diag.code == "MC1004"
    assert "120" in diag.message
