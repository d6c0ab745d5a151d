"""Swimlanes: which lane (node) each step of a trace touches, and the messages
it sends between lanes.

A lane set is a model-value type that keys map variables (``map[Node, ...]``):
one lane per value.  A step touches the lanes named by its parameters and the
keys of lane-keyed maps it changed.  A *network* variable is a set, bag or
sequence of records with two fields of the lane type (``from``/``to``), or of
variants whose cases with such fields all have the same two (a case without
them, such as ``Timeout``, is a message drawn nowhere); the elements a step
adds are its messages, drawn as arrows, and the elements it removes are
deliveries to their destination lane.

How an action passes a message straight from one lane to another, and
when a step is a local event, is ``trace.lane_direction``; the lanes'
data classes are ``trace.lane_model`` (all importable from here).

Without a spec or types (traces from other tools) lane sets are inferred from
the values: mapping variables whose keys are the same ids in every state and
look like model values (``node1``, ``n2``, ``1_OF_NODE``).
"""
from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Mapping
from typing import Any

from modelcheck.errors import UsageError
from modelcheck.ir.nodes import Model
from modelcheck.ir.types import (BagType, EnumType, IntType, MapType, ModelType, OptionType,
                                 RecordType, SeqType, SetType, TupleType, Type, VariantType)
from modelcheck.ir.values import Variant, domain, sort_values
from modelcheck.trace.exprtext import source_text
from modelcheck.trace.lane_direction import Ends, action_ends, bystander_lane, direct_messages
from modelcheck.trace.lane_model import (DEST_NAMES, SOURCE_NAMES, LaneSet, LaneStep, Lanes,
                                         Message, Network)
from modelcheck.trace.msglabel import message_labels
from modelcheck.trace.trace import Trace
from modelcheck.trace.view import format_value, param_types, var_names, var_types

__all__ = ["LaneSet", "Network", "Message", "LaneStep", "Lanes", "lane_sets", "choose_lane_set",
           "find_networks", "build_lanes"]


# ------------------------------------------------------------------ lane sets

def lane_sets(trace: Trace, model: Model | None = None,
              types: Mapping[str, Type | None] | None = None) -> list[LaneSet]:
    """Every candidate lane set: model-value types first, then named int and
    enum types; among those, the ones keying most variables first (ties in
    declaration order)."""
    types = dict(types) if types is not None else var_types(trace, model)
    names = _type_names(model)
    found: dict[str, tuple[Type | None, tuple[Any, ...], list[str]]] = {}
    for name in var_names(trace, model):
        t = types.get(name)
        if not isinstance(t, MapType):
            continue
        key = t.key
        if isinstance(key, ModelType):
            lane_name = key.name
        elif isinstance(key, (IntType, EnumType)) and key in names:
            # equal types under two names (Msg = 1..M, Node = 1..N with M = N):
            # the name the declaration writes
            lane_name = _declared_key(model, name) or names[key]
        else:
            continue
        found.setdefault(lane_name, (key, tuple(domain(key)), []))[2].append(name)
    if not any(t is not None for t in types.values()):
        for lane_name, members, keyed in _inferred(trace, model):
            found.setdefault(lane_name, (None, members, []))[2].extend(keyed)
    order = list(found)

    def rank(n: str) -> tuple[int, int, int]:
        t = found[n][0]
        return (0 if isinstance(t, ModelType) or t is None else 1, -len(found[n][2]), order.index(n))
    return [LaneSet(n, found[n][1], tuple(found[n][2]), found[n][0]) for n in sorted(order, key=rank)]


def _type_names(model: Model | None) -> dict[Type, str]:
    """Named int and enum types (``type Node = 1..N``), by type; the first
    name wins when two are equal."""
    out: dict[Type, str] = {}
    if model is not None:
        for name, t in model.types:
            if isinstance(t, (IntType, EnumType)) and t not in out:
                out[t] = name
    return out


#: A map variable's key type as declared: ``var x: map[Node, ...]``.
_MAP_KEY = re.compile(r"var\s+\w+\s*:\s*map\[\s*([A-Za-z_]\w*)\s*,")


def _declared_key(model: Model | None, var: str) -> str | None:
    """The named type a map variable's declaration writes as its key, when
    it writes one (None without the source)."""
    if model is None:
        return None
    try:
        decl = model.var(var)
    except KeyError:
        return None
    written = source_text(getattr(decl, "span", None), dict(model.sources)) or ""
    match = _MAP_KEY.match(written)
    return match.group(1) if match and match.group(1) in {n for n, _ in model.types} else None


