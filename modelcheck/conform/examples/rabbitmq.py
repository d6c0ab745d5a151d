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
import time
from collections.abc import Mapping
from typing import Any

from modelcheck.conform.driver import Driver, DriverFailure
from modelcheck.conform.examples.rabbitmq_cluster import (RabbitCluster, publish_confirmed,
                                                          settle_past_publishes)
from modelcheck.conform.examples.rabbitmq_consumer import Consumer
from modelcheck.ir import nodes as ir

__all__ = ["RabbitMQDriver", "QUEUE", "policy_of", "unsupported"]

QUEUE = "mc.q"

# Consts whose non-default value describes a broker RabbitMQ 3.10 is not:
# the mutants (a mechanism switched off), RabbitMQ 3.7's channel, and an
# idealisation of pause_minority.
_BROKER_IS = {"confirm_waits_for_mirrors": True, "migrate_when_synced": True,
              "boot_waits_for_last": True, "sync_failure_purges": True,
              "publisher_queue_down": "nack", "pause_is_atomic": False}


def unsupported(consts: Mapping[str, Any]) -> str | None:
    """Why the row these consts describe cannot run on RabbitMQ 3.10, or None."""
    for name, value in _BROKER_IS.items():
        if consts.get(name, value) != value:
            return (f"{name} = {consts[name]}: RabbitMQ 3.10 always runs the other way "
                    f"(a mutant, the 3.7 channel, or an idealisation)")
    return None


def policy_of(consts: Mapping[str, Any], node_name=None) -> dict[str, Any]:
    """The ha-* policy the spec's consts describe; ``node_name(i)`` names
    node i for ha-mode nodes (the spec lists the last ha_params nodes)."""
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
    elif node_name is not None:
        n, k = consts["N"], consts.get("ha_params", 2)
        policy.update({"ha-mode": "nodes",
                       "ha-params": [node_name(i) for i in range(n - k + 1, n + 1)]})
    else:
        raise DriverFailure("ha-mode nodes needs the cluster's node names")
    return policy


