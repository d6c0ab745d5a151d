"""Lark parse errors -> Diagnostics in plain words.

Lark reports what it expected as terminal names (``LPAR``, ``__ANON_3``); a
user wants "expected an expression or ')'".  The acceptable tokens come from
the interactive parser at the point of failure, grouped into the categories
a spec author thinks in (expression, type, statement, declaration, operator).
"""
from __future__ import annotations

from lark import Lark, Token
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from modelcheck.diagnostics import Diagnostic, Span
from modelcheck.syntax.habits import python_habit

__all__ = ["describe_syntax_error", "describe_expected", "describe_found", "accepted_tokens",
           "end_span"]

# Category -> (tokens that must all be acceptable for the category to be
# named, tokens the category stands for).  Tokens are literal strings, or the
# names NAME, INT, COMP_OP of the regular-expression terminals.
_EXPR_START = frozenset({"INT", "NAME", "(", "[", "{", "-", "not", "true", "false", "none",
                         "let", "if", "match"})
_TYPE_START = frozenset({"bool", "int", "set", "map", "seq", "bag", "option", "tuple",
                         "record", "enum", "model", "variant"})
_STMT_START = frozenset({"require", "let", "pick", "if", "either", "match", "NAME"})
_ITEM_START = frozenset({"const", "type", "symmetric", "var", "def", "action", "invariant",
                         "constraint", "step", "sometimes", "terminal", "import", "liveness",
                         "fair"})
_OPERATORS = frozenset({"and", "or", "COMP_OP", "in", "is", "not", "|", "&", "+", "-", "*", "//",
                        "%", "..", "=>", "with", ".", "[", "'"})

_CATEGORIES: tuple[tuple[str, frozenset[str], frozenset[str]], ...] = (
    ("a type", frozenset({"bool", "set", "map"}), _TYPE_START | _EXPR_START),
    ("a declaration", frozenset({"var", "action"}), _ITEM_START),
    ("a statement", frozenset({"require", "pick"}), _STMT_START),
    ("an expression", frozenset({"INT", "(", "true"}), _EXPR_START),
)

_CHAR_HINTS = {
    "!": "negation is written 'not'; not-equal is '!='",
    '"': "the language has no strings: use an enum member or a model value",
}

_MAX_LISTED = 6


def _token_key(parser: Lark, name: str) -> str:
    if name in ("$END", "NAME", "INT", "COMP_OP"):
        return name
    try:
        pattern = parser.get_terminal(name).pattern
    except KeyError:
        return name
    return pattern.value if pattern.type == "str" else name


def _show(key: str) -> str:
    return {"$END": "end of file", "NAME": "a name", "INT": "a number",
            "COMP_OP": "a comparison"}.get(key, f"'{key}'")


def describe_expected(keys: set[str]) -> str:
    """Plain words for a set of acceptable tokens (as literal strings or NAME/INT/...)."""
    remaining = set(keys)
    words: list[str] = []
    for label, trigger, members in _CATEGORIES:
        if trigger <= remaining:
            words.append(label)
            remaining -= members
    if len(remaining & _OPERATORS) >= 4:
        words.append("an operator")
        remaining -= _OPERATORS
    end = "$END" in remaining
    remaining.discard("$END")
    words.extend(_show(k) for k in sorted(remaining, key=lambda k: (k.isupper(), k)))
    if end:
        words.append(_show("$END"))
    if len(words) > _MAX_LISTED:
        words = words[:_MAX_LISTED - 1] + ["something else"]
    if not words:
        return "nothing more"
    if len(words) == 1:
        return words[0]
    return ", ".join(words[:-1]) + " or " + words[-1]


def describe_found(parser: Lark, tok: Token) -> str:
    """The token found, in plain words: "name 'x'", "keyword 'var'", "'('"."""
    if tok.type == "$END":
        return "end of file"
    if tok.type == "NAME":
        return f"name '{tok}'"
    if tok.type == "INT":
        return f"number {tok}"
    key = _token_key(parser, tok.type)
    if key.isalpha():
        return f"keyword '{key}'"
    return f"'{tok}'"


def end_span(source: str, path: str) -> Span:
    """Just after the last text of the file: where an unexpected end is shown."""
    text = source.rstrip()
    line = text.count("\n") + 1
    col = len(text) - (text.rfind("\n") + 1) + 1
    return Span(path, line, col, line, col + 1)


def accepted_tokens(parser: Lark, error: UnexpectedInput) -> set[str]:
    """The tokens the parser would have taken where it failed (literal strings, or
    NAME, INT, COMP_OP, $END)."""
    interactive = getattr(error, "interactive_parser", None)
    names = interactive.accepts() if interactive is not None else getattr(error, "expected", set())
    return {_token_key(parser, n) for n in names or ()}


def _token_hint(parser: Lark, tok: Token, keys: set[str], source: str) -> str | None:
    value = str(tok)
    if tok.type == "$END":
        if "}" in keys:
            return "is a closing '}' missing?"
        if ")" in keys:
            return "is a closing ')' missing?"
        return None
    if value == "=" and ":=" in keys:
        return "assignment is written ':='"
    if value == "=" and "COMP_OP" in keys:
        return "equality is written '=='"
    if value in ("&", "|") and tok.start_pos and source[tok.start_pos - 1] == value:
        return "the boolean operators are 'and', 'or' and 'not'"
    if "NAME" in keys and value.isalpha() and tok.type != "NAME":
        return f"'{value}' is a keyword and cannot be used as a name here"
    if value == ";" and ";" not in keys:
        return "no ';' is needed: declarations and statements need no separators"
    if value == ":=" and "=" in keys:
        return "'=' introduces a value here; ':=' is for assignment in actions"
    return None


def describe_syntax_error(parser: Lark, error: UnexpectedInput, source: str,
                          path: str) -> Diagnostic:
    """One Diagnostic for one Lark error (MC1001, MC1002 or MC1003)."""
    if isinstance(error, UnexpectedCharacters):
        char = source[error.pos_in_stream] if 0 <= error.pos_in_stream < len(source) else "?"
        span = Span(path, error.line, error.column, error.line, error.column + 1)
        return Diagnostic("MC1002", f"unexpected character {char!r}", span,
                          hint=_CHAR_HINTS.get(char))
    if isinstance(error, UnexpectedEOF):
        return Diagnostic("MC1003", "unexpected end of file", end_span(source, path))
    assert isinstance(error, UnexpectedToken)
    tok = error.token
    keys = accepted_tokens(parser, error)
    expected = describe_expected(keys)
    hint = _token_hint(parser, tok, keys, source)
    if tok.type == "$END":
        return Diagnostic("MC1003", f"unexpected end of file: expected {expected}",
                          end_span(source, path), hint=hint)
    habit = python_habit(tok, keys, source, path)
    if habit is not None:
        return habit
    span = Span(path, tok.line, tok.column, tok.end_line, tok.end_column)
    return Diagnostic("MC1001", f"unexpected {describe_found(parser, tok)}: expected {expected}",
                      span, hint=hint)
