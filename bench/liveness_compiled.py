"""Liveness on the compiled engine: what recording the state graph costs.

    .venv/bin/python bench/liveness_compiled.py [--servers N] [--max-term T]
        [--max-log-len L] [--max-msgs M] [--reference-timeout S]

Raft (specs/examples/raft.mc; by default 3 servers, MaxTerm 2, MaxLogLen 0,
MaxMsgs 1: 705,532 states) with a liveness property and
fairness added in a temporary copy, checked twice by the compiled engine:
the safety-only run (the spec as shipped, symmetry off so both runs explore
the same states) and the liveness run (the same search recording the graph,
then the fair-cycle analysis).  Prints for each: distinct and generated
states, compile seconds, search seconds, the liveness analysis seconds, the
process CPU seconds, bytes per state (the table; for the liveness run the
table plus the graph), and the ratios (the target: liveness at most 3x
safety in time and memory).  Then the reference explorer on the liveness
spec, as a baseline, unless it passes --reference-timeout.  Kernels are
compiled before the timed runs only when they are not cached: the compile
seconds shown are those of the timed run (cache loads after a first run).
"""
from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

from modelcheck import api
from modelcheck.engines.base import CheckOptions, CheckResult

ROOT = Path(__file__).resolve().parents[1]
RAFT = ROOT / "specs" / "examples" / "raft.mc"

#: The property and fairness added to the copy: some server is leader again
#: and again, if timeouts, votes, elections and message delivery are fair.
LIVENESS = """
liveness Elects: always eventually any(state[i] == Leader for i in Server)
liveness Settles: eventually always all(state[i] != Candidate for i in Server)
fair weak Timeout(*)
fair weak BecomeLeader(*)
fair weak Receive
"""


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _run(source: str, consts: dict[str, str], options: CheckOptions,
         engine: str = "compiled") -> tuple[CheckResult, float, float]:
    model = api.load_source(source, path=str(RAFT), consts=consts)
    cpu, wall = _cpu(), time.perf_counter()
    result = api.check(model, engine=engine, options=options)
    return result, _cpu() - cpu, time.perf_counter() - wall


def _row(name: str, result: CheckResult, cpu: float, live: bool) -> dict[str, float]:
    x = result.stats.extras
    table = float(x.get("bytes_per_state", 0.0))
    graph = float(x.get("liveness_bytes_per_state", 0.0)) if live else 0.0
    verdicts = ", ".join(f"{p.name}={p.status.value}" for p in result.properties)
    search = float(x.get("search_s", result.stats.elapsed_s))
    check = float(x.get("liveness_check_s", 0.0))
    print(f"{name:10} distinct {result.stats.distinct_states:>10,}  engine {result.engine}  generated "
          f"{result.stats.generated_states:>11,}  compile {x.get('compile_s', 0):6.2f} s  "
          f"search {search:7.2f} s  analysis {check:6.2f} s  cpu {cpu:7.2f} s  "
          f"bytes/state {table:6.1f} + {graph:6.1f}")
    if live:
        print(f"{'':10} graph {x['liveness_graph_bytes']:,} bytes, {x['liveness_edges']:,} edges, "
              f"{x['liveness_fair_conditions']} fairness conditions")
    print(f"{'':10} {verdicts}")
    return {"time": search + check, "cpu": cpu, "bytes": table + graph}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--servers", type=int, default=3)
    ap.add_argument("--max-term", type=int, default=2)
    ap.add_argument("--max-log-len", type=int, default=0)
    ap.add_argument("--max-msgs", type=int, default=1)
    ap.add_argument("--reference-timeout", type=float, default=60.0,
                    help="seconds the reference explorer may take (0: skip it)")
    args = ap.parse_args(argv)
    consts = {"Servers": str(args.servers), "MaxTerm": str(args.max_term),
              "MaxLogLen": str(args.max_log_len), "MaxMsgs": str(args.max_msgs)}
    safety_src = RAFT.read_text()
    live_src = safety_src + LIVENESS
    print(f"raft {consts}")
    # Warm the kernel caches, so that the timed runs load them.
    for src in (safety_src, live_src):
        _run(src, consts, CheckOptions(symmetry=False, max_states=1))
    safe, safe_cpu, _ = _run(safety_src, consts, CheckOptions(symmetry=False))
    live, live_cpu, _ = _run(live_src, consts, CheckOptions())
    a = _row("safety", safe, safe_cpu, live=False)
    b = _row("liveness", live, live_cpu, live=True)
    if safe.stats.distinct_states != live.stats.distinct_states:
        print("COUNT MISMATCH between the runs")
        return 1
    print(f"ratios     time (search + analysis) {b['time'] / max(a['time'], 1e-9):.2f}x  "
          f"cpu {b['cpu'] / max(a['cpu'], 1e-9):.2f}x  "
          f"bytes/state {b['bytes'] / max(a['bytes'], 1e-9):.2f}x  (target <= 3x)")
    if args.reference_timeout > 0:
        ref, ref_cpu, ref_wall = _run(live_src, consts,
                                      CheckOptions(timeout_s=args.reference_timeout),
                                      engine="reference")
        verdicts = ", ".join(f"{p.name}={p.status.value}" for p in ref.properties)
        print(f"reference  distinct {ref.stats.distinct_states:>10,}  wall {ref_wall:7.2f} s  "
              f"cpu {ref_cpu:7.2f} s  {ref.reason or 'finished'}")
        print(f"{'':10} {verdicts}")
        live_v = {p.name: p.status for p in live.properties}
        if ref.reason is None and any(live_v.get(p.name) != p.status for p in ref.properties):
            print("VERDICT MISMATCH with the reference explorer")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
