"""The RabbitMQ driver on a real local cluster (slow tier): a shipped
classic-mirrored-queue counterexample reproduces on RabbitMQ 3.10, and a few
random walks of a row that holds conform.  Each test starts its own cluster
on free ports and the driver always takes it down, also on failure."""
from __future__ import annotations

from pathlib import Path

import pytest

import modelcheck
from modelcheck.conform import load_for_trace, random_walks, replay_trace
from modelcheck.conform.examples.rabbitmq_cluster import rabbitmq_installed

pytest.importorskip("pika", reason="the RabbitMQ driver needs pika (the test extra)")

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "specs" / "classic_mirrored_queue.mc"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.broker,
    pytest.mark.skipif(not rabbitmq_installed(),
                       reason="rabbitmq-server is not installed (apt-get install "
                              "rabbitmq-server; .ci/run installs it)"),
    pytest.mark.timeout(300),
]


def test_cmq1_loss_reproduces(tmp_path):
    from modelcheck.conform.examples.rabbitmq import RabbitMQDriver
    model, trace = load_for_trace(SPEC, ROOT / "counterexamples" / "CMQ-1-NoLostConfirmed.itf.json")
    driver = RabbitMQDriver(workdir=str(tmp_path / "cluster"))
    report = replay_trace(model, trace, driver)
    assert driver.cluster is None                  # taken down
    assert report.reproduced is True, [(e.label, e.observed, e.note) for e in report.log]
    last = report.log[-1].observed
    assert last["confirmed"] == {"#set": [1]} and last["queued"] == []


def test_walks_on_a_holding_row_conform(tmp_path):
    from modelcheck.conform.examples.rabbitmq import RabbitMQDriver
    # CMQ-3's configuration without its consumer (the driver runs none).
    model = modelcheck.load(SPEC, {"N": 2, "ha_promote_on_failure": "when_synced",
                                   "max_crashes": 2, "max_stops": 1, "max_restarts": 1})
    driver = RabbitMQDriver(workdir=str(tmp_path / "cluster"))
    report = random_walks(model, driver, runs=2, depth=3, seed=0, out_dir=tmp_path / "out")
    assert driver.cluster is None
    assert report.ok, report.failed and (report.failed.problem, report.failed.log)


def test_pause_minority_pauses_both_nodes_of_two(tmp_path):
    """CMQ-7-pause_minority-2's counterexample: the driver's partition (the
    Erlang distribution cut, each side with a wrong cookie of its own) is a
    partition pause_minority acts on: with 2 nodes both pause, as the
    trace's steps 4 and 5 have them, and both resume at the heal."""
    from modelcheck.conform.examples.rabbitmq import RabbitMQDriver
    model, trace = load_for_trace(
        SPEC, ROOT / "counterexamples" / "CMQ-7-pause_minority-2-NoLostConfirmed.itf.json")
    driver = RabbitMQDriver(workdir=str(tmp_path / "cluster"))
    report = replay_trace(model, trace, driver)
    assert driver.cluster is None
    seen = {e.label: e.observed for e in report.log}
    paused = seen["NodeDown(n=2, how=pause)"]["up"]
    assert paused == {"#map": [[1, False], [2, False]]}, [(e.label, e.observed) for e in report.log]
    assert report.log[-1].observed["up"] == {"#map": [[1, True], [2, True]]}
