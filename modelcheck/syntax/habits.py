"""Syntax errors that a Python or TLA+ habit causes, said as such.

The parser fails on the token after the habit (``for`` read as a name fails
on the loop variable; ``q.append`` fails on its ``(``), so each rule looks
at the text around the failing token, names the habit and shows the
language's own form, written with the user's names where they can be read
off the line.
"""
from __future__ import annotations

import re

from lark import Token

from modelcheck.diagnostics import Diagnostic, Span

__all__ = ["python_habit", "TYPE_WORDS", "type_as_value"]

_WORD_BEFORE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*$")

_LOOP_HINT = ("assign the whole value at once with a comprehension, e.g. "
              "x := {k: ... for k in K}, or make the loop variable a parameter of the action "
              "(action A(n: Node)) to update one element per step")

#: A statement-start word the grammar lacks, and what to write instead.
_STATEMENT_HABITS = {
    "elif": ("'elif' is written 'else if'", "if c { ... } else if d { ... } else { ... }"),
    "for": ("actions have no loops", _LOOP_HINT),
    "while": ("actions have no loops",
              "an action is one atomic step: repeat it as several steps, or compute the "
              "result at once with a comprehension or all/any/sum"),
    "return": ("actions and defs have no 'return'",
               "a def is one expression: def f(x: T) -> U = expr"),
}

# `for n in D { m[n] := e }`: the whole map at once is `m := {n: e for n in D}`.
_SIMPLE_LOOP = re.compile(
    r"for\s+([A-Za-z_]\w*)\s+in\s+([^{:\n]+?)\s*[{:]\s*([A-Za-z_]\w*)\s*\[\s*\1\s*\]\s*:=\s*"
    r"([^\n{}]+?)\s*(?:}|\n)")

_METHODS = {
    "append": "write append({r}, {a})",
    "add": "a set adds an element with '|': {r} | {{{a}}}; a bag adds one copy with "
           "put({r}, {a})",
    "remove": "a bag removes one copy with take({r}, {a}); a set removes an element with "
              "{r} - {{{a}}}",
    "discard": "a set removes an element with '-': {r} - {{{a}}}",
    "pop": "head({r}) is the first element of a sequence and tail({r}) the rest",
    "count": "write count({r}, {a})",
    "get": "write {r}[{a}]",
    "union": "the union of sets is written '|': {r} | {a}",
    "intersection": "the intersection of sets is written '&': {r} & {a}",
    "difference": "the difference of sets is written '-': {r} - {a}",
    "issubset": "a subset test is written '<=': {r} <= {a}",
}
_METHOD_BEFORE = re.compile(r"([A-Za-z_]\w*(?:'|\[[^\[\]\n]*\])*)?\s*\.\s*([A-Za-z_]\w*)\s*$")


def _span(path: str, tok: Token) -> Span:
    return Span(path, tok.line, tok.column, tok.end_line, tok.end_column)


def _statement_habit(word: str, span: Span, source: str, start: int,
                     found: str = "name") -> Diagnostic:
    message, hint = _STATEMENT_HABITS[word]
    loop = _SIMPLE_LOOP.match(source, start) if word == "for" else None
    if loop is not None:
        var, domain, target, value = loop.groups()
        hint = (f"assign the whole value at once: {target} := {{{var}: {value} for {var} in "
                f"{domain}}}, or make {var} a parameter of the action to update one element "
                f"per step")
    return Diagnostic("MC1001", f"unexpected {found} '{word}': {message}", span, hint=hint)


def _bracket_args(source: str, open_at: int) -> str | None:
    """The text inside the parentheses that open at ``open_at``, on one line."""
    depth = 0
    for i in range(open_at, len(source)):
        char = source[i]
        if char == "\n":
            return None
        depth += char in "([{"
        depth -= char in ")]}"
        if depth == 0:
            return source[open_at + 1:i].strip()
    return None


def _method_call(tok: Token, source: str, path: str) -> Diagnostic | None:
    start = tok.start_pos or 0
    found = _METHOD_BEFORE.search(source[:start])
    if found is None:
        return None
    receiver, method = found.group(1) or "s", found.group(2)
    args = _bracket_args(source, start) or "x"
    hint = _METHODS.get(method, "the built-in functions take the value as their first "
                        "argument: len(s), append(s, x), put(b, x), take(b, x), count(b, x)")
    dot = source.rindex(".", 0, start)
    span = Span.at(path, source, dot, start + 1 - dot)
    return Diagnostic("MC1001", f"unexpected '(': '.{method}(...)' calls a method, and the "
                      "language has no methods", span,
                      hint=hint.format(r=receiver, a=args))


def _call_statement(tok: Token, source: str, path: str) -> Diagnostic | None:
    start = tok.start_pos or 0
    word = _WORD_BEFORE.search(source[:start])
    if word is None:
        return None
    name = word.group(1)
    span = Span.at(path, source, word.start(1), start + 1 - word.start(1))
    if re.search(rf"^\s*action\s+{name}\b", source, re.MULTILINE):
        return Diagnostic(
            "MC1001", f"unexpected '(': an action cannot call another action ('{name}')", span,
            hint="each action is one atomic step and cannot be called; put what both "
                 "actions need in defs (named expressions: def enabled() = x < 3, "
                 "def next_x() = x + 1) and use them in each: require enabled(), "
                 "x := next_x()")
    return Diagnostic(
        "MC1001", f"unexpected '(': a call is not a statement ('{name}(...)')", span,
        hint="a statement is require, let, pick, an assignment ':=', if, match or either; "
             f"use the value of the call in one: require {name}(...) or x := {name}(...)")


