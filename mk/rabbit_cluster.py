"""``make rabbit-cluster-up``/``-down``: a local RabbitMQ cluster by hand.

    python mk/rabbit_cluster.py up SIZE FOLDER
    python mk/rabbit_cluster.py down FOLDER

``up`` takes free ports (``free_port_base``) unless ``RABBIT_BASE_PORT`` is
set, and writes ``SIZE BASE`` to ``FOLDER/cluster`` before the first node
starts, so that ``down`` finds every node even after a failed ``up`` (which
takes its nodes down itself).  A second ``up`` while nodes of the first run
is refused.  ``down`` kills the nodes by their pid files and removes FOLDER;
with nothing up it does nothing.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

from modelcheck.conform.driver import DriverFailure
from modelcheck.conform.examples.rabbitmq_cluster import (RabbitCluster, _alive,
                                                          free_port_base)


def _saved(folder: Path) -> RabbitCluster | None:
    saved = folder / "cluster"
    if not saved.exists():
        return None
    size, base = saved.read_text().split()
    return RabbitCluster(int(size), folder, base_port=int(base), tag="mk")


def up(size: int, folder: Path) -> int:
    old = _saved(folder)
    if old is not None and any(p is not None and _alive(p)
                               for p in (old.pid(i) for i in range(1, old.size + 1))):
        print(f"a cluster is already up in {folder} (make rabbit-cluster-down first)",
              file=sys.stderr)
        return 1
    if old is not None:
        old.down()              # what a killed or failed run left behind
    env_base = os.environ.get("RABBIT_BASE_PORT")
    base = int(env_base) if env_base else free_port_base(size)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "cluster").write_text(f"{size} {base}\n")
    cluster = RabbitCluster(size, folder, base_port=base, tag="mk")
    try:
        cluster.up()
    except (DriverFailure, OSError, KeyboardInterrupt) as err:
        cluster.down()
        print(f"rabbit-cluster-up failed, nodes taken down: {err}", file=sys.stderr)
        return 1
    print(f"{size} nodes up: AMQP on 127.0.0.1:{base + 1}..{base + size}, "
          f"nodes {cluster.node(1)}...; stop with make rabbit-cluster-down")
    return 0


def down(folder: Path) -> int:
    cluster = _saved(folder)
    if cluster is not None:
        cluster.down()
    return 0


def main(argv: list[str]) -> int:
    if len(argv) == 3 and argv[0] == "up":
        return up(int(argv[1]), Path(argv[2]))
    if len(argv) == 2 and argv[0] == "down":
        return down(Path(argv[1]))
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
