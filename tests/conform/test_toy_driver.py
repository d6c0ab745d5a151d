"""The conformance harness on the toy queue (modelcheck/conform/examples):
random walks find its planted bug, a counterexample replays on it, and the
fixed queue conforms."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

import modelcheck
from modelcheck.cli.main import cli
from modelcheck.conform import (ConformError, Driver, load_driver, load_for_trace, random_walks,
                                replay_trace)
from modelcheck.conform.examples.toy_queue import SPEC, ToyQueueDriver
from modelcheck.trace.itf import read_itf

DRIVER = "modelcheck.conform.examples.toy_queue:ToyQueueDriver"


@pytest.fixture(scope="module")
def counterexample(tmp_path_factory):
    """A counterexample of the broken protocol, as ``check`` writes it."""
    model = modelcheck.load(SPEC, {"confirm_before_replication": True})
    result = modelcheck.check(model, engine="reference")
    prop = modelcheck.assert_violated(result, "NoLostConfirmed")
    return prop.trace.save(tmp_path_factory.mktemp("ce") / "toy.itf.json", model)


def test_walks_find_the_planted_bug(tmp_path):
    model = modelcheck.load(SPEC)
    report = random_walks(model, ToyQueueDriver(), runs=10, depth=6, seed=0, out_dir=tmp_path)
    failed = report.failed
    assert failed is not None
    assert "no state the model allows" in failed.problem
    assert failed.log[-1].label == "Publish" and not failed.log[-1].agrees
    model_side, real_side = failed.files
    trace = read_itf(model_side, model)          # a behaviour of the spec, shown by trace show
    assert trace.steps[-1].action == "Publish"
    real = json.loads(real_side.read_text())
    assert real["vars"] == ["up", "leader", "content", "confirmed"]
    assert len(real["states"]) == len(failed.log)


def test_walks_are_seeded():
    model = modelcheck.load(SPEC)
    labels = [[e.label for e in random_walks(model, ToyQueueDriver(bug=False), runs=3, depth=5,
                                             seed=7).runs[i].log] for i in range(3)]
    again = [[e.label for e in random_walks(model, ToyQueueDriver(bug=False), runs=3, depth=5,
                                            seed=7).runs[i].log] for i in range(3)]
    assert labels == again


def test_the_fixed_queue_conforms():
    model = modelcheck.load(SPEC)
    report = random_walks(model, ToyQueueDriver(bug=False), runs=15, depth=8, seed=0)
    assert report.ok, report.failed and report.failed.problem
    assert len(report.runs) == 15


def test_a_spent_budget_begins_no_walk():
    # bench/conform_rabbitmq.py --budget: the walk under way ends, no other begins.
    model = modelcheck.load(SPEC)
    report = random_walks(model, ToyQueueDriver(bug=False), runs=5, depth=4, seed=0, budget_s=0)
    assert len(report.runs) == 1 and report.runs[0].problem is None
    assert any("budget" in n for n in report.notes)
    assert len(random_walks(model, ToyQueueDriver(bug=False), runs=5, depth=4, seed=0,
                            budget_s=600).runs) == 5


def test_replay_reproduces_the_loss(counterexample):
    model, trace = load_for_trace(SPEC, counterexample)
    report = replay_trace(model, trace, ToyQueueDriver())
    assert report.reproduced is True
    assert [e.driven for e in report.log] == [s.action is not None and s.action != "Confirm"
                                              for s in trace.steps]
    # The real queue confirms as it accepts: ahead of the trace, noted, not fatal.
    assert not report.log[1].agrees and "confirmed" in report.log[1].note


def test_replay_on_the_fixed_queue_does_not_reproduce(counterexample):
    model, trace = load_for_trace(SPEC, counterexample)
    report = replay_trace(model, trace, ToyQueueDriver(bug=False))
    assert report.reproduced is False


def test_cli_replay_and_walk(counterexample, tmp_path):
    runner = CliRunner()
    done = runner.invoke(cli, ["conform", "replay", str(SPEC), str(counterexample),
                               "--driver", DRIVER])
    assert done.exit_code == 0, done.output
    assert "REPRODUCED" in done.output
    done = runner.invoke(cli, ["conform", "replay", str(SPEC), str(counterexample),
                               "--driver", DRIVER, "--driver-option", "bug=false"])
    assert done.exit_code == 1 and "NOT REPRODUCED" in done.output
    done = runner.invoke(cli, ["conform", "walk", str(SPEC), "--driver", DRIVER, "--runs", "5",
                               "--depth", "6", "--out", str(tmp_path)])
    assert done.exit_code == 1 and "MISMATCH" in done.output
    assert list(tmp_path.glob("*.real.itf.json"))
    shown = runner.invoke(cli, ["trace", "show", str(next(tmp_path.glob("*conform-seed*[0-9].itf.json")))])
    assert shown.exit_code == 0, shown.output


def test_a_bad_driver_is_a_coded_error():
    with pytest.raises(ConformError, match="MC7001"):
        load_driver("modelcheck.conform.examples.toy_queue:ToyQueue")
    with pytest.raises(ConformError, match="MC7001"):
        load_driver("no_such_module:Driver")
    assert isinstance(load_driver(DRIVER, {"bug": "false"}), Driver)


def test_a_loss_the_spec_allows_is_no_mismatch():
    """Walks of the broken protocol on the buggy queue: the queue loses
    confirmed messages, and so does the spec, so every walk conforms (a row
    judges only what its spec keeps: CMQ-3 claims NoLostConfirmed, and
    a duplicate delivery that its spec allows too is not a mismatch)."""
    model = modelcheck.load(SPEC, {"confirm_before_replication": True})
    broken: list[str] = []

    class Recording(ToyQueueDriver):
        def holds(self, prop, observation):
            verdict = super().holds(prop, observation)
            if verdict is False:
                broken.append(prop)
            return verdict

    report = random_walks(model, Recording(), runs=10, depth=6, seed=0)
    assert broken, "no walk lost a message: the test no longer tests anything"
    assert report.ok, report.failed and report.failed.problem


class _BoundedToy(ToyQueueDriver):
    """The fixed queue, whose observations go past the model's bounds once
    a message is confirmed (as a term past the row's T does on the broker)."""

    def past_bounds(self, observation):
        return "a message confirmed: past this test's bound" if observation["confirmed"] else None


def test_a_walk_past_the_models_bounds_stops_without_a_mismatch():
    model = modelcheck.load(SPEC)
    report = random_walks(model, _BoundedToy(bug=False), runs=10, depth=8, seed=0)
    assert report.ok
    stopped = [r for r in report.runs if r.stopped is not None]
    assert stopped and all("past this test's bound" in r.stopped for r in stopped)
    assert all(r.log[-1].agrees for r in stopped)       # the last compared step agreed
    assert any("past the model's bounds" in n for n in report.notes)
