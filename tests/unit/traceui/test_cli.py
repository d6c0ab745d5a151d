"""``modelcheck trace ...`` and ``modelcheck replay`` from the command line:
output, exit codes, and bad input reported without a traceback."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from modelcheck.cli.main import cli
from modelcheck.trace.itf import dumps_itf

from .mini_specs import MINI


@pytest.fixture
def files(tmp_path: Path, mini_model, mini_trace, monkeypatch) -> Path:
    """mini.mc and its NoLoss counterexample, in a working folder."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mini.mc").write_text(MINI)
    data = json.loads(dumps_itf(mini_trace, mini_model))
    (tmp_path / "cex.itf.json").write_text(json.dumps(data))
    # the same trace as another tool writes it: no spec, no action names
    for state in data["states"]:
        state["#meta"] = {"index": state["#meta"]["index"]}
    data["#meta"] = {"format": "ITF"}
    (tmp_path / "foreign.itf.json").write_text(json.dumps(data))
    return tmp_path


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_show_reads_the_spec_the_trace_names(files):
    result = invoke("trace", "show", "cex.itf.json")
    assert result.exit_code == 0
    assert "counterexample to NoLoss in mini: 5 steps" in result.output
    assert "Step 4  Crash(n=node1)" in result.output
    assert "up[node1]    true → false" in result.output


def test_show_a_foreign_trace_with_and_without_the_spec(files):
    bare = invoke("trace", "show", "foreign.itf.json", "--by", "Node")
    assert bare.exit_code == 0
    assert "Step 4  (action not recorded)" in bare.output
    typed = invoke("trace", "show", "foreign.itf.json", "--spec", "mini.mc")
    assert typed.exit_code == 0
    assert "Step 4  Crash(n=node1)" in typed.output       # replay filled in the action


def test_show_bad_input_exits_2_with_a_message(files):
    missing = invoke("trace", "show", "nope.itf.json")
    assert missing.exit_code == 2 and "cannot read nope.itf.json" in missing.output
    (files / "broken.json").write_text("{\n  \"states\": [\n")
    broken = invoke("trace", "show", "broken.json")
    assert broken.exit_code == 2 and "error[MC1201]: not valid JSON" in broken.output
    assert "--> broken.json:3:1" in broken.output
    bad_var = invoke("trace", "show", "cex.itf.json", "--vars", "stroe")
    assert bad_var.exit_code == 2 and "did you mean 'store'?" in bad_var.output
    assert "Traceback" not in missing.output + broken.output + bad_var.output


def test_diff_exit_codes(files, mini_model):
    from modelcheck.trace.scenario import parse_scenario
    from modelcheck.trace.scenario_run import run_scenario
    other = run_scenario(mini_model, parse_scenario(
        "Write(n=node1, v=0)\nWrite(n=node2, v=0)\nCrash(n=node2)\n", "o.scenario")).trace
    (files / "other.itf.json").write_text(dumps_itf(other, mini_model))
    same = invoke("trace", "diff", "cex.itf.json", "cex.itf.json")
    assert same.exit_code == 0 and "The traces are the same (5 steps)." in same.output
    differ = invoke("trace", "diff", "cex.itf.json", "other.itf.json")
    assert differ.exit_code == 1
    assert "The traces part at step 3" in differ.output
    assert "Confirm(v=0)" in differ.output and "Crash(n=node2)" in differ.output


def test_explain(files):
    result = invoke("trace", "explain", "cex.itf.json", "--invariant", "NoLoss")
    assert result.exit_code == 0
    assert "NoLoss is false in state 5, reached by step 5: Crash(n=node2)" in result.output
    assert "✗ any(v in store[n] for n in Node)" in result.output
    assert "store[n] = {}" in result.output
    holds = invoke("trace", "explain", "cex.itf.json", "--invariant", "NeverForget")
    assert holds.exit_code == 1 and "nothing to explain" in holds.output
    no_spec = invoke("trace", "explain", "foreign.itf.json", "--invariant", "NoLoss")
    assert no_spec.exit_code == 2 and "--spec" in no_spec.output


