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
                 "match", "is", "as", "_", "|", "=>"})
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
