"""Hover, definition and completion answered from one analysis of a buffer,
without a server (positions are the compiler's: 1-based)."""
from __future__ import annotations

from pathlib import Path

import pytest

from modelcheck.lsp.analysis import analyze
from modelcheck.lsp.navigate import completions, hover, lookup, word_at

SPEC = """\
module m

const N: 1..4 = 2
type Phase = enum { idle, busy }
type Msg = variant { Ping(from: 1..N), Stop }
var phase: Phase = idle
var seen: set[1..N] = {}

def fresh(s: set[1..N]) -> bool = all(x not in seen for x in s)

action Go(x: 1..N) {
    let y = x + 0
    require phase == idle   # phase here is a comment
    seen := seen | {y}
}

invariant Small: len(seen) <= N
"""
PATH = "m.mc"


def _at(text: str, needle: str, line_hint: str, nth: int = 0) -> tuple[int, int]:
    """1-based line and column of the ``nth`` ``needle`` on the line with ``line_hint``."""
    for number, line in enumerate(text.splitlines(), start=1):
        if line_hint in line:
            col = -1
            for _ in range(nth + 1):
                col = line.index(needle, col + 1)
            return number, col + 1
    raise AssertionError(line_hint)


@pytest.fixture(scope="module")
def analysis():
    result = analyze(SPEC, PATH)
    assert result.diagnostics == () and result.model is not None
    return result


def test_local_names_resolve_to_their_binder(analysis) -> None:
    decl, _ = lookup(analysis, *_at(SPEC, "x", "let y = x"))
    assert (decl.kind, decl.owner, decl.span.line) == ("param", "Go", 11)
    # `x` in `fresh` is the comprehension's, written after its use.
    decl, _ = lookup(analysis, *_at(SPEC, "x", "def fresh"))
    assert (decl.kind, decl.owner) == ("local", "for")
    assert decl.span.col == _at(SPEC, "x in s", "def fresh")[1]


def test_hover_shows_types_from_the_ir(analysis) -> None:
    text, where = hover(analysis, *_at(SPEC, "seen", "seen := seen", nth=1))
    assert "var seen: set[1..2]" in text
    assert (where.line, where.end_col - where.col) == (14, 4)
    assert "const N: 1..4 = 2" in hover(analysis, *_at(SPEC, "N", "invariant"))[0]
    assert "idle: Phase" in hover(analysis, *_at(SPEC, "idle", "require"))[0]
    assert "Ping(from: 1..N): Msg" in hover(analysis, *_at(SPEC, "Ping", "type Msg"))[0]
    assert "x: 1..2" in hover(analysis, *_at(SPEC, "x", "let y"))[0]
    assert "action Go(x: 1..N)" in hover(analysis, *_at(SPEC, "Go", "action"))[0]


def test_no_name_in_comments_or_fields() -> None:
    assert word_at(SPEC, *_at(SPEC, "phase", "a comment", nth=1)) is None
    assert word_at("x = m.kind", 1, 7) is None
    assert word_at("x = 1..N", 1, 8)[0] == "N"


def test_a_buffer_that_does_not_compile_keeps_navigating(analysis) -> None:
    # A type error: no IR, so types come from the declarations as written.
    typed_wrong = SPEC.replace("seen := seen | {y}", "seen := y")
    wrong = analyze(typed_wrong, PATH, analysis)
    assert wrong.model is None and wrong.diagnostics
    assert "var seen: set[1..N]" in hover(wrong, *_at(typed_wrong, "seen", "seen := y"))[0]
    # A syntax error: the last buffer that parsed still answers.
    half_typed = SPEC.replace("seen := seen | {y}", "seen := seen |")
    broken = analyze(half_typed, PATH, analysis)
    assert broken.module is analysis.module and broken.diagnostics[0].code.startswith("MC1")
    names = dict(completions(broken, 14, 5))
    assert names["seen"] == "var" and names["y"] == "local" and names["Go"] == "action"
    assert names["len"] == "builtin" and names["require"] == "keyword"
    assert names["eventually"] == "keyword"


def test_imported_names_resolve_to_their_file(tmp_path: Path) -> None:
    (tmp_path / "lib.mc").write_text("module lib\n\ntype Node = model(3)\n")
    path = str(tmp_path / "main.mc")
    source = "module main\nimport lib\n\nvar owner: option[Node] = none\n"
    result = analyze(source, path)
    assert result.diagnostics == ()
    decl, _ = lookup(result, *_at(source, "Node", "var owner"))
    assert (decl.span.file, decl.span.line, decl.span.col) == (str(tmp_path / "lib.mc"), 3, 6)
    text, _ = hover(result, *_at(source, "Node", "var owner"))
    assert "type Node = model(3)" in text and "lib.mc" in text
