"""A publish the broker nacks, on the model's side of a walk, without a
broker (fast tier).  QQ-large's walk seed 134 (the fourth campaign of 30
November; its two trace files are under data/) did not conform at its
Heal: after Crash(n=3), Partition({1, 3}) and Publish(m=1, l=1) to node 1
with no quorum, the broker showed node 1 leading term 1 and the queue
empty, where the spec's Publish had put m1 in node 1's log.  RabbitMQ
3.10's channel registers itself as an enqueuer at its first publish, a
command ra must commit (``rabbit_fifo_client:enqueue/3``), and nacks the
message when no member commits it within 65 s; the message never reaches
the log.  The driver now leaves a message the broker nacked out of the
model's queue (``QuorumQueueDriver.project``)."""
from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

pytest.importorskip("pika", reason="the RabbitMQ driver needs pika (the test extra)")

import pika.exceptions  # noqa: E402

from modelcheck.conform import load_for_trace  # noqa: E402
from modelcheck.conform.belief import Belief  # noqa: E402
from modelcheck.conform.examples.rabbitmq_cluster import publish_confirmed  # noqa: E402
from modelcheck.conform.examples.rabbitmq_quorum import QuorumQueueDriver  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "specs" / "quorum_queue.mc"
DATA = Path(__file__).resolve().parent / "data"
TRACE = DATA / "quorum_queue-conform-seed134.itf.json"
REAL = DATA / "quorum_queue-conform-seed134.real.itf.json"


def _walk(rejected: set[int]) -> list[int]:
    """The walk's steps judged as ``random_walks`` judges them, with the
    broker's observations of the campaign: how many states the model
    allows at each step show the observation (``rejected``: the messages
    the broker nacked by the Heal)."""
    model, trace = load_for_trace(SPEC, TRACE)
    real = [{k: v for k, v in s.items() if k != "#meta"}
            for s in json.loads(REAL.read_text())["states"]]
    driver = QuorumQueueDriver()
    driver.consts = dict(model.const_values)
    driver.size = driver.consts["N"]
    belief = Belief(model, driver)
    candidates = belief.initial()
    counts = []
    for i, step in enumerate(trace.steps):
        if i > 0:
            candidates = belief.after(step.action, step.params)
        if step.action == "Heal":
            driver.rejected = set(rejected)
        belief.nodes = belief.matching(candidates, real[i])
        counts.append(len(belief.nodes))
        if not belief.nodes:
            break
    return counts


def test_seed_134_does_not_conform_when_the_publish_is_only_late():
    # Without a nack the broker's empty queue at the Heal is no state of
    # the model's: m1 is in the working leader's log in every one.
    counts = _walk(rejected=set())
    assert len(counts) == 5 and all(counts[:4]) and counts[4] == 0


def test_seed_134_conforms_once_the_broker_nacked_the_publish():
    counts = _walk(rejected={1})
    assert len(counts) == 5 and all(counts)


def test_a_rejected_message_is_out_of_the_projected_queue():
    model, trace = load_for_trace(SPEC, TRACE)
    driver = QuorumQueueDriver()
    driver.consts = dict(model.const_values)
    driver.size = 3
    healed = trace.steps[4].state
    assert driver.project(healed)["queue"] == {"messages": [1]}
    assert driver.project(healed)["leader"] == {"node": 1, "term": 1}
    driver.rejected = {1}
    assert driver.project(healed)["queue"] == {"messages": []}


class _Channel:
    def __init__(self, error: BaseException | None):
        self.error = error

    def confirm_delivery(self) -> None:
        pass

    def basic_publish(self, *args, **kwargs) -> None:
        if self.error is not None:
            raise self.error


class _Connection:
    def __init__(self, error: BaseException | None):
        self.error = error

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        return None

    def channel(self) -> _Channel:
        return _Channel(self.error)


class _Cluster:
    def __init__(self, error: BaseException | None):
        self.error = error

    def connect(self, node: int) -> _Connection:
        return _Connection(self.error)


@pytest.mark.parametrize("error, outcome", [
    (None, "confirmed"),
    (pika.exceptions.NackError([]), "rejected"),
    (pika.exceptions.UnroutableError([]), "nacked"),
    (pika.exceptions.StreamLostError("connection lost"), "nacked"),
])
def test_only_the_brokers_nack_counts_as_rejected(error, outcome):
    # A lost connection may leave the message in the queue: only the
    # broker's own basic.nack says it is not there.
    confirmed: set[int] = set()
    nacked: set[int] = set()
    rejected: set[int] = set()
    t = publish_confirmed(_Cluster(error), 1, "mc.qq", 1, confirmed, nacked, rejected)
    assert isinstance(t, threading.Thread)
    t.join(timeout=10)
    assert (confirmed, nacked, rejected) == {
        "confirmed": ({1}, set(), set()),
        "rejected": (set(), {1}, {1}),
        "nacked": (set(), {1}, set()),
    }[outcome]


class _Settling(QuorumQueueDriver):
    """The settle without a broker: the queue shows m1 once the publish
    thread confirms it (the registration, then the message, committed)."""
    settle_poll_s = 0.01

    def __init__(self, available: bool = True):
        super().__init__()
        self.available = available
        self.published = {1}

    def observe(self):
        if not self.available:
            return {"queue": "unavailable", "confirmed": set(self.confirmed)}
        return {"queue": {"messages": sorted(self.confirmed)},
                "confirmed": set(self.confirmed)}


def test_the_settle_waits_for_a_publish_in_flight_once_the_queue_answers():
    # The broker after a heal within the 65 s: the queue empty in two
    # readings, then m1 in it and confirmed (0.9 s, 2.8 s, then 4.8 s).
    driver = _Settling()
    threading.Timer(0.3, driver.confirmed.add, (1,)).start()
    got = driver.wait_settled()
    assert got["queue"] == {"messages": [1]} and got["confirmed"] == {1}


def test_the_settle_does_not_wait_for_a_publish_while_the_queue_is_unavailable():
    driver = _Settling(available=False)
    driver.publish_settle_s = 30.0
    got = driver.wait_settled()
    assert got["queue"] == "unavailable" and driver._in_flight() == {1}


def test_a_nacked_publish_is_not_in_flight():
    driver = _Settling()
    driver.nacked = {1}
    assert driver._in_flight() == set()
    assert driver.wait_settled()["queue"] == {"messages": []}
