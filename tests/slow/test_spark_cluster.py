"""The Spark engine on a real standalone cluster on this machine: a master
and two workers (1 core, 1 GiB each) on 127.0.0.1, started by the fixture
and stopped by their pids even if the test fails.  Most checks run through
the command line, as a user would: ``modelcheck check SPEC --engine spark
--master spark://127.0.0.1:PORT``; conformance rows run in this process on
the cluster's executors.  Faults: one worker killed while levels run (Spark
re-runs its tasks from the replicated runs: the counts do not change), and
the driver killed after a checkpoint, then ``--resume``."""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from modelcheck import api
from modelcheck.engines.base import CheckOptions

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def cluster_config(tmp_path_factory):
    from modelcheck.engines.spark.cluster import ClusterConfig, cluster_down, cluster_up
    # Free ports rather than 7077/8080: a cluster from `make spark-cluster-up`
    # may be running, and Spark would silently take the next port.
    config = ClusterConfig(state_dir=str(tmp_path_factory.mktemp("spark-cluster")),
                           port=_free_port(), webui_port=_free_port())
    try:
        cluster_up(config)
        yield config
    finally:
        cluster_down(config)


@pytest.fixture
def cluster(cluster_config):
    from modelcheck.engines.spark.session import stop_spark
    # A test may have killed a worker: start it again (the master is up).
    cluster_up_if_needed(cluster_config)
    yield cluster_config.master_url
    stop_spark()        # an application in this process would hold the cores


def cluster_up_if_needed(config) -> None:
    from modelcheck.engines.spark.cluster import (_WORKER_CLASS, alive_workers, daemon_command,
                                                  daemon_env)
    if (alive_workers(config) or 0) >= config.workers:
        return
    env = daemon_env(config)
    for instance in range(1, config.workers + 1):
        pid = _worker_pid(config, instance)
        if pid is None or not _alive(pid):
            subprocess.run(daemon_command(config, "start", _WORKER_CLASS, instance), env=env,
                           capture_output=True, text=True, timeout=120)
    deadline = time.monotonic() + 90
    while (alive_workers(config) or 0) < config.workers:
        assert time.monotonic() < deadline, "the workers did not come back"
        time.sleep(0.5)


def _worker_pid(config, instance: int) -> int | None:
    from modelcheck.engines.spark.cluster import _WORKER_CLASS, _pid_file, _read_pid
    return _read_pid(_pid_file(config, _WORKER_CLASS, instance))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    return True


def _modelcheck(*args: str) -> subprocess.CompletedProcess:
    cli = os.path.join(os.path.dirname(sys.executable), "modelcheck")
    return subprocess.run([cli, *args], capture_output=True, text=True, cwd=ROOT, timeout=600)


def _start(*args: str, out_dir: Path) -> subprocess.Popen:
    cli = os.path.join(os.path.dirname(sys.executable), "modelcheck")
    return subprocess.Popen([cli, *args], stdout=open(out_dir / "out.json", "w"),
                            stderr=open(out_dir / "err.txt", "w"), cwd=ROOT,
                            start_new_session=True)


def _counts(spec: str, consts: dict) -> tuple[int, int, int]:
    result = api.check(api.load(spec, consts=consts), "compiled", CheckOptions(symmetry=False))
    return (result.stats.distinct_states, result.stats.generated_states, result.stats.depth)


TWO_PHASE = str(ROOT / "specs" / "examples" / "two_phase.mc")


def test_cluster_counts_equal_the_reference(cluster):
    spec = str(ROOT / "specs" / "examples" / "two_phase.mc")
    out = _modelcheck("check", spec, "--engine", "spark", "--master", cluster,
                      "--partitions", "2", "--spark-threshold", "0", "--no-symmetry",
                      "-D", "N=4", "--json")
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    reference = api.check(api.load(spec, consts={"N": "4"}), "reference",
                          CheckOptions(symmetry=False))          # as --no-symmetry
    assert (got["distinct_states"], got["generated_states"], got["depth"]) == (
        reference.stats.distinct_states, reference.stats.generated_states, reference.stats.depth)
    assert {name: p["status"] for name, p in got["properties"].items()} == {
        p.name: p.status.value for p in reference.properties}
    assert got["complete"] and got["engine"] == "spark"


