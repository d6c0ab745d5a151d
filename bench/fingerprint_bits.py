"""What a wider fingerprint costs (``--fingerprint-bits``): TwoPhase and Raft
at 64, 96 and 128 bits, with a table that grows and with ``--preallocate``,
in one run, each configuration in a child process of its own (its peak
resident memory is then its own).

    .venv/bin/python bench/fingerprint_bits.py [--n 8] [--raft 3,2,1,1] [--repeat 1]

Each line gives distinct states, search CPU seconds and CPU nanoseconds a
state, the table's bytes (and bytes a distinct state; with --preallocate the
table is the budget, so its slot size and the states it holds at its load
limit are given), the child's peak RSS, and the compile time (code
generation plus the C or numba build, from the kernel cache after the first
child: the width is read at run time from the table's meta, so one kernel
serves every width; the first child builds it, and its time is printed
apart).  Tables start at the usual size whatever the cache says.  Ratios are against 64 bits in the same run.  One
worker, symmetry off; the CPU figures are this process's own.
"""
from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "specs" / "examples"
WIDTHS = (64, 96, 128)
#: --preallocate's budget: with 32 MiB levels and 1 GiB set apart for the
#: process, about 0.3 GiB of table.
PREALLOCATED = {"preallocate": True, "max_memory_mib": 1400, "frontier_memory_mib": 32}


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def child(job: dict) -> dict:
    """One search, in this process: its figures as a dict."""
    from modelcheck import api
    from modelcheck.engines.base import CheckOptions, NullReporter
    from modelcheck.engines.compiled.kernels import compile_model
    from modelcheck.engines.compiled.search.parallel import make_search
    from modelcheck.engines.compiled.kernel.table import MAX_LOAD, slot_bytes
    from modelcheck.engines.compiled.search import serial
    # every table starts at the usual size and grows: not sized from the
    # count an earlier child left in the cache (cache/sizes.py)
    serial.expected_states = lambda cache_dir, key: None
    model = api.load(str(EXAMPLES / job["spec"]), consts=job["consts"])
    options = CheckOptions(symmetry=False, workers=1, fingerprint_bits=job["bits"],
                           extra=dict(job["extra"]))
    began = time.perf_counter()
    kernels = compile_model(model, options)
    compile_s = time.perf_counter() - began
    search = make_search(kernels, options, NullReporter())
    cpu = _cpu()
    result = search.run()
    cpu = _cpu() - cpu
    s = result.stats
    x = s.extras
    slot = slot_bytes(x["words_per_state"], False, not job["extra"].get("preallocate"),
                      job["bits"])
    return {"distinct": s.distinct_states, "cpu_s": cpu, "search_s": x["search_s"],
            "compile_s": compile_s, "table_bytes": x["table_bytes"],
            "bytes_per_state": x["bytes_per_state"], "slot": slot,
            "holds": int(x["table_bytes"] / slot * MAX_LOAD),
            "rss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
            "p": x.get("fp_collision_probability")}


def run_child(job: dict) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", json.dumps(job)],
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise SystemExit(f"child failed: {job}\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def line(name: str, f: dict, base: dict | None) -> str:
    ns = 1e9 * f["cpu_s"] / max(1, f["distinct"])
    ratio = "" if base is None else (
        f"  x{f['cpu_s'] / base['cpu_s']:.2f} CPU  x{f['table_bytes'] / base['table_bytes']:.2f}"
        f" table  x{f['rss_kib'] / base['rss_kib']:.2f} RSS  x{f['holds'] / base['holds']:.2f}"
        f" holds")
    return (f"  {name:<22} {f['distinct']:>10,} st  {f['cpu_s']:6.2f} s CPU {ns:6.0f} ns/st  "
            f"table {f['table_bytes'] / 2**20:7.1f} MiB {f['bytes_per_state']:7.1f} B/st "
            f"(slot {f['slot']} B, holds {f['holds']:,})  RSS {f['rss_kib'] / 1024:6.0f} MiB  "
            f"compile {f['compile_s']:5.1f} s  P {f['p']:.1e}{ratio}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=8, help="TwoPhase size (8: 1.7M states)")
    ap.add_argument("--raft", default="3,2,1,1",
                    help="Raft's Servers,MaxTerm,MaxLogLen,MaxMsgs (3,2,1,1: 2.4M states)")
    ap.add_argument("--repeat", type=int, default=1, help="runs of each line (the least CPU)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(json.loads(args.child))))
        return
    s, t, ll, m = args.raft.split(",")
    specs = [(f"TwoPhase-{args.n}", "two_phase.mc", {"N": str(args.n)}),
             (f"Raft ({args.raft})", "raft.mc",
              {"Servers": s, "MaxTerm": t, "MaxLogLen": ll, "MaxMsgs": m})]
    for title, spec, consts in specs:
        # the kernel built (or loaded) once, so that no line pays for it
        warm = run_child({"spec": spec, "consts": consts, "bits": 64, "extra": {}})
        print(f"{title}: kernel build (codegen + C or numba) {warm['compile_s']:.1f} s, "
              f"one kernel for every width")
        for label, extra in (("grown table", {}), ("--preallocate", PREALLOCATED)):
            print(f"{title}, {label}, 1 worker, symmetry off")
            base = None
            for bits in WIDTHS:
                job = {"spec": spec, "consts": consts, "bits": bits, "extra": extra}
                runs = [run_child(job) for _ in range(max(1, args.repeat))]
                f = min(runs, key=lambda r: r["cpu_s"])
                print(line(f"{bits} bits", f, base), flush=True)
                base = base or f
                if f["distinct"] != base["distinct"]:
                    raise SystemExit(f"{bits} bits: {f['distinct']:,} states, not "
                                     f"{base['distinct']:,}")


if __name__ == "__main__":
    main()
