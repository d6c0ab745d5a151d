"""Bad trace files are coded diagnostics at their place in the file, exit 2:
deep nesting, unknown actions, floats, huge integers (issue 17's table)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from modelcheck.cli.main import cli
from modelcheck.errors import UsageError
from modelcheck.trace.itf import read_itf
from modelcheck.trace.itf_json import MAX_DEPTH, TraceFileError, json_path, loads_itf, locate

ROOT = Path(__file__).resolve().parents[3]
SPEC = str(ROOT / "specs" / "examples" / "die_hard.mc")
STEPS = [(None, 0, 0), ("FillBig", 0, 5), ("BigToSmall", 3, 2), ("EmptySmall", 0, 2),
         ("BigToSmall", 2, 0), ("FillBig", 2, 5), ("BigToSmall", 3, 4)]
GOOD = {
    "#meta": {"format": "ITF", "source": SPEC, "spec": "die_hard", "property": "NotFour",
              "kind": "counterexample", "consts": {}},
    "vars": ["small", "big"],
    "states": [{"#meta": {"index": i, **({"action": a, "params": {}} if a else {})},
                "small": s, "big": b} for i, (a, s, b) in enumerate(STEPS)],
}
PRETTY = json.dumps(GOOD, indent=2)
BIG_LINE = next(i for i, line in enumerate(PRETTY.splitlines(), 1) if line.strip() == '"big": 2')


def with_big(raw: str) -> str:
    """The pretty trace with ``"big": 2`` (state 2) replaced by raw JSON text."""
    return PRETTY.replace('"big": 2', f'"big": {raw}', 1)


def commands(path: str) -> list[list[str]]:
    return [["trace", "show", path], ["trace", "html", path, "-o", path + ".html"],
            ["trace", "explain", path, "--invariant", "NotFour"],
            ["trace", "diff", path, path], ["replay", SPEC, path, "--no-trace"]]


def run_all(tmp_path: Path, text: str) -> list:
    path = tmp_path / "bad.itf.json"
    path.write_text(text, encoding="utf-8")
    return [CliRunner().invoke(cli, args) for args in commands(str(path))]


@pytest.mark.parametrize("depth", [900, 10_000, 100_000])
def test_deep_nesting_is_refused_before_any_recursion(tmp_path, depth):
    for result in run_all(tmp_path, with_big("[" * depth + "]" * depth)):
        assert result.exit_code == 2, result.output
        assert f"error[MC1202]: the JSON is nested more than {MAX_DEPTH} levels deep" in result.output
        assert f"bad.itf.json:{BIG_LINE}:" in result.output and "Traceback" not in result.output


@pytest.mark.parametrize("raw,words", [
    ("1e400", "1e400 is a float: ITF has no floats"),
    ("1e308", "1e308 is a float: ITF has no floats"),
    ("NaN", "NaN is not a number ITF has"),
    ("9" * 5000, "an integer of 5,000 digits"),
    ('{"#bigint": "' + "1" * 5000 + '"}', "an integer of 5,000 digits"),
])
def test_numbers_itf_cannot_hold_are_named_at_their_place(tmp_path, raw, words):
    results = run_all(tmp_path, with_big(raw))
    if raw.startswith('{"#bigint"'):
        # A #bigint is a string to JSON: only the commands that read the
        # states' values meet it (replay takes a scenario's actions alone).
        results = results[:-1]
    for result in results:
        assert result.exit_code == 2, result.output
        assert "error[MC3202]: states[2].big: " in result.output and words in result.output
        assert f"--> {tmp_path / 'bad.itf.json'}:{BIG_LINE}:" in result.output


def test_an_unknown_action_gets_a_did_you_mean(tmp_path):
    text = PRETTY.replace('"action": "BigToSmall"', '"action": "BigToSmal"', 1)
    results = run_all(tmp_path, text)
    show, html, explain, diff, replay = results
    assert explain.exit_code == 2
    assert "error[MC2201]: states[2].#meta.action: unknown action 'BigToSmal'" in explain.output
    assert "did you mean 'BigToSmall'?" in explain.output
    # Without --spec, show and html still show it by its shape, and say why.
    assert show.exit_code == 0 and "read without types" in show.output and "MC2201" in show.output
    assert html.exit_code == 0
    with_spec = CliRunner().invoke(cli, ["trace", "show", str(tmp_path / "bad.itf.json"),
                                         "--spec", SPEC])
    assert with_spec.exit_code == 2 and "did you mean 'BigToSmall'?" in with_spec.output
    assert replay.exit_code == 2 and "did you mean 'BigToSmall'?" in replay.output


def test_the_good_trace_still_reads(tmp_path):
    show, html, explain, diff, replay = run_all(tmp_path, PRETTY)
    assert show.exit_code == 0 and "Step 6  BigToSmall" in show.output
    assert html.exit_code == 0 and explain.exit_code == 0 and diff.exit_code == 0
    assert replay.exit_code == 0


def test_trace_file_errors_are_usage_errors_with_a_code_and_a_place(tmp_path):
    path = tmp_path / "t.itf.json"
    path.write_text(with_big("2.5"), encoding="utf-8")
    with pytest.raises(UsageError) as info:
        read_itf(path)
    err = info.value
    assert isinstance(err, TraceFileError) and err.diagnostic.code == "MC3202"
    assert (err.diagnostic.span.line, err.diagnostic.span.col) == (BIG_LINE, 14)


def test_paths_and_places():
    text = '{"states": [{"x": 1}, {"x": [1, {"y": 7}]}]}'
    assert json_path(("states", 1, "x", 1, "y")) == "states[1].x[1].y"
    assert json_path(("states", 0, "a b")) == 'states[0]["a b"]'
    assert text[locate(text, ("states", 1, "x", 1, "y")):].startswith("7")
    assert locate(text, ("states", 5)) is None


def test_loads_refuses_lone_surrogates_and_bad_json():
    with pytest.raises(TraceFileError, match="MC1201.*surrogate"):
        loads_itf('{"states": ["\\ud800"]}', "t.json")
    with pytest.raises(TraceFileError, match="MC1201.*not valid JSON"):
        loads_itf('{"states": [', "t.json")
    assert loads_itf('{"states": [3.0]}', "t.json") == {"states": [3]}
