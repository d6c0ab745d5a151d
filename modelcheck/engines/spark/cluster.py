"""A standalone Spark cluster on this machine: one master and a few workers on 127.0.0.1.

For tests and benchmarks (``make spark-cluster-up`` / ``make
spark-cluster-down``, the slow-tier fixture).  The pyspark wheel ships no
``start-master.sh``, but its ``sbin/spark-daemon.sh`` starts the master and
worker classes and writes their pid files.  Everything the cluster writes
(pid files, logs, the workers' scratch folders) lives under one state folder,
``.spark-cluster/`` by default (git-ignored), and ``cluster_down`` stops the
daemons by the pids recorded there, nothing else.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import dataclass

from modelcheck.errors import ModelcheckError

__all__ = ["ClusterConfig", "ClusterError", "cluster_up", "cluster_down", "alive_workers",
           "spark_home", "daemon_env", "daemon_command"]

_MASTER_CLASS = "org.apache.spark.deploy.master.Master"
_WORKER_CLASS = "org.apache.spark.deploy.worker.Worker"


class ClusterError(ModelcheckError):
    """The local cluster could not be started or stopped."""


@dataclass(frozen=True)
class ClusterConfig:
    state_dir: str = ".spark-cluster"
    host: str = "127.0.0.1"
    port: int = 7077
    webui_port: int = 8080
    workers: int = 2
    worker_cores: int = 1
    worker_memory: str = "1g"
    start_timeout_s: float = 90.0

    @property
    def master_url(self) -> str:
        return f"spark://{self.host}:{self.port}"

    @property
    def ident(self) -> str:
        return "modelcheck"


def spark_home() -> str:
    """The pyspark package folder: it holds ``bin/``, ``sbin/`` and ``jars/``."""
    import pyspark
    return os.path.dirname(os.path.abspath(pyspark.__file__))


def daemon_env(config: ClusterConfig) -> dict[str, str]:
    state = os.path.abspath(config.state_dir)
    env = dict(os.environ)
    env.update({
        "SPARK_HOME": spark_home(),
        "SPARK_PID_DIR": os.path.join(state, "pids"),
        "SPARK_LOG_DIR": os.path.join(state, "logs"),
        "SPARK_WORKER_DIR": os.path.join(state, "work"),
        "SPARK_LOCAL_IP": config.host,
        "SPARK_IDENT_STRING": config.ident,
        # The daemons' own settings only; jobs bring their configuration.
        "SPARK_CONF_DIR": os.path.join(state, "conf"),
    })
    return env


def daemon_command(config: ClusterConfig, action: str, klass: str, instance: int) -> list[str]:
    script = os.path.join(spark_home(), "sbin", "spark-daemon.sh")
    cmd = ["bash", script, action, klass, str(instance)]
    if action != "start":
        return cmd
    if klass == _MASTER_CLASS:
        return cmd + ["--host", config.host, "--port", str(config.port),
                      "--webui-port", str(config.webui_port)]
    return cmd + [config.master_url, "--host", config.host, "--cores", str(config.worker_cores),
                  "--memory", config.worker_memory, "--webui-port", "0",
                  "--work-dir", os.path.join(os.path.abspath(config.state_dir), "work")]


def _pid_file(config: ClusterConfig, klass: str, instance: int) -> str:
    return os.path.join(os.path.abspath(config.state_dir), "pids",
                        f"spark-{config.ident}-{klass}-{instance}.pid")


def _daemons(config: ClusterConfig) -> list[tuple[str, int]]:
    return [(_MASTER_CLASS, 1)] + [(_WORKER_CLASS, i) for i in range(1, config.workers + 1)]


def alive_workers(config: ClusterConfig) -> int | None:
    """Workers registered with the master (from its web UI's JSON), or None
    if the master does not answer."""
    url = f"http://{config.host}:{config.webui_port}/json/"
    try:
        with urllib.request.urlopen(url, timeout=2) as resp:
            return int(json.load(resp).get("aliveworkers", 0))
    except (urllib.error.URLError, OSError, ValueError):
        return None


def _running(pid: int) -> bool:
    """Alive and not a zombie (a daemon whose parent is gone may stay one
    when nothing reaps it)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def _read_pid(path: str) -> int | None:
    try:
        with open(path) as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        return None


def cluster_up(config: ClusterConfig = ClusterConfig()) -> str:
    """Start the master and the workers; return the master URL once every
    worker has registered.  Stops what it started if that does not happen."""
    state = os.path.abspath(config.state_dir)
    for sub in ("pids", "logs", "work", "conf"):
        os.makedirs(os.path.join(state, sub), exist_ok=True)
    with open(os.path.join(state, "conf", "log4j2.properties"), "w") as f:
        f.write("rootLogger.level = warn\nrootLogger.appenderRef.stdout.ref = console\n"
                "appender.console.type = Console\nappender.console.name = console\n"
                "appender.console.target = SYSTEM_ERR\n"
                "appender.console.layout.type = PatternLayout\n"
                "appender.console.layout.pattern = %d{yy/MM/dd HH:mm:ss} %p %c{1}: %m%n\n")
    for klass, instance in _daemons(config):
        pid = _read_pid(_pid_file(config, klass, instance))
        if pid is not None and _running(pid):
            raise ClusterError(f"a {klass.rsplit('.', 1)[-1]} of this cluster is already running "
                               f"(pid {pid}); run `make spark-cluster-down` first")
    env = daemon_env(config)
    try:
        for klass, instance in _daemons(config):
            out = subprocess.run(daemon_command(config, "start", klass, instance), env=env,
                                 capture_output=True, text=True, timeout=120)
            if out.returncode != 0 or "failed to launch" in out.stdout:
                raise ClusterError(f"could not start the {klass.rsplit('.', 1)[-1]}:\n"
                                   f"{out.stdout}{out.stderr}".rstrip())
        deadline = time.monotonic() + config.start_timeout_s
        while time.monotonic() < deadline:
            if (alive_workers(config) or 0) >= config.workers:
                return config.master_url
            time.sleep(0.5)
        raise ClusterError(f"the workers did not register with {config.master_url} within "
                           f"{config.start_timeout_s:g} s; logs in {os.path.join(state, 'logs')}")
    except BaseException:
        cluster_down(config)
        raise


def cluster_down(config: ClusterConfig = ClusterConfig(), grace_s: float = 20.0) -> list[int]:
    """Stop the daemons recorded under the state folder (workers first),
    SIGTERM then, after ``grace_s``, SIGKILL.  Returns the pids stopped."""
    stopped = []
    for klass, instance in reversed(_daemons(config)):
        path = _pid_file(config, klass, instance)
        pid = _read_pid(path)
        if pid is not None and _running(pid):
            os.kill(pid, signal.SIGTERM)
            deadline = time.monotonic() + grace_s
            while _running(pid) and time.monotonic() < deadline:
                _reap(pid)
                time.sleep(0.2)
            if _running(pid):
                os.kill(pid, signal.SIGKILL)
                _reap(pid)
            stopped.append(pid)
        if os.path.exists(path):
            os.remove(path)
    return stopped


def _reap(pid: int) -> None:
    """Collect the exit status if the daemon is our child (it is not when
    spark-daemon.sh started it through nohup, but a zombie would look alive)."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass
