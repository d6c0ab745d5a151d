"""``make rabbit-cluster-up``/``-down``: a local RabbitMQ cluster by hand.

    python mk/rabbit_cluster.py up SIZE FOLDER
    python mk/rabbit_cluster.py down FOLDER
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

from modelcheck.conform.examples.rabbitmq_cluster import RabbitCluster


def main(argv: list[str]) -> int:
    base = int(os.environ.get("RABBIT_BASE_PORT", "25000"))
    if len(argv) == 3 and argv[0] == "up":
        folder = Path(argv[2])
        cluster = RabbitCluster(int(argv[1]), folder, base_port=base, tag="mk")
        cluster.up()
        (folder / "cluster").write_text(f"{argv[1]} {base}\n")
        print(f"{argv[1]} nodes up: AMQP on 127.0.0.1:{base + 1}..{base + int(argv[1])}, "
              f"nodes {cluster.node(1)}...; stop with make rabbit-cluster-down")
        return 0
    if len(argv) == 2 and argv[0] == "down":
        folder = Path(argv[1])
        saved = folder / "cluster"
        size, base_text = saved.read_text().split() if saved.exists() else ("3", str(base))
        RabbitCluster(int(size), folder, base_port=int(base_text), tag="mk").down()
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
