"""Traces from the table's parent tags (search/rebuild.py) when the walk
back is ambiguous: past its budget of tag lookups the levels are made again
from the initial states, guided by the tags, and the trace is read back
through them.  The traces have the shortest length, re-execute, and end
where the search's did, on 1-3 workers, with symmetry, constraints and the
sharded table; a deep trace over a large table (where the walk back used to
branch without end) arrives within the budget."""
from __future__ import annotations

import pytest

from modelcheck import api
from modelcheck.engines.base import CheckOptions, Status
from modelcheck.engines.compiled.kernel.table import FingerprintTable
from modelcheck.engines.compiled.search import kept_levels, rebuild
from modelcheck.engines.compiled.search.kept_levels import KeptLevel
from modelcheck.engines.reference.explorer import TRACE_CUT

from searches import outcome, run_search

pytest.importorskip("numba")


@pytest.fixture
def no_walk(monkeypatch):
    """A walk back with no budget: every trace comes from the levels made again."""
    monkeypatch.setattr(rebuild, "_LOOKUPS_A_STEP", 0)
    monkeypatch.setattr(rebuild, "_LOOKUPS_FLOOR", 0)


def _traces(result):
    return {p.name: p.trace.states for p in result.properties if p.trace}


@pytest.mark.parametrize("workers", [1, 2, 3])
def test_levels_made_again_give_the_walks_traces(workers, load, kernels, monkeypatch):
    consts = {"L": 40, "M": 2000, "BAD": 30}
    model = load("deep", **consts)
    kernels("deep", **consts)
    walked = run_search(model, workers)
    monkeypatch.setattr(rebuild, "_LOOKUPS_A_STEP", 0)
    monkeypatch.setattr(rebuild, "_LOOKUPS_FLOOR", 0)
    again = run_search(model, workers)
    assert outcome(again) == outcome(walked)
    bad = next(p for p in again.properties if p.name == "NotBad")
    assert bad.status is Status.VIOLATED and bad.steps == 30
    # every state stored once, so the path through the levels is the walk's
    assert _traces(again) == _traces(walked)


@pytest.mark.parametrize("workers", [1, 2])
def test_with_symmetry(workers, load, kernels, no_walk):
    model = load("sym_mutex", N=3)
    kernels("sym_mutex", symmetry=True, N=3)
    got = run_search(model, workers, symmetry=True)
    want = api.check(model, engine="reference", options=CheckOptions())
    assert {p.name: (p.status, p.steps) for p in got.properties} == \
        {p.name: (p.status, p.steps) for p in want.properties}
    assert any(p.status is Status.VIOLATED and p.trace for p in got.properties)


def test_with_constraints(load, kernels, no_walk):
    model = load("constrained_mutex")
    kernels("constrained_mutex")
    got = run_search(model, 1)
    want = api.check(model, engine="reference", options=CheckOptions(symmetry=False))
    assert {p.name: (p.status, p.steps) for p in got.properties} == \
        {p.name: (p.status, p.steps) for p in want.properties}


@pytest.mark.parametrize("workers", [2, 3])
def test_on_the_sharded_table(workers, load, kernels, no_walk):
    consts = {"L": 40, "M": 2000, "BAD": 30}
    model = load("deep", **consts)
    kernels("deep", **consts)
    got = api.check(model, engine="compiled",
                    options=CheckOptions(symmetry=False, exact=True, workers=workers,
                                         extra={"parallel_after_s": 0}))
    assert got.stats.extras["table"] == "shards"
    bad = next(p for p in got.properties if p.name == "NotBad")
    assert bad.status is Status.VIOLATED and bad.steps == 30


def test_a_deep_trace_over_a_large_table_stays_within_the_budget(load, kernels, monkeypatch):
    """Hanoi, 13 disks: 1,594,323 states, the witness 8,191 moves.  Tags of
    other entries come up on the way back, and each wrong turn walked the
    whole chain of its entry (which had wrong turns of its own): with 14
    disks that walk did not end.  Now it stops at its budget."""
    model = load("hanoi", N=13)   # specs/examples/hanoi.mc
    kernels("hanoi", N=13)
    lookups = []
    find_tag = FingerprintTable.find_tag

    def counted(self, tag, limit=64):
        lookups.append(tag)
        return find_tag(self, tag, limit)
    monkeypatch.setattr(FingerprintTable, "find_tag", counted)
    got = run_search(model, 1)
    assert got.stats.distinct_states == 3 ** 13
    solved = next(p for p in got.properties if p.name == "Solved")
    assert solved.status is Status.HOLDS and solved.steps == 2 ** 13 - 1
    assert len(lookups) <= rebuild._LOOKUPS_A_STEP * 2 ** 13 + rebuild._LOOKUPS_FLOOR + 1
    pegs = solved.trace.states[-1]["peg"]
    assert set(pegs.values()) == {2}


# ---------------------------------------------------------------- Ctrl-C in a rebuild

def _ctrl_c_at_rebuild(monkeypatch, nth: int = 1):
    """Ctrl-C as the ``nth`` trace's rebuild starts: the search's flag set,
    as its SIGINT/SIGTERM handler sets it (not a real signal: pytest-xdist's
    workers take SIGINT for themselves), and the rebuild must see it
    (cli/launch.py hands SIGTERM to the same handler)."""
    from modelcheck.engines.compiled.search.serial import CompiledSearch
    find = CompiledSearch._find
    calls = []

    def find_after_ctrl_c(self, q, initial):
        calls.append(q)
        if len(calls) == nth:
            self.interrupt[0] = True
        return find(self, q, initial)
    monkeypatch.setattr(CompiledSearch, "_find", find_after_ctrl_c)
    return calls


