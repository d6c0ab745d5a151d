"""Which restarts the quorum-queue driver drives in a partition, without a
broker (fast tier).  QQ-large's walk (seed 124: Crash(n=2), Partition({1,
3}), two publishes, Restart(n=2)) stopped twice at a driver error: node 2,
killed while nodes 1 and 3 ran, waits at boot for one of them ("Waiting for
Mnesia tables", 10 x 30 s), and the partition cut it from both, so
``rabbitmqctl wait`` timed out.  The spec's Restart brings the node up at
once, alone on its side; the broker cannot: such a restart is not driven."""
from __future__ import annotations

import pytest

pytest.importorskip("pika", reason="the RabbitMQ driver needs pika (the test extra)")

from modelcheck.conform.examples.rabbitmq_quorum import QuorumQueueDriver  # noqa: E402


def _driver(crashed: set[int], split: frozenset = frozenset()) -> QuorumQueueDriver:
    driver = QuorumQueueDriver()
    driver.consts = {"N": 3, "M": 2, "max_crashes": 1, "max_restarts": 1, "max_partitions": 1}
    driver.size = 3
    driver.crashed = set(crashed)
    driver.split = frozenset(split)
    return driver


def test_a_node_cut_from_every_running_peer_is_not_restarted():
    # QQ-large's walk: node 2 alone on its side, nodes 1 and 3 on the other.
    assert not _driver({2}, frozenset({1, 3})).can_perform("Restart", {"n": 2})
    # The same cut named by node 2's side.
    assert not _driver({2}, frozenset({2})).can_perform("Restart", {"n": 2})
    assert not _driver({1}, frozenset({1})).can_perform("Restart", {"n": 1})


def test_a_node_with_a_running_peer_on_its_side_is_restarted():
    assert _driver({2}, frozenset({1, 2})).can_perform("Restart", {"n": 2})
    assert _driver({2}, frozenset({1})).can_perform("Restart", {"n": 2})
    # No partition: every running peer is reachable.
    assert _driver({2}).can_perform("Restart", {"n": 2})