def test_html_writes_a_page(files):
    result = invoke("trace", "html", "cex.itf.json", "-o", "out/page.html", "--by", "Node")
    assert result.exit_code == 0 and "wrote out/page.html" in result.output
    page = (files / "out" / "page.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and "Crash(n=node2)" in page
    default = invoke("trace", "html", "cex.itf.json")
    assert default.exit_code == 0 and (files / "cex.html").is_file()


SCENARIO_OK = """\
expect NoLoss violated at step 5
Write(n=node1, v=0)
Write(n=node2, v=0)
Confirm(v=0)
Crash(n=node1)
Crash(n=node2)
"""


def test_replay_exit_codes(files):
    (files / "ok.scenario").write_text(SCENARIO_OK)
    ok = invoke("replay", "mini.mc", "ok.scenario")
    assert ok.exit_code == 0
    assert "feasible: all 5 steps can be taken" in ok.output
    assert "✓ met" in ok.output and "OK: feasible, every expectation met" in ok.output
    (files / "stuck.scenario").write_text("Crash(n=node2)\nRestart(n=node1)\n")
    stuck = invoke("replay", "mini.mc", "stuck.scenario")
    assert stuck.exit_code == 1
    assert "infeasible: step 2 Restart(n=node1) cannot be taken" in stuck.output
    assert "require not up[n]" in stuck.output and "mini.mc:32:13" in stuck.output
    (files / "bad.scenario").write_text("Crash(n=node9)\n")
    bad = invoke("replay", "mini.mc", "bad.scenario")
    assert bad.exit_code == 2
    assert "error[MC3102]: 'node9' is not a value of Node" in bad.output
    assert "--> bad.scenario:1:9" in bad.output and "^^^^^" in bad.output


def test_replay_json_and_const_lines(files):
    (files / "ok.scenario").write_text(SCENARIO_OK)
    out = invoke("replay", "mini.mc", "ok.scenario", "--json")
    data = json.loads(out.output)
    assert data["ok"] and data["feasible"] and data["steps"] == 5
    assert {"name": "NoLoss", "kind": "invariant", "status": "violated", "step": 5} in data["properties"]
    assert len(data["trace"]["states"]) == 6
    written = invoke("replay", "mini.mc", "ok.scenario", "--no-trace", "-o", "taken/ok.itf.json")
    assert written.exit_code == 0
    shown = invoke("trace", "show", "taken/ok.itf.json")
    assert "scenario in mini: 5 steps" in shown.output and "Step 5  Crash(n=node2)" in shown.output
    (files / "const.scenario").write_text("const Q = 3\nCrash(n=node1)\n")
    bad_const = invoke("replay", "mini.mc", "const.scenario")
    assert bad_const.exit_code == 2
    assert "error[MC2101]" in bad_const.output and "const.scenario:1:1" in bad_const.output


def test_show_traces_written_by_apalache_and_quint(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    apalache = {
        "#meta": {"format": "ITF", "varTypes": {"votes": "(NODE -> Int)", "leader": "Set(NODE)"}},
        "vars": ["votes", "leader"],
        "states": [
            {"#meta": {"index": 0},
             "votes": {"#map": [["1_OF_NODE", {"#bigint": "0"}], ["2_OF_NODE", {"#bigint": "0"}]]},
             "leader": {"#set": []}},
            {"#meta": {"index": 1},
             "votes": {"#map": [["1_OF_NODE", {"#bigint": "2"}], ["2_OF_NODE", {"#bigint": "0"}]]},
             "leader": {"#set": ["1_OF_NODE"]}}]}
    (tmp_path / "apalache.itf.json").write_text(json.dumps(apalache))
    out = invoke("trace", "show", "apalache.itf.json", "--by", "Node")
    assert out.exit_code == 0
    assert "Step 1  (action not recorded)" in out.output
    assert "1_OF_NODE" in out.output.split("Step 1")[1] and "0 → 2" in out.output
    assert "leader + 1_OF_NODE" in out.output
    quint = {
        "#meta": {"format": "ITF", "source": "raft.qnt"},
        "vars": ["up", "mbt::actionTaken", "mbt::nondetPicks"],
        "states": [
            {"#meta": {"index": 0}, "up": {"#map": [["n1", True], ["n2", True]]},
             "mbt::actionTaken": "init", "mbt::nondetPicks": {"n": {"tag": "None", "value": {"#tup": []}}}},
            {"#meta": {"index": 1}, "up": {"#map": [["n1", False], ["n2", True]]},
             "mbt::actionTaken": "crash", "mbt::nondetPicks": {"n": {"tag": "Some", "value": "n1"}}}]}
    (tmp_path / "quint.itf.json").write_text(json.dumps(quint))
    out = invoke("trace", "show", "quint.itf.json")
    assert out.exit_code == 0
    assert "Step 1  crash(n=n1)" in out.output
    assert "up[n1] true → false" in out.output
    page = invoke("trace", "html", "quint.itf.json", "-o", "q.html")
    assert page.exit_code == 0 and 'data-lane="n1"' in (tmp_path / "q.html").read_text()
