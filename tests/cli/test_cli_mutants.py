"""Mutant rows: a HOLDS row's bounds with one safety mechanism switched off
must be violated.  `modelcheck verdicts` runs them and reports each HOLDS
row's adequacy; a mutant that holds is a warning, not a failure.  Tiny specs
only (limit.mc counts up to MAX; BelowThree fails once MAX reaches 3)."""
from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console

from modelcheck.cli.mutants import (NO_MUTANT, NOT_RUN, SHOWN, TOO_SMALL, adequacy,
                                    check_mutant, held_properties, load_mutant)
from modelcheck.cli.verdict_file import read_verdict_file
from modelcheck.cli.verdicts import load_row
from modelcheck.errors import UsageError

ROOT = Path(__file__).resolve().parents[2]
LIMIT = f"{ROOT}/tests/cli/specs/limit.mc"

ROWS = f'''
[[row]]
id = "shown"
spec = "{LIMIT}"
description = "MAX = 2, a mutant that fails and one that holds"
consts = {{ MAX = 2 }}
engine = "reference"
[[row.check]]
property = "BelowThree"
expect = "holds"
[[row.check]]
property = "AtMax"
expect = "holds"
steps = 2
[[row.mutant]]
removes = "the cap at 2"
consts = {{ MAX = 3 }}
property = "BelowThree"
steps = 3
[[row.mutant]]
removes = "a lower cap"
consts = {{ MAX = 1 }}

[[row]]
id = "too-small"
spec = "{LIMIT}"
consts = {{ MAX = 1 }}
engine = "reference"
[[row.check]]
property = "BelowThree"
expect = "holds"
[[row.mutant]]
removes = "the cap at 1"
consts = {{ MAX = 2 }}

[[row]]
id = "bare"
spec = "{LIMIT}"
engine = "reference"
[[row.check]]
property = "BelowThree"
expect = "holds"

[[row]]
id = "witness"
spec = "{LIMIT}"
engine = "reference"
[[row.check]]
property = "AtMax"
expect = "holds"
steps = 2
'''


def _file(tmp_path: Path, text: str = ROWS) -> str:
    path = tmp_path / "mutants.toml"
    path.write_text(text)
    return str(path)


def _run_mutants(tmp_path: Path, row):
    model = load_row(row)
    held = held_properties(row, model)
    quiet = Console(file=io.StringIO())
    return held, [check_mutant(row, m, held, load_mutant(row, m, held), "reference",
                               str(tmp_path / "out"), quiet, m.name(row.id), False)
                  for m in row.mutants]


def test_a_failing_mutant_shows_the_bounds_adequate(tmp_path):
    row = read_verdict_file(_file(tmp_path))[0]
    held, (cap, lower) = _run_mutants(tmp_path, row)
    assert held == ("BelowThree",)           # AtMax is a `sometimes`: a witness, no claim
    assert cap.shown and cap.ok and [p.name for p in cap.violated] == ["BelowThree"]
    assert cap.violated[0].steps == 3
    assert not lower.shown and lower.ok      # holds: a warning, not a failure
    assert adequacy(row, held, [cap, lower]) == SHOWN
    assert (tmp_path / "out" / "shown-mutant1-BelowThree.itf.json").exists()


def test_a_row_whose_mutants_all_hold_is_too_small(tmp_path):
    row = read_verdict_file(_file(tmp_path))[1]
    held, done = _run_mutants(tmp_path, row)
    assert [m.shown for m in done] == [False]
    assert adequacy(row, held, done) == TOO_SMALL


def test_adequacy_of_rows_without_mutants_or_without_claims(tmp_path):
    rows = read_verdict_file(_file(tmp_path))
    bare, witness = rows[2], rows[3]
    assert adequacy(bare, held_properties(bare, load_row(bare)), []) == NO_MUTANT
    assert adequacy(witness, held_properties(witness, load_row(witness)), []) is None
    assert adequacy(rows[0], ("BelowThree",), None) == NOT_RUN