def _inferred(trace: Trace, model: Model | None) -> list[tuple[str, tuple[Any, ...], list[str]]]:
    groups: dict[tuple[Any, ...], list[str]] = {}
    for name in var_names(trace, model):
        keys = _constant_keys(trace, name)
        if keys is not None and _ids(keys):
            groups.setdefault(keys, []).append(name)
    return [(_lane_name(keys), keys, names) for keys, names in groups.items()]


def _constant_keys(trace: Trace, var: str) -> tuple[Any, ...] | None:
    keys: tuple[Any, ...] | None = None
    for step in trace.steps:
        value = step.state.get(var)
        if not isinstance(value, Mapping):
            return None
        these = tuple(value.keys())
        if keys is None:
            keys = these
        elif set(these) != set(keys):
            return None
    return keys


def _ids(keys: tuple[Any, ...]) -> bool:
    """Model-value ids: strings that differ only in a number (node1, node2)."""
    if len(keys) < 2 or not all(isinstance(k, str) for k in keys):
        return False
    prefix = os.path.commonprefix(list(keys))
    suffix = os.path.commonprefix([k[::-1] for k in keys])[::-1]
    cores = [k[len(prefix):len(k) - len(suffix) if suffix else len(k)] for k in keys]
    prefix_digits = re.search(r"\d+$", prefix)
    if prefix_digits:  # node1, node10: the shared "1" belongs to the number
        cores = [prefix_digits.group() + c for c in cores]
    return all(c.isdigit() for c in cores) and (bool(prefix.strip("_0123456789"))
                                                 or bool(suffix.strip("_0123456789")))


def _lane_name(keys: tuple[Any, ...]) -> str:
    prefix = os.path.commonprefix(list(keys)).rstrip("_0123456789")
    if prefix:
        return prefix[:1].upper() + prefix[1:]
    suffix = os.path.commonprefix([k[::-1] for k in keys])[::-1].strip("_0123456789")
    if suffix.upper().startswith("OF_"):
        suffix = suffix[3:]
    return suffix[:1].upper() + suffix[1:].lower() if suffix else "Lane"


def choose_lane_set(trace: Trace, model: Model | None = None, by: str | None = None,
                    types: Mapping[str, Type | None] | None = None) -> LaneSet | None:
    """The lane set named ``by`` (a model-value type, or a map variable whose
    keys become the lanes); by default the first candidate, or None."""
    types = dict(types) if types is not None else var_types(trace, model)
    candidates = lane_sets(trace, model, types)
    if by is None:
        if candidates:
            return candidates[0]
        return _first_model_type(model)
    for match in (lambda c: c.name == by, lambda c: c.name.lower() == by.lower()):
        for cand in candidates:
            if match(cand):
                return cand
    if model is not None:
        for name, t in model.types:
            if name == by and isinstance(t, (ModelType, IntType, EnumType)):
                return LaneSet(name, tuple(domain(t)), (), t)
    keys = _constant_keys(trace, by) if trace.steps and by in trace.steps[0].state else None
    if keys:
        t = types.get(by)
        if isinstance(t, MapType):
            return LaneSet(by, tuple(sort_values(t.key, keys)), (by,), t.key)
        return LaneSet(by, keys, (by,))
    names = [c.name for c in candidates]
    if model is not None:
        names += [n for n, t in model.types if isinstance(t, ModelType) and n not in names]
    hint = ("lay out by one of: " + ", ".join(names)) if names else \
        "--by takes a model-value type (or a map variable); this trace has none"
    raise UsageError(f"--by {by}: no model-value type or map variable of that name", hint=hint)


def _first_model_type(model: Model | None) -> LaneSet | None:
    if model is None:
        return None
    for name, t in model.types:
        if isinstance(t, ModelType):
            return LaneSet(name, t.members, (), t)
    return None


# ------------------------------------------------------------------ networks

def find_networks(trace: Trace, lane_set: LaneSet, model: Model | None = None,
                  types: Mapping[str, Type | None] | None = None) -> list[Network]:
    """The variables holding messages between lanes."""
    types = dict(types) if types is not None else var_types(trace, model)
    out: list[Network] = []
    for name in var_names(trace, model):
        t = types.get(name)
        if t is not None:
            fields = _lane_fields_typed(t, lane_set)
        else:
            fields = _lane_fields_untyped(trace, name, lane_set)
        if fields is not None:
            out.append(Network(name, *fields))
    return out


