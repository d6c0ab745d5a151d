"""The classic-mirrored-queue driver's settle waits for a publish in flight
while the queue answers, without a broker (fast tier).  CMQ-9's seed 133
(sixth campaign of 30 November: a crash of node 1, the publish of m1, the
publish of m2) stopped at a false mismatch: the settle's two equal readings
showed m1 received by the automatic-ack consumer and not yet confirmed, a
state where the spec never confirms m1 (its ``Confirm`` needs the message in
the leader's queue), and m1's confirm came after."""
from __future__ import annotations

import threading
import time
from unittest.mock import MagicMock

import pytest

pytest.importorskip("pika", reason="the RabbitMQ driver needs pika (the test extra)")

from modelcheck.conform.examples.rabbitmq import RabbitMQDriver  # noqa: E402


def _driver(queued) -> RabbitMQDriver:
    driver = RabbitMQDriver()
    driver.cluster = MagicMock()
    driver.settle_poll_s = 0.02
    driver.publish_settle_s = 5.0
    driver.observe = lambda: {"up": {1: False, 2: True}, "confirmed": set(driver.confirmed),
                              "queued": queued, "received": {1}}
    return driver


def _publish_confirmed_after(driver: RabbitMQDriver, m: int, delay_s: float) -> None:
    def confirm() -> None:
        time.sleep(delay_s)
        driver.confirmed.add(m)
    t = threading.Thread(target=confirm, daemon=True)
    t.start()
    driver.threads.append(t)


def test_a_publish_in_flight_is_waited_for_while_the_queue_answers():
    driver = _driver({"ready": 0, "unacked": 0})
    _publish_confirmed_after(driver, 1, 0.5)
    t0 = time.monotonic()
    got = driver.wait_settled()
    assert got["confirmed"] == {1}
    assert time.monotonic() - t0 < 3


def test_no_wait_without_a_publish_in_flight_or_while_the_queue_is_unavailable():
    driver = _driver({"ready": 0, "unacked": 0})
    assert driver.wait_settled()["confirmed"] == set()
    driver = _driver("unavailable")
    _publish_confirmed_after(driver, 1, 1.0)
    t0 = time.monotonic()
    assert driver.wait_settled()["confirmed"] == set()
    assert time.monotonic() - t0 < 0.9
