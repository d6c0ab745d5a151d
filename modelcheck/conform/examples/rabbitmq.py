"""The RabbitMQ driver: ``classic_mirrored_queue.mc`` on a real local cluster
(``rabbitmq_cluster.RabbitCluster``) of RabbitMQ 3.10 (docs/conformance.md).

Driven: Publish (a pika publisher with confirms, on its own thread, so that
the confirm is the broker's own later action), NodeDown crash (kill -9 of the
node's Erlang VM) and stop (``rabbitmqctl stop_app``), Start, SyncQueue,
Partition and Heal (disconnecting the Erlang distribution).  Waited for:
MirrorAccept, Confirm, promotions, syncs.  Observed: which nodes run (as the
driver left them), which messages were confirmed, and what the queue holds
(browsed with basic.get, requeued), or "unavailable".
"""
from __future__ import annotations

import json
import tempfile
import threading
from collections.abc import Mapping
from typing import Any

from modelcheck.conform.driver import Driver, DriverFailure
from modelcheck.conform.examples.rabbitmq_cluster import RabbitCluster
from modelcheck.ir import nodes as ir

__all__ = ["RabbitMQDriver", "QUEUE", "policy_of"]

QUEUE = "mc.q"


def policy_of(consts: Mapping[str, Any]) -> dict[str, Any]:
    """The ha-* policy the spec's consts describe."""
    mode = consts.get("ha_mode", "all_nodes")
    policy: dict[str, Any] = {
        "ha-sync-mode": consts.get("ha_sync_mode", "manual"),
        "ha-promote-on-failure": consts.get("ha_promote_on_failure", "always").replace("_", "-"),
        "ha-promote-on-shutdown":
            consts.get("ha_promote_on_shutdown", "when_synced").replace("_", "-"),
        "ha-sync-batch-size": consts.get("ha_sync_batch_size", 4096),
    }
    if mode == "all_nodes":
        policy["ha-mode"] = "all"
    elif mode == "exactly":
        policy.update({"ha-mode": "exactly", "ha-params": consts.get("ha_params", 2)})
    else:
        raise DriverFailure("ha-mode nodes is not driven (the spec's node list has no names)")
    return policy


