"""docs/language.md and docs/tla.md: every ```mc block compiles (or fails as its expectation
says), and the reference engine's answer matches its <!-- expect: ... --> line.

Expectation syntax: ``states=N`` (distinct states), ``generated=N`` (states
generated, where given), ``NAME=holds|violated|unknown``
with the trace length in parentheses when one is given, ``compile-error MCxxxx``
or ``runtime-error MCxxxx``."""
from __future__ import annotations

import importlib.util
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from modelcheck.errors import CompileError
from modelcheck.pipeline import load_source
from modelcheck.semantics.codes import CODES

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "language.md"
DOCS = (DOC, ROOT / "docs" / "tla.md")
#: The fewest ```mc blocks each page has today: a page whose blocks the regex
#: stops matching would otherwise pass every example test vacuously.
FEWEST_BLOCKS = {"language.md": 15, "tla.md": 5}
BLOCK = re.compile(r"```mc\n(?P<code>.*?)```\n(?P<expect><!-- expect: (?P<spec>.*?) -->)?",
                   re.DOTALL)
HAVE_REFERENCE = importlib.util.find_spec("modelcheck.engines.reference.engine") is not None


@dataclass
class Example:
    doc: str
    line: int
    source: str
    expect: str


def examples(doc: Path) -> list[Example]:
    text = doc.read_text(encoding="utf-8")
    return [Example(f"docs/{doc.name}", text.count("\n", 0, m.start()) + 1, m.group("code"),
                    m.group("spec") or "")
            for m in BLOCK.finditer(text)]


EXAMPLES = [example for doc in DOCS for example in examples(doc)]


def parse_expect(spec: str) -> dict:
    out: dict = {"props": {}}
    words = spec.split()
    if words and words[0] in ("compile-error", "runtime-error"):
        out[words[0]] = words[1]
        return out
    for word in words:
        key, _, value = word.partition("=")
        if key in ("states", "generated"):
            out[key] = int(value)
            continue
        match = re.fullmatch(r"(holds|violated|unknown)(?:\((\d+)\))?", value)
        assert match, f"bad expectation {word!r}"
        steps = int(match.group(2)) if match.group(2) else None
        out["props"][key] = (match.group(1), steps)
    return out


@pytest.mark.parametrize("doc", DOCS, ids=[doc.name for doc in DOCS])
def test_every_block_has_an_expectation(doc):
    assert len(examples(doc)) >= FEWEST_BLOCKS[doc.name]
    missing = [e.line for e in examples(doc) if not e.expect]
    assert not missing, f"```mc blocks without <!-- expect: --> at lines {missing}"


def test_the_code_table_lists_every_code():
    text = DOC.read_text(encoding="utf-8")
    for code, title in CODES.items():
        assert f"| {code} | {title} |" in text, code


@pytest.mark.parametrize("example", EXAMPLES, ids=[f"{e.doc}@{e.line}" for e in EXAMPLES])
def test_example(example):
    expect = parse_expect(example.expect)
    path = f"{example.doc}@{example.line}"
    if "compile-error" in expect:
        with pytest.raises(CompileError) as info:
            load_source(example.source, path)
        assert info.value.diagnostics[0].code == expect["compile-error"]
        return
    model = load_source(example.source, path)
    if not HAVE_REFERENCE:
        pytest.skip("modelcheck.engines.reference is not there yet: compiled only")
    from modelcheck.api import check
    result = check(model, engine="reference")
    if "runtime-error" in expect:
        assert result.error is not None, "expected a run-time error"
        assert result.error.diagnostic.code == expect["runtime-error"]
        return
    assert result.error is None, str(result.error)
    assert result.stats.distinct_states == expect["states"]
    if "generated" in expect:
        assert result.stats.generated_states == expect["generated"]
    got = {p.name: (p.status.value.replace("holds_up_to_bound", "unknown"), p.steps)
           for p in result.properties}
    want = {name: (status, steps) for name, (status, steps) in expect["props"].items()}
    # steps are compared only where the expectation gives them
    got = {name: (s, n if want.get(name, (None, None))[1] is not None else None)
           for name, (s, n) in got.items()}
    assert got == want