def _match_case(tok: Token, source: str, path: str, keys: set[str]) -> Diagnostic | None:
    start = tok.start_pos or 0
    word = _WORD_BEFORE.search(source[:start])
    if word is None or word.group(1) != "case":
        return None
    case = str(tok) if tok.type == "NAME" else "Case"
    form = f"{case} {{ ... }}" if "{" in keys else f"{case} => value"
    return Diagnostic("MC1001", "unexpected name 'case': a match arm starts with the case "
                      "itself", Span.at(path, source, word.start(1), 4),
                      hint=f"write the arm as `{form}`, without 'case' (and without ':')")


def _missing_capacity(tok: Token, source: str, path: str) -> Diagnostic | None:
    start = tok.start_pos or 0
    depth = 0
    for i in range(start - 1, -1, -1):
        char = source[i]
        if char in ")]}":
            depth += 1
        elif char in "([{":
            if depth == 0:
                break
            depth -= 1
    else:
        return None
    kind = _WORD_BEFORE.search(source[:i])
    if char != "[" or kind is None or kind.group(1) not in ("bag", "seq"):
        return None
    word, elem = kind.group(1), source[i + 1:start].strip()
    counted = " (copies counted)" if word == "bag" else ""
    return Diagnostic("MC1001", f"unexpected ']': a {word} needs a capacity", _span(path, tok),
                      hint=f"write {word}[{elem}, N], N the most elements it may hold"
                           f"{counted}, e.g. {word}[{elem}, 4]")


_DEF_HEAD = re.compile(r"def\s+[A-Za-z_]\w*\s*\(.*\)\s*(?:->.+)?", re.DOTALL)
_RETURN = re.compile(r"return\s+([^\n]+)")
_NEXT_ITEM = re.compile(r"\n(?=\S)")


def _python_def(tok: Token, source: str, path: str) -> Diagnostic | None:
    start = tok.start_pos or 0
    defs = list(re.finditer(r"\bdef\b", source[:start]))
    if not defs or not _DEF_HEAD.fullmatch(source, defs[-1].start(), start):
        return None
    text = " ".join(source[defs[-1].start():start].split())
    # A body of one `return e` line gives the whole def in the language's form.
    after = _NEXT_ITEM.search(source, start + 1)
    body = _RETURN.fullmatch(source[start + 1:after.start() if after else len(source)].strip())
    value = body.group(1).strip() if body is not None else "expression"
    return Diagnostic("MC1001", "unexpected ':': a def is written with '=' and one "
                      "expression", _span(path, tok),
                      hint=f"no ':' and no 'return': {text} = {value}")


#: The words that build a type; written where a value is expected, they are
#: a type used as a value (TLA+'s `x \in [Node -> BOOLEAN]`, `SUBSET Node`).
TYPE_WORDS = frozenset({"set", "map", "seq", "bag", "tuple", "option"})
_TYPE_OPEN = re.compile(r"\b(set|map|seq|bag|tuple|option)\s*\[[^\[\]\n]*$")


def type_as_value(word: str, span: Span) -> Diagnostic:
    """A type written where a value is expected: only a named type is a value."""
    return Diagnostic(
        "MC1001", f"a type written where a value is expected: '{word}[...]' is a type, and a "
        f"type is a value only by its name", span,
        hint=f"name it, e.g. `type T = {word}[...]`, then write `T` where its values are meant "
        f"(`var v: T in T`, `pick x in T`, `x in T`)")


def python_habit(tok: Token, keys: set[str], source: str, path: str) -> Diagnostic | None:
    """The error a Python habit causes, said as such, at the habit itself."""
    start = tok.start_pos or 0
    value = str(tok)
    word = _WORD_BEFORE.search(source[:start])
    if word is not None and word.group(1) in _STATEMENT_HABITS and ":=" in keys:
        span = Span.at(path, source, word.start(1), len(word.group(1)))
        return _statement_habit(word.group(1), span, source, word.start(1))
    if value in _STATEMENT_HABITS and tok.type != "NAME" and "require" in keys:
        return _statement_habit(value, _span(path, tok), source, start, "keyword")
    if value in ("+", "-", "*", "//", "%", "|", "&") and source[tok.end_pos:tok.end_pos + 1] == "=":
        span = Span(path, tok.line, tok.column, tok.end_line, tok.end_column + 1)
        return Diagnostic("MC1001", f"unexpected '{value}=': there is no augmented assignment",
                          span, hint=f"write x := x {value} ...")
    if keys == {"module"}:
        span = _span(path, tok)
        stem = re.sub(r"\W", "_", path.rsplit("/", 1)[-1].split(".", 1)[0]) or "main"
        if not (stem[0].isalpha() or stem[0] == "_"):
            stem = "m_" + stem
        return Diagnostic("MC1001", "a spec starts with its 'module' line", span,
                          hint=f"add `module {stem}` as the first line")
    if value == "(":
        found = _method_call(tok, source, path)
        if found is None and ":=" in keys:
            found = _call_statement(tok, source, path)
        if found is not None:
            return found
    if "as" in keys and "|" in keys:
        return _match_case(tok, source, path, keys)
    if value == "]" and keys == {","}:
        return _missing_capacity(tok, source, path)
    if value == ",":
        opened = _TYPE_OPEN.search(source[:start])
        if opened is not None:
            return type_as_value(opened.group(1),
                                 Span.at(path, source, opened.start(1), len(opened.group(1))))
    if value == ":" and keys <= {"=", "->"}:
        return _python_def(tok, source, path)
    return None
