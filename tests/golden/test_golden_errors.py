"""Golden files for compile errors: tests/golden/errors/<case>.mc is compiled
and every diagnostic rendered (paths relative to the repository root) must
equal <case>.txt.  Regenerate with ``pytest tests/golden --regen-golden``.
Files starting with ``_`` are helpers imported by a case."""
from __future__ import annotations

from pathlib import Path

import pytest

from modelcheck.diagnostics import render_diagnostic
from modelcheck.errors import CompileError
from modelcheck.pipeline import load
from modelcheck.semantics.codes import CODES

ROOT = Path(__file__).resolve().parents[2]
CASES = sorted(p for p in (ROOT / "tests" / "golden" / "errors").glob("*.mc")
               if not p.name.startswith("_"))


def render_errors(relpath: str) -> str:
    with pytest.raises(CompileError) as info:
        load(relpath)
    err = info.value
    parts = [render_diagnostic(d, err.sources.get(d.span.file) if d.span else None)
             for d in err.diagnostics]
    return "\n\n".join(parts) + "\n"


@pytest.mark.parametrize("case", CASES, ids=[c.stem for c in CASES])
def test_error_rendering(case, golden, monkeypatch):
    monkeypatch.chdir(ROOT)
    relpath = case.relative_to(ROOT).as_posix()
    text = render_errors(relpath)
    code = case.stem.split("_")[0]
    assert f"error[{code}]" in text, f"{case.name} is meant to show {code}"
    golden.check(f"errors/{case.stem}.txt", text)


def test_every_front_end_code_has_a_golden_case():
    covered = {c.stem.split("_")[0] for c in CASES}
    assert set(CODES) <= covered, sorted(set(CODES) - covered)
