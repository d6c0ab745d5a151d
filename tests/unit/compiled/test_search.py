"""The compiled search against the reference explorer: counts, depth,
verdicts, shortest trace lengths, bounds, and the figures it reports."""
from __future__ import annotations

import pytest

from modelcheck import api
from modelcheck.engines.base import CheckOptions, Status

pytest.importorskip("numba")


def _summary(r):
    return (r.stats.distinct_states, r.stats.generated_states, r.stats.depth, r.reason,
            {p.name: (p.status, p.steps) for p in r.properties}, r.stats.action_counts,
            r.exit_code)


def _both(model, **options):
    """Both engines un-reduced (test_symmetry compares them reduced)."""
    ref = api.check(model, engine="reference", options=CheckOptions(symmetry=False, **options))
    got = api.check(model, engine="compiled", options=CheckOptions(symmetry=False, **options))
    return ref, got


@pytest.mark.parametrize("name,consts", [("die_hard", {}), ("two_phase", {"N": 3}),
                                         ("constructs_a", {}), ("constructs_b", {}),
                                         ("constructs_c", {}), ("sym_mutex", {"N": 3}),
                                         ("wide", {})])
def test_same_results_as_the_reference(name, consts, load, kernels):
    kernels(name, **consts)                      # compiled once per session
    ref, got = _both(load(name, **consts))
    assert _summary(got) == _summary(ref)
    assert got.engine == "compiled"


@pytest.mark.parametrize("options", [
    {"stop_on_first": True}, {"max_states": 10}, {"max_depth": 3}, {"max_depth": 8},
    {"invariants": ("NotFour",)}, {"deadlock": False}, {"exact": True},
], ids=str)
def test_options_and_bounds_behave_as_in_the_reference(options, load, kernels):
    kernels("die_hard")
    ref, got = _both(load("die_hard"), **options)
    assert _summary(got) == _summary(ref)


def test_state_and_depth_bounds_on_a_larger_space(load, kernels):
    model = load("two_phase", N=3)
    kernels("two_phase", N=3)
    for options in ({"max_states": 100}, {"max_depth": 5}):
        ref, got = _both(model, **options)
        assert _summary(got) == _summary(ref)
        assert got.exit_code == 3 and got.reason


def test_timeout_gives_unknown_never_holds(load, kernels):
    kernels("two_phase", N=3)
    got = api.check(load("two_phase", N=3), engine="compiled",
                    options=CheckOptions(symmetry=False, timeout_s=0.0))
    assert got.reason.startswith("timeout")
    assert all(p.status is Status.UNKNOWN for p in got.properties)


def test_traces_are_shortest_and_replay(load, kernels):
    kernels("die_hard")
    got = api.check(load("die_hard"), engine="compiled", options=CheckOptions(symmetry=False))
    trace = got.get_property("NotFour").trace
    assert len(trace) == 6 and trace.steps[-1].state["big"] == 4
    assert trace.steps[0].action is None and all(s.action for s in trace.steps[1:])


def test_figures_reported(load, kernels):
    kernels("two_phase", N=3)
    got = api.check(load("two_phase", N=3), engine="compiled", options=CheckOptions(symmetry=False))
    extras = got.stats.extras
    assert extras["words_per_state"] == 1
    assert extras["table_bytes"] > 0 and extras["compile_s"] >= 0 and extras["search_s"] >= 0
    n = got.stats.distinct_states
    assert extras["fp_collision_probability"] == n * (n - 1) / 2.0 ** 65
    assert any("collision probability" in note for note in got.notes)
    exact = api.check(load("two_phase", N=3), engine="compiled",
                      options=CheckOptions(symmetry=False, exact=True))
    assert exact.stats.extras["exact"] and "fp_collision_probability" not in exact.stats.extras


def test_progress_is_reported(load, kernels):
    kernels("two_phase", N=3)
    ticks = []

    class Rep:
        def progress(self, p):
            ticks.append(p)

        def note(self, message):
            pass

    api.check(load("two_phase", N=3), engine="compiled", options=CheckOptions(symmetry=False),
              reporter=Rep())
    assert ticks and ticks[-1].distinct_states == 288 and ticks[-1].depth == 11


def test_out_of_memory_gives_unknown_with_the_count_reached(load, kernels, monkeypatch):
    """A table that may not grow (``--max-memory``, carried in options.extra)
    stops the search like any bound: UNKNOWN, with the states reached."""
    import modelcheck.engines.compiled.search.serial as search
    monkeypatch.setattr(search, "START_CAPACITY", 64)
    model = load("two_phase", N=4)
    kernels("two_phase", N=4)
    full = api.check(model, engine="compiled", options=CheckOptions(symmetry=False))
    got = api.check(model, engine="compiled",
                    options=CheckOptions(symmetry=False, extra={"max_memory_mib": 0.01}))
    n = got.stats.distinct_states
    assert got.exit_code == 3 and got.reason.startswith(f"out of memory at {n:,} distinct states")
    assert 0 < n < full.stats.distinct_states
    assert all(p.status is Status.UNKNOWN for p in got.properties)
