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
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from modelcheck.conform.driver import DriverFailure

__all__ = ["RabbitCluster", "rabbitmq_installed", "free_port_base", "publish_confirmed",
           "settle_past_publishes", "RABBIT_BIN"]

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
                 timeout_s: float = 120.0):
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

    def queues(self, i: int, *args: str, check: bool = True) -> str:
        """``rabbitmq-queues -n NODE ARGS`` (quorum queue membership)."""
        try:
            done = subprocess.run([str(RABBIT_BIN / "rabbitmq-queues"), "-n", self.node(i), *args],
                                  env=self._env(i), capture_output=True, text=True,
                                  timeout=self.timeout_s)
        except subprocess.TimeoutExpired:
            raise DriverFailure(f"rabbitmq-queues {' '.join(args)} on {self.node(i)} timed out") \
                from None
        if check and done.returncode != 0:
            raise DriverFailure(f"rabbitmq-queues {' '.join(args)} on {self.node(i)} exited "
                                f"{done.returncode}: {(done.stderr or done.stdout).strip()[-400:]}")
        return done.stdout

    def eval(self, i: int, expr: str, check: bool = True, timeout_s: float | None = None) -> str:
        """Evaluate an Erlang expression on node ``i`` (``rabbitmqctl eval``)."""
        return self.ctl(i, "eval", expr, check=check, timeout_s=timeout_s)

    def connect(self, i: int):
        """A pika connection to node ``i``'s AMQP port (bounded waits)."""
        import pika
        params = pika.ConnectionParameters("127.0.0.1", self.amqp_port(i),
                                           connection_attempts=1, socket_timeout=5,
                                           blocked_connection_timeout=10)
        return pika.BlockingConnection(params)

    # ------------------------------------------------------------ partitions

    # A partition cuts the Erlang distribution between two sets of nodes:
    # each node of one side is told to use a wrong cookie for the nodes of
    # the other side, then the connections between the sides are closed.
    # The nodes see nodedown (RabbitMQ's partition handling and ra see a
    # real partition), and every reconnection, which the distribution tries
    # at the next message, fails the handshake, until ``heal`` restores the
    # cookies.  No privileges are needed (CI runs unprivileged containers;
    # iptables and network namespaces need CAP_NET_ADMIN), and the clients'
    # AMQP links and the operators' CLI links are not cut.

    def partition(self, side: set[int] | frozenset, other: set[int] | frozenset,
                  running: set[int] | frozenset) -> None:
        side_up = sorted(a for a in side if a in running)
        other_up = sorted(b for b in other if b in running)
        if not side_up and not other_up:
            return
        # One node does it all in one evaluation, so that the cut is one
        # step, as the spec's Partition is: cut link by link over several
        # rabbitmqctl calls (seconds), a node cut from the leader but still
        # linked to a peer held an election the spec's partition cannot
        # cause.  Each node gets a wrong cookie of its own: with one shared
        # by both sides the two would agree on it and the first reconnection
        # (mnesia's, ra's) would heal the partition at once.  Cookies first,
        # then the disconnections, all from the host's side (a closed
        # connection is closed at both ends).
        host = (side_up or other_up)[0]
        near, far = (side_up, other) if host in side else (other_up, side)
        cookies = [(a, b) for a in side_up for b in sorted(other)] + \
            [(b, a) for b in other_up for a in sorted(side)]
        set_cookies = ", ".join(f"catch erpc:call('{self.node(a)}', erlang, set_cookie, "
                                f"['{self.node(b)}', mc_cut_{a}], 5000)" for a, b in cookies)
        cuts = ", ".join(f"catch erpc:call('{self.node(a)}', erlang, disconnect_node, "
                         f"['{self.node(b)}'], 5000)" for a in near for b in sorted(far))
        self.eval(host, f"[{set_cookies}], [{cuts}], ok.")

    def heal(self, running: set[int] | frozenset, side: set[int] | frozenset = frozenset()) -> None:
        """Restore every cookie and reconnect.  With ``side`` (one side of
        the partition) the heal is one step too: the other side's nodes are
        restored first, which opens no connection yet, then one node of
        ``side`` restores the cookies of its whole side in one evaluation;
        restored node by node, some links of the partition would come back
        seconds before the others."""
        nodes = sorted(running)
        atoms = ", ".join(f"'{self.node(b)}'" for b in range(1, self.size + 1))
        last = [a for a in nodes if a in side]
        for a in nodes:
            if a not in last:
                self.eval(a, f"[erlang:set_cookie(P, erlang:get_cookie()) || P <- [{atoms}]], ok.")
        if last:
            mine = ", ".join(f"'{self.node(a)}'" for a in last)
            self.eval(last[0], f"C = erlang:get_cookie(), [catch erpc:call(A, erlang, set_cookie, "
                               f"[P, C], 5000) || A <- [{mine}], P <- [{atoms}]], ok.")
        for a in nodes:
            self.eval(a, f"[net_adm:ping(P) || P <- [{atoms}], P =/= node()], ok.")

    def wipe(self, i: int, only: str | None = None) -> None:
        """Remove node ``i``'s data (its disk is lost), or with ``only`` one
        folder of it (``quorum``: the quorum queues' ra data); the node must
        be down."""
        base = self.workdir / f"n{i}" / "mnesia"
        if only is None:
            shutil.rmtree(base, ignore_errors=True)
            return
        for d in base.glob(f"*/{only}"):
            shutil.rmtree(d, ignore_errors=True)

    def launch(self, i: int) -> None:
        """Start node ``i``'s Erlang VM and the broker in it, and wait for it."""
        self._spawn(i)
        self._await(i)

    def _spawn(self, i: int) -> None:
        d = self.workdir / f"n{i}"
        d.mkdir(parents=True, exist_ok=True)
        (d / "enabled_plugins").write_text("[].\n")
        (d / "rabbitmq.conf").write_text(
            f"cluster_partition_handling = {self.partition_handling}\n"
            "log.console = false\nlog.file.level = info\n")
        with open(d / "launch.log", "ab") as log:
            subprocess.run([str(RABBIT_BIN / "rabbitmq-server"), "-detached"], env=self._env(i),
                           stdout=log, stderr=log, timeout=self.timeout_s, check=False)

    def _await(self, i: int) -> None:
        # await_startup fails at once while the VM has not registered with
        # epmd yet; ``wait PIDFILE`` waits for the VM, then the broker.
        d = self.workdir / f"n{i}"
        self.ctl(i, "wait", str(d / "pid"), "--timeout", str(int(self.timeout_s)),
                 timeout_s=self.timeout_s + 10)

    def up(self) -> None:
        """Start every node and join them to node 1."""
        self.home.mkdir(parents=True, exist_ok=True)
        cookie = self.home / ".erlang.cookie"
        if not cookie.exists():
            cookie.write_text(f"MODELCHECKCOOKIE{self.tag}")
            cookie.chmod(0o400)
        # The VMs boot side by side (a node's boot mostly waits), then join.
        for i in range(1, self.size + 1):
            self._spawn(i)
        for i in range(1, self.size + 1):
            self._await(i)
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


