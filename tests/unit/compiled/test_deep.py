"""Deep, narrow searches: explore_chunk runs level after level in one call
while the levels are narrow (search/serial.py, ``_crossing``), and the
figures, verdicts, shortest traces, bounds and checkpoints stay those of the
reference explorer and of the search one level a call."""
from __future__ import annotations

import pytest

from modelcheck import api
from modelcheck.engines.base import CheckOptions, Status

from interrupts import InterruptAt

pytest.importorskip("numba")

#: One state per level; a constraint cuts the walk at C (states past it are
#: generated, checked and dropped), an invariant fails at depth BAD + 1.
_CONSTRAINED = """module deep_cons
const L: 1..100000 = 3000
const C: 0..100000 = 2500
const BAD: 0..100001 = 100001
var i: 0..100000 = 0
var j: 0..2 = 0
action Step() { require i < L
  i := i + 1
  j := (j + 1) % 3 }
action Back() { require i > 0 and j == 0
  i := i - 1 }
constraint Below: i <= C
invariant NotBad: i != BAD
"""

#: Narrow and deep under symmetry: which processes joined, up to renaming.
_SYMMETRIC = """module deep_sym
const L: 1..100000 = 2000
symmetric type P = model(3)
var i: 0..100000 = 0
var who: set[P] = {}
action Join(p: P) { require i < L and not (p in who)
  who := who | {p}
  i := i + 1 }
action Leave(p: P) { require i < L and p in who
  who := who - {p}
  i := i + 1 }
invariant Few: len(who) <= 3
"""

#: One wide level (W initial states), then a narrow tail: a search that goes
#: parallel at the wide level runs the tail on one core again.
_FUNNEL = """module funnel
const L: 1..100000 = 3000
const W: 1..10000 = 6000
var i: 0..100000 = 0
var x: 0..9999 in 0..W - 1
action Step() { require i < L
  i := i + 1
  x := 0 }
invariant Bounded: i <= L
"""


def _result(r):
    traces = {p.name: (p.status, p.steps,
                       None if p.trace is None else [(s.action, s.params, s.state)
                                                     for s in p.trace.steps])
              for p in r.properties}
    return (r.stats.distinct_states, r.stats.generated_states, r.stats.depth, r.reason,
            r.stats.action_counts, traces, r.exit_code)


def _summary(r):
    """What the reference explorer and the compiled engine share (the
    reference counts the steps of a trace, not its states)."""
    return (r.stats.distinct_states, r.stats.generated_states, r.stats.depth, r.reason,
            {p.name: (p.status, p.steps) for p in r.properties}, r.stats.action_counts,
            r.exit_code)


def _compiled(model, workers=1, extra=None, **options):
    return api.check(model, engine="compiled",
                     options=CheckOptions(workers=workers, extra=dict(extra or {}), **options))


def _reference(model, **options):
    return api.check(model, engine="reference", options=CheckOptions(**options))


@pytest.mark.parametrize("consts", [{"L": 3000}, {"L": 400, "M": 7}, {"L": 60, "M": 150}],
                         ids=str)
def test_deep_levels_count_as_the_reference(consts, load, kernels):
    model = load("deep", **consts)
    kernels("deep", **consts)
    ref = _reference(model, deadlock=False)
    got = _compiled(model, deadlock=False)
    assert _summary(got) == _summary(ref)
    assert got.stats.depth == consts["L"] + 1
    # one level a call: the same search, call by call
    assert _result(_compiled(model, deadlock=False, extra={"cross_levels": False})) == \
        _result(got)


def test_deadlock_at_the_last_level_of_a_deep_run(load, kernels):
    model = load("deep", L=2000)
    kernels("deep", L=2000)
    ref, got = _reference(model), _compiled(model)
    assert _summary(got) == _summary(ref)
    dead = {p.name: p for p in got.properties}["deadlock"]
    assert dead.status is Status.VIOLATED and dead.steps == 2000
    assert len(dead.trace.steps) == 2001


@pytest.mark.parametrize("width", [1, 3])
def test_a_violation_at_depth_5000_has_a_trace_of_that_length(width, load, kernels):
    consts = {"L": 8000, "M": width, "BAD": 4999}
    model = load("deep", **consts)
    kernels("deep", **consts)
    ref = _reference(model, deadlock=False)
    got = _compiled(model, deadlock=False)
    assert _summary(got) == _summary(ref)
    bad = {p.name: p for p in got.properties}["NotBad"]
    assert bad.status is Status.VIOLATED
    # found at depth 5,000 (initial states are depth 1): 4,999 steps, the
    # shortest there is, to the state with i = 4,999
    assert bad.steps == 4999 and len(bad.trace.steps) == 5000
    assert bad.trace.steps[-1].state["i"] == 4999
    want = {p.name: p for p in ref.properties}["NotBad"].trace
    assert [s.state for s in bad.trace.steps] == [s.state for s in want.steps]
    # the search ends at the level that settled every property
    stop = _compiled(model, deadlock=False, stop_on_first=True)
    assert _summary(stop) == _summary(_reference(model, deadlock=False, stop_on_first=True))


@pytest.mark.parametrize("options", [{"max_states": 2345}, {"max_depth": 1234},
                                     {"max_depth": 1}, {"max_depth": 2}], ids=str)
def test_bounds_in_the_middle_of_a_deep_run(options, load, kernels):
    model = load("deep", L=5000, M=2)
    kernels("deep", L=5000, M=2)
    ref = _reference(model, deadlock=False, **options)
    got = _compiled(model, deadlock=False, **options)
    assert _summary(got) == _summary(ref)
    assert got.reason is not None and got.exit_code == 3
    for workers in (2, 3):
        assert _result(_compiled(model, workers, deadlock=False, **options)) == _result(got)


