"""What a person reads of a trace: values as text (typed when the var types are
known, generic otherwise), the changes a step made, and step labels.  The
terminal view (``modelcheck.cli.trace_render``) and the HTML page
(``modelcheck.trace.html``) are both built from these; nothing here prints.

Types come from the spec when one is given, else from ``trace.meta`` (an ITF
file written by modelcheck records them); traces written by other tools
(Apalache, Quint) carry none, and their values are shown by their shape.
"""
from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from modelcheck.errors import UsageError
from modelcheck.ir.nodes import Model
from modelcheck.ir.types import (BagType, BoolType, EnumType, IntType, MapType, ModelType,
                                 OptionType, RecordType, SeqType, SetType, TupleType, Type,
                                 VariantType)
from modelcheck.ir.values import Variant, render_value, sort_values
from modelcheck.behaviour import Behaviour, Step

__all__ = ["Change", "format_value", "format_lines", "value_changes", "step_changes",
           "changed_vars", "state_changes", "loop_back_changes", "var_names", "var_types", "param_types", "step_label",
           "param_texts", "DEFAULT_WIDTH", "StepWindow", "step_window", "EDGE_STEPS", "KeptSteps"]

#: Width under which a value is kept on one line.
DEFAULT_WIDTH = 72

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


@dataclass(frozen=True)
class Change:
    """One difference between two states, at ``var`` then ``path`` (rendered
    selectors such as ``[node1]`` or ``.term``).  ``kind`` is ``changed`` (old
    -> new), ``added`` (an element now in a set, bag or sequence: ``new``) or
    ``removed`` (an element gone: ``old``)."""
    var: str
    path: tuple[str, ...]
    kind: str
    old: str | None
    new: str | None
    # The values themselves and their type, for layouts over several lines.
    old_value: Any = field(default=None, compare=False, repr=False)
    new_value: Any = field(default=None, compare=False, repr=False)
    type: Type | None = field(default=None, compare=False, repr=False)

    @property
    def where(self) -> str:
        return self.var + "".join(self.path)


# ------------------------------------------------------------------ values as text

def _generic_key(v: Any) -> Any:
    # A total order over untyped values, so generic output is deterministic.
    if v is None:
        return (0, "")
    if isinstance(v, bool):
        return (1, int(v))
    if isinstance(v, int):
        return (2, v)
    if isinstance(v, str):
        return (3, _natural(v))
    return (4, format_value(v))


def _natural(s: str) -> tuple[Any, ...]:
    # node2 before node10
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", s))


def _generic(v: Any) -> str:
    if v is None:
        return "none"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, str)):
        return str(v)
    if isinstance(v, frozenset):
        return "{" + ", ".join(_generic(e) for e in sorted(v, key=_generic_key)) + "}"
    if isinstance(v, (tuple, list)):
        return "[" + ", ".join(_generic(e) for e in v) + "]"
    if isinstance(v, Mapping):
        return "{" + ", ".join(f"{_generic(k)}: {_generic(x)}" for k, x in v.items()) + "}"
    if isinstance(v, Variant):
        if isinstance(v.value, Mapping) and v.value:
            return f"{v.tag}(" + ", ".join(f"{k}={_generic(x)}" for k, x in v.value.items()) + ")"
        return v.tag
    return str(v)


def format_value(v: Any, t: Type | None = None) -> str:
    """``v`` on one line, as the spec language writes it when its type is known."""
    if t is not None:
        try:
            return render_value(t, v)
        except (TypeError, KeyError, AttributeError, ValueError):
            pass  # a value that does not fit its declared type: show its shape
    return _generic(v)


