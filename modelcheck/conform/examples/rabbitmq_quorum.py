"""The quorum-queue driver: ``quorum_queue.mc`` on a real local cluster
(``rabbitmq_cluster.RabbitCluster``) of RabbitMQ 3.10 (docs/conformance.md).

The queue ``mc.qq`` is declared on node 1 with ``x-queue-type: quorum``; its
members are made nodes 1..x_quorum_initial_group_size and its leader node 1,
as the spec's initial state has them.  Nodes above ``initially_up`` are
killed right after the declaration (the same spec state: their logs are
empty).

Driven: Publish (a pika publisher with confirms on its own thread, connected
to node l: the confirm is the broker's own later action), Crash (kill -9),
Restart (relaunch; not while the partition cuts the node from every running
peer: it would wait at boot for one of them), LoseDisk (kill -9, then the
node's data folder is removed; the node never returns), Partition and Heal
(the Erlang distribution is cut between the sides, ``RabbitCluster.partition``),
AddMember/DeleteMember (``rabbitmq-queues add_member``/``delete_member``),
TransferLeadership (``ra:transfer_leadership/2``), Settle and Requeue (the
one consumer's ack and nack-with-requeue).  Waited for: elections, terms,
replication, commits, confirms, deliveries to the consumer, ra's noop, and
the publisher's client sending a pending enqueue again to a new leader
(``Resend``: the channel's rabbit_fifo_client does it by itself).

Observed: which nodes run (as the driver left them), which disks were lost,
the publisher's confirms (and its nacks: a rejected publish, below), and
the queue through ra itself: a
``ra:consistent_query`` (which needs the members' quorum, so an unavailable
queue answers "unavailable" in a bounded time, where a basic.get would wait
65 s) of how many messages are ready and in all; without a consumer, the
messages are then browsed with basic.get (and requeued).  With a consumer:
what it holds, how often each message was delivered, what it acked.

A publish the broker rejects: a channel's first publish to the queue
registers the channel as an enqueuer, a command ra must commit
(``rabbit_fifo_client:enqueue/3``: ``ra:process_command`` of
``register_enqueuer`` to the members in turn, each with a timeout of the
net tick time + 5 s, 65 s); with no quorum for that long every member fails
and the channel nacks the message, which never reaches the log.  Every
publish here is a channel's first.  The spec's Publish appends the message
to the leader's log at once, where a quorum returning would commit it; the
model's side of the comparison leaves a message the broker nacked out of
the queue (``project``): its entry stands for the registration, which
commits without it (QQ-large, seed 134).

One module on purpose, past the size the others keep to: it is one driver,
whose actions, observation and projection onto the spec's variables read
each other's state (what was published, nacked, crashed, cut), and the
cluster itself lives in ``rabbitmq_cluster.py``.
"""
from __future__ import annotations

import re
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

__all__ = ["QuorumQueueDriver", "QUEUE", "DLQ", "unsupported"]

QUEUE = "mc.qq"
DLQ = "mc.qq.dlq"
DLX = "mc.dlx"
RA_NAME = "'%2F_mc.qq'"

# Consts whose non-default value describes a protocol ra does not run (the
# mutant rows) or a fault the broker cannot be made to show.
_RA_ALWAYS = {"commit_rule": "current_term", "vote_log_check": True, "one_vote_per_term": True,
              "confirm_after_commit": True, "change_after_term_commit": True,
              "fsync_before_ack": True}


def unsupported(consts: Mapping[str, Any]) -> str | None:
    """Why the row these consts describe cannot run on the broker, or None."""
    for name, value in _RA_ALWAYS.items():
        if consts.get(name, value) != value:
            return (f"{name} = {consts[name]}: ra always runs the other way; the row describes "
                    f"a protocol RabbitMQ does not ship (a mutant or the unsafe variant)")
    return None


