"""A billion distinct states on one machine (issue 39, item 1): the compiled
engine on a large instance, its memory and its disk, beside TLC's projected
time on the same instance.

    .venv/bin/python bench/billion.py [--spec two_phase|hanoi] [-D N=11] [--workers 2]
        [--max-memory MIB] [--frontier-dir DIR] [--frontier-memory MIB]
        [--one-worker] [--tlc-n 8] [--jar PATH] [--no-tlc] [--check-family 3 4 5]

Ours runs in a child process (``--preallocate``: the table sized once from
--max-memory, the levels streaming to disk past --frontier-memory), so that
its peak resident memory is its own (``os.wait4``'s ru_maxrss).  Printed:
distinct / generated / depth, wall and search time, states per second, peak
RSS, bytes per state (peak RSS and table alone), the frontier's bytes on disk
(all levels, the most at once, the compression), the levels kept for traces
(parents on disk: search/parents.py), and the fingerprint collision
probability (the birthday bound the run prints).

TLC's time is a *projection*: TLC runs a smaller instance of the family to
the end (``--tlc-n``, same workers), and its distinct states per second are
extrapolated to the big instance's count.  TLC's rate at a billion states
would be lower (its fingerprint set and queue go to disk), so the projection
favours TLC.  ``--check-family`` first compares the distinct and generated
counts of small instances with TLC's (the same family, the same spec).

``--one-worker`` runs the instance again on one worker: the counts must agree.
A billion-state run takes every core and most of the memory for about twenty
minutes: run it on a quiet machine.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).parent))
from tlc_constraints import find_jar  # noqa: E402  (one jar finder for the benches)

TLA = Path(__file__).parent / "tla"


@dataclass(frozen=True)
class Family:
    """A spec whose size is one const ``N``, and its TLA+ twin for TLC."""
    folder: str                          # under bench/tla
    module: str
    config: Callable[[int], str]         # the TLC config of size n
    big: int                             # the instance this bench is for
    tlc_n: int                           # the size TLC runs to the end
    check: tuple[int, ...]               # the small sizes compared with TLC


FAMILIES = {
    # 2.18·10^9 states at N = 12 (the table needs 21.9 GiB); 3.7·10^8 at 11
    "two_phase": Family("twophase", "TwoPhase", lambda n: (
        "CONSTANT RM = {" + ", ".join(f"r{i}" for i in range(1, n + 1)) + "}\n"
        "INIT TPInit\nNEXT TPNext\nINVARIANT Consistent\n"), 11, 8, (3, 4, 5, 6)),
    # 3^19 = 1.16·10^9 states of one word, 524,288 levels
    "hanoi": Family("hanoi", "Hanoi", lambda n: f"CONSTANT N = {n}\nINIT Init\nNEXT Next\n",
                    19, 14, (3, 4, 5, 6, 7, 8)),
}


# ---------------------------------------------------------------- ours

def child(args: argparse.Namespace) -> None:
    """In the child process: the search, and one JSON line of its figures."""
    from modelcheck import api
    from modelcheck.engines.base import CheckOptions
    consts = dict(kv.split("=", 1) for kv in args.D)
    model = api.load(str(ROOT / "specs" / "examples" / f"{args.spec}.mc"), consts=consts)
    extra = {"preallocate": not args.plain}
    if args.max_memory is not None:
        extra["max_memory_mib"] = args.max_memory
    if args.frontier_dir is not None:
        extra["frontier_dir"] = args.frontier_dir
    if args.frontier_memory is not None:
        extra["frontier_memory_mib"] = args.frontier_memory
    if args.plain:      # the baseline: a table that grows, levels in memory
        extra = {"frontier_memory_mib": 1 << 30}
    began = time.monotonic()
    r = api.check(model, engine="compiled",
                  options=CheckOptions(symmetry=False, workers=args.workers, extra=extra))
    x = r.stats.extras
    print(json.dumps({
        "distinct": r.stats.distinct_states, "generated": r.stats.generated_states,
        "depth": r.stats.depth, "complete": r.complete, "reason": r.reason,
        "properties": {p.name: p.status.value for p in r.properties},
        "wall_s": time.monotonic() - began, "search_s": x.get("search_s"),
        "compile_s": x.get("compile_s"), "workers": x.get("workers", 1),
        "table_bytes": x.get("table_bytes"), "table_load": x.get("table_load"),
        "fp_collision_probability": x.get("fp_collision_probability"),
        "bytes_per_state": x.get("bytes_per_state"),
        **{k: v for k, v in x.items() if k.startswith(("frontier_", "parents"))}}))


def ours(args: argparse.Namespace, workers: int, plain: bool = False) -> dict:
    """The child run: its figures, with its wall time and peak RSS."""
    cmd = [sys.executable, __file__, "--child", "--spec", args.spec, "--workers", str(workers)]
    if plain:
        cmd.append("--plain")
    for kv in args.D:
        cmd += ["-D", kv]
    for flag in ("max_memory", "frontier_dir", "frontier_memory"):
        value = getattr(args, flag)
        if value is not None:
            cmd += [f"--{flag.replace('_', '-')}", str(value)]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    with tempfile.TemporaryFile() as out:
        began = time.monotonic()
        proc = subprocess.Popen(cmd, stdout=out, env=env, cwd=ROOT)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.monotonic() - began
        out.seek(0)
        text = out.read().decode()
    if status != 0:
        raise SystemExit(f"the search failed (status {status}):\n{text[-2000:]}")
    figures = json.loads(text.strip().splitlines()[-1])
    figures["process_wall_s"] = wall
    figures["peak_rss"] = usage.ru_maxrss * 1024          # Linux: KiB
    figures["cpu_s"] = usage.ru_utime + usage.ru_stime
    return figures


def show(label: str, f: dict) -> None:
    n = max(1, f["distinct"])
    gib = 2**30
    print(f"{label}: {f['distinct']:,} distinct, {f['generated']:,} generated, depth {f['depth']}"
          f" ({'complete' if f['complete'] else 'INCOMPLETE: ' + str(f['reason'])})")
    print(f"  properties: {f['properties']}")
    search = f["search_s"] or 0.0
    print(f"  wall {f['process_wall_s']:.1f} s (search {search:.1f} s, compile "
          f"{f['compile_s'] or 0:.1f} s), CPU {f['cpu_s']:.1f} s, workers {f['workers']}; "
          f"{n / max(search, 1e-9):,.0f} distinct states/s")
    print(f"  peak RSS {f['peak_rss'] / gib:.2f} GiB = {f['peak_rss'] / n:.1f} bytes/state; "
          f"table {f['table_bytes'] / gib:.2f} GiB ({f['table_bytes'] / n:.1f} bytes/state, "
          f"load {f['table_load']})")
    print(f"  frontier on disk: {f['frontier_disk_bytes'] / gib:.3f} GiB written "
          f"({f['frontier_spilled_rows']:,} rows), at most "
          f"{f['frontier_peak_disk_bytes'] / gib:.3f} GiB at once, compressed to "
          f"{f['frontier_compression']} of the raw rows")
    if f.get("parents") == "disk":
        print(f"  parents on disk (every level kept, 8-byte slots): "
              f"{f['parents_disk_bytes'] / gib:.3f} GiB for {f['parents_rows']:,} rows "
              f"({f['parents_disk_bytes'] / max(1, f['parents_rows']):.2f} bytes/state)")
    print(f"  fingerprint collision probability (birthday bound): "
          f"{f['fp_collision_probability']:.1e}")


# ---------------------------------------------------------------- TLC

def tlc(jar: Path, fam: Family, n: int, workers: int) -> dict:
    """TLC on the family's TLA+ twin at size ``n``, to the end."""
    with tempfile.TemporaryDirectory() as work:
        shutil.copy(TLA / fam.folder / f"{fam.module}.tla", work)
        Path(work, f"{fam.module}.cfg").write_text(fam.config(n))
        began = time.monotonic()
        out = subprocess.run(["java", "-XX:+UseParallelGC", "-cp", str(jar), "tlc2.TLC",
                              "-workers", str(workers), "-config", f"{fam.module}.cfg",
                              f"{fam.module}.tla"], cwd=work, capture_output=True, text=True,
                             check=False).stdout
        wall = time.monotonic() - began
    found = re.search(r"([\d,]+) states generated, ([\d,]+) distinct states found, 0 states left",
                      out)
    depth = re.search(r"depth of the complete state graph search is (\d+)", out)
    if found is None:
        raise SystemExit(f"TLC did not finish:\n{out[-2000:]}")
    return {"generated": int(found.group(1).replace(",", "")),
            "distinct": int(found.group(2).replace(",", "")),
            "depth": int(depth.group(1)) if depth else None, "wall_s": wall}


