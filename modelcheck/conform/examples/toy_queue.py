"""The example driver of docs/conformance.md: an in-process replicated queue
with a planted bug, and the driver that runs ``toy_queue.mc`` on it.

The system (``ToyQueue``) confirms a publish as soon as the leader has it
and ships it to the backup only at the start of the next client operation,
so a leader crash in between loses a confirmed message: the bug the spec's
correct protocol (confirm once every running node holds it) rules out.
``ToyQueue(bug=False)`` replicates before confirming, as the spec says.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from modelcheck.conform.driver import Driver
from modelcheck.ir import nodes as ir

__all__ = ["ToyQueue", "ToyQueueDriver", "SPEC"]

#: The spec this driver is for.
SPEC = Path(__file__).with_name("toy_queue.mc")


class ToyQueue:
    """Two nodes, node 1 leading; messages are numbered from 1."""

    def __init__(self, bug: bool = True):
        self.bug = bug
        self.up = {1: True, 2: True}
        self.leader = 1
        self.content: dict[int, set[int]] = {1: set(), 2: set()}
        self.confirmed: set[int] = set()
        self.next_msg = 1
        self.outbox: list[int] = []      # published, not yet shipped to the backup

    def _ship(self) -> None:
        for m in self.outbox:
            for n in self.up:
                if self.up[n] and n != self.leader:
                    self.content[n].add(m)
        self.outbox.clear()

    def _confirm_replicated(self) -> None:
        for m in self.content.get(self.leader, set()) - self.confirmed:
            if all(m in self.content[n] for n in self.up if self.up[n]):
                self.confirmed.add(m)

    def publish(self) -> bool:
        self._ship()
        if self.leader == 0:
            return False
        m, self.next_msg = self.next_msg, self.next_msg + 1
        self.content[self.leader].add(m)
        if self.bug:
            self.confirmed.add(m)        # the planted bug: confirmed before it is shipped
            self.outbox.append(m)
        else:
            self.outbox.append(m)
            self._ship()
            self._confirm_replicated()
        return True

    def crash(self, n: int) -> None:
        # A crash is sudden: what the leader had not shipped yet is gone.
        if n == self.leader:
            self.outbox.clear()
        self.up[n] = False
        self.content[n] = set()
        if self.leader == n:
            other = 3 - n
            self.leader = other if self.up[other] else 0

    def restart(self, n: int) -> None:
        self._ship()
        self.up[n] = True
        if self.leader == 0:
            self.leader = n
        else:
            self.content[n] |= self.content[self.leader]
        self._confirm_replicated()


class ToyQueueDriver(Driver):
    """Publish, Crash and Restart are driven (a client or an operator causes
    them); Replicate and Confirm are the system's own.  The whole state is
    observable, next to nothing needs waiting for."""

    observes = ("up", "leader", "content", "confirmed")
    settle_timeout_s = 0.05
    settle_poll_s = 0.0

    def __init__(self, bug: bool | str = True):
        self.bug = bug if isinstance(bug, bool) else str(bug).lower() not in ("false", "0", "no")
        self.system: ToyQueue | None = None

    def start(self, model: ir.Model) -> None:
        self.system = ToyQueue(self.bug)

    def stop(self) -> None:
        self.system = None

    def do_Publish(self) -> None:
        self.system.publish()

    def do_Crash(self, n: int) -> None:
        self.system.crash(n)

    def do_Restart(self, n: int) -> None:
        self.system.restart(n)

    def observe(self) -> dict[str, Any]:
        s = self.system
        return {"up": dict(s.up), "leader": s.leader,
                "content": {n: set(c) for n, c in s.content.items()},
                "confirmed": set(s.confirmed)}

    def holds(self, prop: str, observation: dict[str, Any]) -> bool | None:
        if prop == "NoLostConfirmed":
            leader = observation["leader"]
            return leader == 0 or observation["confirmed"] <= observation["content"][leader]
        return None
