"""Hostile trace files through every trace command: each answers with exit 0,
1 (explain, diff and replay's own "no") or 2 (a coded diagnostic), never a
traceback or an internal error (exit 4), and in bounded time (pytest-timeout
per document; no timing asserts)."""
from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from itf_hostile import good_trace_text, hostile_itf_documents, trace_commands
from modelcheck.cli.main import cli

DOCUMENTS = list(hostile_itf_documents(seed=0, count=200))


@pytest.fixture(scope="module")
def good(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("good") / "good.itf.json"
    path.write_text(good_trace_text(), encoding="utf-8")
    return path


def test_the_documents_cover_the_known_bad_shapes():
    names = {name for name, _ in DOCUMENTS}
    for shape in ("deep-value-100000", "unknown-action", "number-inf", "number-digits",
                  "bigint-5000", "missing-variable", "truncated"):
        assert shape in names
    assert len(DOCUMENTS) == 200 and len(names) == 200
    assert list(hostile_itf_documents(seed=0, count=200)) == DOCUMENTS    # reproducible


@pytest.mark.timeout(60)
@pytest.mark.parametrize("name,text", DOCUMENTS, ids=[n for n, _ in DOCUMENTS])
def test_every_trace_command_answers_cleanly(name, text, good, tmp_path):
    doc = tmp_path / f"{name}.itf.json"
    doc.write_text(text, encoding="utf-8", errors="surrogatepass")
    runner = CliRunner()
    for args in trace_commands(str(doc), str(good), str(tmp_path / "page.html")):
        result = runner.invoke(cli, args)
        where = f"{' '.join(args[:2])} on {name}: exit {result.exit_code}\n{result.output[-2000:]}"
        assert result.exception is None or isinstance(result.exception, SystemExit), where
        assert result.exit_code in (0, 1, 2), where
        assert "Traceback" not in result.output and "internal error" not in result.output, where
        if result.exit_code == 2:
            assert "error" in result.output, where