def test_a_wrong_trace_length_fails_the_mutant(tmp_path):
    row = read_verdict_file(_file(tmp_path, ROWS.replace("steps = 3", "steps = 4")))[0]
    _, (cap, _) = _run_mutants(tmp_path, row)
    assert cap.shown and not cap.steps_ok and not cap.ok


@pytest.mark.parametrize("consts, message, hint", [
    ("{ MAXX = 3 }", "-D MAXX: the spec has no constant 'MAXX'", "the spec's constants are: MAX"),
    ('{ MAX = "three" }', "-D MAX=three: expected an integer in 1..5", None),
    ("{ MAX = 9 }", "-D MAX=9: 9 is outside 1..5", None),
])
def test_a_bad_mutant_const_points_at_its_line(tmp_path, consts, message, hint):
    path = _file(tmp_path, ROWS.replace("consts = { MAX = 3 }", f"consts = {consts}", 1))
    row = read_verdict_file(path)[0]
    with pytest.raises(UsageError) as err:
        load_mutant(row, row.mutants[0], ("BelowThree",))
    text = str(err.value)
    assert text.startswith(f"{path}:17: row 'shown': mutant 1: {message}"), text
    assert text.endswith(f"\n  17 | consts = {consts}")
    if hint:
        assert hint in err.value.hint


def test_a_mutant_of_a_row_holding_only_witnesses_is_refused(tmp_path):
    text = ROWS + '[[row.mutant]]\nremoves = "x"\nconsts = { MAX = 3 }\n'
    row = read_verdict_file(_file(tmp_path, text))[3]
    with pytest.raises(UsageError, match="mutant 1: every property the row expects to hold "
                                         "is a `sometimes`"):
        load_mutant(row, row.mutants[0], held_properties(row, load_row(row)))


def test_the_table_gives_adequacy_and_warns(mc, tmp_path, golden):
    run = mc("verdicts", _file(tmp_path), "--out", "OUT", "--jobs", "1")
    assert run.exit_code == 0                # warnings do not fail the run
    golden.check("cli/verdicts_mutants.txt", run.transcript().replace(str(tmp_path), "<TMP>"))


def test_json_gives_adequacy_and_each_mutant(mc, tmp_path):
    run = mc("verdicts", _file(tmp_path), "--json", "--out", "OUT")
    assert run.exit_code == 0 and run.stderr == ""
    shown, small, bare, witness = json.loads(run.stdout)
    assert [r["adequacy"] for r in (shown, small, bare, witness)] == \
        ["shown", "too_small", "no_mutant", None]
    assert bare["mutants"] == [] and witness["mutants"] == []
    assert shown["mutants"][0] == {
        "name": "shown-mutant1", "removes": "the cap at 2", "consts": {"MAX": "3"},
        "property": "BelowThree", "expect_steps": 3, "shown": True, "ok": True,
        "violated": ["BelowThree"], "steps": 3,
        "trace_file": "<OUT>/shown-mutant1-BelowThree.itf.json",
        "distinct_states": 4, "elapsed_s": shown["mutants"][0]["elapsed_s"],
        "complete": True, "reason": None, "error": None}
    assert small["mutants"][0]["shown"] is False and small["ok"] is True


def test_no_mutants_skips_them(mc, tmp_path):
    run = mc("verdicts", _file(tmp_path), "--no-mutants", "--json", "--out", "OUT")
    rows = json.loads(run.stdout)
    assert [r["adequacy"] for r in rows] == ["not_run", "not_run", "no_mutant", None]
    assert rows[0]["mutants"] is None


def test_a_mutant_with_a_wrong_length_fails_the_run(mc, tmp_path):
    run = mc("verdicts", _file(tmp_path, ROWS.replace("steps = 3", "steps = 4")), "--out", "OUT")
    assert run.exit_code == 1
    assert "1 of 4 rows not as expected: shown" in run.stdout
