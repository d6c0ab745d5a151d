"""Who sends to whom, and local events: the messages an action passes
straight from one lane to another in one step, read from its parameters
and from which lanes' state the step changed.

An action can pass a message straight from one lane to another in one step
(Raft's AppendEntries(l, f) in a spec without a network variable).  Who
sends and who receives is read from the action's parameters, with no
annotation in the language (docs/traces.md, "Who sends to whom"):

* a parameter named like a source (``SOURCE_NAMES``: src, from, sender,
  source, frm, origin) sends and one named like a destination
  (``DEST_NAMES``: to, dst, dest, destination, target, receiver, recipient),
  names compared case-insensitively, receives;
* otherwise the first two parameters of the lane type are the two ends, and
  the message goes to the lane whose state the step changed: when the step
  changes exactly one of the two lanes' keyed state (NewerTerm(n, s) changes
  n's term, read from s), that lane is the receiver; else the first
  parameter sends to the second;
* a parameter that is a set or sequence of the lane type stands for several
  receivers (a broadcast: BecomeLeader(c, q) sends to every voter in q);
* an action with one parameter of the lane type whose step changes the
  state of other lanes sends to each of them (NodeDown(n) promoting a
  mirror tells the mirror);
* a step that sends or takes a message through a network variable draws
  that message instead, and a lane never sends to itself.

A step of a two-ended action that changes one end's state alone and reads
nothing of the other's (AddMember(l, n) appends to l's log) is a local
event of the changed end (``bystander_lane``), not a message.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from modelcheck.ir import nodes as ir
from modelcheck.ir.nodes import Action, Model, Param
from modelcheck.ir.ops import Op
from modelcheck.ir.types import SeqType, SetType
from modelcheck.trace.exprtext import source_text
from modelcheck.trace.lane_model import DEST_NAMES, SOURCE_NAMES, LaneSet, Message
from modelcheck.trace.view import step_label

__all__ = ["Ends", "action_ends", "direct_messages", "bystander_lane"]

#: An action's (sender, receiver, whether the state rule may turn them
#: round), None without two ends; and its parameters of the lane type.
Ends = tuple[tuple[Param, Param, bool, frozenset[str]] | None, list[tuple[Param, bool]]]
#: A parameter's type as written: ``Node``, ``set[Node]``, ``seq[Node, 3]``.
_ANNOTATION = re.compile(r"(?:(?:set|seq)\[)?\s*([A-Za-z_]\w*)")


def _lane_params(action: Action, model: Model, lane_set: LaneSet) -> list[tuple[Param, bool]]:
    """The action's parameters of the lane type, each with whether it holds
    several lanes (a set or sequence of them).  A parameter declared with
    another type's name is left out even when the two types are equal
    (``type Msg = 1..M`` and ``type Node = 1..N`` with M = N)."""
    type_names = {name for name, _ in model.types}
    sources = dict(model.sources)
    out = []
    for p in action.params:
        t = p.type
        many = isinstance(t, (SetType, SeqType)) and t.elem == lane_set.type
        if t != lane_set.type and not many:
            continue
        written = source_text(p.span, sources) or ""
        named = _ANNOTATION.match(written.split(":", 1)[-1].strip())
        base = named.group(1) if named else None
        if lane_set.name in type_names and base in type_names and base != lane_set.name:
            continue
        out.append((p, many))
    return out


def _ends_of(action: Action, model: Model, lane_set: LaneSet) -> tuple[Param, Param, bool] | None:
    """The sending and the receiving parameter, and whether the order is the
    parameters' own (the state rule may turn it round); None when the action
    has no two ends."""
    params = _lane_params(action, model, lane_set)
    src = next((p for p, many in params if not many and p.name.lower() in SOURCE_NAMES), None)
    dst = next((p for p, _ in params if p.name.lower() in DEST_NAMES and p is not src), None)
    if src is not None or dst is not None:
        rest = [p for p, _ in params if p is not src and p is not dst]
        if src is None:
            src = next((p for p, many in params if not many and p is not dst), None)
        dst = dst if dst is not None else (rest[0] if rest else None)
        return (src, dst, False) if src is not None and dst is not None else None
    if len(params) < 2 or (params[0][1] and params[1][1]):
        return None
    return params[0][0], params[1][0], True


def action_ends(model: Model | None, lane_set: LaneSet) -> dict[str, Ends]:
    """Each action's ends (``_ends_of``) and lane parameters, worked out once
    for every step of a trace."""
    if model is None:
        return {}
    out: dict[str, Ends] = {}
    for a in model.actions:
        params = _lane_params(a, model, lane_set)
        ends = _ends_of(a, model, lane_set)
        if ends is not None:
            # a fourth item: the ends whose state the action never reads
            ends = (*ends, _unread_params(a, params, lane_set.keyed_vars))  # type: ignore[assignment]
        out[a.name] = (ends, params)
    return out


def direct_messages(step: Any, model: Model, lane_set: LaneSet, plans: Mapping[str, Ends],
                     prev: Mapping[str, Any], cur: Mapping[str, Any]) -> tuple[Message, ...]:
    """The messages ``step``'s action passes between lanes (the module doc's rules)."""
    if step.action not in plans:
        return ()
    ends, params = plans[step.action]
    values = dict(step.params)
    if ends is None:
        return _told(step.action, params, lane_set, values, prev, cur, step_label(step, model))
    src_param, dst_param, by_state = ends[:3]
    if by_state and bystander_lane(step, lane_set, plans, prev, cur) is not None:
        return ()       # a local event of the end that changed
    if src_param.name not in values or dst_param.name not in values:
        return ()
    src, dst = values[src_param.name], values[dst_param.name]
    if by_state and not isinstance(src, (frozenset, tuple)) and not isinstance(dst, (frozenset, tuple)):
        changed = {m for m in (src, dst) if _lane_changed(m, lane_set, prev, cur)}
        if changed == {src} and src != dst:
            src, dst = dst, src
    senders = list(src) if isinstance(src, (frozenset, tuple)) else [src]
    receivers = list(dst) if isinstance(dst, (frozenset, tuple)) else [dst]
    members = lane_set.members
    text = step_label(step, model)
    return tuple(Message(s, r, text, step.action)
                 for s in _in_lane_order(senders, members) for r in _in_lane_order(receivers, members)
                 if s != r)


def bystander_lane(step: Any, lane_set: LaneSet, plans: Mapping[str, Ends],
               prev: Mapping[str, Any], cur: Mapping[str, Any]) -> Any:
    """The lane of a two-ended action that is only named: the step changes
    the other end's state alone and reads nothing of this one's (AddMember(l,
    n) appends to l's log and reads n only as a value); None when there is
    none.  Such a step is a local event of the other end, not a message."""
    if step.action not in plans:
        return None
    ends, _ = plans[step.action]
    if ends is None or not ends[2]:
        return None
    values = dict(step.params)
    a, b = values.get(ends[0].name), values.get(ends[1].name)
    if a is None or b is None or isinstance(a, (frozenset, tuple)) or isinstance(b, (frozenset, tuple)) \
            or a == b:
        return None
    changed = {m for m in (a, b) if _lane_changed(m, lane_set, prev, cur)}
    if len(changed) != 1:
        return None
    other_param = ends[1] if a in changed else ends[0]
    other = b if a in changed else a
    return other if other_param.name in ends[3] else None


def _unread_params(action: Action, params: list[tuple[Param, bool]], keyed: tuple[str, ...]) -> frozenset[str]:
    """The lane parameters whose lane's state the action never reads: no
    lane-keyed variable is looked up at them (``log[n]``), directly or
    through a def's argument or a let."""
    aliases: dict[str, str] = {}       # a bound name -> the parameter it stands for
    reads: set[str] = set()
    keyed_set = set(keyed)
    names = {p.name for p, _ in params}

    def root(e: Any) -> str | None:
        if isinstance(e, ir.Local):
            return e.name if e.name in names else aliases.get(e.name)
        return None

    def walk(node: Any) -> None:
        if isinstance(node, (ir.LetExpr, ir.Let)):
            r = root(node.value)
            if r is not None:
                aliases[node.name] = r
        if isinstance(node, ir.Apply) and node.op is Op.MAP_GET and node.args \
                and isinstance(node.args[0], ir.Var) and node.args[0].name in keyed_set:
            r = root(node.args[1])
            if r is not None:
                reads.add(r)
        if isinstance(node, (tuple, list)):
            for item in node:
                walk(item)
            return
        fields = getattr(node, "__dataclass_fields__", None)
        if fields is None:
            return
        for name in fields:
            if name in ("span", "type"):
                continue
            walk(getattr(node, name))

    walk(action.body)
    return frozenset(names - reads)


def _told(action: str, params: list[tuple[Param, bool]], lane_set: LaneSet, values: Mapping[str, Any],
          prev: Mapping[str, Any], cur: Mapping[str, Any], text: str) -> tuple[Message, ...]:
    """An action with one parameter of the lane type that changes other
    lanes' state tells each of them (a mirror promoted when its leader goes down)."""
    if len(params) != 1 or params[0][1] or params[0][0].name not in values:
        return ()
    src = values[params[0][0].name]
    return tuple(Message(src, m, text, action) for m in lane_set.members
                 if m != src and _lane_changed(m, lane_set, prev, cur))


def _lane_changed(member: Any, lane_set: LaneSet, prev: Mapping[str, Any], cur: Mapping[str, Any]) -> bool:
    for var in lane_set.keyed_vars:
        old, new = prev.get(var), cur.get(var)
        if isinstance(old, Mapping) and isinstance(new, Mapping) and old.get(member) != new.get(member):
            return True
    return False


def _in_lane_order(values: list[Any], members: tuple[Any, ...]) -> list[Any]:
    return [m for m in members if m in values]