@pytest.mark.parametrize("consts", [{}, {"BAD": 1700}, {"C": 3000, "BAD": 2999}], ids=str)
def test_constraints_on_a_deep_run(consts, kernels):
    model = api.load_source(_CONSTRAINED, path="deep_cons.mc", consts=consts)
    ref = _reference(model, deadlock=False)
    got = _compiled(model, deadlock=False)
    assert _summary(got) == _summary(ref)
    for p, q in zip(got.properties, ref.properties):
        if p.trace is not None:
            assert [s.state for s in p.trace.steps] == [s.state for s in q.trace.steps]


def test_symmetry_on_a_deep_run():
    model = api.load_source(_SYMMETRIC, path="deep_sym.mc")
    ref = _reference(model, deadlock=False)
    got = _compiled(model, deadlock=False)
    assert _summary(got) == _summary(ref)
    assert got.stats.depth == 2001 and got.stats.extras["symmetry"] == ["P"]
    plain = _compiled(model, deadlock=False, symmetry=False)
    assert _summary(plain) == _summary(_reference(model, deadlock=False, symmetry=False))
    assert plain.stats.distinct_states > got.stats.distinct_states


def test_progress_follows_the_levels_run_in_one_call(load, kernels, monkeypatch):
    import modelcheck.engines.compiled.search.serial as search
    monkeypatch.setattr(search, "PROGRESS_EVERY_S", 0.0)     # a tick at every safe point
    model = load("deep", L=20000)
    kernels("deep", L=20000)
    seen = []

    class Rep:
        def progress(self, p):
            seen.append(p)

        def note(self, message):
            pass

    got = api.check(model, engine="compiled", reporter=Rep(),
                    options=CheckOptions(workers=1, deadlock=False))
    depths = [p.depth for p in seen]
    assert depths == sorted(depths) and depths[-1] == got.stats.depth == 20001
    assert seen[-1].distinct_states == 20001
    # several calls, each many levels: not a tick per level, nor one in all
    assert 3 <= len(seen) < 1000



@pytest.mark.parametrize("consts", [{"L": 20000}, {"L": 6000, "M": 3, "BAD": 1000}], ids=str)
def test_checkpoint_and_resume_in_the_middle_of_a_deep_run(consts, load, kernels, tmp_path,
                                                           monkeypatch):
    import modelcheck.engines.compiled.search.serial as search
    monkeypatch.setattr(search, "PROGRESS_EVERY_S", 0.0)     # a tick at every safe point
    # calls of the fewest rows (64): many safe points, each inside the run
    monkeypatch.setattr(search, "CHUNK_TARGET_S", 1e-9)
    model = load("deep", **consts)
    kernels("deep", **consts)
    full = _compiled(model, deadlock=False)
    assert _summary(full) == _summary(_reference(model, deadlock=False))
    for at, workers in ((5, 1), (40, 1), (90, 2)):
        folder = tmp_path / f"at{at}"
        rep = InterruptAt(at)
        part = api.check(model, engine="compiled", reporter=rep,
                         options=CheckOptions(workers=1, deadlock=False,
                                              checkpoint_dir=str(folder)))
        assert rep.ticks == at and part.reason == "interrupted"
        assert 1 < part.stats.depth < full.stats.depth
        assert any("checkpoint written" in n for n in rep.notes)
        rest = _compiled(model, workers, deadlock=False, resume_dir=str(folder))
        assert _result(rest) == _result(full), at


@pytest.mark.parametrize("consts", [{"L": 3000}, {"L": 300, "M": 20, "BAD": 150}], ids=str)
def test_several_workers_on_a_deep_run(consts, load, kernels):
    model = load("deep", **consts)
    kernels("deep", **consts)
    one = _compiled(model, deadlock=False)
    for workers in (2, 3):
        got = _compiled(model, workers, deadlock=False)
        assert _result(got) == _result(one)
        assert got.stats.extras.get("workers", 1) == 1      # never wide enough
    # parallel from the first level: every level through the parallel
    # kernels (a few milliseconds a level: fewer levels)
    small = {**consts, "L": consts["L"] // 10, "BAD": consts.get("BAD", 100001) // 10}
    model = load("deep", **small)
    one = _compiled(model, deadlock=False)
    for workers in (2, 3):
        forced = _compiled(model, workers, deadlock=False,
                           extra={"parallel_after_s": 0.0, "parallel_inline_rows": 0})
        assert forced.stats.extras["workers"] == workers
        assert _result(forced) == _result(one)


@pytest.mark.parametrize("claims", [True, False])
def test_a_narrow_tail_after_the_search_went_parallel(claims):
    """The wide level goes parallel; the narrow levels after it run on one
    core again with the shared table (levels in one call), and on the
    workers with shards (a few milliseconds a level: fewer levels); the
    answer is one worker's either way."""
    model = api.load_source(_FUNNEL, path="funnel.mc", consts={"L": 3000 if claims else 500})
    one = _compiled(model, deadlock=False)
    extra = {"parallel_after_s": 1e-9, "parallel_wide_rows": 5000,
             "parallel_background": False, "parallel_claims": claims}
    for workers in (2, 3):
        got = _compiled(model, workers, deadlock=False, extra=extra)
        assert got.stats.extras["workers"] == workers
        assert _result(got) == _result(one)
    assert _summary(one) == _summary(_reference(model, deadlock=False))
