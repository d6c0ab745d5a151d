"""`make spark-cluster-up` / `make spark-cluster-down`: a thin command line over
modelcheck.engines.spark.cluster (which starts and stops the daemons)."""
from __future__ import annotations

import argparse
import sys

from modelcheck.engines.spark.cluster import ClusterConfig, ClusterError, cluster_down, cluster_up


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="spark_cluster.py")
    parser.add_argument("action", choices=["up", "down"])
    parser.add_argument("--dir", default=".spark-cluster", help="state folder")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    config = ClusterConfig(state_dir=args.dir, workers=args.workers)
    try:
        if args.action == "up":
            url = cluster_up(config)
            print(f"Spark cluster up: {url} ({config.workers} workers x {config.worker_cores} "
                  f"core, {config.worker_memory}); logs in {args.dir}/logs")
        else:
            pids = cluster_down(config)
            print(f"Spark cluster down (stopped pids: {', '.join(map(str, pids)) or 'none'})")
    except ClusterError as err:
        print(f"spark-cluster-{args.action}: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
