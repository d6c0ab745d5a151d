"""The Spark engine on a real standalone cluster on this machine: a master
and two workers (1 core, 1 GiB each) on 127.0.0.1, started by the fixture
and stopped by their pids even if the test fails.  The check runs through
the command line, as a user would: ``modelcheck check SPEC --engine spark
--master spark://127.0.0.1:PORT``."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
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
def cluster(tmp_path_factory):
    from modelcheck.engines.spark.cluster import ClusterConfig, cluster_down, cluster_up
    # Free ports rather than 7077/8080: a cluster from `make spark-cluster-up`
    # may be running, and Spark would silently take the next port.
    config = ClusterConfig(state_dir=str(tmp_path_factory.mktemp("spark-cluster")),
                           port=_free_port(), webui_port=_free_port())
    try:
        yield cluster_up(config)
    finally:
        cluster_down(config)


def _modelcheck(*args: str) -> subprocess.CompletedProcess:
    cli = os.path.join(os.path.dirname(sys.executable), "modelcheck")
    return subprocess.run([cli, *args], capture_output=True, text=True, cwd=ROOT, timeout=600)


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