def _pick_ends(fields: list[str]) -> tuple[str, str] | None:
    if len(fields) < 2:
        return None
    src = next((f for f in fields if f.lower() in SOURCE_NAMES), None)
    dst = next((f for f in fields if f.lower() in DEST_NAMES and f != src), None)
    if src is None:
        src = next(f for f in fields if f != dst)
    if dst is None:
        dst = next(f for f in fields if f != src)
    return src, dst


def _lane_fields_typed(t: Type, lane_set: LaneSet) -> tuple[str, str] | None:
    if not isinstance(t, (SetType, BagType, SeqType)):
        return None
    if isinstance(t.elem, RecordType):
        return _pick_ends(_lane_fields_of(t.elem, lane_set))
    if not isinstance(t.elem, VariantType):
        return None
    # The ends every case with two lane fields shares.
    common: list[str] | None = None
    for _, payload in t.elem.cases:
        here = _lane_fields_of(payload, lane_set)
        if len(here) >= 2:
            common = here if common is None else [f for f in common if f in here]
    return _pick_ends(common) if common else None


def _lane_fields_of(record: RecordType, lane_set: LaneSet) -> list[str]:
    if lane_set.type is not None:
        return [n for n, ft in record.fields if ft == lane_set.type]
    return [n for n, ft in record.fields if isinstance(ft, ModelType)
            and set(ft.members) == set(lane_set.members)]


def _elements(value: Any) -> list[Any] | None:
    if isinstance(value, frozenset):
        return list(value)
    if isinstance(value, (tuple, list)):
        return list(value)
    if isinstance(value, Mapping) and all(isinstance(c, int) and not isinstance(c, bool)
                                          for c in value.values()):
        return [e for e in value if isinstance(e, (Mapping, Variant))] if value else []
    return None


def _fields(message: Any) -> Any:
    """A message's fields: a record's own, a variant case's payload."""
    return message.value if isinstance(message, Variant) else message


def _ends(message: Any, net: Network) -> tuple[Any, Any] | None:
    """The message's source and destination, or None for a variant case without them."""
    fields = _fields(message)
    if isinstance(fields, Mapping) and net.src in fields and net.dst in fields:
        return fields[net.src], fields[net.dst]
    return None


def _lane_fields_untyped(trace: Trace, var: str, lane_set: LaneSet) -> tuple[str, str] | None:
    members = set(lane_set.members)
    fields: list[str] | None = None
    for step in trace.steps:
        elems = _elements(step.state.get(var))
        if elems is None:
            return None
        for e in elems:
            payload = _fields(e)
            if not isinstance(payload, Mapping):
                return None
            here = [k for k, v in payload.items() if isinstance(k, str) and _hashable_in(v, members)]
            if isinstance(e, Variant) and len(here) < 2:
                continue        # a case that is not sent between lanes
            fields = here if fields is None else [f for f in fields if f in here]
    return _pick_ends(fields) if fields else None


def _hashable_in(v: Any, members: set[Any]) -> bool:
    try:
        return v in members
    except TypeError:
        return False


def _multiset(value: Any) -> Counter:
    if isinstance(value, Mapping):
        return Counter({e: c for e, c in value.items() if isinstance(c, int)})
    return Counter(value if value is not None else ())


# ------------------------------------------------------------------ per step

def build_lanes(trace: Trace, model: Model | None = None, by: str | None = None) -> Lanes:
    """The lane view of ``trace``: lanes chosen by ``by`` (see
    ``choose_lane_set``), the networks found, and each step's lanes and messages."""
    types = var_types(trace, model)
    lane_set = choose_lane_set(trace, model, by, types)
    if lane_set is None:
        return Lanes(None, (), tuple(LaneStep((), (), ()) for _ in trace.steps))
    networks = tuple(find_networks(trace, lane_set, model, types))
    ends = action_ends(model, lane_set)
    steps = [LaneStep((), (), ())]
    for i in range(1, len(trace.steps)):
        steps.append(_lane_step(trace, i, lane_set, networks, model, types, ends))
    return Lanes(lane_set, networks, tuple(steps))


