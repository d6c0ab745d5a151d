"""How the quorum-queue driver judges the dead-letter properties on an
observation, without a broker (fast tier).  A walk of QQ-poison (no
dead-letter exchange, delivery-limit 1) stopped at a "mismatch": the
consumer's channel went down twice holding the message, the broker dropped
it (NoPolicyDrop, which the spec allows there), and the driver also judged
NoLostDeadLetter false, though without a dead-letter exchange nothing is
dead-lettered (the spec's dead_lettered stays empty)."""
from __future__ import annotations

import pytest

pytest.importorskip("pika", reason="the RabbitMQ driver needs pika (the test extra)")

from modelcheck.conform.examples.rabbitmq_quorum import QuorumQueueDriver  # noqa: E402


def _driver(**consts):
    driver = QuorumQueueDriver()
    driver.consts = {"N": 3, "M": 1, "consumer": True, **consts}
    driver.size = 3
    driver.published = {1}
    return driver


#: the message returned twice (deliveries 2 > delivery-limit 1), then gone
DROPPED = {"queue": {"ready": 0}, "confirmed": [1], "holding": [], "acked": [],
           "deliveries": {1: 2}}


def test_a_drop_without_a_dead_letter_exchange_is_no_lost_dead_letter():
    driver = _driver(delivery_limit=1, dead_letter_exchange=False)
    assert driver.holds("NoPolicyDrop", DROPPED) is False
    assert driver.holds("NoLostDeadLetter", DROPPED) is True


def test_a_dead_letter_missing_from_the_target_is_lost():
    driver = _driver(delivery_limit=1, dead_letter_exchange=True)
    seen = dict(DROPPED, dlx_target=[])
    assert driver.holds("NoLostDeadLetter", seen) is False
    assert driver.holds("NoPolicyDrop", seen) is True
    assert driver.holds("NoLostDeadLetter", dict(seen, dlx_target=[1])) is True


def test_a_term_past_the_rows_bound_is_past_the_model_not_a_mismatch():
    """ra may need more election rounds than the row's T counts (a split
    vote on a loaded machine): the walk stops there, not a mismatch."""
    driver = _driver(T=2)
    assert driver.past_bounds({"leader": {"node": 2, "term": 2}}) is None
    assert driver.past_bounds({"leader": None}) is None
    why = driver.past_bounds({"leader": {"node": 2, "term": 3}})
    assert why is not None and "term 3" in why and "T = 2" in why
