"""Liveness on the compiled engine: peak memory per state of the liveness run
against the safety run of the same spec and consts.

    .venv/bin/python bench/liveness_memory.py [--only raft|ewd840] [--repeat R]

Cases (issue 39, item 4): Raft with 3 servers (specs/examples/raft.mc,
MaxTerm 2, MaxLogLen 0, MaxMsgs 1: 705,532 states) with the liveness
properties and fairness of bench/liveness_compiled.py added, and EWD840 with
N=6 (specs/examples/ewd840.mc, its own Liveness property and fairness).

Each run is a fresh child process (one worker, symmetry off, the kernels
already in the on-disk cache and the table sized by the size hint of an
earlier complete run, as a user's second run is).  In the child, the same
run is made once to load every function it calls (kernels, numba's cached
code, the trace and lasso code); then the C heap's free pages are handed
back (glibc's malloc_trim, so the baseline holds no free memory the
measured run would reuse unseen), the peak resident set is reset
(``/proc/self/clear_refs``) and the resident set taken as the baseline; the
measured run follows, and its cost is the peak (VmHWM) over that baseline,
divided by the distinct states.  The safety run checks the spec's safety
properties only (``--property``); the liveness run checks every property.
Printed per case: distinct states, edges, seconds, the peak's bytes per
state for each run, and the ratio (the target: at most 2x).  A benchmark,
not a test: no test imports it.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "specs" / "examples"

#: The liveness properties and fairness of bench/liveness_compiled.py.
RAFT_LIVENESS = """
liveness Elects: always eventually any(state[i] == Leader for i in Server)
liveness Settles: eventually always all(state[i] != Candidate for i in Server)
fair weak Timeout(*)
fair weak BecomeLeader(*)
fair weak Receive
"""

CASES = {
    "raft": ("raft.mc", {"Servers": "3", "MaxTerm": "2", "MaxLogLen": "0", "MaxMsgs": "1"},
             RAFT_LIVENESS),
    "ewd840": ("ewd840.mc", {"N": "6"}, ""),
}


def _status(field: str) -> int:
    """A field of /proc/self/status, in bytes."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    raise KeyError(field)


def _trim() -> None:
    """Hand the C heap's free pages back (glibc), so that the baseline holds
    no free memory the measured run would reuse unseen."""
    import ctypes
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def child(name: str, live: bool) -> dict:
    import gc

    from modelcheck import api
    from modelcheck.engines.base import CheckOptions
    spec, consts, extra = CASES[name]
    path = EXAMPLES / spec
    model = api.load_source(path.read_text() + extra, path=str(path), consts=consts)
    wanted = None if live else tuple(p.name for p in model.properties)
    options = CheckOptions(symmetry=False, workers=1, invariants=wanted)
    api.check(model, engine="compiled", options=options)     # every code path loaded
    gc.collect()
    _trim()
    Path("/proc/self/clear_refs").write_text("5")
    base = _status("VmRSS")
    began = time.perf_counter()
    result = api.check(model, engine="compiled", options=options)
    wall = time.perf_counter() - began
    peak = _status("VmHWM")
    x = result.stats.extras
    return {"distinct": result.stats.distinct_states, "wall": wall, "base": base,
            "peak": peak, "edges": x.get("liveness_edges", 0),
            "table_bps": x.get("bytes_per_state", 0.0),
            "graph_bps": x.get("liveness_bytes_per_state", 0.0),
            "analysis_s": x.get("liveness_check_s", 0.0),
            "verdicts": {p.name: p.status.value for p in result.properties},
            "reason": result.reason}


def _spawn(name: str, live: bool) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", name, "1" if live else "0"],
                         capture_output=True, text=True, check=False, cwd=ROOT)
    if out.returncode != 0:
        raise RuntimeError(out.stderr[-3000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", choices=sorted(CASES))
    ap.add_argument("--repeat", type=int, default=1, help="measured runs each (the least kept)")
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child[0], args.child[1] == "1")))
        return 0
    bad = 0
    for name in [args.only] if args.only else list(CASES):
        spec, consts, _ = CASES[name]
        print(f"{name} {consts}")
        rows = {}
        for live in (False, True):
            _spawn(name, live)          # compiles, and records the size hint
            runs = [_spawn(name, live) for _ in range(max(1, args.repeat))]
            r = min(runs, key=lambda r: r["peak"] - r["base"])
            r["bps"] = (r["peak"] - r["base"]) / max(1, r["distinct"])
            rows[live] = r
            what = "liveness" if live else "safety"
            extra = (f"  graph {r['graph_bps']:5.1f} B/state, {r['edges']:,} edges, "
                     f"analysis {r['analysis_s']:.2f} s" if live else "")
            print(f"  {what:9} distinct {r['distinct']:>9,}  wall {r['wall']:6.2f} s  "
                  f"peak {(r['peak'] - r['base']) / 2**20:7.1f} MiB over "
                  f"{r['base'] / 2**20:6.1f}  = {r['bps']:6.1f} B/state  "
                  f"(table {r['table_bps']:.1f}){extra}")
            print(f"  {'':9} {r['verdicts']}{'  ' + r['reason'] if r['reason'] else ''}")
        s, v = rows[False], rows[True]
        if s["distinct"] != v["distinct"]:
            print("  COUNT MISMATCH between the runs")
            bad = 1
        ratio = v["bps"] / max(s["bps"], 1e-9)
        print(f"  ratio liveness / safety bytes per state: {ratio:.2f}x  (target <= 2x)")
    return bad


if __name__ == "__main__":
    sys.exit(main())