def _parts(v: Any, t: Type | None) -> tuple[str, str, list[tuple[str, Any, Type | None]]] | None:
    """How a composite value opens up: (opening, closing, [(prefix, item, item type)]),
    or None for values shown whole."""
    if isinstance(t, MapType) and isinstance(v, Mapping):
        return "{", "}", [(f"{format_value(k, t.key)}: ", v[k], t.value)
                          for k in sort_values(t.key, v.keys())]
    if isinstance(t, RecordType) and isinstance(v, Mapping):
        return f"{t.name or 'record'}(", ")", [(f"{n}=", v[n], ft) for n, ft in t.fields if n in v]
    if isinstance(t, SetType) and isinstance(v, frozenset):
        return "{", "}", [("", e, t.elem) for e in sort_values(t.elem, v)]
    if isinstance(t, SeqType) and isinstance(v, tuple):
        return "[", "]", [("", e, t.elem) for e in v]
    if isinstance(t, TupleType) and isinstance(v, tuple):
        return "(", ")", [("", e, et) for e, et in zip(v, t.elems)]
    if isinstance(t, BagType) and isinstance(v, Mapping):
        items: list[tuple[str, Any, Type | None]] = []
        for e in sort_values(t.elem, v.keys()):
            items.extend(("", e, t.elem) for _ in range(v[e]))
        return "bag{", "}", items
    if isinstance(t, OptionType) and v is not None:
        return "some(", ")", [("", v, t.elem)]
    if isinstance(v, Variant) and isinstance(v.value, Mapping):
        # A case opens up like the record of its fields, named by the case.
        payload = _case_type(t, v.tag)
        if payload is not None:
            return _parts(v.value, payload)
        if t is None:
            return f"{v.tag}(", ")", [(f"{k}=", x, None) for k, x in v.value.items()]
    if t is None:
        if isinstance(v, frozenset):
            return "{", "}", [("", e, None) for e in sorted(v, key=_generic_key)]
        if isinstance(v, (tuple, list)):
            return "[", "]", [("", e, None) for e in v]
        if isinstance(v, Mapping):
            return "{", "}", [(f"{_generic(k)}: ", x, None) for k, x in v.items()]
    return None


def format_lines(v: Any, t: Type | None = None, width: int = DEFAULT_WIDTH,
                 indent: str = "  ") -> list[str]:
    """``v`` laid out over lines: one line when it fits in ``width``, else one
    item per line, nested values indented (each composite opened only as far as
    needed)."""
    one = format_value(v, t)
    if len(one) <= width:
        return [one]
    parts = _parts(v, t)
    if parts is None or not parts[2]:
        return [one]
    opening, closing, items = parts
    lines = [opening]
    for prefix, item, item_type in items:
        sub = format_lines(item, item_type, max(16, width - len(indent)), indent)
        lines.append(indent + prefix + sub[0])
        lines.extend(indent + line for line in sub[1:])
        lines[-1] += ","
    lines[-1] = lines[-1][:-1]
    lines.append(closing)
    return lines


# ------------------------------------------------------------------ changes