def family(jar: Path, spec: str, sizes: list[int]) -> None:
    """Small instances: TLC's counts beside ours (the reference order)."""
    from modelcheck import api
    from modelcheck.engines.base import CheckOptions
    for n in sizes:
        model = api.load(str(ROOT / "specs" / "examples" / f"{spec}.mc"), consts={"N": str(n)})
        r = api.check(model, engine="compiled", options=CheckOptions(symmetry=False, workers=1))
        t = tlc(jar, FAMILIES[spec], n, 1)
        ours_ = (r.stats.distinct_states, r.stats.generated_states)
        same = "same" if ours_ == (t["distinct"], t["generated"]) else "DIFFERENT"
        print(f"  N={n}: ours {ours_[0]:,} distinct {ours_[1]:,} generated; TLC {t['distinct']:,}"
              f" / {t['generated']:,}: {same}")


# ---------------------------------------------------------------- main

def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--spec", default="two_phase", choices=sorted(FAMILIES))
    p.add_argument("-D", action="append", default=[], metavar="NAME=VALUE")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--max-memory", type=float, help="MiB for the whole search (default: "
                   "the memory at hand)")
    p.add_argument("--frontier-dir")
    p.add_argument("--frontier-memory", type=float)
    p.add_argument("--one-worker", action="store_true", help="run it on one worker too")
    p.add_argument("--tlc-n", type=int, help="the size TLC runs to the end (default: the "
                   "family's)")
    p.add_argument("--check-family", type=int, nargs="*", help="small sizes compared with TLC "
                   "(default: the family's)")
    p.add_argument("--jar")
    p.add_argument("--no-tlc", action="store_true")
    p.add_argument("--baseline", action="store_true",
                   help="also run the instance as before: a growing table, levels in memory")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--plain", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    fam = FAMILIES[args.spec]
    if not args.D:
        args.D = [f"N={fam.big}"]
    if args.tlc_n is None:
        args.tlc_n = fam.tlc_n
    if args.check_family is None:
        args.check_family = list(fam.check)
    if args.child:
        child(args)
        return
    print(f"# bench/billion.py: {args.spec} {' '.join(args.D)}, load "
          f"{os.getloadavg()[0]:.1f}, {os.cpu_count()} cores")
    jar = None if args.no_tlc else find_jar(args.jar)
    if jar is not None and (shutil.which("java") is None or not jar.is_file()):
        jar = None
    if jar is not None and args.check_family:
        print("the family against TLC:")
        family(jar, args.spec, args.check_family)
    big = ours(args, args.workers)
    show(f"ours, {args.workers} workers", big)
    if args.one_worker:
        one = ours(args, 1)
        show("ours, 1 worker", one)
        same = all(one[k] == big[k] for k in ("distinct", "generated", "depth", "properties"))
        print(f"  1 worker against {args.workers}: {'the same counts' if same else 'DIFFERENT'};"
              f" search time {one['search_s'] / max(big['search_s'], 1e-9):.2f}x")
    if args.baseline:
        base = ours(args, args.workers, plain=True)
        show(f"baseline (growing table, levels in memory), {args.workers} workers", base)
        print(f"  sized table + levels on disk against the baseline: CPU "
              f"{big['cpu_s'] / base['cpu_s']:.2f}x, search time "
              f"{big['search_s'] / max(base['search_s'], 1e-9):.2f}x, peak RSS "
              f"{big['peak_rss'] / base['peak_rss']:.2f}x")
    if jar is not None:
        t = tlc(jar, fam, args.tlc_n, args.workers)
        rate = t["distinct"] / t["wall_s"]
        projected = big["distinct"] / rate
        print(f"TLC, N={args.tlc_n}, {args.workers} workers, to the end: {t['distinct']:,} distinct"
              f" in {t['wall_s']:.1f} s wall = {rate:,.0f} states/s")
        print(f"TLC's PROJECTED time for {big['distinct']:,} states at that rate (an "
              f"extrapolation, not a run): {projected:,.0f} s = {projected / 3600:.1f} h; "
              f"ours / TLC: {projected / max(big['process_wall_s'], 1e-9):.1f}x (wall)")


if __name__ == "__main__":
    main()
