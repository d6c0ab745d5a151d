"""Two QQ-large walks that found the quorum-queue client's resend, judged
without a broker (fast tier).  Seeds 141 and 142 (the eighth campaign, 30
November; their trace files are under data/) publish m1 to node 1 while a
partition cuts it off alone and the leader is elsewhere; later the
majority's leader shows m1 in the queue and confirmed.  In RabbitMQ 3.10 the
channel's ``rabbit_fifo_client`` keeps an enqueue pending until it is
applied and sends every pending command again to a new leader when it learns
of one (``resend_all_pending``).  The spec has it as ``Resend``
(``client_resends``, on by default): with it the walks conform; without it,
as the spec was when they were walked, each stops exactly where the broker
shows m1 confirmed, its only m1 being node 1's uncommitted term-1 entry.
docs/rabbitmq.md, "The client's resend"."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("pika", reason="the RabbitMQ driver needs pika (the test extra)")

from modelcheck.api import load  # noqa: E402
from modelcheck.conform import load_for_trace  # noqa: E402
from modelcheck.conform.belief import Belief  # noqa: E402
from modelcheck.conform.examples.rabbitmq_quorum import QuorumQueueDriver  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "specs" / "quorum_queue.mc"
DATA = Path(__file__).resolve().parent / "data"

#: The step of each walk at which the broker showed m1 confirmed (0: the
#: initial observation): Crash(n=3) for 141, Heal for 142.
WALKS = {141: 4, 142: 5}


def _walk(seed: int, resends: bool) -> list[int]:
    """The walk's driven steps judged as ``random_walks`` judges them, with
    the broker's observations of the campaign: how many states the model
    allows at each step show the observation."""
    # The walk's trace is of the spec as walked, without the resend; its
    # driven steps are judged against the model asked for.
    walked, trace = load_for_trace(SPEC, DATA / f"quorum_queue-conform-seed{seed}.itf.json")
    assert walked.const_values["client_resends"] is False
    model = load(SPEC, {**dict(walked.const_values), "client_resends": resends})
    real = _observations(seed)
    observed = [{k: v for k, v in s.items() if k != "#meta"} for s in real]
    driver = QuorumQueueDriver()
    driver.consts = dict(model.const_values)
    driver.size = driver.consts["N"]
    driven = [s for s in trace.steps[1:] if s.action is not None and driver.drives(s.action)
              and not driver.waits_for(s.action, dict(s.params))]
    labels = [s["#meta"]["action"] for s in real[1:]]
    assert [label.split("(")[0] for label in labels] == [s.action for s in driven[:len(labels)]]
    belief = Belief(model, driver)
    candidates = belief.initial()
    counts = []
    for i, obs in enumerate(observed):
        if i > 0:
            candidates = belief.after(driven[i - 1].action, driven[i - 1].params)
        belief.nodes = belief.matching(candidates, obs)
        counts.append(len(belief.nodes))
        if not belief.nodes:
            break
    return counts


@pytest.mark.parametrize("seed", sorted(WALKS))
def test_without_the_resend_the_walk_stops_where_the_broker_shows_m1_confirmed(seed):
    at = WALKS[seed]
    counts = _walk(seed, resends=False)
    assert len(counts) == at + 1 and all(counts[:at]) and counts[at] == 0


@pytest.mark.parametrize("seed", sorted(WALKS))
def test_with_the_resend_the_walk_conforms(seed):
    counts = _walk(seed, resends=True)
    assert len(counts) == len(_observations(seed)) and all(counts)


def _observations(seed: int) -> list:
    """The broker's observations of the walk, step by step (the campaign's
    ``.real.itf.json``)."""
    return json.loads((DATA / f"quorum_queue-conform-seed{seed}.real.itf.json").read_text())["states"]
