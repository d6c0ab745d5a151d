"""`modelcheck verdicts`: the table, the trace files, the exit code."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

EXAMPLES = "specs/examples/verdicts.toml"
ROOT = Path(__file__).resolve().parents[2]

MIXED = f'''
[[row]]
id = "ok-row"
spec = "{ROOT}/tests/cli/specs/limit.mc"
consts = {{ MAX = 3 }}
engine = "reference"
[[row.check]]
property = "BelowThree"
expect = "violated"
steps = 3
[[row.check]]
property = "AtMax"
expect = "holds"
steps = 3

[[row]]
id = "wrong-steps"
spec = "{ROOT}/tests/cli/specs/limit.mc"
description = "MAX = 3, but the expected length is wrong"
consts = {{ MAX = 3 }}
[[row.check]]
property = "BelowThree"
expect = "violated"
steps = 4

[[row]]
id = "big"
spec = "{ROOT}/specs/examples/two_phase.mc"
large = true
[[row.check]]
property = "Consistent"
expect = "holds"
'''


def _mixed(tmp_path: Path) -> str:
    path = tmp_path / "mixed.toml"
    path.write_text(MIXED)
    return str(path)


def test_example_verdicts_are_as_expected(mc, golden):
    run = mc("verdicts", EXAMPLES, "--engine", "reference", "--out", "OUT", "--jobs", "1")
    assert run.exit_code == 0
    golden.check("cli/verdicts_examples.txt", run.transcript())
    assert sorted(p.name for p in mc.out_dir.iterdir()) == [
        "DH-1-NotFour.itf.json", "DISRUPTOR-SPMC-UNFAIR-Liveliness.itf.json",
        "DISRUPTOR-SPMC-mutant1-Liveliness.itf.json", "EWD840-3-AllTerminate.itf.json",
        "EWD840-3-UNFAIR-Liveness.itf.json", "EWD840-3-mutant1-Liveness.itf.json",
        "HANOI-3-Solved.itf.json"]


def test_a_row_not_as_expected_exits_1(mc, tmp_path, golden):
    run = mc("verdicts", _mixed(tmp_path), "--engine", "reference", "--out", "OUT", "--jobs", "1")
    assert run.exit_code == 1
    golden.check("cli/verdicts_mixed.txt", run.transcript().replace(str(tmp_path), "<TMP>"))
    assert sorted(p.name for p in mc.out_dir.iterdir()) == [
        "ok-row-AtMax.itf.json", "ok-row-BelowThree.itf.json", "wrong-steps-BelowThree.itf.json"]


def test_only_picks_rows_and_may_name_a_large_one(mc, tmp_path):
    run = mc("verdicts", _mixed(tmp_path), "--only", "ok-row", "--only", "big",
             "--engine", "reference", "--json", "--out", "OUT")
    assert run.exit_code == 0
    rows = json.loads(run.stdout)
    assert [(r["id"], r["ok"]) for r in rows] == [("ok-row", True), ("big", True)]


def test_large_rows_run_with_large(mc, tmp_path):
    run = mc("verdicts", _mixed(tmp_path), "--large", "--engine", "reference", "--json",
             "--out", "OUT")
    assert [r["id"] for r in json.loads(run.stdout)] == ["ok-row", "wrong-steps", "big"]


def test_json_rows(mc, tmp_path):
    run = mc("verdicts", _mixed(tmp_path), "--engine", "reference", "--json", "--out", "OUT")
    assert run.exit_code == 1 and run.stderr == ""
    ok_row, wrong = json.loads(run.stdout)
    assert list(ok_row) == ["id", "file", "spec", "description", "engine", "consts", "ok",
                            "checks", "adequacy", "mutants", "expect_counts", "counts_ok", "distinct_states", "generated_states", "depth",
                            "elapsed_s", "complete", "reason", "error"]
    assert ok_row["checks"][0] == {
        "property": "BelowThree", "expect": "violated", "expect_steps": 3, "status": "violated",
        "steps": 3, "trace_file": "<OUT>/ok-row-BelowThree.itf.json", "reason": None, "ok": True}
    assert wrong["ok"] is False and wrong["checks"][0]["steps"] == 3
    assert wrong["checks"][0]["expect_steps"] == 4


def test_a_row_naming_an_unknown_property_fails_before_any_search(mc, tmp_path):
    path = tmp_path / "v.toml"
    path.write_text(MIXED.replace('property = "AtMax"', 'property = "AtMx"'))
    run = mc("verdicts", str(path), "--engine", "reference", "--out", "OUT")
    assert run.exit_code == 2 and run.stdout == ""
    assert "row 'ok-row': limit has no property 'AtMx'" in run.stderr
    assert "did you mean 'AtMax'?" in run.stderr
    assert not mc.out_dir.exists()


def test_a_mistake_in_the_file_exits_2_with_its_line(mc, tmp_path):
    path = tmp_path / "v.toml"
    path.write_text(MIXED.replace('expect = "violated"\nsteps = 4', 'expected = "violated"'))
    run = mc("verdicts", str(path))
    assert run.exit_code == 2
    assert run.stderr.startswith(f"error: {path}:23: row 'wrong-steps': unknown key 'expected' in [[row.check]]\n  23 | expected = \"violated\"\n")
    assert "hint: did you mean 'expect'?" in run.stderr


def test_a_bad_const_value_names_its_row(mc, tmp_path):
    path = tmp_path / "v.toml"
    path.write_text(MIXED.replace("consts = { MAX = 3 }\n[[row.check]]\nproperty = \"BelowThree\"\n"
                                  "expect = \"violated\"\nsteps = 4",
                                  "consts = { MAX = 9 }\n[[row.check]]\nproperty = \"BelowThree\"\n"
                                  "expect = \"violated\"\nsteps = 4"))
    run = mc("verdicts", str(path), "--out", "OUT")
    assert run.exit_code == 2 and run.stdout == ""
    assert run.stderr.startswith(f"error: {path}: row 'wrong-steps': -D MAX=9: 9 is outside 1..5")
    assert not mc.out_dir.exists()


COUNTS = f'''
[[row]]
id = "right-counts"
spec = "{ROOT}/tests/cli/specs/limit.mc"
consts = {{ MAX = 3 }}
counts = {{ distinct = 4, generated = 4, depth = 4 }}
[[row.check]]
property = "AtMax"
expect = "holds"

[[row]]
id = "wrong-counts"
spec = "{ROOT}/tests/cli/specs/limit.mc"
consts = {{ MAX = 3 }}
counts = {{ distinct = 5 }}
[[row.check]]
property = "AtMax"
expect = "holds"
'''


def test_a_row_checks_its_counts(mc, tmp_path):
    path = tmp_path / "counts.toml"
    path.write_text(COUNTS)
    run = mc("verdicts", str(path), "--engine", "reference", "--json", "--out", "OUT")
    assert run.exit_code == 1
    right, wrong = json.loads(run.stdout)
    assert right["ok"] and right["counts_ok"]
    assert right["expect_counts"] == {"distinct": 4, "generated": 4, "depth": 4}
    # every verdict as expected, but 4 distinct states where the row says 5
    assert all(c["ok"] for c in wrong["checks"])
    assert not wrong["ok"] and not wrong["counts_ok"] and wrong["distinct_states"] == 4
    table = mc("verdicts", str(path), "--engine", "reference", "--out", "OUT")
    assert table.exit_code == 1
    line = next(l for l in table.stdout.splitlines() if "distinct states" in l and "✗" in l)
    assert [cell.strip() for cell in line.split("│")][4:6] == ["5", "4"]
    assert "1 of 2 rows not as expected: wrong-counts" in table.stdout


@pytest.mark.parametrize("flag, started", [(None, True), ("--no-compile-after", False)])
def test_rows_answered_without_a_kernel_get_one_compiled_after_the_run(mc, tmp_path, monkeypatch,
                                                                       flag, started):
    """The rows (and mutants) that the default engine answered on the
    reference explorer, with no kernel compiled, are handed to one
    background compile once the table is out; --no-compile-after (or
    MODELCHECK_COMPILE_AFTER=0, as in this suite) leaves them."""
    from modelcheck.engines import auto
    from modelcheck.engines.compiled.cache import background
    monkeypatch.setattr(auto, "LOOK_AFTER_S", 0.0)
    monkeypatch.setenv("MODELCHECK_COMPILE_AFTER", "1")
    monkeypatch.setenv("MODELCHECK_CACHE", str(tmp_path / "cache"))
    asked: list = []

    class Started:
        pid = 4242

    def compile_after_run(configs):
        asked.extend(configs)
        return Started()
    monkeypatch.setattr(background, "compile_after_run", compile_after_run)
    run = mc("verdicts", EXAMPLES, "--only", "EWD840-3", "--jobs", "1", "--out", "OUT",
             *([flag] if flag else []))
    assert run.exit_code == 0, run.stderr
    line = ("compiling the kernels of 2 configurations in the background for the next run "
            "(process 4242; --no-compile-after: not)")
    assert (line in run.stderr) is started
    if started:
        # The row and its mutant, each with the options it ran with.
        assert [m.name for m, _ in asked] == ["ewd840", "ewd840"]
        assert asked[0][1].invariants == ("TerminationDetection", "Inv", "Liveness",
                                          "AllTerminate")
        assert {name: value for name, _, value in asked[1][0].consts}["Fair"] is False
    else:
        assert asked == []