class QuorumQueueDriver(Driver):
    settle_timeout_s = 6.0
    settle_poll_s = 0.3
    # How long a publish still in flight is waited for once the queue
    # answers again (``wait_settled``).
    publish_settle_s = 15.0

    def __init__(self, workdir: str | None = None, consumer_node: str = "1"):
        self.workdir = workdir
        self.cluster: RabbitCluster | None = None
        self.size = 0
        self.consts: dict[str, Any] = {}
        self.crashed: set[int] = set()
        self.lost: set[int] = set()
        self.wiped: set[int] = set()         # wiped, to start only through add_member
        self.split: frozenset = frozenset()
        self.confirmed: set[int] = set()
        self.published: set[int] = set()
        self.nacked: set[int] = set()
        self.rejected: set[int] = set()      # nacked by the broker itself
        self.threads: list[threading.Thread] = []
        self.consumer: Consumer | None = None
        self.consumer_node = int(consumer_node)
        self.base_term = 1
        self.seen_leader = 1

    # ------------------------------------------------------------ lifecycle

    @property
    def observes(self) -> tuple[str, ...]:           # type: ignore[override]
        keys = ("up", "disk_lost", "confirmed", "leader", "queue")
        if self.consts.get("consumer"):
            keys += ("holding", "deliveries", "acked")
        if self.consts.get("dead_letter_exchange"):
            keys += ("dlx_target",)
        return keys

    def start(self, model: ir.Model) -> None:
        consts = dict(model.const_values)
        why = unsupported(consts)
        if why:
            raise DriverFailure(why)
        self.consts = consts
        self.size = consts["N"]
        folder = self.workdir or tempfile.mkdtemp(prefix="mc-rabbit-qq-")
        self.cluster = RabbitCluster(self.size, folder)
        try:
            self.cluster.up()
            self._declare()
        except BaseException:
            self.stop()
            raise

    def reset(self, model: ir.Model) -> None:
        self._stop_consumer()
        self.wiped.clear()
        if self.lost:
            # A node whose disk is gone must be forgotten and rejoin empty:
            # the whole cluster is made again (simpler, and as fast).
            self.stop()
            self.crashed, self.lost, self.split = set(), set(), frozenset()
            self.start(model)
            return
        if self.split:
            self.cluster.heal(set(self._running()), self.split)
            self.split = frozenset()
        for n in sorted(self.crashed):
            self.cluster.launch(n)
        self.crashed.clear()
        self._join_threads()
        self.consts = dict(model.const_values)
        for q in (QUEUE, DLQ):
            self.cluster.ctl(1, "delete_queue", q, check=False)
        self._declare()

    def stop(self) -> None:
        self._stop_consumer()
        if self.cluster is not None:
            self.cluster.down()
            self.cluster = None

    def _declare(self) -> None:
        c = self.consts
        self.confirmed, self.nacked, self.published = set(), set(), set()
        self.rejected = set()
        k = c.get("x_quorum_initial_group_size", self.size)
        args: dict[str, Any] = {"x-queue-type": "quorum", "x-quorum-initial-group-size": self.size}
        if c.get("consumer"):
            # Without a consumer no message is ever returned, and the limit
            # would count the browsing's returns (each basic.get requeue
            # raises x-delivery-count).
            args["x-delivery-limit"] = c.get("delivery_limit", 20)
        if c.get("dead_letter_exchange"):
            args.update({"x-dead-letter-exchange": DLX, "x-dead-letter-routing-key": DLQ})
            if c.get("dead_letter_strategy") == "at_least_once":
                # 3.10 falls back to at-most-once unless the queue rejects
                # publishes when full (rabbit_quorum_queue:dlh/5).
                args.update({"x-dead-letter-strategy": "at-least-once",
                             "x-overflow": "reject-publish"})
        with self._connect(1) as conn:
            ch = conn.channel()
            if c.get("dead_letter_exchange"):
                ch.exchange_declare(DLX, "direct", durable=True)
                ch.queue_declare(DLQ, durable=True)
                ch.queue_bind(DLQ, DLX, DLQ)
            ch.queue_declare(QUEUE, durable=True, arguments=args)
        self._await_leader(1)
        for n in range(k + 1, self.size + 1):
            self.cluster.queues(1, "delete_member", QUEUE, self.cluster.node(n))
        self._await_leader(1)
        q = self._query()
        if q is None or q[2] != 1:
            raise DriverFailure(f"{QUEUE} has no leader on node 1 after its declaration")
        self.base_term = q[3]
        self.seen_leader = 1
        up = c.get("initially_up", self.size)
        # With a majority of the members down the queue has no leader and
        # basic.consume fails (QQ-4-majority-down's first walk): the
        # consumer then attaches before the kills, as the spec has it
        # attached from the start.
        early = bool(c.get("consumer")) and 2 * min(up, k) <= k
        if early:
            self.consumer = Consumer(self, self.consumer_node, QUEUE)
            self.consumer.start()
        for n in range(up + 1, self.size + 1):
            self.cluster.kill(n)
            self.crashed.add(n)
        if c.get("consumer") and not early:
            self.consumer = Consumer(self, self.consumer_node, QUEUE)
            self.consumer.start()

    def _await_leader(self, n: int) -> None:
        """Wait until node n leads the queue (the spec starts with server 1
        leading term 1); move the leadership there if another node won."""
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            leader = self.leader()
            if leader == n:
                return
            if leader is not None:
                self.cluster.eval(leader, f"ra:transfer_leadership({{{RA_NAME}, node()}}, "
                                          f"{{{RA_NAME}, '{self.cluster.node(n)}'}}).", check=False)
            time.sleep(0.3)
        raise DriverFailure(f"node {n} did not become the leader of {QUEUE}")

    def members(self, n: int) -> set[int]:
        out = self.cluster.eval(n, f"ra:members({{{RA_NAME}, node()}}, 2000).", check=False)
        listed = out.split("]")[0]
        return {int(x) for x in re.findall(r"'rabbit(\d+)-", listed)}

    def leader(self) -> int | None:
        for n in self._running():
            out = self.cluster.eval(n, f"ra:members({{{RA_NAME}, node()}}, 2000).", check=False)
            m = re.search(r"\]\s*,\s*\{" + re.escape(RA_NAME) + r"\s*,\s*'rabbit(\d+)-", out)
            if out.startswith("{ok") and m:
                return int(m.group(1))
        return None

    # ------------------------------------------------------------ pika

    def _connect(self, n: int):
        return self.cluster.connect(n)

    def _running(self) -> list[int]:
        return [n for n in range(1, self.size + 1) if n not in self.crashed | self.lost]

    def _join_threads(self) -> None:
        for t in self.threads:
            t.join(timeout=15)
        self.threads = []

    def _stop_consumer(self) -> None:
        if self.consumer is not None:
            self.consumer.close()
            self.consumer = None

    # ------------------------------------------------------------ actions

    # The leader a step names is the broker's business: a client publishes
    # to any node (which hands the message to the leader), the consumer
    # acks on its channel, rabbitmq-queues runs on any node.
    _KEYS = {"Publish": "m", "Settle": "m", "Requeue": "m", "ConsumerDown": "m", "AddMember": "n",
             "DeleteMember": "n", "TransferLeadership": "t"}

    def instance_key(self, action: str, params: Mapping[str, Any]) -> Any:
        if action in self._KEYS:
            return (action, params[self._KEYS[action]])
        return super().instance_key(action, params)

    def _any_running(self, preferred: int) -> int:
        running = self._running()
        if not running:
            raise DriverFailure("no node is running")
        return preferred if preferred in running else running[0]

    def can_perform(self, action: str, params: Mapping[str, Any]) -> bool:
        # The spec's consumer stays connected: its node is not taken down.
        if self.consts.get("consumer") and action in ("Crash", "LoseDisk", "Partition"):
            n = params.get("n")
            if action == "Partition":
                return False
            return n != self.consumer_node
        # A node killed while its peers ran waits at boot for one of them
        # (mnesia's tables: "Waiting for Mnesia tables", 10 x 30 s, then
        # the boot fails); cut from every running peer it cannot reach one
        # until the heal.  The spec's Restart brings it up at once, alone
        # on its side (QQ-large: Crash(n=2), Partition({1, 3}), Restart(n=2)
        # timed out in ``rabbitmqctl wait``).  Such a restart is not driven.
        if action == "Restart" and self.split and self._running():
            n = params.get("n")
            side = self.split if n in self.split else \
                frozenset(range(1, self.size + 1)) - self.split
            if not (set(self._running()) & side) - {n}:
                return False
        # rabbitmq-queues add_member refuses a node that is not running
        # (node_not_running); the spec lets a down node be added.  The
        # wiped node of deleted_first starts as it is added (do_AddMember).
        if action == "AddMember":
            return params.get("n") in self._running() or params.get("n") in self.wiped
        # A row without elections (max_elections = 0: QQ-replace judges
        # who could lead, not who is elected) cannot follow the election
        # the broker holds when its leader goes: the leader stays up.
        if self.consts.get("max_elections", 9) == 0 and action in ("Crash", "LoseDisk", "WipeDisk"):
            return params.get("n") != self.seen_leader
        return True

    def do_Publish(self, m: int, l: int) -> None:
        self.published.add(m)
        node = self._any_running(l)
        self.threads.append(publish_confirmed(self.cluster, node, QUEUE, m, self.confirmed,
                                                self.nacked, self.rejected))

    def do_Crash(self, n: int) -> None:
        self.cluster.kill(n)
        self.crashed.add(n)

    def do_Restart(self, n: int) -> None:
        self.cluster.launch(n)
        self.crashed.discard(n)
        if self.split:
            # It comes back with the cookies of a fresh VM: cut it again.
            side = self.split if n in self.split else \
                frozenset(range(1, self.size + 1)) - self.split
            other = frozenset(range(1, self.size + 1)) - side
            self.cluster.partition({n}, other, set(self._running()))

    def do_LoseDisk(self, n: int) -> None:
        if n not in self.crashed:
            self.cluster.kill(n)
        self.crashed.discard(n)
        self.cluster.wipe(n)
        self.lost.add(n)

    def do_WipeDisk(self, n: int) -> None:
        # The node's disk comes back empty for the queue: its ra data (the
        # quorum folder: log, snapshots, term and vote) is removed; the
        # node's cluster membership (mnesia) is kept, so it starts again
        # under the same name as a member of the cluster and of the queue.
        if n not in self.crashed:
            self.cluster.kill(n)
            self.crashed.add(n)
        self.cluster.wipe(n, only="quorum")
        if self.consts.get("wiped_member") == "deleted_first":
            self.wiped.add(n)

    def do_Partition(self, s: frozenset) -> None:
        rest = frozenset(range(1, self.size + 1)) - frozenset(s)
        self.cluster.partition(set(s), set(rest), set(self._running()))
        self.split = frozenset(s)

    def do_Heal(self) -> None:
        self.cluster.heal(set(self._running()), self.split)
        self.split = frozenset()

    def do_AddMember(self, l: int, n: int) -> None:
        if n in self.wiped:
            # The operator's procedure (wiped_member = deleted_first): the
            # wiped node, deleted from the queue, starts again and is added.
            self.cluster.launch(n)
            self.crashed.discard(n)
            self.wiped.discard(n)
        self.cluster.queues(self._any_running(l), "add_member", QUEUE, self.cluster.node(n))

    def do_DeleteMember(self, l: int, n: int) -> None:
        self.cluster.queues(self._any_running(l), "delete_member", QUEUE, self.cluster.node(n))

    def do_TransferLeadership(self, l: int, t: int) -> None:
        l = self.leader() or l
        out = self.cluster.eval(l, f"ra:transfer_leadership({{{RA_NAME}, node()}}, "
                                   f"{{{RA_NAME}, '{self.cluster.node(t)}'}}).", check=False)
        if "ok" not in out and "already_leader" not in out:
            raise DriverFailure(f"ra:transfer_leadership to node {t}: {out.strip()}")

    def do_Settle(self, m: int, l: int) -> None:
        self.consumer.settle(m, requeue=None)

    def do_Requeue(self, m: int, l: int) -> None:
        self.consumer.settle(m, requeue=True)

    def do_ConsumerDown(self, m: int, l: int) -> None:
        # The consumer's connection closes while it holds m (the queue
        # returns m and counts a delivery attempt); a new consumer attaches.
        self.consumer.restart()

    # The dead-letter target fails: it is unbound from the dead-letter
    # exchange, so it accepts nothing (and confirms nothing) and keeps what
    # it holds, as the spec's target keeps dlx_target; at-most-once
    # dead-lettering then drops the message, at-least-once keeps it in the
    # source queue and retries.  (A max-length 0 policy, tried first, also
    # emptied the target.)
    def do_TargetDown(self) -> None:
        with self._connect(self._any_running(1)) as conn:
            conn.channel().queue_unbind(DLQ, DLX, DLQ)

    def do_TargetUp(self) -> None:
        with self._connect(self._any_running(1)) as conn:
            conn.channel().queue_bind(DLQ, DLX, DLQ)

    # ------------------------------------------------------------ observing

    def _in_flight(self) -> set[int]:
        """The published messages neither confirmed nor nacked yet."""
        return set(self.published) - set(self.confirmed) - set(self.nacked)

    def wait_settled(self) -> dict[str, Any]:
        """The default settle (two equal readings), then, while the queue
        answers and a publish is still in flight, a wait for it (bounded by
        ``publish_settle_s``) and the settle again.  Once the queue has a
        quorum again (a heal, a restart) such a publish ends within seconds:
        the channel's registration commits, then the message, then the
        confirm (or the broker nacks it); until then the queue lacks a
        message the model has in the leader's log.  On the broker (QQ-large's
        seed 134's first steps, the heal 15 s after the publish) the queue
        was empty 0.9 s and 2.8 s after the heal, two equal readings, and
        held m1, confirmed, at 4.8 s.  While the queue is unavailable a publish
        stays in flight (up to 65 s, then the nack): not waited for."""
        return settle_past_publishes(super().wait_settled, self._in_flight,
                                     lambda got: got.get("queue") == "unavailable",
                                     self.publish_settle_s, self.settle_poll_s)

    def _query(self) -> tuple[int, int, int, int, int] | None:
        """(ready, total, leader, term, dead-letters held) from the queue's
        leader, with the quorum's agreement; None when no running member
        gets an answer in time.  The term is ra's, counted from the term
        the queue had when node 1 led it at the start (the spec's term 1).
        The dead-letters held are at-least-once's: discarded, kept until
        the target confirms them (counted in the total)."""
        fun = ("fun(S) -> {rabbit_fifo:query_messages_ready(S), rabbit_fifo:query_messages_total(S), "
               "element(1, rabbit_fifo:query_stat_dlx(S))} end")
        expr = (f"case ra:consistent_query({{{RA_NAME}, node()}}, {fun}, 2000) of "
                f"{{ok, V, L}} -> {{ok, V, L, maps:get(current_term, "
                f"element(2, ra_server_proc:state_query(L, all, 2000)))}}; E -> E end.")
        for n in self._running():
            out = self.cluster.eval(n, expr, check=False, timeout_s=15)
            m = re.match(r"\s*\{ok,\s*\{(\d+),\s*(\d+),\s*(\d+)\},\s*\{" + re.escape(RA_NAME)
                         + r",\s*'rabbit(\d+)-[^']*'\},\s*(\d+)\}", out)
            if m:
                ready, total, held, leader, term = (int(g) for g in m.groups())
                return ready, total - held, leader, term, held
        return None

    def _local_totals(self) -> dict[int, int]:
        fun = "fun rabbit_fifo:query_messages_total/1"
        out = {}
        for n in self._running():
            got = self.cluster.eval(n, f"ra:local_query({{{RA_NAME}, node()}}, {fun}, 2000).",
                                    check=False, timeout_s=15)
            m = re.match(r"\s*\{ok,\s*\{\{\d+,\s*\d+\},\s*(\d+)\}", got)
            if m:
                out[n] = int(m.group(1))
        return out

    def _browse(self, n_expected: int) -> list[int] | None:
        for n in self._running():
            try:
                with self._connect(n) as conn:
                    ch = conn.channel()
                    got = []
                    while len(got) < n_expected:
                        _method, _props, body = ch.basic_get(QUEUE, auto_ack=False)
                        if body is None:
                            break
                        got.append(int(body))
                    return sorted(got)
            except Exception:
                continue
        return None

    def _dead_lettered(self) -> set[int]:
        for n in self._running():
            try:
                with self._connect(n) as conn:
                    ch = conn.channel()
                    got = set()
                    while True:
                        _m, _p, body = ch.basic_get(DLQ, auto_ack=False)
                        if body is None:
                            return got
                        got.add(int(body))
            except Exception:
                continue
        return set()

    def observe(self) -> dict[str, Any]:
        running = set(self._running())
        obs: dict[str, Any] = {"up": {n: n in running for n in range(1, self.size + 1)},
                               "disk_lost": set(self.lost), "confirmed": set(self.confirmed)}
        q = self._query()
        if q is not None:
            obs["leader"] = {"node": q[2], "term": q[3] - self.base_term + 1}
            self.seen_leader = q[2]
        else:
            obs["leader"] = None
        if q is None:
            obs["queue"] = "unavailable"
            # What each running member applied (for holds: a confirmed
            # message is lost when no surviving member has it).
            obs["_local_totals"] = self._local_totals()
        elif self.consts.get("consumer"):
            obs["queue"] = {"ready": q[0]}
            obs["_dlx_held"] = q[4]
        else:
            got = self._browse(q[1]) if q[1] else []
            obs["queue"] = "unavailable" if got is None else {"messages": got}
        if self.consts.get("max_membership_changes", 0) and q is not None:
            obs["_members"] = self.members(q[2])
        if self.consts.get("consumer"):
            held, deliveries, acked = self.consumer.snapshot()
            obs.update({"holding": held, "deliveries": deliveries, "acked": acked})
        if self.consts.get("dead_letter_exchange"):
            obs["dlx_target"] = self._dead_lettered()
        return obs

    def past_bounds(self, observation: Mapping[str, Any]) -> str | None:
        """ra may need more election rounds than the row's terms allow (a
        split vote on a loaded machine): a term past T is past the model."""
        leader = observation.get("leader")
        limit = self.consts.get("T")
        if isinstance(leader, Mapping) and limit is not None and leader.get("term", 0) > limit:
            return (f"the broker's leader is in term {leader['term']}, past the row's "
                    f"T = {limit} (more election rounds than the model counts)")
        return None

    def project(self, state: Mapping[str, Any]) -> dict[str, Any]:
        out = {k: state[k] for k in ("up", "disk_lost", "confirmed")}
        leaders = [l for l in range(1, self.size + 1) if _works(state, l, self.consts)]
        if not leaders:
            out["queue"] = "unavailable"
            out["leader"] = None
        else:
            l = max(leaders, key=lambda x: state["term"][x])
            out["leader"] = {"node": l, "term": state["term"][l]}
            lg, k = state["log"][l], state["commit"][l]
            if self.consts.get("consumer"):
                # The spec's `due` set (Deliver): committed, unsettled,
                # under the limit, and not checked out to the consumer.
                out["queue"] = {"ready": sum(
                    1 for m in range(1, self.consts["M"] + 1)
                    if _ready(lg, k, m, self.consts) and m not in state["holding"]
                    and m not in self.rejected
                    and state["deliveries"][m] <= _returns(lg, k, m, self.consts))}
            else:
                # What the leader holds and has not settled: a new leader
                # applies its predecessor's entries once it commits ra's
                # noop, which the spec leaves out by default.  A message
                # the broker nacked is in no queue: its entry in the model
                # stands for the channel's registration (the module's
                # docstring), which a quorum commits without the message.
                out["queue"] = {"messages": sorted(
                    m for m in range(1, self.consts["M"] + 1)
                    if _has(lg, len(lg), "enqueue", m) and not _has(lg, len(lg), "settle", m)
                    and m not in self.rejected)}
        if self.consts.get("consumer"):
            out.update({k: state[k] for k in ("holding", "deliveries", "acked")})
        if self.consts.get("dead_letter_exchange"):
            out["dlx_target"] = state["dlx_target"]
        return out

    def holds(self, prop: str, observation: Mapping[str, Any]) -> bool | None:
        if observation.get("queue") == "unavailable":
            if prop != "NoLostConfirmed" or "_local_totals" not in observation:
                return None
            # The spec's lost(m): in no replica whose disk survives.  A
            # member that applied as many messages as were confirmed (and
            # not acked) still holds them; counts suffice, as the rows
            # publish one message or two in order.
            due = set(observation["confirmed"]) - set(observation.get("acked", ()))
            if not due:
                return True
            if any(t >= len(due) for t in observation["_local_totals"].values()):
                return True
            # A crashed member keeps its disk and may hold it.
            return None if self.crashed else False
        if prop in ("NoPolicyDrop", "NoLostDeadLetter", "DeadLettered") \
                and "ready" in observation["queue"]:
            # Messages published and returned more than the limit that are
            # neither in the queue, nor held, acked or in the target; with
            # a dead-letter exchange, at-least-once keeps them in the
            # queue (held) until the target confirms them.  The rows
            # publish one message, so counts suffice.
            limit = self.consts.get("delivery_limit", 20)
            gone = set(self.published) - set(observation["holding"]) - set(observation["acked"]) \
                - set(observation.get("dlx_target", ()))
            over = {m for m in gone if observation["deliveries"].get(m, 0) > limit}
            ready, held = observation["queue"]["ready"], observation.get("_dlx_held", 0)
            if prop == "DeadLettered":
                return bool(observation.get("dlx_target")) or bool(over and len(gone) > ready)
            if prop == "NoPolicyDrop" and self.consts.get("dead_letter_exchange"):
                # Dead-lettered, not dropped, whatever became of it after.
                return True
            if prop == "NoLostDeadLetter" and not self.consts.get("dead_letter_exchange"):
                # Without a dead-letter exchange nothing is dead-lettered:
                # a message over the limit is dropped (NoPolicyDrop's
                # concern, the spec's policy_dropped), not a lost dead letter.
                return True
            return not (over and len(gone) > ready + held)
        if prop == "MembershipChanged" and "_members" in observation:
            initial = set(range(1, self.consts.get("x_quorum_initial_group_size", self.size) + 1))
            return observation["_members"] != initial
        if prop != "NoLostConfirmed":
            return None
        confirmed = set(observation["confirmed"])
        if "messages" in observation["queue"]:
            return confirmed <= set(observation["queue"]["messages"])
        out = confirmed - set(observation.get("holding", ())) - set(observation.get("acked", ())) \
            - set(observation.get("dlx_target", ()))
        if len(out) <= observation["queue"]["ready"] + observation.get("_dlx_held", 0):
            return True
        # The delivery limit may have dropped it (a policy, not a loss).
        limit = self.consts.get("delivery_limit", 20)
        if any(observation.get("deliveries", {}).get(m, 0) > limit for m in out):
            return None
        return False


