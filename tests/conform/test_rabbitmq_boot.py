"""Which starts the classic-mirrored-queue driver drives while no node runs,
without a broker (fast tier).  CMQ-3-unavailable's walk (seed 124, fourth
campaign of 30 November: Start(n=2), a publish, crashes of node 1 then node
2, Start(n=2)) stopped twice at a driver error: node 2 waited at boot
("Waiting for Mnesia tables", 10 x 30 s) for node 3, which the driver had
stopped at the declaration while node 2 was down, so node 2 never saw it go
down, and ``rabbitmqctl wait`` timed out.  The spec lets node 2 boot alone
(``boots_alone``: the last running node it saw go down); the broker's mnesia
loads its tables from its own disk only if the node saw every other member
go down.  The driver keeps those records (``seen_down``) and does not start
a node that would wait."""
from __future__ import annotations

from unittest.mock import MagicMock

import pytest

pytest.importorskip("pika", reason="the RabbitMQ driver needs pika (the test extra)")

from modelcheck.conform.examples.rabbitmq import RabbitMQDriver  # noqa: E402


def _declared(**consts) -> RabbitMQDriver:
    """A driver whose queue is declared on a stand-in cluster (every
    command answers at once, the queue browses empty)."""
    driver = RabbitMQDriver()
    driver.cluster = MagicMock()
    driver.size = consts["N"]
    driver._declare(consts)
    driver._queue_state = lambda: []
    return driver


def _starts(driver: RabbitMQDriver) -> set[int]:
    return {n for n in range(1, driver.size + 1)
            if n not in driver._running() and n not in driver.lost
            and driver.can_perform("Start", {"n": n})}


def test_cmq3_unavailable_seed_124_does_not_start_a_node_that_waits():
    driver = _declared(N=3, initially_up=1)          # nodes 2 and 3 stopped, in that order
    assert _starts(driver) == {2, 3}                 # node 1 runs: any node may start
    driver.do_Start(2)
    driver.do_NodeDown(1, "crash")
    driver.do_NodeDown(2, "crash")
    # Node 2 saw node 1 go down, not node 3 (stopped while node 2 was down):
    # it waits for node 3.  Node 3 waits for node 1, node 1 for node 2.
    assert not driver.boots_alone(2)
    assert _starts(driver) == set()


def test_the_last_node_to_go_down_starts_alone():
    # CMQ-boot: both nodes up, node 1 crashes, then node 2.
    driver = _declared(N=2)
    driver.do_NodeDown(1, "crash")
    driver.do_NodeDown(2, "crash")
    assert _starts(driver) == {2}
    # CMQ-3-join: node 2 down since the declaration, node 1 crashes last.
    driver = _declared(N=2, initially_up=1)
    driver.do_NodeDown(1, "crash")
    assert _starts(driver) == {1}


def test_a_peer_back_while_the_node_was_down_is_waited_for():
    driver = _declared(N=3)
    driver.do_NodeDown(3, "crash")                   # seen by 1 and 2
    driver.do_NodeDown(2, "stop")                    # seen by 1
    driver.do_Start(3)                               # with node 1: 1 and 3 forget each other's down
    driver.do_NodeDown(1, "crash")                   # seen by 3
    driver.do_NodeDown(3, "crash")
    # 1 did not see 3's last down, 3 not 2's, 2 not 1's.
    assert _starts(driver) == set()
    driver = _declared(N=3)
    for n in (3, 2, 1):
        driver.do_NodeDown(n, "crash")
    assert _starts(driver) == {1}


def test_force_boot_and_the_reset():
    driver = _declared(N=2)
    driver.do_NodeDown(1, "crash")
    driver.do_NodeDown(2, "crash")
    driver.do_ForceBoot(1)
    assert _starts(driver) == {1, 2}
    driver.crashed.clear()
    driver._declare({"N": 2})                        # the reset: every node runs again
    assert driver.seen_down == {1: set(), 2: set()} and driver.forced == set()


def test_after_a_partition_only_the_nodes_down_since_the_declaration_wait():
    driver = _declared(N=3, initially_up=2)
    driver.do_Partition(frozenset({1}))
    driver.do_NodeDown(1, "crash")
    driver.do_NodeDown(2, "crash")
    assert not driver.seen_exact
    assert _starts(driver) == {1, 2}