class RabbitMQDriver(Driver):
    observes = ("up", "confirmed")
    settle_timeout_s = 8.0
    settle_poll_s = 0.5

    def __init__(self, workdir: str | None = None):
        self.workdir = workdir
        self.cluster: RabbitCluster | None = None
        self.crashed: set[int] = set()
        self.stopped: set[int] = set()
        self.confirmed: set[int] = set()
        self.nacked: set[int] = set()
        self.threads: list[threading.Thread] = []
        self.size = 0

    # ------------------------------------------------------------ lifecycle

    def start(self, model: ir.Model) -> None:
        consts = model.const_values
        if consts.get("initially_up", consts["N"]) != consts["N"]:
            raise DriverFailure("rows with nodes down at declaration are not driven")
        self.size = consts["N"]
        folder = self.workdir or tempfile.mkdtemp(prefix="mc-rabbit-")
        self.cluster = RabbitCluster(self.size, folder,
                                     partition_handling=consts.get("cluster_partition_handling",
                                                                   "ignore").replace("_", "-"))
        try:
            self.cluster.up()
            self._declare(consts)
        except BaseException:
            self.stop()
            raise

    def reset(self, model: ir.Model) -> None:
        for n in sorted(self.crashed):
            self.cluster.launch(n)
        for n in sorted(self.stopped):
            self.cluster.ctl(n, "start_app")
        self.crashed.clear()
        self.stopped.clear()
        self._join_threads()
        self.cluster.ctl(1, "delete_queue", QUEUE, check=False)
        self._declare(model.const_values)

    def stop(self) -> None:
        if self.cluster is not None:
            self.cluster.down()
            self.cluster = None

    def _declare(self, consts: Mapping[str, Any]) -> None:
        self.confirmed, self.nacked = set(), set()
        self.cluster.ctl(1, "set_policy", "mc-ha", "^mc\\.", json.dumps(policy_of(consts)),
                         "--apply-to", "queues")
        with self._connect(1) as conn:
            conn.channel().queue_declare(QUEUE, durable=True)

    # ------------------------------------------------------------ pika

    def _connect(self, n: int):
        import pika
        params = pika.ConnectionParameters("127.0.0.1", self.cluster.amqp_port(n),
                                           connection_attempts=1, socket_timeout=5,
                                           blocked_connection_timeout=10)
        return pika.BlockingConnection(params)

    def _running(self) -> list[int]:
        return [n for n in range(1, self.size + 1) if n not in self.crashed | self.stopped]

    def _join_threads(self) -> None:
        for t in self.threads:
            t.join(timeout=15)
        self.threads = []

    # ------------------------------------------------------------ actions

    def do_Publish(self, m: int, l: int) -> None:
        def publish() -> None:
            import pika
            try:
                with self._connect(l) as conn:
                    ch = conn.channel()
                    ch.confirm_delivery()
                    ch.basic_publish("", QUEUE, str(m).encode(),
                                     pika.BasicProperties(delivery_mode=2), mandatory=True)
                self.confirmed.add(m)
            except Exception:       # a nack, an unroutable message, a closed connection
                self.nacked.add(m)
        t = threading.Thread(target=publish, daemon=True, name=f"publish-{m}")
        t.start()
        self.threads.append(t)

    def do_NodeDown(self, n: int, how: str) -> None:
        if how == "crash":
            self.cluster.kill(n)
            self.crashed.add(n)
        elif how == "stop":
            self.cluster.ctl(n, "stop_app")
            self.stopped.add(n)
        else:
            raise DriverFailure(f"NodeDown how={how} is not driven")

    def do_Start(self, n: int) -> None:
        if n in self.crashed:
            self.cluster.launch(n)
            self.crashed.discard(n)
        else:
            self.cluster.ctl(n, "start_app")
            self.stopped.discard(n)

    def do_SyncQueue(self, l: int) -> None:
        self.cluster.ctl(l, "sync_queue", QUEUE, check=False)

    def do_Partition(self, s: frozenset) -> None:
        # Disconnecting the distribution (rather than network namespaces or
        # iptables) needs no privileges and cuts exactly the inter-node
        # links; the nodes reconnect at their next message, so a partition
        # lasts only until something crosses it (see docs/conformance.md).
        for a in s:
            for b in set(self._running()) - set(s):
                self.cluster.ctl(a, "eval", f"erlang:disconnect_node('{self.cluster.node(b)}').")

    def do_Heal(self, w: bool) -> None:
        for a in self._running():
            for b in self._running():
                if a < b:
                    self.cluster.ctl(a, "eval", f"net_adm:ping('{self.cluster.node(b)}').")

    # ------------------------------------------------------------ observing

    def _browse(self) -> list[int] | str:
        for n in self._running():
            try:
                with self._connect(n) as conn:
                    ch = conn.channel()
                    got = []
                    while True:
                        _method, _props, body = ch.basic_get(QUEUE, auto_ack=False)
                        if body is None:
                            break
                        got.append(int(body))
                    # Closing the channel requeues what was got, unacked.
                    return sorted(got)
            except Exception:
                continue
        return "unavailable"

    def observe(self) -> dict[str, Any]:
        running = set(self._running())
        return {"up": {n: n in running for n in range(1, self.size + 1)},
                "confirmed": set(self.confirmed), "queued": self._browse()}

    def project(self, state: Mapping[str, Any]) -> dict[str, Any]:
        live = [l for l in state["leaders"] if state["up"][l]]
        queued = sorted(state["content"][live[0]]) if len(live) == 1 else "unavailable"
        return {"up": state["up"], "confirmed": state["confirmed"], "queued": queued}

    def holds(self, prop: str, observation: Mapping[str, Any]) -> bool | None:
        if prop != "NoLostConfirmed" or observation["queued"] == "unavailable":
            return None
        return set(observation["confirmed"]) <= set(observation["queued"])
