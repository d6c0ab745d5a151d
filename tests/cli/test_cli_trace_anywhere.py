"""The ``trace`` commands read a trace with its spec from any folder: the
trace records its spec's path, absolute path and hash, and the spec is looked
for from the current folder, from the trace's folder and above, then at its
absolute path.  When it is nowhere, each command says so in one line and
names ``--spec``.  Every run here is from a temporary folder outside the
repository."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from modelcheck.cli.main import cli

#: No colour, a fixed width: the output must not depend on the machine.
ENV = {"COLUMNS": "100", "NO_COLOR": "1", "FORCE_COLOR": None, "TTY_COMPATIBLE": None,
       "TTY_INTERACTIVE": None}

SPEC = """\
module relay

# ids as numbers, as the RabbitMQ specs have them: read without the spec,
# nothing says that the keys 1 and 2 are nodes
type Node = 1..2

var up: map[Node, bool] = {n: true for n in Node}
var held: map[Node, 0..2] = {n: 0 for n in Node}

action Take(n: Node) {
    require up[n]
    require held[n] < 2
    held[n] := held[n] + 1
}

action Crash(n: Node) {
    require up[n]
    up[n] := false
    held[n] := 0
}

invariant Kept: all(held[n] < 2 for n in Node)
"""


def invoke(*args: str):
    result = CliRunner().invoke(cli, list(args), env=ENV)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


@pytest.fixture
def written(tmp_path: Path, monkeypatch) -> Path:
    """``project/specs/relay.mc`` checked from ``project/``: the trace it
    writes is ``project/counterexamples/relay-Kept-*.itf.json``.  Returns
    that trace; the test then runs from ``tmp_path/elsewhere``."""
    project = tmp_path / "project"
    (project / "specs").mkdir(parents=True)
    (project / "specs" / "relay.mc").write_text(SPEC)
    monkeypatch.chdir(project)
    checked = invoke("check", "specs/relay.mc", "--engine", "reference", "--no-deadlock",
                     "--out", "counterexamples")
    assert checked.exit_code == 1, checked.output
    (trace,) = (project / "counterexamples").glob("relay-Kept-*.itf.json")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    return trace


def test_the_trace_records_its_spec_and_its_hash(written):
    # Written inside the folder the check ran in: the search from the trace's
    # folder upwards finds the spec, so no machine's path is written and the
    # file is the same wherever the project lives.
    meta = json.loads(written.read_text())["#meta"]
    assert meta["source"] == "specs/relay.mc"
    assert "source-absolute" not in meta
    assert len(meta["source-sha256"]) == 64


def test_a_trace_written_outside_the_project_records_the_absolute_path(tmp_path, monkeypatch):
    project = tmp_path / "project"
    (project / "specs").mkdir(parents=True)
    (project / "specs" / "relay.mc").write_text(SPEC)
    monkeypatch.chdir(project)
    outside = tmp_path / "traces"
    assert invoke("check", "specs/relay.mc", "--engine", "reference", "--no-deadlock",
                  "--out", str(outside)).exit_code == 1
    (trace,) = outside.glob("relay-Kept-*.itf.json")
    meta = json.loads(trace.read_text())["#meta"]
    assert Path(meta["source-absolute"]) == (project / "specs" / "relay.mc").resolve()
    monkeypatch.chdir(tmp_path)
    assert invoke("trace", "show", str(trace), "--by", "Node").exit_code == 0


def test_show_by_lays_out_lanes_from_another_folder(written):
    result = invoke("trace", "show", str(written), "--by", "Node")
    assert result.exit_code == 0, result.output
    assert "Node 1" in result.output and "Node 2" in result.output
    assert "held" in result.output and "note:" not in result.output


def test_html_has_lanes_from_another_folder(written):
    result = invoke("trace", "html", str(written), "-o", "page.html")
    assert result.exit_code == 0, result.output
    page = Path("page.html").read_text()
    assert "lanes: one per Node" in page
    assert 'class="note"' not in page


def test_a_moved_project_is_found_from_the_traces_folder(written, tmp_path):
    # The absolute path is stale; the spec is found above the trace's folder.
    moved = tmp_path / "moved"
    shutil.move(str(written.parents[1]), moved)
    trace = moved / "counterexamples" / written.name
    result = invoke("trace", "show", str(trace), "--by", "Node")
    assert result.exit_code == 0, result.output
    assert "Node 1" in result.output and "note:" not in result.output


def test_an_edited_spec_is_used_with_a_warning(written):
    spec = written.parents[1] / "specs" / "relay.mc"
    spec.write_text(SPEC + "\ninvariant Up: all(up[n] for n in Node)\n")
    result = invoke("trace", "show", str(written), "--by", "Node")
    assert result.exit_code == 0, result.output
    assert "changed since" in result.output
    assert "Node 1" in result.output


def _spec_gone(written: Path) -> None:
    shutil.rmtree(written.parents[1] / "specs")


def test_show_by_without_the_spec_says_so_in_one_line(written):
    _spec_gone(written)
    result = invoke("trace", "show", str(written), "--by", "Node")
    assert result.exit_code == 2
    assert result.output.count("is not found") == 1      # one message, not a note and an error
    assert "specs/relay.mc" in result.output and "--spec PATH" in result.output
    assert "has none" not in result.output


def test_html_without_the_spec_says_why_it_has_no_lanes(written):
    _spec_gone(written)
    result = invoke("trace", "html", str(written), "-o", "page.html")
    assert result.exit_code == 0, result.output
    assert "specs/relay.mc, is not found" in result.output and "--spec PATH" in result.output
    page = Path("page.html").read_text()
    assert 'class="note"' in page and "is not found" in page
    assert "one lane for the whole state" in page


def test_explain_without_the_spec_says_so_in_one_line(written):
    _spec_gone(written)
    result = invoke("trace", "explain", str(written))
    assert result.exit_code == 2
    first, *rest = result.output.strip().splitlines()
    assert first.startswith("error:") and "specs/relay.mc, is not found" in first
    assert any("--spec PATH" in line for line in rest)


def test_spec_given_by_hand_is_used(written, tmp_path):
    copy = tmp_path / "copy.mc"
    copy.write_text(SPEC)
    _spec_gone(written)
    result = invoke("trace", "show", str(written), "--by", "Node", "--spec", str(copy))
    assert result.exit_code == 0, result.output
    assert "Node 1" in result.output and "note:" not in result.output
    # another text than the one the trace records: used, and said so
    copy.write_text(SPEC + "\n# edited\n")
    edited = invoke("trace", "show", str(written), "--by", "Node", "--spec", str(copy))
    assert edited.exit_code == 0 and "changed since" in edited.output


def test_explain_defaults_to_the_traces_property(written):
    result = invoke("trace", "explain", str(written))
    assert result.exit_code == 0, result.output
    assert "Kept is false in state" in result.output
    named = invoke("trace", "explain", str(written), "--property", "Kept")
    assert named.output == result.output