def publish_confirmed(cluster: RabbitCluster, node: int, queue: str, m: int,
                      confirmed: set[int], nacked: set[int],
                      rejected: set[int] | None = None) -> threading.Thread:
    """Publish message ``m`` (persistent, mandatory) to ``queue`` through
    ``node`` with publisher confirms, on a thread of its own, so that the
    broker's confirm is its own later step; ``m`` goes into ``confirmed``
    at the confirm, into ``nacked`` at a nack, an unroutable return or a
    lost connection, and also into ``rejected`` (when given) at the broker's
    own basic.nack: the broker refused the message, where after a lost
    connection it may still hold it.  Both drivers publish this way."""
    def publish() -> None:
        import pika
        from pika.exceptions import NackError
        try:
            with cluster.connect(node) as conn:
                ch = conn.channel()
                ch.confirm_delivery()
                ch.basic_publish("", queue, str(m).encode(),
                                 pika.BasicProperties(delivery_mode=2), mandatory=True)
            confirmed.add(m)
        except NackError:
            if rejected is not None:
                rejected.add(m)
            nacked.add(m)
        except Exception:       # an unroutable message, a closed connection
            nacked.add(m)
    t = threading.Thread(target=publish, daemon=True, name=f"publish-{queue}-{m}")
    t.start()
    return t


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


def settle_past_publishes(settle: Callable[[], dict[str, Any]], in_flight: Callable[[], bool],
                          unavailable: Callable[[dict[str, Any]], bool], timeout_s: float,
                          poll_s: float) -> dict[str, Any]:
    """``settle`` (a driver's two equal readings), then, unless the reading
    says the queue is ``unavailable`` (where a publish may wait its whole
    timeout) or no publish is ``in_flight``, a wait for the publishes (at
    most ``timeout_s``) and ``settle`` again: two equal readings may fall
    between a message's arrival and its confirm, a state the specs do not
    have (both drivers' ``wait_settled`` say where it was seen)."""
    got = settle()
    if unavailable(got) or not in_flight():
        return got
    deadline = time.monotonic() + timeout_s
    while in_flight() and time.monotonic() < deadline:
        time.sleep(poll_s)
    return settle()
