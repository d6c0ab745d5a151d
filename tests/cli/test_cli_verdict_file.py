"""Reading and validating verdict files (the rows of `modelcheck verdicts`)."""
from __future__ import annotations

from pathlib import Path

import pytest

from modelcheck.cli.verdict_file import read_verdict_file, select_rows
from modelcheck.engines.base import Status
from modelcheck.errors import UsageError

GOOD = '''
[[row]]
id = "A-1"
spec = "a.mc"
description = "first"
consts = { N = 3, flag = true, ha-mode = "all" }
engine = "reference"
no_deadlock = true
max_states = 50
timeout = 2.5
[[row.check]]
property = "Safe"
expect = "violated"
steps = 4
[[row.check]]
property = "Reach"
expect = "holds"

[[row]]
id = "A-2"
spec = "sub/b.mc"
large = true
[[row.check]]
property = "deadlock"
expect = "unknown"
'''


def _write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "v.toml"
    path.write_text(text)
    return str(path)


def test_rows_are_read_with_paths_relative_to_the_file(tmp_path):
    rows = read_verdict_file(_write(tmp_path, GOOD))
    a, b = rows
    assert a.id == "A-1" and a.spec == str(tmp_path / "a.mc") and a.description == "first"
    # const values become text as -D would give them; '-' in names reads as '_'
    assert a.consts == {"N": "3", "flag": "true", "ha_mode": "all"}
    assert (a.engine, a.no_deadlock, a.large, a.max_states, a.timeout) == \
        ("reference", True, False, 50, 2.5)
    assert [(c.property, c.expect, c.steps) for c in a.checks] == \
        [("Safe", Status.VIOLATED, 4), ("Reach", Status.HOLDS, None)]
    assert a.line == 3
    assert b.spec == str(tmp_path / "sub" / "b.mc") and b.large and b.engine is None


def test_large_rows_run_only_with_large_or_when_named(tmp_path):
    rows = read_verdict_file(_write(tmp_path, GOOD))
    chosen, skipped = select_rows(rows, (), large=False)
    assert [r.id for r in chosen] == ["A-1"] and [r.id for r in skipped] == ["A-2"]
    chosen, skipped = select_rows(rows, (), large=True)
    assert [r.id for r in chosen] == ["A-1", "A-2"] and skipped == []
    chosen, _ = select_rows(rows, ("A-2",), large=False)
    assert [r.id for r in chosen] == ["A-2"]


def test_only_with_an_unknown_id_suggests_one(tmp_path):
    rows = read_verdict_file(_write(tmp_path, GOOD))
    with pytest.raises(UsageError) as err:
        select_rows(rows, ("A1",), large=False)
    assert err.value.hint == "did you mean 'A-1'?"


def test_duplicate_ids_across_files_are_refused(tmp_path):
    rows = read_verdict_file(_write(tmp_path, GOOD))
    with pytest.raises(UsageError, match="appears twice"):
        select_rows(rows + rows[:1], (), large=False)


@pytest.mark.parametrize("edit, line, message, hint", [
    (('expect = "violated"', 'expect = "violatd"'), 13, "'expect' must be one of",
     "did you mean 'violated'?"),
    (('no_deadlock = true', 'no_dedlock = true'), 8, "unknown key 'no_dedlock'",
     "did you mean 'no_deadlock'?"),
    (('steps = 4', 'step = 4'), 14, "unknown key 'step' in [[row.check]]", "did you mean 'steps'?"),
    (('steps = 4', 'steps = "4"'), 14, "'steps' must be a number of steps, not '4'", None),
    (('engine = "reference"', 'engine = "referenc"'), 7, "unknown engine",
     "did you mean 'reference'?"),
    (('max_states = 50', 'max_states = true'), 9, "'max_states' must be a number", None),
    (('spec = "a.mc"', 'spek = "a.mc"'), 4, "unknown key 'spek'", "did you mean 'spec'?"),
    (('expect = "holds"', 'expect = "hold"'), 17, "'expect' must be one of",
     "did you mean 'holds'?"),
])
def test_mistakes_point_at_the_line_and_suggest_the_fix(tmp_path, edit, line, message, hint):
    path = _write(tmp_path, GOOD.replace(*edit, 1))
    with pytest.raises(UsageError) as err:
        read_verdict_file(path)
    text = str(err.value)
    assert text.startswith(f"{path}:{line}: row 'A-1': {message}")
    # the line itself is quoted under the message
    assert text.endswith(f"\n  {line} | {edit[1]}")
    assert err.value.hint == hint


def test_counts_are_read_in_their_order_and_checked(tmp_path):
    text = GOOD.replace("timeout = 2.5", "timeout = 2.5\ncounts = { depth = 9, distinct = 25 }", 1)
    a, b = read_verdict_file(_write(tmp_path, text))
    assert a.counts == (("distinct", 25), ("depth", 9)) and b.counts == ()
    for bad, message, hint in [("{ distinc = 25 }", "unknown count 'distinc'", "did you mean 'distinct'?"),
                               ("{ depth = -1 }", "count 'depth' must be a number, 0 or more", None),
                               ("{ depth = true }", "count 'depth' must be a number, 0 or more", None),
                               ("25", "'counts' must be a table", None)]:
        path = _write(tmp_path, GOOD.replace("timeout = 2.5", f"timeout = 2.5\ncounts = {bad}", 1))
        with pytest.raises(UsageError) as err:
            read_verdict_file(path)
        assert message in str(err.value) and err.value.hint == hint