def _lane_step(trace: Trace, i: int, lane_set: LaneSet, networks: tuple[Network, ...],
               model: Model | None, types: Mapping[str, Type | None],
               ends: Mapping[str, Ends]) -> LaneStep:
    members = lane_set.members
    prev, cur = trace.steps[i - 1].state, trace.steps[i].state
    step = trace.steps[i]
    touched: set[Any] = set()
    ptypes = param_types(step, model)
    for name, value in step.params:
        ptype = ptypes.get(name)
        if lane_set.type is not None and ptype is not None:
            touched.update(_typed_lane_values(value, ptype, lane_set.type))
        elif not isinstance(lane_set.type, IntType):
            # untyped: ids are recognised by value (ints would be ambiguous)
            touched.update(_lane_values(value, members))
    for var in lane_set.keyed_vars:
        old, new = prev.get(var), cur.get(var)
        if isinstance(old, Mapping) and isinstance(new, Mapping):
            touched.update(k for k in members if k in old and k in new and old[k] != new[k])
    sent: list[Message] = []
    received: list[Message] = []
    for net in networks:
        t = types.get(net.var)
        elem_type = getattr(t, "elem", None)
        before, after = _multiset(prev.get(net.var)), _multiset(cur.get(net.var))
        for e in _ordered_elems(after - before, elem_type):
            pair = _ends(e, net)
            if pair is not None and pair[0] == pair[1]:
                touched.add(pair[0])     # a node's note to itself: a local event, no arrow
            elif pair is not None:
                sent.append(Message(*pair, format_value(e, elem_type), net.var,
                                    message_labels(e, (net.src, net.dst), elem_type)))
        for e in _ordered_elems(before - after, elem_type):
            pair = _ends(e, net)
            if pair is not None and pair[0] == pair[1]:
                touched.add(pair[0])
            elif pair is not None:
                received.append(Message(*pair, format_value(e, elem_type), net.var))
    touched.update(m.src for m in sent)
    touched.update(m.dst for m in received)
    direct: tuple[Message, ...] = ()
    if not sent and not received and model is not None:
        direct = direct_messages(step, model, lane_set, ends, prev, cur)
        bystander = bystander_lane(step, lane_set, ends, prev, cur)
        if bystander is not None:
            # a local event (a leader appending a membership change to its
            # own log): the lane it names but neither reads nor changes is
            # no part of the step's drawing
            touched.discard(bystander)
    touched.update(m.src for m in direct)
    touched.update(m.dst for m in direct)
    return LaneStep(tuple(m for m in members if m in touched), tuple(sent), tuple(received), direct)


def _typed_lane_values(value: Any, t: Type, lane: Type) -> set[Any]:
    """The lane values inside ``value`` of type ``t``: the parts whose type is
    the lane type."""
    if t == lane:
        return {value}
    if value is None:
        return set()
    if isinstance(t, OptionType):
        return _typed_lane_values(value, t.elem, lane)
    if isinstance(t, (SetType, SeqType)):
        return set().union(*(_typed_lane_values(v, t.elem, lane) for v in value))
    if isinstance(t, BagType):
        return set().union(*(_typed_lane_values(v, t.elem, lane) for v in value))
    if isinstance(t, TupleType):
        return set().union(*(_typed_lane_values(v, et, lane) for v, et in zip(value, t.elems)))
    if isinstance(t, RecordType):
        return set().union(*(_typed_lane_values(value[n], ft, lane) for n, ft in t.fields if n in value))
    if isinstance(t, VariantType) and isinstance(value, Variant):
        try:
            return _typed_lane_values(value.value, t.case_type(value.tag), lane)
        except KeyError:
            return set()
    if isinstance(t, MapType):
        keys = set(value) if t.key == lane else set()
        return keys.union(*(_typed_lane_values(v, t.value, lane) for v in value.values()))
    return set()


def _lane_values(value: Any, members: tuple[Any, ...]) -> set[Any]:
    if isinstance(value, (frozenset, tuple, list)):
        out: set[Any] = set()
        for v in value:
            out |= _lane_values(v, members)
        return out
    if isinstance(value, Mapping):
        return _lane_values(tuple(value.values()), members)
    if isinstance(value, Variant):
        return _lane_values(value.value, members)
    try:
        return {value} if value in members else set()
    except TypeError:
        return set()


def _ordered_elems(counter: Counter, elem_type: Type | None) -> list[Any]:
    out: list[Any] = []
    for e in sorted(counter, key=lambda x: format_value(x, elem_type)):
        out.extend([e] * counter[e])
    return out
