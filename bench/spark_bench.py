"""Spark engine benchmark: the same model in-process (compiled engine), on
Spark embedded (local[2]) and on a two-worker standalone cluster on this
machine, in one run.  Ratios are against the compiled engine measured here.

    .venv/bin/python bench/spark_bench.py [--n 8] [--no-cluster] [--partitions P]

Figures per run: distinct states, wall time of the search, states/s and its
ratio to the compiled engine; for Spark runs also the per-level floor (the
median time of a level of die_hard, whose levels hold a handful of states: pure
overhead; the median, the first level also loads the kernels into every
Python worker), the time from the start of the check to the end of the first level
run on Spark, and the throughput of the wide levels (>= --wide states).

On a shared machine wall-clock ratios depend on what else runs; each row
also gives the CPU seconds that this process and its children (the driver's
JVM, the Python workers, the local cluster's daemons when they are ours)
spent, and the ratio of states per CPU second, which depends much less on
the load.  The standalone cluster's executors are not children of this
process, so the cluster row's CPU figure leaves them out and is not shown.
"""
from __future__ import annotations

import argparse
import os
import socket
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from modelcheck import api
from modelcheck.engines.base import CheckOptions, Progress

ROOT = Path(__file__).resolve().parents[1]
TWO_PHASE = str(ROOT / "specs" / "examples" / "two_phase.mc")
DIE_HARD = str(ROOT / "specs" / "examples" / "die_hard.mc")


@dataclass
class Recorder:
    """Progress ticks (one per level) with wall-clock stamps, and notes."""
    start: float = field(default_factory=time.monotonic)
    ticks: list[tuple[float, Progress]] = field(default_factory=list)
    notes: list[tuple[float, str]] = field(default_factory=list)
    cpu_s: float = 0.0

    def progress(self, progress: Progress) -> None:
        self.ticks.append((time.monotonic() - self.start, progress))

    def note(self, message: str) -> None:
        self.notes.append((time.monotonic() - self.start, message))

    def first_spark_level_s(self) -> float | None:
        handed = [t for t, m in self.notes if "continues on Spark" in m]
        if not handed:
            return None
        after = [t for t, _ in self.ticks if t > handed[0]]
        return after[0] if after else None

    def level_seconds(self) -> list[float]:
        """Seconds of each level after the first one run on Spark."""
        handed = [t for t, m in self.notes if "continues on Spark" in m]
        after = [t for t, _ in self.ticks if handed and t > handed[0]]
        return [b - a for a, b in zip(after, after[1:])]

    def wide_rate(self, wide: int) -> float | None:
        """New states per second over the levels that found >= ``wide`` states."""
        states, seconds = 0, 0.0
        for (t0, p0), (t1, p1) in zip(self.ticks, self.ticks[1:]):
            new = p1.distinct_states - p0.distinct_states
            if new >= wide:
                states += new
                seconds += t1 - t0
        return states / seconds if seconds > 0 else None


