"""The search on several workers (parallel.py) gives the one-worker search's
answers exactly: counts (generated states too, where a search stops early),
per-action counts, depth, verdicts, traces, run-time errors, bounds, and
checkpoints that resume with any number of workers."""
from __future__ import annotations

import pytest

from modelcheck import api
from modelcheck.engines.base import CheckOptions, Status

pytest.importorskip("numba")


def _result(r):
    traces = {p.name: (p.status, p.steps,
                       None if p.trace is None else [(s.action, s.params, s.state)
                                                     for s in p.trace.steps])
              for p in r.properties}
    return (r.stats.distinct_states, r.stats.generated_states, r.stats.depth, r.reason,
            r.stats.action_counts, traces, r.exit_code)


def _run(model, workers, after_s=0.0, **options):
    extra = options.pop("extra", {})
    opts = CheckOptions(workers=workers, extra={"parallel_after_s": after_s, **extra},
                        **options)
    return api.check(model, engine="compiled", options=opts)


@pytest.mark.parametrize("name,consts,symmetry", [
    ("die_hard", {}, False), ("two_phase", {"N": 3}, False), ("constructs_a", {}, False),
    ("sym_mutex", {"N": 3}, True), ("two_sym", {}, True), ("constrained_mutex", {}, False)])
def test_every_worker_count_gives_the_one_worker_answer(name, consts, symmetry, load):
    model = load(name, **consts)
    one = _run(model, 1, symmetry=symmetry)
    assert one.stats.extras.get("workers", 1) == 1
    for workers in (2, 3, 4):
        got = _run(model, workers, symmetry=symmetry)
        assert got.stats.extras["workers"] == workers
        assert _result(got) == _result(one), workers


@pytest.mark.parametrize("options", [
    {"stop_on_first": True}, {"max_states": 10}, {"max_states": 100}, {"max_depth": 3},
    {"max_depth": 5}, {"invariants": ("Consistent",)}, {"deadlock": False}, {"exact": True},
    {"exact": True, "stop_on_first": True},
], ids=str)
def test_bounds_and_options_stop_where_one_worker_stops(options, load):
    for name, consts in (("two_phase", {"N": 3}), ("die_hard", {})):
        model = load(name, **consts)
        opts = dict(options)
        if "invariants" in opts and name == "die_hard":
            opts["invariants"] = ("NotFour",)
        one = _run(model, 1, **opts)
        for workers in (2, 3):
            assert _result(_run(model, workers, **opts)) == _result(one), (name, workers)


@pytest.mark.parametrize("name", ["errors", "error_invariant", "error_init"])
def test_run_time_errors_are_the_one_workers(name, load):
    model = load(name)
    one = _run(model, 1, symmetry=False)
    got = _run(model, 3, symmetry=False)
    assert got.error is not None and one.error is not None
    assert got.error.diagnostic == one.error.diagnostic
    steps = lambda e: None if e.trace is None else [(s.action, s.params, s.state)  # noqa: E731
                                                     for s in e.trace.steps]
    assert steps(got.error) == steps(one.error)
    assert got.stats.distinct_states == one.stats.distinct_states
    assert got.stats.generated_states == one.stats.generated_states


# A state constraint that states on the frontier's edge fail: they are met
# again and again from other rows, never stored, and the invariant fails on
# them (and the sometimes holds) in the serial order's first one.
_BOX = """module box
var a: 0..200 = 0
var b: 0..200 = 0
var c: 0..3 = 0
action A() { require a < 200
  a := a + 1 }
action B() { require b < 200
  b := b + 1 }
action C() { c := (c + 1) % 4 }
constraint Box: a + b <= 150
invariant Inside: a + b <= 150
sometimes Corner: a == 100 and b == 50
"""


@pytest.mark.parametrize("name,consts,options", [
    ("two_phase", {"N": 6}, {}), ("two_phase", {"N": 6}, {"stop_on_first": True}),
    ("two_phase", {"N": 6}, {"max_states": 20_000}), ("two_phase", {"N": 6}, {"max_depth": 9}),
    ("two_phase", {"N": 6}, {"deadlock": False}), ("two_sym", {}, {"symmetry": True}),
    ("box", {}, {}), ("box", {}, {"stop_on_first": True}), ("box", {}, {"max_depth": 60}),
], ids=str)
def test_the_shared_table_on_threads_gives_the_one_worker_answer(name, consts, options, load):
    """Every chunk handed to the threads (none is too small), the table
    shared by the workers (search/claims.py) and grown under them many times
    (two_phase N=6: 50,816 states from 16,384 slots): the one-worker answer,
    traces included, whichever worker stores a state first."""
    model = api.load_source(_BOX, path="box.mc") if name == "box" else load(name, **consts)
    one = _run(model, 1, **options)
    for workers in (2, 3):
        got = _run(model, workers, extra={"parallel_inline_rows": 0}, **options)
        assert got.stats.extras["table"] == "shared"
        assert _result(got) == _result(one), workers
    shards = _run(model, 2, extra={"parallel_inline_rows": 0, "parallel_claims": False},
                  **options)
    assert shards.stats.extras["table"] == "shards"
    assert _result(shards) == _result(one)


