"""The compiled engine against the reference explorer, and on the RabbitMQ
specs' large configurations.

    .venv/bin/python bench/compiled_bench.py [--n 7] [--quick] [--warm]

Rows:

* TwoPhase-N (default N = 7) in the reference explorer and in the compiled
  engine, the same N in one run, and the ratio of their speeds;
* the rows CMQ-large and QQ-large of specs/verdicts.toml, with the row's
  constants and options (skipped with --quick: together they take minutes;
  QQ-large, 81.7 million states with the quorum-queue client's resend since
  30 November, about ten of them; its figures from before that date, 7.0
  million states without the resend, are not comparable).

Each row gives distinct states, search time (wall and this process's CPU
seconds), distinct states per CPU second, the table's bytes per distinct
state, and for the compiled engine the compile time (code generation plus
the kernel backend's build: C by default, MODELCHECK_KERNEL_BACKEND=numba
for numba) apart from the search.  Compilation is cold (an empty kernel cache in
a temporary folder) unless --warm, which uses the usual cache.  On a shared
machine wall-clock figures depend on what else runs; the CPU figures and
the ratios much less.
"""
from __future__ import annotations

import argparse
import dataclasses
import tempfile
import time
from pathlib import Path

from modelcheck import api
from modelcheck.cli.verdict_file import read_verdict_file
from modelcheck.cli.verdicts import row_options
from modelcheck.engines.base import CheckOptions, CheckResult, NullReporter
from modelcheck.engines.compiled.kernels import compile_model
from modelcheck.engines.compiled.search.serial import CompiledSearch
from modelcheck.engines.reference.engine import ReferenceEngine

ROOT = Path(__file__).resolve().parents[1]
TWO_PHASE = ROOT / "specs" / "examples" / "two_phase.mc"
LARGE_ROWS = ("CMQ-large", "QQ-large")


@dataclasses.dataclass
class Run:
    name: str
    result: CheckResult
    wall_s: float
    cpu_s: float
    compile_s: float | None = None

    @property
    def rate(self) -> float:
        return self.result.stats.distinct_states / max(self.cpu_s, 1e-9)

    def line(self) -> str:
        s = self.result.stats
        bps = s.extras.get("bytes_per_state")
        compile_txt = "" if self.compile_s is None else f"  compile {self.compile_s:6.1f} s"
        mem = f"{bps:5.1f} B/state" if bps is not None else " " * 13
        return (f"  {self.name:<26} {s.distinct_states:>12,} states  search {self.wall_s:7.1f} s "
                f"wall {self.cpu_s:7.1f} s CPU  {self.rate:>11,.0f} states/CPU s  {mem}"
                f"{compile_txt}")


def compiled(name: str, model, options: CheckOptions, cache_dir: str | None) -> Run:
    options = dataclasses.replace(options, cache_dir=cache_dir)
    began = time.perf_counter()
    kernels = compile_model(model, options)
    compile_s = time.perf_counter() - began
    wall, cpu = time.perf_counter(), time.process_time()
    result = CompiledSearch(kernels, options, NullReporter()).run()
    return Run(name, result, time.perf_counter() - wall, time.process_time() - cpu, compile_s)


def reference(name: str, model, options: CheckOptions) -> Run:
    wall, cpu = time.perf_counter(), time.process_time()
    result = ReferenceEngine().check(model, options, NullReporter())
    return Run(name, result, time.perf_counter() - wall, time.process_time() - cpu)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=7, help="TwoPhase size for the reference row")
    ap.add_argument("--quick", action="store_true", help="skip CMQ-large and QQ-large")
    ap.add_argument("--warm", action="store_true", help="use the usual kernel cache")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="mc-kernels-") as tmp:
        cache = None if args.warm else tmp
        model = api.load(str(TWO_PHASE), consts={"N": str(args.n)})
        options = CheckOptions(symmetry=False)
        print(f"TwoPhase-{args.n}, symmetry off, {'warm' if args.warm else 'cold'} kernel cache")
        ours = compiled(f"compiled TwoPhase-{args.n}", model, options, cache)
        print(ours.line())
        ref = reference(f"reference TwoPhase-{args.n}", model, options)
        print(ref.line())
        assert ours.result.stats.distinct_states == ref.result.stats.distinct_states
        print(f"  compiled / reference: {ours.rate / ref.rate:.1f}x (CPU), "
              f"{ref.wall_s / ours.wall_s:.1f}x (wall)")
        if args.quick:
            return
        rows = {r.id: r for r in read_verdict_file(str(ROOT / "specs" / "verdicts.toml"))}
        for row_id in LARGE_ROWS:
            row = rows[row_id]
            model = api.load(row.spec, consts=row.consts)
            run = compiled(row_id, model, row_options(row, model), cache)
            print(run.line())
            verdicts = ", ".join(f"{p.name} {p.status.value}"
                                 + (f" ({p.steps} steps)" if p.steps is not None else "")
                                 for p in run.result.properties)
            print(f"    {verdicts}; depth {run.result.stats.depth}, "
                  f"{run.result.stats.generated_states:,} generated")


if __name__ == "__main__":
    main()