def _is_prefix(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    return len(a) <= len(b) and b[:len(a)] == a


def value_changes(var: str, old: Any, new: Any, t: Type | None = None,
                  path: tuple[str, ...] = ()) -> list[Change]:
    """The smallest differences between ``old`` and ``new``: maps and records
    by key, sets and bags by element, sequences that grew or shrank at the end
    by element; anything else whole.  Empty when they are equal."""
    if old == new:
        return []
    if isinstance(old, Mapping) and isinstance(new, Mapping) and old.keys() == new.keys():
        if isinstance(t, BagType) or (t is None and _looks_like_bag(old, new)):
            return _bag_changes(var, old, new, t, path)
        if t is None or isinstance(t, (MapType, RecordType)):
            out: list[Change] = []
            keys = list(old.keys())
            if isinstance(t, MapType):
                keys = sort_values(t.key, keys)
            for k in keys:
                if isinstance(t, RecordType):
                    sel, sub = f".{k}", _field_type(t, k)
                elif isinstance(t, MapType):
                    sel, sub = f"[{format_value(k, t.key)}]", t.value
                else:
                    sel, sub = (f".{k}" if isinstance(k, str) and _IDENT.match(k) and not _lane_like(k)
                                else f"[{_generic(k)}]"), None
                out.extend(value_changes(var, old[k], new[k], sub, path + (sel,)))
            return out
    if isinstance(t, BagType) and isinstance(old, Mapping) and isinstance(new, Mapping):
        return _bag_changes(var, old, new, t, path)
    if isinstance(old, frozenset) and isinstance(new, frozenset) and (t is None or isinstance(t, SetType)):
        elem = t.elem if isinstance(t, SetType) else None
        return ([Change(var, path, "removed", format_value(e, elem), None, e, None, elem)
                 for e in _ordered(old - new, elem)]
                + [Change(var, path, "added", None, format_value(e, elem), None, e, elem)
                   for e in _ordered(new - old, elem)])
    if (isinstance(old, tuple) and isinstance(new, tuple)
            and (isinstance(t, SeqType) or t is None) and (_is_prefix(old, new) or _is_prefix(new, old))):
        elem = t.elem if isinstance(t, SeqType) else None
        if len(new) > len(old):
            return [Change(var, path, "added", None, format_value(e, elem), None, e, elem)
                    for e in new[len(old):]]
        return [Change(var, path, "removed", format_value(e, elem), None, e, None, elem)
                for e in old[len(new):]]
    if (isinstance(old, tuple) and isinstance(new, tuple) and len(old) == len(new)
            and isinstance(t, (SeqType, TupleType))):
        out = []
        for i, (a, b) in enumerate(zip(old, new)):
            sub = t.elem if isinstance(t, SeqType) else t.elems[i]
            out.extend(value_changes(var, a, b, sub, path + (f"[{i}]",)))
        return out
    if isinstance(t, OptionType) and old is not None and new is not None:
        return value_changes(var, old, new, t.elem, path + (".value",))
    if (isinstance(old, Variant) and isinstance(new, Variant) and old.tag == new.tag
            and isinstance(old.value, Mapping) and isinstance(new.value, Mapping)):
        # The same case: the fields that changed, as a record's would be.
        # Another case is a new value, shown whole.
        payload = _case_type(t, old.tag)
        if payload is not None or t is None:
            return value_changes(var, old.value, new.value, payload, path)
    return [Change(var, path, "changed", format_value(old, t), format_value(new, t), old, new, t)]


def _case_type(t: Type | None, case: str) -> RecordType | None:
    """The record type of ``case``'s fields when ``t`` is a variant type with that case."""
    if isinstance(t, VariantType):
        try:
            return t.case_type(case)
        except KeyError:
            return None
    return None


def _field_type(t: RecordType, name: str) -> Type | None:
    try:
        return t.field_type(name)
    except KeyError:
        return None


def _ordered(values: Any, t: Type | None) -> list[Any]:
    if t is not None:
        try:
            return sort_values(t, values)
        except (TypeError, ValueError, KeyError):
            pass
    return sorted(values, key=_generic_key)


def _lane_like(key: str) -> bool:
    return bool(re.search(r"\d", key))


def _looks_like_bag(old: Mapping[Any, Any], new: Mapping[Any, Any]) -> bool:
    # Untyped: a mapping from composite elements to positive counts reads as a bag.
    both = list(old.items()) + list(new.items())
    return bool(both) and all(isinstance(c, int) and not isinstance(c, bool) and c > 0
                              and isinstance(e, (Mapping, frozenset, tuple, Variant)) for e, c in both)


def _bag_changes(var: str, old: Mapping[Any, Any], new: Mapping[Any, Any], t: Type | None,
                 path: tuple[str, ...]) -> list[Change]:
    elem = t.elem if isinstance(t, BagType) else None
    out: list[Change] = []
    for e in _ordered(set(old) | set(new), elem):
        delta = new.get(e, 0) - old.get(e, 0)
        text = format_value(e, elem)
        kind = "added" if delta > 0 else "removed"
        for _ in range(abs(delta)):
            if delta > 0:
                out.append(Change(var, path, kind, None, text, None, e, elem))
            else:
                out.append(Change(var, path, kind, text, None, e, None, elem))
    return out


def changed_vars(prev: Mapping[str, Any], cur: Mapping[str, Any]) -> list[str]:
    """The variables whose value differs, in ``cur``'s order."""
    return [name for name in cur if name not in prev or prev[name] != cur[name]]


def step_changes(trace: Behaviour, index: int, types: Mapping[str, Type | None]) -> list[Change]:
    """What step ``index`` (1-based: the state it reached) changed."""
    if index <= 0:
        return []
    return state_changes(trace.steps[index - 1].state, trace.steps[index].state, types)


def loop_back_changes(trace: Behaviour, types: Mapping[str, Type | None]) -> list[Change]:
    """What a lasso's loop-back step changes: from its last state back to
    the state its cycle starts in (none for a last state that stutters)."""
    if trace.loop is None or trace.loop_back is None or not trace.steps:
        return []
    return state_changes(trace.steps[-1].state, trace.steps[trace.loop].state, types)


def state_changes(prev: Mapping[str, Any], cur: Mapping[str, Any],
                  types: Mapping[str, Type | None]) -> list[Change]:
    """What changed from ``prev`` to ``cur``, variable by variable."""
    out: list[Change] = []
    for name in changed_vars(prev, cur):
        if name not in prev:
            out.append(Change(name, (), "changed", None, format_value(cur[name], types.get(name)),
                              None, cur[name], types.get(name)))
            continue
        out.extend(value_changes(name, prev[name], cur[name], types.get(name)))
    return out


# ------------------------------------------------------------------ names and types

def var_names(trace: Behaviour, model: Model | None = None) -> list[str]:
    """The state variables, in the spec's order when known, else in the order
    of the first state (ITF files keep the writer's order)."""
    names: list[str] = []
    if model is not None:
        names = [v.name for v in model.vars]
    for step in trace.steps:
        for name in step.state:
            if name not in names:
                names.append(name)
    return names


def var_types(trace: Behaviour, model: Model | None = None) -> dict[str, Type | None]:
    """Each variable's declared type: from the spec, else from ``trace.meta``
    (``var_types``: name -> Type, as an ITF reader fills it), else None."""
    found: dict[str, Type | None] = {name: None for name in var_names(trace, model)}
    meta_types = trace.meta.get("var_types") if isinstance(trace.meta, Mapping) else None
    if isinstance(meta_types, Mapping):
        for name, t in meta_types.items():
            if _is_type(t):
                found[name] = t
    if model is not None:
        for decl in model.vars:
            found[decl.name] = decl.type
    return found


def _is_type(t: Any) -> bool:
    return isinstance(t, (BoolType, IntType, EnumType, ModelType, SetType, MapType, SeqType,
                          BagType, RecordType, TupleType, OptionType, VariantType))


def param_types(step: Step, model: Model | None) -> dict[str, Type | None]:
    if model is None or step.action is None:
        return {}
    try:
        action = model.action(step.action)
    except KeyError:
        return {}
    return {p.name: p.type for p in action.params}


def param_texts(step: Step, model: Model | None = None) -> list[tuple[str, str]]:
    """The step's parameters as (name, text)."""
    types = param_types(step, model)
    return [(name, format_value(value, types.get(name))) for name, value in step.params]


def step_label(step: Step, model: Model | None = None, index: int | None = None) -> str:
    """``Crash(n=node1)``; the first state is ``Init``; a step of a trace that
    does not name its actions (Apalache, Quint) is ``step N``."""
    if step.action is None:
        if index is None or index == 0:
            return "Init"
        return f"step {index}"
    params = param_texts(step, model)
    if not params:
        return step.action
    return f"{step.action}({', '.join(f'{k}={v}' for k, v in params)})"


# ------------------------------------------------------------------ long traces

#: Steps shown at each end of a long trace unless every step is asked for:
#: what a view of a trace of any length holds stays bounded.
EDGE_STEPS = 50


@dataclass(frozen=True)
class StepWindow:
    """The steps a view shows: ``runs`` of consecutive step indexes, in order;
    the steps between two runs (and after the last) are left out."""
    runs: tuple[range, ...]
    total: int
    #: What the line standing in for left-out steps tells the reader to do
    #: (empty: ``trace show``'s options).
    hint: str = ""

    def __iter__(self) -> Any:
        for run in self.runs:
            yield from run

    def __len__(self) -> int:
        return sum(len(run) for run in self.runs)

    @property
    def omitted(self) -> int:
        return self.total - len(self)

    def omitted_note(self, count: int) -> str:
        """The line standing in for ``count`` steps left out."""
        return (f"... {count} step{'s' if count != 1 else ''} omitted; "
                + (self.hint or "--all to show every step, --steps A:B to show steps A to B"))


def step_window(total: int, steps: str | None = None, show_all: bool = False,
                edge: int = EDGE_STEPS) -> StepWindow:
    """The steps to show of a trace of ``total`` steps (the initial state is
    step 0): every step with ``show_all`` or when there are few, the steps
    ``A`` to ``B`` (both included; ``A:`` to the end, ``:B`` from the start)
    for ``steps="A:B"``, else the first and last ``edge``.  Raises
    ``UsageError`` for a badly formed or empty ``A:B``."""
    if steps is not None:
        first, last = _parse_steps(steps, total)
        return StepWindow((range(first, last + 1),), total)
    if show_all or total <= 2 * edge + 1:
        return StepWindow((range(total),), total)
    return StepWindow((range(edge), range(total - edge, total)), total)


def _parse_steps(text: str, total: int) -> tuple[int, int]:
    hint = f"for example --steps 0:{min(total - 1, 20)}; this trace has steps 0 to {total - 1}"
    start, sep, end = text.partition(":")
    try:
        first = int(start) if start.strip() else 0
        last = int(end) if end.strip() else total - 1
    except ValueError:
        raise UsageError(f"bad --steps {text!r}: expected A:B", hint=hint) from None
    if not sep or first < 0 or last < first or first >= total:
        raise UsageError(f"--steps {text!r} selects no step of this trace", hint=hint)
    return first, min(last, total - 1)


class KeptSteps(Sequence[Step]):
    """The steps of a trace that a view (``step_window`` with the same
    arguments) needs, kept as they are read one at a time, so that what a long
    trace holds in memory does not grow with its length: the initial state,
    the steps shown and the step before each (a step is shown against it).
    Reads as the trace's list of steps: its length counts every step
    ``append``-ed; a step not kept raises IndexError."""

    def __init__(self, steps: str | None = None, show_all: bool = False,
                 edge: int = EDGE_STEPS):
        self._kept: dict[int, Step] = {}
        self._count = 0
        # Default: the first 2*edge+1 (all a short trace shows) and a
        # sliding window of the last edge+1.
        self._head: int | None = 2 * edge + 1
        self._tail = edge + 1
        self._stretch = _lenient_steps(steps) if steps is not None else None
        if show_all or self._stretch is not None:
            self._head = None

    def append(self, step: Step) -> None:
        i, self._count = self._count, self._count + 1
        if self._stretch is not None:
            first, last = self._stretch
            if i == 0 or first - 1 <= i and (last is None or i <= last):
                self._kept[i] = step
            return
        self._kept[i] = step
        if self._head is not None and i - self._tail >= self._head:
            del self._kept[i - self._tail]

    @property
    def kept(self) -> int:
        """How many steps are held."""
        return len(self._kept)

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            raise TypeError("the kept steps of a trace are not sliced")
        i = index + self._count if index < 0 else index
        try:
            return self._kept[i]
        except KeyError:
            raise IndexError(f"step {index} of the trace was not kept") from None

    def __iter__(self) -> Iterator[Step]:
        return iter(self._kept.values())


def _lenient_steps(text: str) -> tuple[int, int | None] | None:
    """The stretch ``A:B`` names, before the trace's length is known (None:
    badly formed, which ``step_window`` reports once it is)."""
    start, _, end = text.partition(":")
    try:
        return (int(start) if start.strip() else 0), (int(end) if end.strip() else None)
    except ValueError:
        return None