def _tree_cpu_s() -> float:
    """CPU seconds of this process and its descendants, reaped ones included
    (Linux /proc; 0 elsewhere)."""
    try:
        children: dict[int, list[int]] = {}
        for name in os.listdir("/proc"):
            if name.isdigit():
                with open(f"/proc/{name}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                children.setdefault(int(fields[1]), []).append(int(name))
        tick = os.sysconf("SC_CLK_TCK")
        total, todo = 0.0, [os.getpid()]
        while todo:
            pid = todo.pop()
            todo.extend(children.get(pid, []))
            try:
                with open(f"/proc/{pid}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            total += sum(int(x) for x in fields[11:15]) / tick
        return total
    except OSError:
        return 0.0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _run(model, engine: str, options: CheckOptions) -> tuple[float, Recorder, object]:
    recorder = Recorder()
    started, cpu = time.monotonic(), _tree_cpu_s()
    result = api.check(model, engine, options, recorder)
    recorder.cpu_s = _tree_cpu_s() - cpu
    return time.monotonic() - started, recorder, result


def _cpu_text(states: int, cpu_s: float, baseline_cpu: float | None) -> str:
    if cpu_s <= 0 or not baseline_cpu:
        return ""
    per = states / cpu_s
    return f"; {cpu_s:.1f} CPU s, {per:,.0f} states/CPU-s ({per / baseline_cpu:.2f}x)"


def _spark_rows(label: str, master: str, model, partitions: int, wide: int,
                baseline: float, baseline_cpu: float | None) -> list[str]:
    from modelcheck.engines.spark.session import spark_context
    started = time.monotonic()
    spark_context(master)
    start_s = time.monotonic() - started
    # The first level also loads the kernels into each Python worker; the
    # floor is the median of the levels after it.
    _, floor, _ = _run(api.load(DIE_HARD), "spark", CheckOptions(
        master=master, partitions=partitions, spark_threshold=0))
    floor_s = statistics.median(floor.level_seconds())
    wall, recorder, result = _run(model, "spark", CheckOptions(
        master=master, partitions=partitions, spark_threshold=0, symmetry=False))
    rate = result.stats.distinct_states / wall
    wide_rate = recorder.wide_rate(wide)
    wide_text = (f"{wide_rate:,.0f}/s ({wide_rate / baseline:.2f}x)" if wide_rate
                 else "no level that wide")
    first = recorder.first_spark_level_s()
    cpu = _cpu_text(result.stats.distinct_states, recorder.cpu_s, baseline_cpu)
    return [f"{label:<22} {result.stats.distinct_states:>12,} {wall:>8.1f} s "
            f"{rate:>12,.0f}/s {rate / baseline:>6.2f}x{cpu}",
            f"{'':<22} Spark start {start_s:.1f} s; per-level floor {floor_s:.2f} s; "
            f"first Spark level done at {first:.1f} s; wide levels (>= {wide:,}): {wide_text}"]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=8, help="TwoPhase resource managers")
    parser.add_argument("--partitions", type=int, default=2)
    parser.add_argument("--wide", type=int, default=200_000,
                        help="a level at least this wide counts as wide")
    parser.add_argument("--no-cluster", action="store_true")
    args = parser.parse_args(argv)

    model = api.load(TWO_PHASE, consts={"N": str(args.n)})
    print(f"TwoPhase N={args.n}, symmetry off; ratios against the compiled engine in-process")
    print(f"{'run':<22} {'states':>12} {'time':>10} {'states/s':>14} {'ratio':>7}")
    api.check(model, "compiled", CheckOptions(symmetry=False, max_depth=2))   # compile once
    wall, rec, base = _run(model, "compiled", CheckOptions(symmetry=False))
    baseline = base.stats.distinct_states / wall
    baseline_cpu = base.stats.distinct_states / rec.cpu_s if rec.cpu_s > 0 else None
    cpu = f"; {rec.cpu_s:.1f} CPU s" if rec.cpu_s > 0 else ""
    print(f"{'compiled in-process':<22} {base.stats.distinct_states:>12,} {wall:>8.1f} s "
          f"{baseline:>12,.0f}/s {1.0:>6.2f}x{cpu}")
    wall, rec, own = _run(model, "spark", CheckOptions(symmetry=False, spark_threshold=10**12))
    rate = own.stats.distinct_states / wall
    print(f"{'spark, all in-process':<22} {own.stats.distinct_states:>12,} {wall:>8.1f} s "
          f"{rate:>12,.0f}/s {rate / baseline:>6.2f}x"
          f"{_cpu_text(own.stats.distinct_states, rec.cpu_s, baseline_cpu)}")
    for line in _spark_rows("spark local[2]", "local[2]", model, args.partitions, args.wide,
                            baseline, baseline_cpu):
        print(line, flush=True)
    if not args.no_cluster:
        from modelcheck.engines.spark.cluster import ClusterConfig, cluster_down, cluster_up
        from modelcheck.engines.spark.session import stop_spark
        with tempfile.TemporaryDirectory(prefix="spark-bench-") as state:
            config = ClusterConfig(state_dir=state, port=_free_port(), webui_port=_free_port())
            try:
                url = cluster_up(config)
                # Its executors are not our children: no CPU figure.
                for line in _spark_rows("spark 2-worker cluster", url, model, args.partitions,
                                        args.wide, baseline, None):
                    print(line, flush=True)
            finally:
                stop_spark()
                cluster_down(config)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
