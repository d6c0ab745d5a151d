"""What the Spark engine says about a run: which levels ran where, and the figures."""
from __future__ import annotations

import math
from typing import Any

from modelcheck.engines.base import CheckOptions
from modelcheck.engines.spark.checkpoint import LevelLog, SearchState

__all__ = ["level_notes", "stats_extras", "level_ranges", "collision_probability"]


def level_ranges(levels: list[LevelLog], where: str) -> str:
    """The levels (by the depth of the states they produced; 1 is the
    initial states) that ran ``where``, as ranges: "1-4, 9".  The last
    expansion, which finds no new state, counts as the level after the last."""
    numbers = sorted({lv.level for lv in levels if lv.where == where})
    ranges: list[str] = []
    for n in numbers:
        if ranges and int(ranges[-1].split("-")[-1]) == n - 1:
            ranges[-1] = f"{ranges[-1].split('-')[0]}-{n}"
        else:
            ranges.append(str(n))
    return ", ".join(ranges)


def level_notes(state: SearchState, spark: dict[str, Any], options: CheckOptions,
                symmetric: bool) -> list[str]:
    """Which levels ran where, and what the counts mean."""
    notes = []
    local = level_ranges(state.levels, "in-process")
    remote = level_ranges(state.levels, "spark")
    if local:
        notes.append(f"levels {local} ran in-process")
    if remote:
        where = f"{spark.get('master', 'Spark')}, {spark.get('partitions', '?')} partitions"
        notes.append(f"levels {remote} ran on Spark ({where})")
    elif not spark:
        notes.append("every level was narrower than the Spark threshold: Spark was not started")
    if symmetric:
        notes.append(f"symmetry reduction: {state.distinct:,} distinct states are orbit "
                     f"representatives (run with symmetry off for the full count)")
    n = state.distinct
    if n > 1:
        notes.append(f"fingerprint collision probability: {collision_probability(n):.1e} "
                     f"(birthday bound over {n:,} states, 64-bit fingerprints)")
    if options.exact:
        notes.append("--exact is not supported by the spark engine: states are told apart "
                     "by 64-bit fingerprints")
    elif options.fingerprint_bits != 64:
        notes.append(f"--fingerprint-bits {options.fingerprint_bits} is not supported by the "
                     f"spark engine: states are told apart by 64-bit fingerprints")
    return notes


def collision_probability(n: int) -> float:
    """Probability that two of ``n`` distinct states share a 64-bit
    fingerprint (so that one was wrongly taken as seen)."""
    return -math.expm1(-n * (n - 1) / 2.0 ** 65)


def stats_extras(state: SearchState, elapsed: float, spark: dict[str, Any]) -> dict[str, Any]:
    extras: dict[str, Any] = {
        "fingerprint_bits": 64,
        "fp_collision_probability": collision_probability(state.distinct),
        "levels_in_process": level_ranges(state.levels, "in-process"),
        "levels_on_spark": level_ranges(state.levels, "spark"),
    }
    if elapsed > 0:
        extras["states_per_s"] = round(state.distinct / elapsed)
    spark_levels = [lv for lv in state.levels if lv.where == "spark"]
    if spark_levels:
        mean = sum(lv.seconds for lv in spark_levels) / len(spark_levels)
        extras["spark_level_s"] = round(mean, 3)
        # The JVM/Python traffic (numpy buffers: the runs and candidates a
        # level reads, the candidates and new states it returns) and the
        # candidates' shuffle (docs/engines/spark.md, "How it works").
        extras["spark_bytes_to_python"] = sum(lv.to_python for lv in spark_levels)
        extras["spark_bytes_from_python"] = sum(lv.from_python for lv in spark_levels)
        extras["spark_bytes_per_level"] = round(
            (extras["spark_bytes_to_python"] + extras["spark_bytes_from_python"])
            / len(spark_levels))
        extras["spark_shuffle_bytes"] = sum(lv.shuffled for lv in spark_levels)
        extras["spark_shuffle_bytes_max_level"] = max(lv.shuffled for lv in spark_levels)
        extras["spark_exchange_bytes"] = sum(lv.exchanged for lv in spark_levels)
        extras["spark_exchange_bytes_max_level"] = max(lv.exchanged for lv in spark_levels)
    extras.update(spark)
    return extras
