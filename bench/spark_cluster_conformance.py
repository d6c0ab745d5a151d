"""Every Spark row of the conformance test, every level forced onto Spark,
on a two-worker standalone cluster (or on a local master).

The slow tier (tests/slow/test_spark_cluster.py) runs three rows on the
cluster, each a ``modelcheck check`` process (its own driver, its own
executors' start: about a minute a row), and CI's conformance test forces
every level onto Spark on six rows only (``SPARK_FORCED``; the others'
levels are narrower than the threshold and stay in-process), to stay within
CI's budget.  This script runs all of
``tests/conformance/test_conformance.py``'s Spark rows in one process,
with ``--force`` (the default) every level of every row on Spark: it starts
a master and two workers of one core on 127.0.0.1
(``cluster.cluster_up``; ``--master local[2]`` runs locally instead),
makes the process's SparkContext on it, and runs pytest in this process,
so that every ``api.check(..., "spark")`` of the rows takes that context
(an engine without ``--master`` reuses the active one).  A cluster's
defaults hold there: the JVM shuffle, no resident tables, one job a level.

    .venv/bin/python bench/spark_cluster_conformance.py [-k EXPR] [--master local[2]] [--no-force]

Exit status: pytest's.  Not a timing: the rows' counts, depths and verdicts
are compared with the reference explorer's, as in CI's tier.
"""
from __future__ import annotations

import argparse
import socket
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _EveryRow:
    """A ``SPARK_FORCED`` that holds every row."""

    def __contains__(self, row_id: object) -> bool:
        return True


class _Force:
    """A pytest plugin: every collected conformance row forces its levels
    onto Spark (the module's ``SPARK_FORCED``, read when a row runs)."""

    def pytest_collection_finish(self, session) -> None:
        for item in session.items:
            module = getattr(item, "module", None)
            if module is not None and hasattr(module, "SPARK_FORCED"):
                module.SPARK_FORCED = _EveryRow()


class _OnSpark:
    """Wraps ``api.check`` to note, per Spark run, where its levels ran."""

    def __init__(self, check):
        self.check, self.runs = check, []

    def __call__(self, model, engine="auto", options=None, *rest, **kw):
        result = self.check(model, engine, options, *rest, **kw)
        if engine == "spark":
            extras = result.stats.extras
            self.runs.append((model.name, extras.get("levels_on_spark"), extras.get("master")))
        return result


def main() -> int:
    import pytest

    from modelcheck.engines.spark.cluster import ClusterConfig, cluster_down, cluster_up
    from modelcheck.engines.spark.session import spark_context, stop_spark, warmed_up
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-k", default="spark", help="pytest's -k over the conformance rows "
                                                     "(default: every Spark row)")
    parser.add_argument("--master", default=None,
                        help="a master to use instead of starting a cluster (local[2])")
    parser.add_argument("--no-force", dest="force", action="store_false",
                        help="leave the rows' own thresholds (SPARK_FORCED) as CI runs them")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="spark-conformance-") as state:
        config = ClusterConfig(state_dir=state, port=_free_port(), webui_port=_free_port())
        try:
            started = time.monotonic()
            url = args.master or cluster_up(config)
            sc, info = spark_context(url)
            warmed_up(sc)
            print(f"{url}: {sc.defaultParallelism} cores, up in "
                  f"{time.monotonic() - started:.1f} s", flush=True)
            started = time.monotonic()
            from modelcheck import api
            watch = _OnSpark(api.check)
            api.check = watch
            code = pytest.main(["-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                                "-m", "slow or not slow", "-k", args.k,
                                str(ROOT / "tests" / "conformance" / "test_conformance.py")],
                               plugins=[_Force()] if args.force else [])
            print(f"rows on {sc.master} (every level on Spark: {args.force}): "
                  f"{time.monotonic() - started:.0f} s, "
                  f"pytest exit {int(code)}", flush=True)
            on_spark = [r for r in watch.runs if r[1]]
            print(f"Spark runs: {len(watch.runs)}, with levels on Spark: {len(on_spark)} "
                  f"(masters: {sorted({str(r[2]) for r in watch.runs})}); in-process only: "
                  f"{sorted({r[0] for r in watch.runs if not r[1]}) or 'none'}", flush=True)
            return int(code)
        finally:
            stop_spark()
            if args.master is None:
                cluster_down(config)


if __name__ == "__main__":
    sys.exit(main())
