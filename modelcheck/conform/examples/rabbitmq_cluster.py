"""A local RabbitMQ cluster for the RabbitMQ driver: N nodes on 127.0.0.1,
each its own Erlang node (``rabbitN-TAG@localhost``) with its own ports and
data under one folder, sharing an Erlang cookie through a private $HOME.

Uses the broker of Debian's ``rabbitmq-server`` package (``/usr/lib/rabbitmq/
bin``); ``make rabbit-cluster-up``/``-down`` run it (``mk/rabbit_cluster.py``).
"""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

from modelcheck.conform.driver import DriverFailure

__all__ = ["RabbitCluster", "rabbitmq_installed", "free_port_base", "RABBIT_BIN"]

RABBIT_BIN = Path(os.environ.get("MODELCHECK_RABBITMQ_BIN", "/usr/lib/rabbitmq/bin"))


def rabbitmq_installed() -> bool:
    return (RABBIT_BIN / "rabbitmq-server").exists() and shutil.which("erl") is not None


def free_port_base(count: int) -> int:
    """A base port with ``base+1..base+count`` and ``base+101..base+100+count``
    free now (AMQP and Erlang distribution ports)."""
    for base in range(21000, 60000, 211):
        ports = [base + i for i in range(1, count + 1)] + \
            [base + 100 + i for i in range(1, count + 1)]
        if all(_free(p) for p in ports):
            return base
    raise DriverFailure("no free ports for a RabbitMQ cluster")


def _free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


class RabbitCluster:
    def __init__(self, size: int, workdir: str | Path, base_port: int | None = None,
                 tag: str | None = None, partition_handling: str = "ignore",
                 timeout_s: float = 60.0):
        self.size = size
        self.workdir = Path(workdir)
        self.base = base_port if base_port is not None else free_port_base(size)
        self.tag = tag or str(self.base)
        self.partition_handling = partition_handling
        self.timeout_s = timeout_s
        self.home = self.workdir / "home"

    # ------------------------------------------------------------ naming

    def node(self, i: int) -> str:
        return f"rabbit{i}-{self.tag}@localhost"

    def amqp_port(self, i: int) -> int:
        return self.base + i

    def _env(self, i: int) -> dict[str, str]:
        d = self.workdir / f"n{i}"
        env = dict(os.environ)
        env.update({
            "HOME": str(self.home),
            "RABBITMQ_NODENAME": self.node(i),
            "RABBITMQ_NODE_IP_ADDRESS": "127.0.0.1",
            "RABBITMQ_NODE_PORT": str(self.amqp_port(i)),
            "RABBITMQ_DIST_PORT": str(self.base + 100 + i),
            "RABBITMQ_MNESIA_BASE": str(d / "mnesia"),
            "RABBITMQ_LOG_BASE": str(d / "log"),
            "RABBITMQ_CONFIG_FILE": str(d / "rabbitmq"),
            "RABBITMQ_ENABLED_PLUGINS_FILE": str(d / "enabled_plugins"),
            "RABBITMQ_PID_FILE": str(d / "pid"),
        })
        return env

    # ------------------------------------------------------------ commands

    def ctl(self, i: int, *args: str, timeout_s: float | None = None,
            check: bool = True) -> str:
        """``rabbitmqctl -n NODE ARGS`` as node ``i``'s operator."""
        try:
            done = subprocess.run([str(RABBIT_BIN / "rabbitmqctl"), "-n", self.node(i), *args],
                                  env=self._env(i), capture_output=True, text=True,
                                  timeout=timeout_s or self.timeout_s)
        except subprocess.TimeoutExpired:
            raise DriverFailure(f"rabbitmqctl {' '.join(args)} on {self.node(i)} timed out") \
                from None
        if check and done.returncode != 0:
            raise DriverFailure(f"rabbitmqctl {' '.join(args)} on {self.node(i)} exited "
                                f"{done.returncode}: {(done.stderr or done.stdout).strip()[-400:]}")
        return done.stdout

    def launch(self, i: int) -> None:
        """Start node ``i``'s Erlang VM and the broker in it, and wait for it."""
        d = self.workdir / f"n{i}"
        d.mkdir(parents=True, exist_ok=True)
        (d / "enabled_plugins").write_text("[].\n")
        (d / "rabbitmq.conf").write_text(
            f"cluster_partition_handling = {self.partition_handling}\n"
            "log.console = false\nlog.file.level = info\n")
        with open(d / "launch.log", "ab") as log:
            subprocess.run([str(RABBIT_BIN / "rabbitmq-server"), "-detached"], env=self._env(i),
                           stdout=log, stderr=log, timeout=self.timeout_s, check=False)
        # await_startup fails at once while the VM has not registered with
        # epmd yet; ``wait PIDFILE`` waits for the VM, then the broker.
        self.ctl(i, "wait", str(d / "pid"), "--timeout", str(int(self.timeout_s)),
                 timeout_s=self.timeout_s + 10)

    def up(self) -> None:
        """Start every node and join them to node 1."""
        self.home.mkdir(parents=True, exist_ok=True)
        cookie = self.home / ".erlang.cookie"
        if not cookie.exists():
            cookie.write_text(f"MODELCHECKCOOKIE{self.tag}")
            cookie.chmod(0o400)
        for i in range(1, self.size + 1):
            self.launch(i)
        for i in range(2, self.size + 1):
            self.ctl(i, "stop_app")
            self.ctl(i, "join_cluster", self.node(1))
            self.ctl(i, "start_app")

    def pid(self, i: int) -> int | None:
        try:
            return int((self.workdir / f"n{i}" / "pid").read_text().strip())
        except (OSError, ValueError):
            return None

    def kill(self, i: int) -> None:
        """kill -9 node ``i``'s Erlang VM (a crash: no clean shutdown)."""
        pid = self.pid(i)
        if pid is None:
            raise DriverFailure(f"{self.node(i)} has no pid file")
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and _alive(pid):
            time.sleep(0.05)
        (self.workdir / f"n{i}" / "pid").unlink(missing_ok=True)

    def down(self) -> None:
        """Kill every node and remove the cluster's folder; never raises."""
        for i in range(1, self.size + 1):
            pid = self.pid(i)
            if pid is not None:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
        shutil.rmtree(self.workdir, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    # A killed child of ours lingers as a zombie until reaped.
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] != "Z"
    except OSError:
        return False
