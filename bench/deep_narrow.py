"""Deep, narrow searches: the compiled engine against the reference explorer
in one script (issue 39, item 3).

    PYTHONPATH=. .venv/bin/python bench/deep_narrow.py [--quick] [--cold] [--workers N]

The spec is tests/unit/compiled/specs/deep.mc: L + 1 levels of M states
each, two successors per state, the invariants evaluated on every state, so
every row does the same work per state and only the shape changes:

* (a) one state per level (M = 1), L = 10^5 and 10^6 levels (--quick: 10^5);
* (b) 10,000 levels of 100 states (M = 100, L = 9,999);
* (c) the wide case: 100 levels of 10,000 states (M = 10^4, L = 99).

Each row runs the reference explorer and the compiled engine (one worker,
and with --workers N > 1 the parallel search too) on the same model, checks
that distinct, generated and depth agree, and prints the search times,
microseconds per state and the ratio reference / compiled (above 1: the
compiled engine is faster).  The compiled engine's start-up is timed apart
from the search: the compile (code generation and the backend's build, or
the cache's load; --cold compiles into an empty cache folder) and the
initial states (enumerated in Python: 10,000 of them in (c)).  Two ratios:
search against search, and the reference's whole run against the compiled
engine's initial states plus search.  --per-level adds the compiled engine
one level a call (``cross_levels`` off: the search before explore_chunk ran
levels on, for the figures before and after).  The last line compares (b)'s
time per state with (c)'s.  On a shared machine the CPU figures (this
process's CPU seconds) are steadier than wall time.
"""
from __future__ import annotations

import argparse
import dataclasses
import tempfile
import time
from pathlib import Path

from modelcheck import api
from modelcheck.engines.base import CheckOptions, CheckResult, NullReporter
from modelcheck.engines.compiled.kernels import compile_model
from modelcheck.engines.compiled.search.parallel import make_search
from modelcheck.engines.reference.engine import ReferenceEngine

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "tests" / "unit" / "compiled" / "specs" / "deep.mc"


@dataclasses.dataclass
class Run:
    result: CheckResult
    wall_s: float
    cpu_s: float
    compile_s: float | None = None
    init_s: float = 0.0

    @property
    def states(self) -> int:
        return self.result.stats.distinct_states

    def us_per_state(self) -> float:
        return 1e6 * self.cpu_s / max(1, self.states)


def run_compiled(model, options: CheckOptions, workers: int, per_level: bool = False) -> Run:
    options = dataclasses.replace(options, workers=workers,
                                  extra={"cross_levels": False} if per_level else {})
    began = time.perf_counter()
    kernels = compile_model(model, options)
    compile_s = time.perf_counter() - began
    search = make_search(kernels, options, NullReporter())
    began = time.process_time()
    search.initial_rows()           # start-up: enumerated in Python, kept by the search
    init_s = time.process_time() - began
    wall, cpu = time.perf_counter(), time.process_time()
    result = search.run()
    return Run(result, time.perf_counter() - wall, time.process_time() - cpu, compile_s, init_s)


def run_reference(model, options: CheckOptions) -> Run:
    wall, cpu = time.perf_counter(), time.process_time()
    result = ReferenceEngine().check(model, options, NullReporter())
    return Run(result, time.perf_counter() - wall, time.process_time() - cpu)


def same(a: CheckResult, b: CheckResult) -> None:
    sa, sb = a.stats, b.stats
    got = (sa.distinct_states, sa.generated_states, sa.depth)
    want = (sb.distinct_states, sb.generated_states, sb.depth)
    assert got == want, f"compiled {got} != reference {want}"
    assert [(p.name, p.status) for p in a.properties] == \
        [(p.name, p.status) for p in b.properties]


def row(label: str, levels: int, width: int, workers: list, cache: str | None) -> dict:
    model = api.load(str(SPEC), consts={"L": str(levels - 1), "M": str(width)})
    options = CheckOptions(deadlock=False, cache_dir=cache)
    print(f"{label}: {levels:,} levels of {width:,} states ({levels * width:,} states)",
          flush=True)
    ref = run_reference(model, options)
    print(f"  reference            search {ref.wall_s:8.2f} s wall {ref.cpu_s:8.2f} s CPU  "
          f"{ref.us_per_state():7.2f} us/state", flush=True)
    out = {"ref": ref}
    for w in workers:
        per_level = w == "per-level"
        ours = run_compiled(model, options, 1 if per_level else w, per_level)
        same(ours.result, ref.result)
        name = ("compiled, level/call" if per_level
                else f"compiled, {w} worker{'s' if w > 1 else ''}")
        print(f"  {name:<20} search {ours.wall_s:8.2f} s wall {ours.cpu_s:8.2f} s CPU  "
              f"{ours.us_per_state():7.2f} us/state  compile {ours.compile_s:5.2f} s  "
              f"initial states {ours.init_s:5.2f} s CPU", flush=True)
        print(f"  {'':<20} reference/compiled: search {ref.cpu_s / max(ours.cpu_s, 1e-9):7.2f}x "
              f"CPU {ref.wall_s / max(ours.wall_s, 1e-9):7.2f}x wall; with the initial "
              f"states {ref.cpu_s / max(ours.cpu_s + ours.init_s, 1e-9):7.2f}x CPU",
              flush=True)
        out[w] = ours
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="(a) at 10^5 levels only")
    ap.add_argument("--cold", action="store_true", help="compile into an empty cache folder")
    ap.add_argument("--workers", type=int, default=1,
                    help="also run the parallel search on this many workers")
    ap.add_argument("--only", choices=("a", "b", "c"), action="append",
                    help="run only these rows (repeatable)")
    ap.add_argument("--per-level", action="store_true",
                    help="also run the compiled engine one level a call (the search before)")
    args = ap.parse_args()
    workers: list = ([1] + ([args.workers] if args.workers > 1 else [])
                     + (["per-level"] if args.per_level else []))
    only = set(args.only or ("a", "b", "c"))
    with tempfile.TemporaryDirectory(prefix="mc-kernels-") as tmp:
        cache = tmp if args.cold else None
        rows = {}
        if "a" in only:
            for levels in ((10**5,) if args.quick else (10**5, 10**6)):
                rows[f"a{levels}"] = row(f"(a) narrow, L={levels:,}", levels, 1, workers, cache)
        if "b" in only:
            rows["b"] = row("(b) 10,000 x 100", 10_000, 100, workers, cache)
        if "c" in only:
            rows["c"] = row("(c) wide, 100 x 10,000", 100, 10_000, workers, cache)
        if "b" in rows and "c" in rows:
            for w in workers:
                b, c = rows["b"][w], rows["c"][w]
                print(f"per state, {w}: (b) {b.us_per_state():.2f} us, "
                      f"(c) {c.us_per_state():.2f} us: (b)/(c) = "
                      f"{b.us_per_state() / max(c.us_per_state(), 1e-9):.2f}")


if __name__ == "__main__":
    main()
