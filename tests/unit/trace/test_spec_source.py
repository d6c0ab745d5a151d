"""Finding a trace's spec from wherever the trace is read
(modelcheck.trace.spec_source): the recorded path from the current folder,
then from the trace's folder and those above it, then the absolute path; a
recorded hash picks the unedited copy and tells an edited one apart."""
from __future__ import annotations

from pathlib import Path

import pytest

from modelcheck.trace.spec_source import find_spec, spec_identity, text_sha256

SPEC = "module s\nvar x: 0..1 = 0\naction A() { x := 1 }\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch) -> Path:
    """``project/specs/s.mc`` and a trace folder ``project/counterexamples``;
    the test runs from an unrelated folder."""
    root = tmp_path / "project"
    (root / "specs").mkdir(parents=True)
    (root / "counterexamples").mkdir()
    (root / "specs" / "s.mc").write_text(SPEC)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    return root


def _meta(**extra: str) -> dict[str, str]:
    return {"source": "specs/s.mc", **extra}


def test_the_identity_records_the_absolute_path_and_the_hash_of_the_text(project, monkeypatch):
    monkeypatch.chdir(project)
    ident = spec_identity("specs/s.mc", {"specs/s.mc": SPEC})
    assert ident == {"source-absolute": str((project / "specs" / "s.mc").resolve()),
                     "source-sha256": text_sha256(SPEC)}
    assert spec_identity("<string>", {"<string>": SPEC}) == {}


def test_found_from_the_folder_above_the_trace(project):
    trace = project / "counterexamples" / "t.itf.json"
    found = find_spec(_meta(**{"source-sha256": text_sha256(SPEC)}), trace)
    assert found.path is not None and Path(found.path).resolve() == (project / "specs" / "s.mc").resolve()
    assert not found.changed and found.missing is None


def test_found_at_the_absolute_path_when_the_trace_was_moved(project, tmp_path):
    moved = tmp_path / "mail" / "t.itf.json"
    moved.parent.mkdir()
    spec = (project / "specs" / "s.mc").resolve()
    found = find_spec(_meta(**{"source-absolute": str(spec),
                                        "source-sha256": text_sha256(SPEC)}), moved)
    assert found.path == str(spec)


def test_an_old_file_without_a_hash_takes_the_first_spec_that_exists(project):
    found = find_spec(_meta(), project / "counterexamples" / "t.itf.json")
    assert found.path is not None and not found.changed


def test_the_hash_picks_the_unedited_copy(project, tmp_path):
    # A spec of the same relative name from here, but edited; the one beside
    # the trace is the one it was written from.
    (tmp_path / "elsewhere" / "specs").mkdir()
    (tmp_path / "elsewhere" / "specs" / "s.mc").write_text(SPEC + "# edited\n")
    found = find_spec(_meta(**{"source-sha256": text_sha256(SPEC)}),
                      project / "counterexamples" / "t.itf.json")
    assert found.path is not None and Path(found.path).resolve() == (project / "specs" / "s.mc").resolve()
    assert not found.changed


def test_an_edited_spec_is_used_and_said_to_have_changed(project):
    (project / "specs" / "s.mc").write_text(SPEC + "# edited\n")
    found = find_spec(_meta(**{"source-sha256": text_sha256(SPEC)}),
                      project / "counterexamples" / "t.itf.json")
    assert found.path is not None and found.changed


def test_not_found_says_where_it_looked(project):
    (project / "specs" / "s.mc").unlink()
    found = find_spec(_meta(**{"source-absolute": "/nowhere/specs/s.mc"}),
                      project / "counterexamples" / "t.itf.json")
    assert found.path is None
    assert found.missing is not None and "specs/s.mc" in found.missing
    assert "/nowhere/specs/s.mc" in found.missing


def test_another_tools_source_is_not_looked_for(project):
    assert find_spec({"source": "raft.qnt"}, project / "t.itf.json").path is None
    assert find_spec({"source": "raft.qnt"}, project / "t.itf.json").missing is None
    assert find_spec({}, project / "t.itf.json").missing is None


@pytest.mark.parametrize("source", ["a\x00.mc", "x" * 5000 + ".mc", "/" + "y/" * 3000 + "z.mc",
                                    "a\nb.mc"], ids=["nul", "long-name", "long-path", "newline"])
def test_a_name_no_file_can_have_is_not_found_and_shown_on_one_line(project, source):
    found = find_spec({"source": source, "source-absolute": source, "source-sha256": "0" * 64},
                      project / "counterexamples" / "t.itf.json")
    assert found.path is None and found.missing is not None
    assert "\n" not in found.missing and "\x00" not in found.missing
    assert len(found.missing) < 600