# ---------------------------------------------------------------- the model side


def _config(state: Mapping[str, Any], n: int, consts: Mapping[str, Any]) -> set[int]:
    members = set(range(1, consts.get("x_quorum_initial_group_size", consts["N"]) + 1))
    if consts.get("max_membership_changes", 0) == 0:
        return members
    for e in state["log"][n]:
        if e["op"] == "add_member":
            members.add(e["node"])
        elif e["op"] == "delete_member":
            members.discard(e["node"])
    return members


def _works(state: Mapping[str, Any], l: int, consts: Mapping[str, Any]) -> bool:
    """The spec's works(l): l leads and reaches a majority of its members."""
    def live(x: int) -> bool:
        return state["up"][x] and x not in state["disk_lost"]
    split = state["split"]
    if not (live(l) and state["role"][l] == "leader"):
        return False
    config = _config(state, l, consts)
    reach = {x for x in config if live(x) and ((x in split) == (l in split))
             and state["term"][x] <= state["term"][l]}
    return 2 * len(reach) > len(config)


def _has(lg, k: int, op: str, m: int) -> bool:
    return any(e["op"] == op and e["msg"] == m for e in lg[:k])


def _returns(lg, k: int, m: int, consts: Mapping[str, Any]) -> int:
    ops = ("requeue", "consumer_down") if consts.get("down_counts_as_delivery") else ("requeue",)
    return sum(1 for e in lg[:k] if e["op"] in ops and e["msg"] == m)


def _ready(lg, k: int, m: int, consts: Mapping[str, Any]) -> bool:
    return _has(lg, k, "enqueue", m) and not _has(lg, k, "settle", m) \
        and _returns(lg, k, m, consts) <= consts.get("delivery_limit", 20)
