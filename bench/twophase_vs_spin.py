"""TwoPhase with N resource managers: the compiled engine against SPIN.

    .venv/bin/python bench/twophase_vs_spin.py [--n 9] [--repeat 3] [--dfs] [--backend c]

Both tools do the same job: an exhaustive breadth-first search of the same
state space (SPIN's "states stored" equals our distinct count, checked
below), checking the invariant Consistent on every state.  BFS because our
engine is breadth-first (shortest counterexamples); SPIN is built with
-DBFS -DSAFETY.  SPIN stores whole state vectors; we run both our default
(64-bit fingerprints) and --exact (whole packed states).  --dfs adds SPIN's
default depth-first search for reference.  Each figure is the best of
--repeat runs, taken in this script, on this machine; compile time (the C
backend's gcc build or numba for us, spin + gcc for SPIN) is reported apart from search time.  Besides
wall-clock time each run gives its CPU seconds (ours: this process; SPIN: the
pan child), and the ratios are given both ways: on a shared machine the CPU
ratio depends much less on what else runs.
"""
from __future__ import annotations

import argparse
import re
import resource
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from modelcheck import api
from modelcheck.engines.base import CheckOptions, NullReporter
from modelcheck.engines.compiled.kernels import compile_model
from modelcheck.engines.compiled.search.parallel import make_search

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "specs" / "examples" / "two_phase.mc"
PML = Path(__file__).parent / "peers" / "two_phase.pml"


def ours(n: int, repeat: int, exact: bool, workers: int = 1, backend: str = "c") -> dict:
    """Best of ``repeat`` searches; with several workers the search is
    parallel from the first level (its kernels compiled before the clock)."""
    model = api.load(str(SPEC), consts={"N": str(n)})
    options = CheckOptions(symmetry=False, exact=exact, workers=workers,
                           extra={"parallel_after_s": 0.0, "kernel_backend": backend})
    kernels = compile_model(model, options)
    best = None
    for _ in range(repeat):
        cpu = time.process_time()
        search = make_search(kernels, options, NullReporter())
        result = search.run()
        cpu = time.process_time() - cpu
        assert result.complete
        if best is None or result.stats.elapsed_s < best["search_s"]:
            best = {"distinct": result.stats.distinct_states, "search_s": result.stats.elapsed_s,
                    "cpu_s": cpu, "compile_s": kernels.compile_s + kernels.codegen_s,
                    "bytes_per_state": result.stats.extras["bytes_per_state"],
                    "phase_s": result.stats.extras.get("phase_s")}
    assert best is not None
    return best


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def spin(n: int, repeat: int, bfs: bool) -> dict:
    work = Path(tempfile.mkdtemp(prefix="spin-"))
    try:
        began = time.perf_counter()
        subprocess.run(["gcc", "-E", "-P", "-x", "c", f"-DN={n}", str(PML), "-o", "tp.pml"],
                       cwd=work, check=True)
        subprocess.run(["spin", "-a", "tp.pml"], cwd=work, check=True, capture_output=True)
        flags = ["-DSAFETY", "-DMEMLIM=16000"] + (["-DBFS"] if bfs else [])
        subprocess.run(["gcc", "-O2", *flags, "-o", "pan", "pan.c"], cwd=work, check=True)
        compile_s = time.perf_counter() - began
        best = None
        for _ in range(repeat):
            began, cpu = time.perf_counter(), _children_cpu()
            out = subprocess.run(["./pan", "-m100000000"], cwd=work, check=True,
                                 capture_output=True, text=True).stdout
            wall, cpu = time.perf_counter() - began, _children_cpu() - cpu
            stored = int(re.search(r"(\d+) states, stored", out).group(1))
            errors = int(re.search(r"errors: (\d+)", out).group(1))
            memory = float(re.search(r"([\d.]+)\s+total actual memory usage", out).group(1))
            assert errors == 0, out
            if best is None or cpu < best["cpu_s"]:
                best = {"distinct": stored, "search_s": wall, "cpu_s": cpu, "compile_s": compile_s,
                        "bytes_per_state": memory * 2**20 / stored}
        assert best is not None
        return best
    finally:
        shutil.rmtree(work, ignore_errors=True)


