"""How long ``make check`` takes: ``modelcheck verdicts`` on both verdict
files (the large rows left out, the mutants run), cold and warm.

    .venv/bin/python bench/make_check.py [--jobs N ...] [--reference] [--backend c ...]
                                         [--queue SLOTS ...] [--load N]

For each number of jobs (default: 1 and every core), a run on a fresh,
empty ``MODELCHECK_CACHE`` (cold: every kernel the default engine wants is
compiled), then, once the compiles it left behind have ended, a second run
on the same cache (warm), and a third (steady: what every later run of an
unchanged suite takes).  With --reference the same rows on
``--engine reference`` (no kernel at all) are the baseline in the same
script.  Each line gives wall and CPU seconds (the command and its children:
worker processes, background compiles), whether every row came out as
expected, and the ratio to issue 13's targets: at most 3 min cold and 20 s
warm.  --backend c and --backend numba measure each kernel backend in turn
(MODELCHECK_KERNEL_BACKEND), each on its own cache, with their ratios.
--queue 0 --queue 1 measures the background builds without the machine's
build queue (0: every build at once, as before issue 39) and with one slot,
each on its own cache, with their ratios; --load N runs every measurement
beside N busy processes (bench/busy.py).  Wall-clock figures depend on what
else runs on the machine.
"""
from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from busy import busy

ROOT = Path(__file__).resolve().parents[1]
VERDICT_FILES = ("specs/examples/verdicts.toml", "specs/verdicts.toml")
#: issue 13: make check at most 3 min cold and 20 s warm.
COLD_TARGET_S, WARM_TARGET_S = 180.0, 20.0


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _compiles_left() -> bool:
    """A background compile the last run left behind (it finishes its kernel
    after the run): the warm run waits for it, as a user's next run would
    find the kernel."""
    proc = subprocess.run(["pgrep", "-f", "compiled.background"], capture_output=True, text=True)
    return proc.returncode == 0 and bool(proc.stdout.strip())


def run(args: list[str], cache: str, out: str,
        backend: str = "auto", queue: str = "") -> tuple[float, float, int]:
    env = dict(os.environ, MODELCHECK_CACHE=cache, NO_COLOR="1",
               MODELCHECK_KERNEL_BACKEND=backend)
    if queue:
        env["MODELCHECK_BUILD_SLOTS"] = queue
    cpu0, t0 = _children_cpu(), time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "modelcheck", "verdicts", *VERDICT_FILES,
                           "--out", out, *args], cwd=ROOT, env=env, capture_output=True,
                          text=True)
    wall = time.monotonic() - t0
    if proc.returncode not in (0, 1):
        sys.exit(f"verdicts exited {proc.returncode}:\n{proc.stderr[-3000:]}")
    return wall, _children_cpu() - cpu0, proc.returncode


def _line(label: str, wall: float, cpu: float, rc: int, target: float | None) -> str:
    verdict = "every row as expected" if rc == 0 else "A ROW NOT AS EXPECTED"
    goal = "" if target is None else (f"  target {target:.0f} s: {wall / target:.2f}x "
                                      f"({'met' if wall <= target else 'not met'})")
    return f"{label:<28} {wall:7.1f} s wall {cpu:7.1f} s CPU  {verdict}{goal}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, action="append",
                        help="numbers of jobs to measure (repeatable; default 1 and 0 = every core)")
    parser.add_argument("--reference", action="store_true",
                        help="also run every row on the reference explorer (the baseline)")
    parser.add_argument("--backend", action="append", choices=["c", "numba"], default=[],
                        help="kernel backends to measure (repeatable; default: the default, "
                             "auto)")
    parser.add_argument("--queue", action="append", default=[], metavar="SLOTS",
                        help="build slots to measure (repeatable; 0: no queue; default: the "
                             "default)")
    parser.add_argument("--load", type=int, default=0, metavar="N",
                        help="run beside N busy processes")
    args = parser.parse_args()
    with busy(args.load):
        return _main(args)


def _main(args: argparse.Namespace) -> int:
    jobs = args.jobs or [1, 0]
    backends = [f"{b}/q{q}" if q else b for b in (args.backend or ["auto"])
                for q in (args.queue or [""])]
    print(f"make check's rows: {', '.join(VERDICT_FILES)}; cores: {len(os.sched_getaffinity(0))}"
          f"; busy processes beside it: {args.load}")
    with tempfile.TemporaryDirectory(prefix="mc-bench-check-") as tmp:
        out = str(Path(tmp) / "out")
        if args.reference:
            wall, cpu, rc = run(["--engine", "reference", "--jobs", "1"], str(Path(tmp) / "r"),
                                out)
            print(_line("reference, 1 job", wall, cpu, rc, None))
        walls: dict[tuple[str, int, str], float] = {}
        for b in backends:
            for n in jobs:
                _measure(b, n, str(Path(tmp) / f"cache-{b.replace('/', '-')}-{n}"), out, walls)
    for b in backends:
        first = jobs[0]
        for n in jobs[1:]:
            print(f"{b}: {n or 'all'} jobs against {first or 'all'}: "
                  f"cold {walls[b, first, 'cold'] / walls[b, n, 'cold']:.2f}x faster, "
                  f"warm {walls[b, first, 'warm'] / walls[b, n, 'warm']:.2f}x faster, "
                  f"steady {walls[b, first, 'steady'] / walls[b, n, 'steady']:.2f}x faster")
    for b in backends[1:]:
        for n in jobs:
            print(f"{b} against {backends[0]}, {n or 'all'} jobs: " + ", ".join(
                f"{kind} {walls[b, n, kind] / walls[backends[0], n, kind]:.2f}x the time"
                for kind in ("cold", "warm", "steady")))
    return 0


def _measure(backend: str, n: int, cache: str, out: str,
             walls: dict[tuple[str, int, str], float]) -> None:
    """Cold, then (once the compiles it left have ended) warm and steady."""
    label = f"{backend}, {n or 'all'} jobs"
    kernel_backend, _, queue = backend.partition("/q")
    wall, cpu, rc = run(["--jobs", str(n)], cache, out, kernel_backend, queue)
    walls[backend, n, "cold"] = wall
    print(_line(f"{label}, cold", wall, cpu, rc, COLD_TARGET_S))
    waited = time.monotonic()
    while _compiles_left():
        time.sleep(2)
    print(f"{'':28} (the compiles it left ended {time.monotonic() - waited:.0f} s later)")
    for kind in ("warm", "steady"):
        wall, cpu, rc = run(["--jobs", str(n)], cache, out, kernel_backend, queue)
        walls[backend, n, kind] = wall
        print(_line(f"{label}, {kind}", wall, cpu, rc, WARM_TARGET_S))
        while _compiles_left():
            time.sleep(2)


if __name__ == "__main__":
    sys.exit(main())