def test_a_row_without_checks_is_refused(tmp_path):
    path = _write(tmp_path, '[[row]]\nid = "X"\nspec = "x.mc"\n')
    with pytest.raises(UsageError, match=r"row 'X': needs at least one \[\[row.check\]\]"):
        read_verdict_file(path)


def test_deadlock_check_with_no_deadlock_is_contradictory(tmp_path):
    path = _write(tmp_path, GOOD.replace('property = "Safe"', 'property = "deadlock"'))
    with pytest.raises(UsageError, match="checks 'deadlock' but sets no_deadlock"):
        read_verdict_file(path)


def test_invalid_toml_names_the_file(tmp_path):
    path = _write(tmp_path, "[[row]\n")
    with pytest.raises(UsageError, match="not valid TOML"):
        read_verdict_file(path)


def test_a_file_without_rows_is_refused(tmp_path):
    with pytest.raises(UsageError, match=r"no \[\[row\]\] tables"):
        read_verdict_file(_write(tmp_path, "title = 'x'\n"))


def test_the_example_verdict_file_is_valid(repo_root):
    rows = read_verdict_file(str(repo_root / "specs" / "examples" / "verdicts.toml"))
    assert [r.id for r in rows] == ["DH-1", "TP-3", "TP-5", "RAFT-2-1-1", "RAFT-2-0-2",
                                    "RAFT-2-0-1", "RAFT-S2", "PAXOS-1", "PAXOS-2", "EWD840-3",
                                    "EWD840-3-UNFAIR", "DISRUPTOR-SPMC",
                                    "DISRUPTOR-SPMC-UNFAIR", "HANOI-3", "HANOI-19"]
    assert rows[0].checks[0].steps == 6
    # TLC's figures for raft.tla, 3 servers (issue 11)
    assert dict(rows[3].counts) == {"distinct": 2379781, "generated": 28169044, "depth": 53}


MUTANTS = '''
[[row]]
id = "H-1"
spec = "a.mc"
consts = { N = 2, mode = "safe" }
[[row.check]]
property = "Safe"
expect = "holds"
[[row.check]]
property = "Bad"
expect = "violated"
[[row.mutant]]
removes = "the safe mode"
consts = { mode = "unsafe" }
property = "Safe"
steps = 5
[[row.mutant]]
removes = "a guard"
consts = { guard = false, N = 3 }

[[row]]
id = "V-1"
spec = "a.mc"
[[row.check]]
property = "Bad"
expect = "violated"
'''


def test_mutants_are_read_with_their_consts_over_the_rows(tmp_path):
    h, v = read_verdict_file(_write(tmp_path, MUTANTS))
    assert h.holds_names == ("Safe",) and v.holds_names == () and v.mutants == ()
    first, second = h.mutants
    assert (first.index, first.removes, first.consts, first.property, first.steps, first.line) == \
        (1, "the safe mode", {"mode": "unsafe"}, "Safe", 5, 14)
    assert (second.index, second.consts, second.property, second.steps, second.line) == \
        (2, {"guard": "false", "N": "3"}, None, None, 19)
    assert second.name("H-1") == "H-1-mutant2"


@pytest.mark.parametrize("edit, line, message, hint", [
    (('removes = "a guard"', 'remove = "a guard"'), 18, "mutant 2: unknown key 'remove' in [[row.mutant]]",
     "did you mean 'removes'?"),
    (('removes = "a guard"\n', ''), 17, "mutant 2: needs 'removes'", None),
    (('consts = { mode = "unsafe" }', 'consts = { mode = "safe" }'), 14,
     "mutant 1: its consts are the row's own: it switches nothing off", None),
    (('consts = { mode = "unsafe" }', 'consts = { mode = 1.5 }'), 14,
     "mutant 1: const 'mode' must be a number, true or false, or a name, not 1.5", None),
    (('consts = { mode = "unsafe" }', 'consts = { mode = ["a"] }'), 14,
     "mutant 1: const 'mode' must be a number", None),
    (('property = "Safe"\nsteps = 5', 'property = "Bad"'), 15,
     "mutant 1: property 'Bad' is not one the row expects to hold", "the row holds: Safe"),
    (('property = "Safe"\nsteps = 5', 'property = "Saf"'), 15,
     "mutant 1: property 'Saf' is not one the row expects to hold", "did you mean 'Safe'?"),
    (('property = "Safe"\nsteps = 5', 'steps = 5'), 15,
     "mutant 1: 'steps' needs 'property'", None),
    (('steps = 5', 'steps = "5"'), 16, "'steps' must be a number of steps, not '5'", None),
])
def test_mutant_mistakes_point_at_their_line(tmp_path, edit, line, message, hint):
    path = _write(tmp_path, MUTANTS.replace(*edit, 1))
    with pytest.raises(UsageError) as err:
        read_verdict_file(path)
    text = str(err.value)
    assert text.startswith(f"{path}:{line}: row 'H-1': {message}"), text
    assert err.value.hint == hint


def test_a_mutant_on_a_row_that_holds_nothing_is_refused(tmp_path):
    text = MUTANTS + '[[row.mutant]]\nremoves = "x"\nconsts = { N = 1 }\n'
    path = _write(tmp_path, text)
    with pytest.raises(UsageError) as err:
        read_verdict_file(path)
    assert str(err.value).startswith(
        f"{path}:27: row 'V-1': mutant 1: the row expects no property to hold")
    assert err.value.hint.startswith("a mutant belongs to a row with a check")
