"""The swimlane view's data: a lane set (the values that get a lane each), a
network variable, a message between two lanes, what one step does on the
lanes, and the whole view.  Plain frozen data classes, built by
``trace.lanes`` (and ``trace.lane_direction`` for the messages an action
passes straight across) and drawn by ``trace.svg`` and ``trace.html``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from modelcheck.ir.types import IntType, Type
from modelcheck.trace.view import format_value

__all__ = ["LaneSet", "Network", "Message", "LaneStep", "Lanes", "SOURCE_NAMES", "DEST_NAMES"]

#: Names of a message's sending and receiving end, compared case-insensitively:
#: a network's record fields (``trace.lanes``) and an action's parameters
#: (``trace.lane_direction``).
SOURCE_NAMES = ("from", "src", "source", "sender", "frm", "origin")
DEST_NAMES = ("to", "dst", "dest", "destination", "target", "receiver", "recipient")


@dataclass(frozen=True)
class LaneSet:
    """The values that get a lane each, and the variables keyed by them.
    ``type``: the values' type when known (a model-value type, or a named
    int or enum type such as ``type Node = 1..N``)."""
    name: str
    members: tuple[Any, ...]
    keyed_vars: tuple[str, ...]
    type: Type | None = None

    def label(self, member: Any) -> str:
        """The lane's name: the value itself, or ``Node 1`` for an int."""
        if isinstance(self.type, IntType) or (isinstance(member, int) and not isinstance(member, bool)):
            return f"{self.name} {member}"
        return format_value(member)


@dataclass(frozen=True)
class Network:
    """A variable holding messages, and the fields naming their two ends."""
    var: str
    src: str
    dst: str


@dataclass(frozen=True)
class Message:
    """A message from lane ``src`` to lane ``dst``: an element of network
    variable ``var`` (``text``: the element), or, for a message an action
    passes straight across, ``var`` is the action's name and ``text`` the step.
    ``labels``: what its arrow may say, longest first (``msglabel``)."""
    src: Any
    dst: Any
    text: str
    var: str
    labels: tuple[str, ...] = field(default=(), compare=False)


@dataclass(frozen=True)
class LaneStep:
    """What one step does on the lanes: the lanes it touches (lane order), the
    messages it sends and the ones it takes out of the network, and the ones
    its action passes straight from lane to lane (``direct``)."""
    touched: tuple[Any, ...]
    sent: tuple[Message, ...]
    received: tuple[Message, ...]
    direct: tuple[Message, ...] = ()


@dataclass(frozen=True)
class Lanes:
    lane_set: LaneSet | None
    networks: tuple[Network, ...]
    steps: tuple[LaneStep, ...]

    @property
    def members(self) -> tuple[Any, ...]:
        return self.lane_set.members if self.lane_set is not None else ()