def line(name: str, r: dict) -> str:
    rate = r["distinct"] / r["search_s"]
    cpu_rate = r["distinct"] / r["cpu_s"]
    return (f"  {name:<26} {r['distinct']:>11,} states  {r['search_s']:7.2f} s "
            f"{rate:>11,.0f} states/s  |  {r['cpu_s']:7.2f} CPU s {cpu_rate:>11,.0f} states/CPU s"
            f"  {r['bytes_per_state']:6.1f} B/state  (compile {r['compile_s']:.1f} s)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=9)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--dfs", action="store_true", help="also SPIN's depth-first search")
    ap.add_argument("--workers", type=int, nargs="*", default=[2],
                    help="worker counts to compare with one worker (wall-clock rates)")
    ap.add_argument("--no-spin", action="store_true",
                    help="only the worker counts (a machine without spin)")
    ap.add_argument("--backend", action="append", choices=["c", "numba"], default=[],
                    help="our kernel backend (repeatable; default: c, then numba)")
    args = ap.parse_args()
    args.backend = args.backend or ["c", "numba"]
    print(f"TwoPhase, N = {args.n}, best of {args.repeat}")
    if args.no_spin:
        for backend in args.backend:
            scaling(args, backend)
        return
    if shutil.which("spin") is None:
        raise SystemExit("spin is not installed (apt-get install -y spin)")
    base = spin(args.n, args.repeat, bfs=True)
    print(line("SPIN BFS (full states)", base))
    if args.dfs:
        print(line("SPIN DFS (full states)", spin(args.n, args.repeat, bfs=False)))
    for backend in args.backend:
        fp = ours(args.n, args.repeat, exact=False, backend=backend)
        print(line(f"compiled {backend} (fingerprints)", fp))
        ex = ours(args.n, args.repeat, exact=True, backend=backend)
        print(line(f"compiled {backend} --exact", ex))
        assert fp["distinct"] == ex["distinct"] == base["distinct"], "state counts differ"
        for label, key in (("wall", "search_s"), ("CPU", "cpu_s")):
            rate = lambda r: r["distinct"] / r[key]  # noqa: E731
            print(f"{backend}: ratio vs SPIN BFS ({label}): fingerprints "
                  f"{rate(fp) / rate(base):.2f}x, exact {rate(ex) / rate(base):.2f}x")
        for r in scaling(args, backend, fp):
            print(f"{backend}: ratio vs SPIN BFS (wall), {r['workers']} workers: "
                  f"{r['distinct'] / r['search_s'] / (base['distinct'] / base['search_s']):.2f}x")


def scaling(args: argparse.Namespace, backend: str, one: dict | None = None) -> list[dict]:
    """Every --workers count against one worker, wall-clock states per second
    (SPIN's BFS is one process: its wall and CPU rates are one)."""
    one = one or ours(args.n, args.repeat, exact=False, backend=backend)
    if "workers" not in one:
        print(line(f"compiled {backend}, 1 worker", one))
    out = []
    for n in args.workers:
        r = ours(args.n, args.repeat, exact=False, workers=n, backend=backend)
        r["workers"] = n
        assert r["distinct"] == one["distinct"], "state counts differ"
        print(line(f"compiled {backend}, {n} workers", r))
        print(f"  wall seconds per phase (expand and store on every worker, settle on one): "
              f"{r['phase_s']}")
        print(f"{backend}: ratio {n} workers vs 1 (wall): {one['search_s'] / r['search_s']:.2f}x")
        out.append(r)
    return out


if __name__ == "__main__":
    main()