@pytest.mark.parametrize("workers", [1, 2])
def test_ctrl_c_in_the_final_rebuild_gives_unknown_never_holds(workers, load, kernels,
                                                                monkeypatch):
    """The search ends (it would call every unfound invariant HOLDS), then
    Ctrl-C comes while the violation's trace is rebuilt: that property is
    UNKNOWN, with the reason, never HOLDS and never VIOLATED without its
    trace; the search's counts and the other verdicts stand."""
    consts = {"L": 40, "M": 2000, "BAD": 30}
    model = load("deep", **consts)
    kernels("deep", **consts)
    whole = run_search(model, workers)
    _ctrl_c_at_rebuild(monkeypatch)
    cut = run_search(model, workers)
    by_name = {p.name: p for p in cut.properties}
    assert by_name["NotBad"].status is Status.UNKNOWN and by_name["NotBad"].trace is None
    assert by_name["NotBad"].reason == TRACE_CUT
    assert by_name["Bounded"].status is Status.HOLDS
    assert (cut.stats.distinct_states, cut.stats.depth) == \
        (whole.stats.distinct_states, whole.stats.depth)
    assert any("interrupted while traces were rebuilt" in n for n in cut.notes)


def test_ctrl_c_in_the_levels_made_again(load, kernels, monkeypatch, no_walk):
    """The same through the levels made again (the long rebuild of a deep
    trace over a large table), with a ``sometimes`` witness: UNKNOWN, not HOLDS."""
    model = load("hanoi", N=6)
    kernels("hanoi", N=6)
    _ctrl_c_at_rebuild(monkeypatch)
    got = run_search(model, 1)
    solved = next(p for p in got.properties if p.name == "Solved")
    assert solved.status is Status.UNKNOWN and solved.reason == TRACE_CUT


class _Seen:
    """A reporter that takes finds as they come (``found``), as the CLI's does."""

    def __init__(self):
        self.found_names, self.notes = [], []

    def progress(self, p) -> None:
        pass

    def note(self, message: str) -> None:
        self.notes.append(message)

    def found(self, result, open_names) -> None:
        self.found_names.append(result.name)


def test_ctrl_c_in_a_rebuild_mid_search_stops_the_search(load, kernels, monkeypatch):
    """A find handed to the reporter mid-search has its trace rebuilt at
    once; Ctrl-C then stops that rebuild and the search at its next safe
    point ("interrupted"), and the trace is not rebuilt a second time."""
    consts = {"L": 400, "M": 2000, "BAD": 30}
    model = load("deep", **consts)
    kernels("deep", **consts)
    calls = _ctrl_c_at_rebuild(monkeypatch)
    rep = _Seen()
    got = api.check(model, engine="compiled", reporter=rep,
                    options=CheckOptions(symmetry=False, extra={"cross_levels": False}))
    assert rep.found_names == []
    assert len(calls) == 1
    assert got.reason == "interrupted"
    assert got.stats.depth < 400
    by_name = {p.name: p for p in got.properties}
    assert by_name["NotBad"].status is Status.UNKNOWN and by_name["NotBad"].trace is None
    assert by_name["Bounded"].status is Status.UNKNOWN


def test_a_stop_asked_ends_every_kind_of_rebuild(kernels):
    """path_through_levels (the levels on disk) and trace_of raise
    RebuildInterrupted once ``stop`` says so, a KeyboardInterrupt to anyone
    who does not know it."""
    import numpy as np
    k = kernels("hanoi", N=4)
    initial = k.initial_states().view(np.int64)
    with pytest.raises(rebuild.RebuildInterrupted):
        kept_levels.path_through_levels(k, lambda n: KeptLevel((len(initial),), lambda b: initial),
                                        initial[0], 2, initial, lambda: True)
    with pytest.raises(rebuild.RebuildInterrupted):
        rebuild.trace_of(k, [(None, initial[0])], "witness", "Solved", lambda: True)
    assert issubclass(rebuild.RebuildInterrupted, KeyboardInterrupt)


# ---------------------------------------------------------------- the levels kept on disk

def test_the_parent_is_looked_for_near_its_place_first(kernels):
    """A level of 3,000 rows in blocks of 700: the window around the
    estimated place finds a parent after a few rows; without an estimate the
    first parent in order is found.  Each answer is a row with the target
    among its successors, at the index given."""
    import numpy as np
    k = kernels("deep", L=5, M=3000)
    level = k.initial_states().view(np.int64)           # i = 0, j = 0..2999
    blocks = [level[a:a + 700] for a in range(0, len(level), 700)]
    kept = KeptLevel(tuple(len(b) for b in blocks), lambda b: blocks[b])
    succ, _, _, _ = k.expand(level[2500:2501])
    target_row = succ[0].view(np.int64)
    target = (int(k.fingerprint(target_row)[0]), target_row)
    expanded = []
    expand = type(k).expand

    def counted(self, batch):
        expanded.append(len(batch))
        return expand(self, batch)
    try:
        type(k).expand = counted
        near_row, near_at = kept_levels._parent_in(k, kept, 1, target, 2500.5 / 3000, None)
        near_cost = sum(expanded)
        expanded.clear()
        first_row, first_at = kept_levels._parent_in(k, kept, 1, target, None, None)
    finally:
        type(k).expand = expand
    for row, at in ((near_row, near_at), (first_row, first_at)):
        assert np.array_equal(level[at], row)
        got, _, _, _ = k.expand(row[None, :])
        assert any(np.array_equal(s.view(np.int64), target_row) for s in got)
    assert near_cost <= 2 * kept_levels.FIRST_WINDOW
    assert first_at <= near_at       # the first in order, or the same row