def test_cluster_counterexample_is_shortest(cluster, tmp_path):
    spec = str(ROOT / "specs" / "examples" / "die_hard.mc")
    out = _modelcheck("check", spec, "--engine", "spark", "--master", cluster,
                      "--spark-threshold", "0", "--json", "--out", str(tmp_path))
    assert out.returncode == 1, out.stderr
    got = json.loads(out.stdout)
    assert got["properties"]["NotFour"]["status"] == "violated"
    assert got["properties"]["NotFour"]["steps"] == 6


@pytest.mark.parametrize("spec,consts", [
    # die_hard runs on the cluster in test_cluster_counterexample_is_shortest
    ("specs/examples/two_phase.mc", {"N": "3"}),
    ("specs/examples/two_phase.mc", {"N": "5"}),
    ("bench/tla/CounterConstraint.mc", {}),
])
def test_cluster_conformance_rows(cluster, spec, consts):
    # Every level on the cluster's executors (two workers), symmetry on as
    # the conformance rows run: the compiled engine's counts and verdicts.
    model = api.load(str(ROOT / spec), consts=consts)
    compiled = api.check(model, "compiled", CheckOptions())
    got = api.check(model, "spark", CheckOptions(master=cluster, partitions=3,
                                                 spark_threshold=0))
    assert got.error is None and got.complete, got.reason
    assert (got.stats.distinct_states, got.stats.generated_states, got.stats.depth) == (
        compiled.stats.distinct_states, compiled.stats.generated_states, compiled.stats.depth)
    assert {p.name: (p.status, p.steps) for p in got.properties} == {
        p.name: (p.status, p.steps) for p in compiled.properties}
    assert got.stats.extras["levels_on_spark"]


def _wait_for(predicate, timeout_s: float, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + timeout_s
    while not predicate():
        assert proc.poll() is None, "the run ended before the fault could be injected"
        assert time.monotonic() < deadline, "timed out waiting for the run"
        time.sleep(0.2)


def test_a_worker_killed_while_levels_run(cluster, cluster_config, tmp_path):
    # One worker (and its executor) dies in the middle of the search: Spark
    # re-runs the tasks it held from the runs' replicas and the shuffle's
    # surviving outputs; the counts are the compiled engine's.
    ckpt = tmp_path / "ckpt"
    proc = _start("check", TWO_PHASE, "--engine", "spark", "--master", cluster,
                  "--partitions", "2", "--spark-threshold", "0", "--no-symmetry",
                  "-D", "N=7", "--json", "--checkpoint", str(ckpt), "--checkpoint-every", "4",
                  out_dir=tmp_path)
    try:
        # Levels run on the executors once the first checkpoint is written.
        _wait_for(lambda: (ckpt / "manifest.json").exists(), 240, proc)
        victim = _worker_pid(cluster_config, 2)
        assert victim is not None
        os.kill(victim, signal.SIGKILL)
        assert proc.wait(timeout=600) == 0, (tmp_path / "err.txt").read_text()[-3000:]
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    got = json.loads((tmp_path / "out.json").read_text())
    assert (got["distinct_states"], got["generated_states"], got["depth"]) == \
        _counts(TWO_PHASE, {"N": "7"})
    assert got["complete"]


def test_resume_after_the_driver_is_killed(cluster, tmp_path):
    # SIGKILL the driver once a checkpoint is written (every second), then
    # --resume on the cluster: the uninterrupted run's counts.
    ckpt = tmp_path / "ckpt"
    proc = _start("check", TWO_PHASE, "--engine", "spark", "--master", cluster,
                  "--partitions", "2", "--spark-threshold", "0", "--no-symmetry",
                  "-D", "N=6", "--json", "--checkpoint", str(ckpt), "--checkpoint-every", "1",
                  out_dir=tmp_path)
    try:
        _wait_for(lambda: (ckpt / "manifest.json").exists(), 240, proc)
        os.killpg(proc.pid, signal.SIGKILL)      # the driver and its JVM
        proc.wait()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    out = _modelcheck("check", TWO_PHASE, "--engine", "spark", "--master", cluster,
                      "--partitions", "3", "--spark-threshold", "0", "--no-symmetry",
                      "-D", "N=6", "--json", "--resume", str(ckpt))
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert (got["distinct_states"], got["generated_states"], got["depth"]) == \
        _counts(TWO_PHASE, {"N": "6"})