class RabbitMQDriver(Driver):
    observes = ("up", "confirmed")
    settle_timeout_s = 8.0
    settle_poll_s = 0.5
    publish_settle_s = 15.0

    def __init__(self, workdir: str | None = None, consumer_node: str = "0"):
        self.workdir = workdir
        self.cluster: RabbitCluster | None = None
        self.crashed: set[int] = set()
        self.stopped: set[int] = set()
        self.lost: set[int] = set()          # disk lost, or forgotten: never back
        self.never_up: set[int] = set()      # down since the declaration
        # Per node, the peers it saw go down (mnesia's mnesia_down records:
        # a peer that went down while the node ran, not since seen up with
        # it); a node boots with no peer running only if it saw every other
        # member go down (``boots_alone``).  Kept exact without partitions
        # and forget_cluster_node (``seen_exact``); nodes told by force_boot.
        self.seen_down: dict[int, set[int]] = {}
        self.seen_exact = True
        self.forced: set[int] = set()
        self.split: frozenset = frozenset()
        self.partitioned = False
        self.confirmed: set[int] = set()
        self.nacked: set[int] = set()
        self.threads: list[threading.Thread] = []
        self.size = 0
        self.consts: dict[str, Any] = {}
        self.consumer = None
        # The consumer's node (0: the last node up at the declaration): the spec's consumer
        # stays connected, so that node is not taken down in walks.
        self.consumer_node_option = int(consumer_node)

    @property
    def consumer_mode(self) -> str:
        return self.consts.get("consumer_ack_mode", "no_consumer")

    @property
    def consumer_node(self) -> int:
        # The last node running at the declaration.
        return self.consumer_node_option or self.consts.get("initially_up", self.size)

    # ------------------------------------------------------------ lifecycle

    def start(self, model: ir.Model) -> None:
        consts = dict(model.const_values)
        why = unsupported(consts)
        if why:
            raise DriverFailure(why)
        self.consts = consts
        self.size = consts["N"]
        folder = self.workdir or tempfile.mkdtemp(prefix="mc-rabbit-")
        self.cluster = RabbitCluster(self.size, folder,
                                     partition_handling=consts.get("cluster_partition_handling",
                                                                   "ignore"))
        try:
            self.cluster.up()
            self._declare(consts)
        except BaseException:
            self.stop()
            raise

    def reset(self, model: ir.Model) -> None:
        self._stop_consumer()
        if self.lost or self.partitioned or \
                any(not self._may_start(n) for n in self.crashed | self.stopped):
            # A lost or forgotten node, one that would wait for its peers at
            # boot, or a partition (mnesia may stay split after the heal):
            # the cluster is made again.
            self.stop()
            self.crashed, self.stopped, self.lost = set(), set(), set()
            self.split, self.partitioned = frozenset(), False
            self.start(model)
            return
        if self.split:
            self.cluster.heal(set(self._running()), self.split)
            self.split = frozenset()
        for n in sorted(self.crashed):
            self.cluster.launch(n)
        for n in sorted(self.stopped):
            self.cluster.ctl(n, "start_app")
        self.crashed.clear()
        self.stopped.clear()
        self._join_threads()
        self.cluster.ctl(1, "delete_queue", QUEUE, check=False)
        self._declare(model.const_values)

    def _may_start(self, n: int) -> bool:
        # A node that went down while a peer ran waits for it at boot; the
        # reset starts nodes while node 1 runs, unless node 1 is down too.
        return 1 not in self.crashed | self.stopped or n == 1

    def _stop_consumer(self) -> None:
        if self.consumer is not None:
            self.consumer.close()
            self.consumer = None

    def stop(self) -> None:
        self._stop_consumer()
        if self.cluster is not None:
            self.cluster.down()
            self.cluster = None

    def _declare(self, consts: Mapping[str, Any]) -> None:
        self.consts = dict(consts)
        self.confirmed, self.nacked = set(), set()
        # Every node runs here (a fresh cluster, or the reset's restarts).
        self.seen_down = {n: set() for n in range(1, self.size + 1)}
        self.seen_exact, self.forced = True, set()
        # Nodes above initially_up are down when the queue is declared.
        for n in range(consts.get("initially_up", self.size) + 1, self.size + 1):
            self.cluster.ctl(n, "stop_app")
            self.stopped.add(n)
            self._went_down(n)
        self.never_up = set(self.stopped)
        self.cluster.ctl(1, "set_policy", "mc-ha", "^mc\\.",
                         json.dumps(policy_of(consts, self.cluster.node)), "--apply-to", "queues")
        with self._connect(1) as conn:
            conn.channel().queue_declare(QUEUE, durable=True)
        if self.consumer_mode != "no_consumer":
            self.consumer = Consumer(self, self.consumer_node, QUEUE,
                                      auto_ack=self.consumer_mode == "automatic_ack")
            self.consumer.start()

    # ------------------------------------------------------------ pika

    def _connect(self, n: int):
        return self.cluster.connect(n)

    def _running(self) -> list[int]:
        return [n for n in range(1, self.size + 1)
                if n not in self.crashed | self.stopped | self.lost]

    def _went_down(self, x: int) -> None:
        """Node ``x`` went down: every running node saw it (a mnesia_down)."""
        for n in self._running():
            if n != x:
                self.seen_down.setdefault(n, set()).add(x)

    def _came_up(self, x: int) -> None:
        """Node ``x`` runs again, with the running nodes (a mnesia_up each way)."""
        for n in self._running():
            if n != x:
                self.seen_down.setdefault(n, set()).discard(x)
                self.seen_down.setdefault(x, set()).discard(n)

    def boots_alone(self, n: int) -> bool:
        """Whether node ``n``, started while no node runs, boots without
        waiting for a peer.  Mnesia loads its tables from its own disk only
        if it saw every other member go down after it last ran with them
        (rabbitmq.md, CMQ-3-unavailable: node 2 waited at boot for node 3,
        stopped at the declaration while node 2 was down); otherwise it
        waits for them ("Waiting for Mnesia tables", 10 x 30 s).  Without
        exact records (a partition, forget_cluster_node): only a node down
        since the declaration is known to wait."""
        if n in self.forced:
            return True
        if not self.seen_exact:
            return n not in self.never_up
        peers = set(range(1, self.size + 1)) - {n}
        return peers <= self.seen_down.get(n, set())

    def _in_flight(self) -> bool:
        """Whether a publish is neither confirmed nor nacked yet (its thread
        still waits for the broker's answer)."""
        return any(t.is_alive() for t in self.threads)

    def wait_settled(self) -> dict[str, Any]:
        """The default settle (two equal readings), then, while the queue
        answers and a publish is still in flight, a wait for it (bounded by
        ``publish_settle_s``) and the settle again, as the quorum driver's.
        A classic queue hands a message to an automatic-ack consumer before
        the publisher's confirm, which follows (the message store's write, or
        its removal); two equal readings may fall between the two, on a loaded
        machine, and show the message received, not confirmed: a state where
        the spec, whose ``Confirm`` needs the message in the leader's queue,
        never confirms it (CMQ-9, seed 133, sixth campaign of 30 November:
        after a crash of node 1 and the publish of m1, received and not
        confirmed; m1's confirm seen only after the next publish)."""
        return settle_past_publishes(super().wait_settled, self._in_flight,
                                     lambda got: got.get("queued") == "unavailable",
                                     self.publish_settle_s, self.settle_poll_s)

    def _join_threads(self) -> None:
        for t in self.threads:
            t.join(timeout=15)
        self.threads = []

    # ------------------------------------------------------------ actions

    def do_Publish(self, m: int, l: int) -> None:
        node = l if l in self._running() else (self._running() or [l])[0]
        self.threads.append(publish_confirmed(self.cluster, node, QUEUE, m, self.confirmed,
                                                self.nacked))

    def instance_key(self, action: str, params: Mapping[str, Any]) -> Any:
        # A client publishes to a node it can reach; which node leads is
        # the broker's business (the node hands the message to the leader).
        if action == "Publish":
            return (action, params["m"])
        if action in ("SyncQueue", "CancelSync"):
            return (action,)
        return super().instance_key(action, params)

    def waits_for(self, action: str, params: Mapping[str, Any]) -> bool:
        # pause_minority pauses a node by itself.
        return action == "NodeDown" and params.get("how") == "pause"

    def can_perform(self, action: str, params: Mapping[str, Any]) -> bool:
        # The spec lets a node that was down at the declaration boot alone
        # (boots_alone); here it is a cluster member that stopped before
        # node 1, and it waits at boot for the peers that stopped after it.
        # So does any node started while no node runs that did not see
        # every peer go down (``boots_alone``: CMQ-3-unavailable's seed 124,
        # node 2 started after crashes of nodes 1 and 2, waiting for node 3,
        # stopped at the declaration while node 2 was down).
        if action == "Start" and not self._running() and not self.boots_alone(params.get("n")):
            return False
        # The spec's consumer stays connected: its node stays up.
        if self.consumer_mode != "no_consumer" and action == "NodeDown":
            return params.get("n") != self.consumer_node
        if self.consumer_mode != "no_consumer" and action == "Partition":
            return False
        return True

    def do_NodeDown(self, n: int, how: str) -> None:
        if how == "crash":
            self.cluster.kill(n)
            self.crashed.add(n)
        elif how == "stop":
            self.cluster.ctl(n, "stop_app")
            self.stopped.add(n)
        elif how == "disk":
            # The node fails and its disk is gone for good.
            self.cluster.kill(n)
            self.cluster.wipe(n)
            self.lost.add(n)
        else:
            raise DriverFailure(f"NodeDown how={how} is the system's own, not driven")
        self._went_down(n)

    def do_ForceBoot(self, n: int) -> None:
        # rabbitmqctl force_boot on a node that is down: it boots next time
        # without waiting for the peers that stopped after it.
        self.cluster.ctl(n, "force_boot")
        self.forced.add(n)

    def do_ForgetClusterNode(self, n: int) -> None:
        # From a running node; with none running, --offline from a node
        # that is down (the clustering guide's procedure for a lost node).
        self.seen_exact = False
        others = [x for x in range(1, self.size + 1) if x != n and x not in self.lost]
        running = [x for x in others if x in self._running()]
        if running:
            self.cluster.ctl(running[0], "forget_cluster_node", self.cluster.node(n))
        elif others:
            host = others[0]
            if host in self.stopped:
                # --offline wants the node it runs on down, VM and all.
                self.cluster.ctl(host, "stop")
                if self.cluster.pid(host) is not None:
                    self.cluster.kill(host)
                self.stopped.discard(host)
                self.crashed.add(host)
            self.cluster.ctl(host, "forget_cluster_node", "--offline", self.cluster.node(n))
        else:
            raise DriverFailure("no node to run forget_cluster_node from")
        if n in self.crashed | self.stopped:
            if n in self.stopped:
                self.cluster.kill(n)
            self.crashed.discard(n)
            self.stopped.discard(n)
        self.lost.add(n)

    def do_Ack(self, m: int) -> None:
        self.consumer.settle(m, requeue=None)

    def do_Start(self, n: int) -> None:
        self.never_up.discard(n)
        self.forced.discard(n)
        if n in self.crashed:
            self.cluster.launch(n)
            self.crashed.discard(n)
        else:
            self.cluster.ctl(n, "start_app")
            self.stopped.discard(n)
        self._came_up(n)
        # The spec's Start ends with the node serving the queue; the broker
        # answers "started" before the queue's process on it is back, and
        # for a while a basic.get fails (CMQ-boot's walks: after a crash of
        # both nodes, 5-20 s on the loaded test machine).  Wait for the
        # queue, a bounded time: the spec may leave it unavailable.
        deadline = time.monotonic() + 25
        while time.monotonic() < deadline and self._queue_state() == "unavailable":
            time.sleep(0.5)

    def do_SyncQueue(self, l: int) -> None:
        node = l if l in self._running() else (self._running() or [l])[0]
        self.cluster.ctl(node, "sync_queue", QUEUE, check=False)

    def do_CancelSync(self) -> None:
        node = (self._running() or [1])[0]
        self.cluster.ctl(node, "cancel_sync_queue", QUEUE, check=False)

    def do_Partition(self, s: frozenset) -> None:
        # The Erlang distribution is cut between the sides
        # (RabbitCluster.partition: wrong cookies, then disconnect), so that
        # RabbitMQ's partition handling sees a real partition.
        rest = frozenset(range(1, self.size + 1)) - frozenset(s)
        self.cluster.partition(set(s), set(rest), set(self._running()))
        self.split = frozenset(s)
        self.partitioned = True
        self.seen_exact = False

    def do_Heal(self, w: bool) -> None:
        running = set(self._running())
        self.cluster.heal(running, self.split)
        if self.consts.get("cluster_partition_handling", "ignore") == "ignore":
            # With ignore, the operator restarts the losing side (the
            # partitions guide's recovery); autoheal and pause_minority
            # restart or resume their nodes by themselves.
            side = self.split if w else frozenset(range(1, self.size + 1)) - self.split
            for n in sorted(running - side):
                self.cluster.ctl(n, "stop_app")
                self.cluster.ctl(n, "start_app")
        self.split = frozenset()

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

    def _counts(self) -> dict[str, int] | str:
        """With a consumer: the leader's ready and unacknowledged counts
        (``list_queues`` asks the queue's process), or "unavailable"."""
        for n in self._running():
            out = self.cluster.ctl(n, "list_queues", "-q", "--no-table-headers", "name",
                                   "messages_ready", "messages_unacknowledged", "state",
                                   check=False, timeout_s=20)
            for line in out.splitlines():
                parts = line.split()
                if parts and parts[0] == QUEUE:
                    if len(parts) < 4 or parts[3] != "running" or not parts[1].isdigit():
                        return "unavailable"
                    return {"ready": int(parts[1]), "unacked": int(parts[2])}
        return "unavailable"

    def _paused(self) -> set[int]:
        """Nodes that pause_minority paused (the VM up, the broker not)."""
        if not self.split or self.consts.get("cluster_partition_handling") != "pause_minority":
            return set()
        return {n for n in self._running()
                if self.cluster.eval(n, "rabbit:is_running().", check=False,
                                     timeout_s=15).strip() != "true"}

    def _queue_state(self) -> Any:
        return self._browse() if self.consumer_mode == "no_consumer" else self._counts()

    def observe(self) -> dict[str, Any]:
        running = set(self._running()) - self._paused()
        obs: dict[str, Any] = {"up": {n: n in running for n in range(1, self.size + 1)},
                               "confirmed": set(self.confirmed)}
        obs["queued"] = self._queue_state()
        if self.consumer_mode != "no_consumer":
            received, acked = self.consumer.history()
            obs["received"] = received
            with self.consumer.lock:
                obs["_deliveries"] = dict(self.consumer.deliveries)
                obs["_acked_redelivered"] = set(self.consumer.duplicates)
            if self.consumer_mode == "manual_ack":
                obs["acked"] = acked
        return obs

    def project(self, state: Mapping[str, Any]) -> dict[str, Any]:
        live = [l for l in state["leaders"] if state["up"][l]]
        out: dict[str, Any] = {"up": state["up"], "confirmed": state["confirmed"]}
        if len(live) != 1:
            out["queued"] = "unavailable"
        elif self.consumer_mode == "no_consumer":
            out["queued"] = sorted(state["content"][live[0]])
        else:
            l = live[0]
            pending = state["pending"][l] if self.consumer_mode == "manual_ack" else set()
            out["queued"] = {"ready": len(state["content"][l] - pending),
                             "unacked": len(pending)}
        if self.consumer_mode != "no_consumer":
            out["received"] = state["received"]
        if self.consumer_mode == "manual_ack":
            out["acked"] = state["acked"]
        return out

    def holds(self, prop: str, observation: Mapping[str, Any]) -> bool | None:
        if observation["queued"] == "unavailable":
            return None
        if prop == "NoLostConfirmed":
            due = set(observation["confirmed"]) - set(observation.get("acked", ()))
            if self.consumer_mode == "automatic_ack":
                due -= set(observation["received"])
            if isinstance(observation["queued"], dict):
                return len(due) <= observation["queued"]["ready"] + observation["queued"]["unacked"]
            return due <= set(observation["queued"])
        if prop == "NoDuplicateDelivery" and "_deliveries" in observation:
            return not any(k > 1 for k in observation["_deliveries"].values())
        if prop == "NoAckedRedelivery" and "_acked_redelivered" in observation:
            return not observation["_acked_redelivered"]
        if prop == "NoAutoAckLoss" and self.consumer_mode == "automatic_ack" \
                and isinstance(observation["queued"], dict):
            # A message sent by the leader (gone from the queue) that the
            # consumer never received.
            gone = set(observation["confirmed"]) - set(observation["received"])
            return len(gone) <= observation["queued"]["ready"] + observation["queued"]["unacked"]
        return None
