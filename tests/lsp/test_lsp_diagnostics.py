"""Compiler diagnostics as the protocol's: 0-based ranges, the hint in the
message, and problems of an imported file shown on its import."""
from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pygls")

from modelcheck.lsp.analysis import analyze  # noqa: E402
from modelcheck.lsp.server import to_lsp_diagnostic  # noqa: E402


def test_a_problem_in_an_imported_file_is_shown_on_its_import(tmp_path: Path) -> None:
    (tmp_path / "lib.mc").write_text("module lib\n\ntype Node = model(3)\nconst K: 1..3 = Nod\n")
    source = "module main\nimport lib\n\nvar owner: option[Node] = none\n"
    analysis = analyze(source, str(tmp_path / "main.mc"))
    [diag] = [to_lsp_diagnostic(d, analysis) for d in analysis.diagnostics]
    assert diag.code == "MC2001"
    assert (diag.range.start.line, diag.range.start.character) == (1, 0)
    assert (diag.range.end.line, diag.range.end.character) == (1, len("import lib"))
    assert "lib.mc:4:17" in diag.message and "hint: did you mean 'Node'?" in diag.message
    [related] = diag.related_information
    assert related.location.uri == (tmp_path / "lib.mc").as_uri()
    assert (related.location.range.start.line, related.location.range.start.character) == (3, 16)


def test_a_syntax_error_is_one_character_at_least() -> None:
    analysis = analyze("module m\nvar x: bool = \n", "m.mc")
    [diag] = [to_lsp_diagnostic(d, analysis) for d in analysis.diagnostics]
    assert diag.code.startswith("MC1")
    assert (diag.range.end.line, diag.range.end.character) > \
        (diag.range.start.line, diag.range.start.character)