@pytest.mark.parametrize("name", ["errors", "error_invariant"])
def test_run_time_errors_on_threads_are_the_one_workers(name, load):
    model = load(name)
    one = _run(model, 1, symmetry=False)
    got = _run(model, 2, symmetry=False, extra={"parallel_inline_rows": 0})
    assert got.error is not None and one.error is not None
    assert got.error.diagnostic == one.error.diagnostic
    assert got.stats.distinct_states == one.stats.distinct_states
    assert got.stats.generated_states == one.stats.generated_states
    assert got.stats.action_counts == one.stats.action_counts


def test_a_search_that_goes_parallel_midway_gives_the_same_answer(load):
    """The default: levels on one core first, then (after ``parallel_after_s``
    of search) the table split into shards and the rest on every worker."""
    model = load("two_phase", N=4)
    one = _run(model, 1)
    mid = _run(model, 2, after_s=1e-9,
               extra={"parallel_wide_rows": 0, "parallel_background": False})
    assert mid.stats.extras["workers"] == 2
    assert _result(mid) == _result(one)


def test_narrow_levels_stay_on_one_core(load):
    """Levels narrower than WIDE_ROWS are not worth the thread hand-offs: a
    search of narrow levels runs on one core whatever the worker count."""
    model = load("two_phase", N=4)
    one = _run(model, 1)
    got = _run(model, 2, after_s=1e-9, extra={"parallel_background": False})
    assert got.stats.extras["workers"] == 1
    assert _result(got) == _result(one)


_WALK = """module walk
var a: 0..6 = 0
var b: 0..6 = 0
action A() { require a < 6
  a := a + 1 }
action B() { require b < 6
  b := b + 1 }
invariant Inside: a + b <= 12
"""


def test_parallel_kernels_compile_beside_the_search_then_serve_the_next_run(load, tmp_path):
    """A cold kernel's parallel entry points compile on another thread while
    the search goes on, on one core; a search that ends first does not wait.
    Once that compile is done the warm marker lists its files, and the next
    search loads them and goes parallel at its first wide level."""
    from modelcheck.engines.base import NullReporter
    from modelcheck.engines.compiled.cache import kcache
    from modelcheck.engines.compiled.kernels import KernelOptions, compile_model
    from modelcheck.engines.compiled.search.parallel import ParallelSearch
    # a spec of its own: a kernel this process loaded before would come
    # with its parallel entry points already compiled
    model = api.load_source(_WALK, path="walk.mc")
    # numba's: the C backend builds every entry point with the library
    kernels = compile_model(model, KernelOptions(symmetry=False, cache_dir=str(tmp_path),
                                                 backend="numba"))
    last = ParallelSearch(kernels, CheckOptions(workers=2), NullReporter(), 2).last_kernel
    assert last == "claim_count_actions"     # no step invariant: the shared table
    assert not kcache.has_compiled(kernels.path, last)
    options = CheckOptions(workers=2, symmetry=False,
                           extra={"parallel_after_s": 1e-9, "parallel_wide_rows": 0})
    one = _run(model, 1, symmetry=False)
    first = ParallelSearch(kernels, options, NullReporter(), 2)
    assert _result(first.run()) == _result(one)
    assert first.compiler is not None
    first.compiler.join(timeout=600)
    assert first.compiled.is_set() and first.compile_failed is None
    assert kcache.has_compiled(kernels.path, last)
    assert kcache.is_warm(kernels.path)      # the marker lists the new files
    second = ParallelSearch(kernels, options, NullReporter(), 2)
    got = second.run()
    assert second.compiler is None and got.stats.extras["workers"] == 2
    assert _result(got) == _result(one)


class _InterruptAt:
    def __init__(self, n: int):
        self.n, self.ticks = n, 0

    def progress(self, p) -> None:
        self.ticks += 1
        if self.ticks == self.n:
            raise KeyboardInterrupt

    def note(self, message: str) -> None:
        pass


@pytest.mark.parametrize("write,resume", [(3, 1), (1, 2), (2, 4)])
def test_checkpoints_resume_with_another_number_of_workers(write, resume, load, tmp_path,
                                                           monkeypatch):
    import modelcheck.engines.compiled.search.serial as search
    monkeypatch.setattr(search, "PROGRESS_EVERY_S", 0.0)     # a tick at every safe point
    model = load("two_phase", N=4)
    full = _run(model, 1)
    resumed = 0
    for at in (3, 6, 10):
        folder = tmp_path / f"at{at}"
        part = api.check(model, engine="compiled", reporter=_InterruptAt(at),
                         options=CheckOptions(workers=write, checkpoint_dir=str(folder),
                                              extra={"parallel_after_s": 0.0,
                                                     "cross_levels": False}))
        if part.reason != "interrupted":
            continue
        assert all(p.status is not Status.HOLDS for p in part.properties)
        rest = _run(model, resume, resume_dir=str(folder))
        assert _result(rest) == _result(full), at
        resumed += 1
    assert resumed >= 2
