"""Whatever text reaches the front end, it returns a Model or raises
CompileError/UsageError with diagnostics that can be rendered: never any
other exception.  Inputs: random text, and the example specs with tokens
deleted, duplicated, swapped or replaced."""
from __future__ import annotations

import re
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from modelcheck.diagnostics import render_diagnostic
from modelcheck.errors import CompileError, UsageError
from modelcheck.ir.nodes import Model
from modelcheck.pipeline import load_source

ROOT = Path(__file__).resolve().parents[2]
SPECS = [(ROOT / "specs" / "examples" / name).read_text(encoding="utf-8")
         for name in ("die_hard.mc", "two_phase.mc")]
# The language reference's examples use every construct: good seeds for mutation.
DOC_BLOCKS = re.findall(r"```mc\n(.*?)```", (ROOT / "docs" / "language.md").read_text(
    encoding="utf-8"), re.DOTALL)
# Comments are dropped: the mutated tokens are joined on one line.
EXAMPLES = [re.sub(r"#[^\n]*", "", text) for text in SPECS + DOC_BLOCKS]
TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]+|:=|==|!=|<=|>=|=>|//|\.\.|->|\S")
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
TOKENS = sorted({t for text in EXAMPLES for t in TOKEN.findall(text)} |
                {"{", "}", "(", ")", "[", "]", "'", "none", "some", "pick", "either", "or",
                 "with", "if", "then", "else", "let", ";", "-", "int", "0", "99999", "seq",
                 "bag", "step", "sometimes", "import", "symmetric", "model", "variant",
                 "match", "is", "as", "_", "|", "=>",
                 # the newer forms: choose, pick each, sequence helpers and
                 # comprehensions, narrowing by case, fairness groups
                 "choose", "each", "elems", "last", "index_of", "for", "in", "not", ":",
                 "require", "fair", "weak", "strong", "*", "all", "any"})
SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def front_end(source: str, consts=None) -> None:
    try:
        model = load_source(source, "fuzz.mc", consts)
    except CompileError as err:
        assert err.diagnostics
        for d in err.diagnostics:
            assert re.fullmatch(r"MC[1-4]\d{3}", d.code), d
            text = err.sources.get(d.span.file) if d.span else None
            assert render_diagnostic(d, text).startswith(f"error[{d.code}]")
        return
    except UsageError:
        return
    assert isinstance(model, Model)


@st.composite
def mutated(draw):
    text = draw(st.sampled_from(EXAMPLES))
    tokens = TOKEN.findall(text)
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(tokens) - 1))
        kind = draw(st.sampled_from(["delete", "duplicate", "swap", "replace", "rename"]))
        if kind == "rename" and NAME.fullmatch(tokens[i]):
            # another name of the same spec: keeps the syntax, tests the semantics
            tokens[i] = draw(st.sampled_from([t for t in tokens if NAME.fullmatch(t)]))
        elif kind == "delete":
            del tokens[i]
        elif kind == "duplicate":
            tokens.insert(i, tokens[i])
        elif kind == "swap" and i + 1 < len(tokens):
            tokens[i], tokens[i + 1] = tokens[i + 1], tokens[i]
        else:
            tokens[i] = draw(st.sampled_from(TOKENS))
    return " ".join(tokens)


@SETTINGS
@given(mutated())
def test_mutated_specs(source):
    front_end(source)


# Lines the habits of Python and TLA+ users produce: each reaches a rule of
# syntax/habits.py or semantics/hints.py.
HABIT_LINES = ["for n in Node {", "for n in Node:", "case ", "x := x.append(1)",
               "net := net.remove(m)", "return x", "def f(x: 0..3) -> bool:", "Step()",
               "var b: bag[Kind] = {}", "require q[-1] == 0", "require o == 1", "}", "{",
               "if x > 0 {", "} else {", "elif x {", "while x < 3 {", "s := put(s, 1)"]


@st.composite
def mutated_lines(draw):
    """A multi-line example with lines or braces deleted, duplicated, moved in
    or out, or habit lines inserted: what reaches the missing-brace analysis
    (syntax/blocks.py), which reads the indentation the one-line mutants lose."""
    lines = draw(st.sampled_from(SPECS + DOC_BLOCKS)).split("\n")
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(lines) - 1))
        kind = draw(st.sampled_from(["delete", "duplicate", "indent", "dedent", "brace",
                                     "habit"]))
        if kind == "delete":
            del lines[i]
        elif kind == "duplicate":
            lines.insert(i, lines[i])
        elif kind == "indent":
            lines[i] = "    " + lines[i]
        elif kind == "dedent":
            lines[i] = lines[i].lstrip()
        elif kind == "brace" and ("{" in lines[i] or "}" in lines[i]):
            j = max(lines[i].rfind("{"), lines[i].rfind("}"))
            lines[i] = lines[i][:j] + lines[i][j + 1:]
        else:
            lines.insert(i, "    " * draw(st.integers(0, 3)) + draw(st.sampled_from(HABIT_LINES)))
        if not lines:
            lines = [""]
    return "\n".join(lines)


@SETTINGS
@given(mutated_lines())
def test_mutated_lines(source):
    front_end(source)


@SETTINGS
@given(st.lists(st.sampled_from(TOKENS), max_size=40))
def test_token_soup(tokens):
    front_end("module fuzz " + " ".join(tokens))


@SETTINGS
@given(st.text(max_size=200))
def test_random_text(text):
    front_end(text)
    front_end("module fuzz\n" + text)


@SETTINGS
@given(st.dictionaries(st.sampled_from(["N", "n", "M", "x-y"]),
                       st.one_of(st.integers(-5, 20), st.text(max_size=5), st.booleans()),
                       max_size=2))
def test_overrides(consts):
    front_end(SPECS[1], consts)
