"""A search ends once every property it checks is settled (docs/cli.md,
"When the search ends"), at the end of the level that settled the last one,
on every explicit engine alike; ``stop_on_first`` (``--stop-at-first``) ends
it at the first violation; a find made while the search goes on is handed to
``Reporter.found``."""
from __future__ import annotations

from pathlib import Path

import pytest

from modelcheck import api
from modelcheck.engines.base import CheckOptions, Status

DIE_HARD = "specs/examples/die_hard.mc"
ROOT = Path(__file__).resolve().parents[2]
ENGINES = ["reference", "compiled", "spark"]


class Recorder:
    def __init__(self) -> None:
        self.finds: list[tuple[str, int | None, tuple[str, ...]]] = []
        self.notes: list[str] = []

    def progress(self, progress) -> None:
        pass

    def note(self, message: str) -> None:
        self.notes.append(message)


class FoundRecorder(Recorder):
    def found(self, result, open_names) -> None:
        self.finds.append((result.name, result.steps, open_names))


def figures(result):
    s = result.stats
    return (s.distinct_states, s.generated_states, s.depth,
            [(p.name, p.status, p.steps) for p in result.properties])


@pytest.fixture(scope="module")
def die_hard():
    return api.load(ROOT / DIE_HARD)


@pytest.mark.parametrize("engine", ENGINES)
def test_the_search_ends_at_the_level_that_settles_the_last_property(die_hard, engine):
    result = api.check(die_hard, engine=engine, options=CheckOptions(deadlock=False))
    # NotFour fails in 6 steps: the search stops with level 7 stored, not expanded
    assert figures(result) == (14, 73, 7, [("NotFour", Status.VIOLATED, 6)])
    assert result.complete and result.exit_code == 1
    assert any("every property checked is settled" in n for n in result.notes)


@pytest.mark.parametrize("engine", ENGINES)
def test_an_open_property_keeps_the_search_going(die_hard, engine):
    result = api.check(die_hard, engine=engine, options=CheckOptions())
    assert figures(result)[:3] == (16, 97, 8)
    full = api.check(die_hard, engine=engine,
                     options=CheckOptions(deadlock=False, stop_when_settled=False))
    assert figures(full) == (16, 97, 8, [("NotFour", Status.VIOLATED, 6)])
    assert not any("settled" in n for n in full.notes)


@pytest.mark.parametrize("engine", ["reference", "compiled"])
def test_a_find_is_reported_while_the_search_goes_on(die_hard, engine):
    rec = FoundRecorder()
    api.check(die_hard, engine=engine, options=CheckOptions(), reporter=rec)
    assert rec.finds == [("NotFour", 6, ("deadlock",))]
    # nothing is handed over when nothing is left open, nor with stop_on_first
    for options in (CheckOptions(deadlock=False), CheckOptions(stop_on_first=True)):
        rec = FoundRecorder()
        api.check(die_hard, engine=engine, options=options, reporter=rec)
        assert rec.finds == []


@pytest.mark.parametrize("engine", ENGINES)
def test_stop_on_first_leaves_the_others_unknown(die_hard, engine):
    result = api.check(die_hard, engine=engine, options=CheckOptions(stop_on_first=True))
    statuses = {p.name: p.status for p in result.properties}
    assert statuses == {"NotFour": Status.VIOLATED, "deadlock": Status.UNKNOWN}
    assert "stop_on_first" in result.get_property("deadlock").reason


@pytest.mark.parametrize("engine", ENGINES)
def test_stop_on_first_reports_tlcs_depth(die_hard, engine):
    # TLC 2.x on Lamport's DieHard.tla (its invariant NotSolved, -workers 1):
    # "73 states generated, 14 distinct states found, 1 states left on queue.
    # The depth of the complete state graph search is 7." The violation is
    # stored at level 7 and counted among the distinct states, so the depth
    # is 7, as where the search ends once every property is settled (above).
    result = api.check(die_hard, engine=engine, options=CheckOptions(stop_on_first=True))
    assert figures(result)[:3] == (14, 73, 7)


FIRST_OF_THREE = """
module first_of_three
var x: 0..30 = 0
action Next() {
    either { x := x + 1 } or { x := x + 10 } or { x := x + 20 }
}
constraint Small: x < 10
invariant NotOne: x != 1
"""


@pytest.mark.parametrize("engine", ["reference", "compiled"])
def test_stop_on_first_counts_the_successors_up_to_the_violation(engine):
    # TLC 2.x on the same model (Next == x' = x + 1 \/ x' = x + 10 \/ x' = x + 20,
    # CONSTRAINT x < 10, INVARIANT x # 1): "2 states generated, 2 distinct
    # states found", depth 2: the violation is the first successor of the
    # initial state, and the two after it are not generated.
    model = api.load_source(FIRST_OF_THREE, "first_of_three.mc")
    result = api.check(model, engine=engine, options=CheckOptions(stop_on_first=True))
    assert figures(result) == (2, 2, 2, [("NotOne", Status.VIOLATED, 1),
                                         ("deadlock", Status.UNKNOWN, None)])
    assert result.stats.action_counts == {"Next": 1}


def test_stop_at_first_on_the_command_line(mc, golden):
    run = mc("check", DIE_HARD, "--engine", "reference", "--stop-at-first", "-q", "--out", "OUT")
    assert run.exit_code == 1
    golden.check("cli/check_stop_at_first.txt", run.transcript())


def test_a_find_is_written_the_moment_it_is_found(mc):
    run = mc("check", DIE_HARD, "--engine", "reference", "-q", "--out", "OUT")
    assert run.exit_code == 1
    assert ("found: NotFour violated in 6 steps, written to <OUT>/die_hard-NotFour-" in run.stderr)
    assert "the search goes on because deadlock is still open" in run.stderr
    # written once: the summary names the same file
    assert len(list(mc.out_dir.glob("die_hard-NotFour-*.itf.json"))) == 1


def test_verdict_rows_with_counts_search_every_state():
    from modelcheck.cli.verdict_file import Expectation, Row
    from modelcheck.cli.verdict_rows import row_options
    model = api.load(ROOT / DIE_HARD)
    base = dict(id="r", file="f.toml", spec=DIE_HARD, description="", consts={},
                checks=(Expectation("NotFour", Status.VIOLATED),), no_deadlock=True)
    assert row_options(Row(**base), model).stop_when_settled
    counted = Row(**base, counts=(("distinct", 16),))
    assert not row_options(counted, model).stop_when_settled
    assert row_options(Row(**base, stop_at_first=True), model).stop_on_first
