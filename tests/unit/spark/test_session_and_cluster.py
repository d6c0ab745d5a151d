"""Spark settings, the package zip, the notes, and the local cluster helpers
(what can be checked without starting Spark)."""
from __future__ import annotations

import os
import subprocess
import sys
import zipfile

from modelcheck.engines.base import CheckOptions
from modelcheck.engines.spark.checkpoint import LevelLog, SearchState
from modelcheck.engines.spark.cluster import ClusterConfig, cluster_down, daemon_command
from modelcheck.engines.spark.session import (STATES_PER_PARTITION, _conf_settings,
                                              default_partitions, is_local, local_driver_memory,
                                              package_zip)
from modelcheck.engines.spark.summary import collision_probability, level_notes, level_ranges


def test_conf_runs_workers_on_this_interpreter_quietly():
    conf = _conf_settings("local[*]", False, {})
    assert conf["spark.pyspark.python"] == sys.executable
    assert conf["spark.ui.enabled"] == "false"
    assert conf["spark.ui.showConsoleProgress"] == "false"
    assert conf["spark.driver.bindAddress"] == "127.0.0.1"
    assert _conf_settings("local[2]", True, {})["spark.ui.showConsoleProgress"] == "true"
    assert conf["spark.python.worker.reuse"] == "true"
    # A local shuffle stays on this disk: not compressed; over a network it is.
    assert conf["spark.shuffle.compress"] == "false"


def test_local_jvm_compiles_with_c1_only_unless_told_otherwise():
    # The local JVM runs no hot loop of its own: C2's compilations were
    # most of its CPU (docs/engines/spark.md, "The JVM's share").
    assert "-XX:TieredStopAtLevel=1" in _conf_settings("local[2]", False, {})[
        "spark.driver.extraJavaOptions"]
    own = {"spark.driver.extraJavaOptions": "-Xss4m"}
    assert _conf_settings("local[2]", False, own)["spark.driver.extraJavaOptions"] == "-Xss4m"
    # A cluster's driver and executors keep their JVMs' defaults.
    assert "spark.driver.extraJavaOptions" not in _conf_settings("spark://10.0.0.5:7077", False, {})


def test_conf_for_remote_masters_and_overrides():
    remote = _conf_settings("spark://10.0.0.5:7077", False, {"spark.executor.memory": "4g"})
    assert "spark.driver.bindAddress" not in remote and "spark.driver.memory" not in remote
    assert remote["spark.executor.memory"] == "4g"
    assert "spark.shuffle.compress" not in remote
    assert _conf_settings("spark://127.0.0.1:7077", False, {})["spark.driver.host"] == "127.0.0.1"


def test_is_local_and_partitions():
    assert is_local("local") and is_local("local[4]") and is_local("local[*]")
    assert not is_local("yarn") and not is_local("spark://h:7077") and not is_local("k8s://h")
    assert default_partitions(1) == 2 and default_partitions(8) == 8
    # A state bound asks for parts of at most STATES_PER_PARTITION states,
    # a whole number of waves over the cores.
    assert default_partitions(2, 10_000) == 2
    assert default_partitions(2, 2 * STATES_PER_PARTITION) == 2
    assert default_partitions(2, 2 * STATES_PER_PARTITION + 1) == 4
    assert default_partitions(4, 100_000_000) == 16


def test_local_driver_memory_is_a_quarter_of_the_machine():
    gib = 1 << 30
    assert local_driver_memory(24 * gib) == "6g"
    assert local_driver_memory(4 * gib) == "2g"          # at least 2 GiB
    assert local_driver_memory(256 * gib) == "16g"       # at most 16 GiB
    assert _conf_settings("local[2]", False, {})["spark.driver.memory"] == local_driver_memory()
    assert _conf_settings("local[2]", False, {"spark.driver.memory": "3g"})[
        "spark.driver.memory"] == "3g"


def test_package_zip_holds_the_package_and_is_reused():
    path = package_zip()
    with zipfile.ZipFile(path) as zf:
        names = set(zf.namelist())
    assert "modelcheck/__init__.py" in names
    assert "modelcheck/engines/spark/rdds.py" in names
    assert "modelcheck/engines/spark/__init__.py" in names      # zipimport needs it
    assert not any("__pycache__" in n for n in names)
    assert package_zip() == path


def test_level_ranges_and_notes():
    levels = [LevelLog(i, "in-process" if i < 4 else "spark", 0, 1, 0.1) for i in range(1, 9)]
    assert level_ranges(levels, "in-process") == "1-3"
    assert level_ranges(levels, "spark") == "4-8"
    state = SearchState(depth=7, distinct=1000, levels=levels)
    notes = level_notes(state, {"master": "local[2]", "partitions": 2}, CheckOptions(), False)
    assert notes[:2] == ["levels 1-3 ran in-process",
                         "levels 4-8 ran on Spark (local[2], 2 partitions)"]
    assert "collision probability" in notes[2]
    assert 2.7e-14 < collision_probability(1000) < 2.8e-14


def test_daemon_commands_bind_to_loopback():
    config = ClusterConfig(state_dir="/tmp/x")
    master = daemon_command(config, "start", "org.apache.spark.deploy.master.Master", 1)
    assert master[-6:] == ["--host", "127.0.0.1", "--port", "7077", "--webui-port", "8080"]
    worker = daemon_command(config, "start", "org.apache.spark.deploy.worker.Worker", 2)
    assert "spark://127.0.0.1:7077" in worker
    assert worker[worker.index("--cores") + 1] == "1"
    assert worker[worker.index("--memory") + 1] == "1g"


def test_cluster_down_stops_recorded_pids_only(tmp_path):
    config = ClusterConfig(state_dir=str(tmp_path), workers=1)
    pids = tmp_path / "pids"
    pids.mkdir()
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    bystander = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        (pids / "spark-modelcheck-org.apache.spark.deploy.worker.Worker-1.pid").write_text(
            str(proc.pid))
        stopped = cluster_down(config, grace_s=5)
        assert stopped == [proc.pid]
        assert proc.wait(timeout=10) is not None
        assert bystander.poll() is None
        assert os.listdir(pids) == []
        assert cluster_down(config) == []            # nothing left: a no-op
    finally:
        for p in (proc, bystander):
            if p.poll() is None:
                p.kill()
                p.wait()
