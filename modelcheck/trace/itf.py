"""Traces as ITF JSON, the Informal Trace Format of Apalache and Quint.

Writing (``itf_write``, re-exported here) is directed by the declared types (docs/itf.md lists the encodings):
ints are JSON numbers (``{"#bigint": "..."}`` past 2**53), sets
``{"#set": [...]}`` in canonical order, maps ``{"#map": [[k, v], ...]}``,
records objects, tuples ``{"#tup": [...]}``, sequences arrays, options Quint
variants, bags ``{"#map": [[elem, count], ...]}``, variants as Quint writes
them, ``{"tag": case, "value": {...fields...}}`` (a case without fields has
the value ``{"#tup": []}``).

Reading with a model converts every value back by its declared type, exactly;
reading without one gives a generic reading of ITF written by other tools
(sets become frozensets, maps and records FrozenDicts, and so on).  Bad input
raises TraceFileError (``itf_json``: a coded diagnostic, a UsageError too)
naming the place in the file, as a JSON path (``states[3].x``) and, when the
text is at hand, a line and column.
"""
from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from modelcheck.diagnostics import did_you_mean
from modelcheck.errors import UsageError
from modelcheck.ir import nodes as ir
from modelcheck.ir.types import (BagType, BoolType, EnumType, IntType, MapType, ModelType,
                                 OptionType, RecordType, SeqType, SetType, TupleType, Type,
                                 VariantType, render_type)
from modelcheck.ir.values import FrozenDict, Variant
from modelcheck.trace.itf_json import (MAX_INT_DIGITS, States, TraceFileError, bad_trace, loads_itf,
                                       stream_itf)
from modelcheck.trace.spec_source import ABSOLUTE_KEY, HASH_KEY
from modelcheck.trace.itf_write import ITF_FORMAT_DESCRIPTION, UNIT as _UNIT, dumps_itf, encode_value, to_itf
from modelcheck.trace.trace import Step, Trace

__all__ = ["ITF_FORMAT_DESCRIPTION", "to_itf", "from_itf", "read_itf", "open_itf", "itf_header",
           "itf_steps", "itf_loop", "dumps_itf",
           "encode_value", "decode_value", "decode_generic"]

#: Variables Quint writes in model-based-testing mode: the action taken and
#: the nondeterministic picks.  They describe the step, not the state.
_QUINT_ACTION, _QUINT_PICKS = "mbt::actionTaken", "mbt::nondetPicks"


# ------------------------------------------------------------------ reading

class _Bad(Exception):
    """A value that does not fit its type; the message says why, the hint
    (if any) what was meant."""

    def __init__(self, message: str, hint: str | None = None):
        super().__init__(message)
        self.hint = hint


class _BadValue(ValueError):
    """decode_value's ValueError, with the hint of the _Bad it reports."""

    def __init__(self, message: str, hint: str | None = None):
        super().__init__(message)
        self.hint = hint


def decode_value(t: Type, j: Any) -> Any:
    """The value of type ``t`` written as the ITF JSON ``j`` (raises ValueError)."""
    try:
        return _decode(t, j)
    except _Bad as bad:
        raise _BadValue(str(bad), bad.hint) from None


def _int(j: Any) -> int:
    if isinstance(j, bool):
        raise _Bad(f"expected an integer, found {json.dumps(j)}")
    if isinstance(j, int):
        return j
    if isinstance(j, float) and j.is_integer():
        return int(j)
    if isinstance(j, dict) and set(j) == {"#bigint"}:
        return _bigint(j["#bigint"])
    raise _Bad(f"expected an integer, found {_show(j)}")


def _bigint(digits: Any) -> int:
    """The int a ``{"#bigint": digits}`` holds (raises _Bad)."""
    if not isinstance(digits, str) or not re.fullmatch(r"-?[0-9]+", digits):
        raise _Bad(f"expected {{\"#bigint\": \"digits\"}}, found {_show({'#bigint': digits})}")
    if len(digits.lstrip("-")) > MAX_INT_DIGITS:
        raise _Bad(f"an integer of {len(digits.lstrip('-')):,} digits: ITF integers have at most "
                   f"{MAX_INT_DIGITS:,} digits here")
    return int(digits)


def _show(j: Any) -> str:
    try:
        text = json.dumps(j)
    except ValueError:          # an int past the int/str conversion limit
        text = f"an integer of about {int(abs(j).bit_length() * 0.30103):,} digits"
    return text if len(text) <= 60 else text[:57] + "..."


def _tagged(j: Any, tag: str) -> list:
    if isinstance(j, dict) and set(j) == {tag} and isinstance(j[tag], list):
        return j[tag]
    raise _Bad(f"expected {{\"{tag}\": [...]}}, found {_show(j)}")


def _pairs(j: Any) -> list[tuple[Any, Any]]:
    items = _tagged(j, "#map")
    if not all(isinstance(p, list) and len(p) == 2 for p in items):
        raise _Bad(f"a #map holds [key, value] pairs, found {_show(j)}")
    return [(p[0], p[1]) for p in items]


def _decode(t: Type, j: Any) -> Any:
    if isinstance(t, BoolType):
        if isinstance(j, bool):
            return j
        raise _Bad(f"expected true or false, found {_show(j)}")
    if isinstance(t, IntType):
        return _int(j)
    if isinstance(t, (EnumType, ModelType)):
        # Quint writes enum members as variants without a value.
        if isinstance(j, dict) and j.get("tag") in t.members and j.get("value", _UNIT) == _UNIT:
            return j["tag"]
        if isinstance(j, str) and j in t.members:
            return j
        raise _Bad(f"expected one of {', '.join(t.members)}, found {_show(j)}")
    if isinstance(t, SetType):
        return frozenset(_decode(t.elem, e) for e in _tagged(j, "#set"))
    if isinstance(t, MapType):
        return FrozenDict((_decode(t.key, k), _decode(t.value, v)) for k, v in _pairs(j))
    if isinstance(t, RecordType):
        if not isinstance(j, dict):
            raise _Bad(f"expected a record {render_type(t)}, found {_show(j)}")
        missing = [n for n, _ in t.fields if n not in j]
        extra = [k for k in j if k not in {n for n, _ in t.fields}]
        if missing or extra:
            what = f"no field '{missing[0]}'" if missing else f"an unknown field '{extra[0]}'"
            raise _Bad(f"the record {render_type(t)} has {what}")
        return FrozenDict((n, _decode(ft, j[n])) for n, ft in t.fields)
    if isinstance(t, TupleType):
        elems = _tagged(j, "#tup")
        if len(elems) != len(t.elems):
            raise _Bad(f"expected a tuple of {len(t.elems)}, found {len(elems)} elements")
        return tuple(_decode(et, e) for et, e in zip(t.elems, elems))
    if isinstance(t, SeqType):
        if not isinstance(j, list):
            raise _Bad(f"expected a sequence (JSON array), found {_show(j)}")
        return tuple(_decode(t.elem, e) for e in j)
    if isinstance(t, OptionType):
        return _decode_option(t, j)
    if isinstance(t, BagType):
        counts: dict[Any, int] = {}
        for k, c in _pairs(j):
            n = _int(c)
            if n > 0:
                e = _decode(t.elem, k)
                counts[e] = counts.get(e, 0) + n
        return FrozenDict(counts)
    if isinstance(t, VariantType):
        return _decode_variant(t, j)
    raise TypeError(f"cannot decode a value of type {t!r}")


def _decode_option(t: OptionType, j: Any) -> Any:
    if isinstance(j, dict) and j.get("tag") == "None":
        return None
    if isinstance(j, dict) and j.get("tag") == "Some" and "value" in j:
        return _decode(t.elem, j["value"])
    raise _Bad(f"expected {{\"tag\": \"Some\", ...}} or {{\"tag\": \"None\", ...}}, "
               f"found {_show(j)}")


def _decode_variant(t: VariantType, j: Any) -> Variant:
    if not (isinstance(j, dict) and set(j) == {"tag", "value"} and isinstance(j["tag"], str)):
        raise _Bad(f"expected a {t.name} as {{\"tag\": case, \"value\": ...}}, found {_show(j)}")
    cases = [case for case, _ in t.cases]
    if j["tag"] not in cases:
        raise _Bad(f"{t.name} has no case '{j['tag']}'",
                   did_you_mean(j["tag"], cases, f"the cases of {t.name}"))
    payload = t.case_type(j["tag"])
    if not payload.fields:
        # Quint writes a case without fields with the unit value; an empty
        # record is the same nothing.
        if j["value"] not in (_UNIT, {}):
            raise _Bad(f"the case {j['tag']} of {t.name} has no fields, found {_show(j['value'])}")
        return Variant(j["tag"], FrozenDict())
    return Variant(j["tag"], _decode(payload, j["value"]))


def decode_generic(j: Any) -> Any:
    """A value read from ITF without knowing its type."""
    if isinstance(j, bool) or isinstance(j, (int, str)):
        return j
    if isinstance(j, float):
        return int(j) if j.is_integer() else j
    if isinstance(j, list):
        return tuple(decode_generic(e) for e in j)
    if isinstance(j, dict):
        try:
            return _decode_generic_tagged(j)
        except _Bad as bad:
            raise ValueError(str(bad)) from None
    raise ValueError(f"not an ITF value: {_show(j)}")


def _decode_generic_tagged(j: dict[str, Any]) -> Any:
    if set(j) == {"#bigint"}:
        return _bigint(j["#bigint"])
    if set(j) == {"#set"}:
        return frozenset(decode_generic(e) for e in _tagged(j, "#set"))
    if set(j) == {"#tup"}:
        return tuple(decode_generic(e) for e in _tagged(j, "#tup"))
    if set(j) == {"#map"}:
        return FrozenDict((decode_generic(k), decode_generic(v)) for k, v in _pairs(j))
    if set(j) == {"#unserializable"}:
        return str(j["#unserializable"])
    if set(j) == {"tag", "value"}:
        if j["tag"] == "None" and j["value"] == _UNIT:
            return None
        if j["tag"] == "Some":
            return decode_generic(j["value"])
        if j["value"] == _UNIT and isinstance(j["tag"], str):
            # A case without fields reads as an enum member would: ITF
            # writes both the same way.
            return j["tag"]
        if isinstance(j["tag"], str) and _is_record(j["value"]):
            return Variant(j["tag"], decode_generic(j["value"]))
    return FrozenDict((k, decode_generic(v)) for k, v in j.items())


def _is_record(j: Any) -> bool:
    """Whether ``j`` reads as a record: an object without ITF's ``#`` keys."""
    return isinstance(j, dict) and not any(k.startswith("#") for k in j)


def from_itf(data: dict[str, Any], model: ir.Model | None = None, source: str = "<itf>",
             text: str | None = None) -> Trace:
    """A Trace from ITF JSON (see the module doc).  ``source`` names the input
    in error messages; ``text``, the JSON text ``data`` was read from, lets
    them give a line and column.  Raises TraceFileError."""
    if not isinstance(data, dict) or not isinstance(data.get("states"), list):
        raise _Reader(model, source, text).bad("MC1201", "not an ITF trace (no \"states\" list)", ())
    states = data["states"]
    head = {k: v for k, v in data.items() if k != "states"}
    trace = itf_header(head, model)
    trace.steps = list(itf_steps(head, lambda: iter(states), model, source, text))
    itf_loop(head, trace, model, source, text)
    return trace


def itf_header(head: Any, model: ir.Model | None = None) -> Trace:
    """The Trace a file's top-level members (all but ``states``) describe,
    without its steps."""
    meta = head.get("#meta") if isinstance(head, dict) and isinstance(head.get("#meta"), dict) else {}
    name = model.name if model is not None else _text(meta.get("spec") or meta.get("source") or "")
    # The spec's identity describes the file, not the trace: a trace written
    # again (with another model) must not carry the old spec's hash.
    extra = {k: v for k, v in meta.items()
             if k not in ("spec", "property", "kind", "consts", "var-types", "const-types",
                          "loop-back", ABSOLUTE_KEY, HASH_KEY)}
    prop = meta.get("property")
    return Trace(name, [], kind=_text(meta.get("kind") or "counterexample"),
                 property_name=prop if isinstance(prop, str) else None, meta=extra)


def itf_steps(head: Any, states: States | None, model: ir.Model | None = None,
              source: str = "<itf>", text: str | None = None) -> Iterator[Step]:
    """The steps of a trace file, converted one state at a time as they are
    read (``stream_itf`` gives ``head`` and ``states``).  A bad value is
    reported only once the file is known to be JSON, as ``loads_itf`` would
    report it first.  Raises TraceFileError."""
    read = _Reader(model, source, text)
    if states is None or not isinstance(head, dict):
        raise read.bad("MC1201", "not an ITF trace (no \"states\" list)", ())
    var_names: list[str] | None = None
    try:
        for i, raw in enumerate(states()):
            if var_names is None:
                var_names = read.var_names(head, raw)
            if not isinstance(raw, dict):
                raise read.bad("MC1201", "a state is a JSON object", ("states", i))
            yield read.step(raw, i, var_names)
    except TraceFileError as err:
        if text is not None:
            loads_itf(text, source)     # a JSON error later in the file comes first
        raise


def itf_loop(head: Any, trace: Trace, model: ir.Model | None = None, source: str = "<itf>",
             text: str | None = None) -> None:
    """Set the trace's ``loop`` and ``loop_back`` from the file's top-level
    members, once its steps are read (the loop-back step's state is the state
    it returns to).  Raises TraceFileError: MC3203 for a loop index that is
    not the index of a state, or a loop-back step that is no step."""
    if not isinstance(head, dict) or head.get("loop") is None:
        return      # not a lasso (and a long trace's steps may not all be kept)
    trace.loop, trace.loop_back = _Reader(model, source, text).loop(head, list(trace.steps))


def _text(value: Any) -> str:
    """A free-form #meta entry as text (another tool may write anything there)."""
    return value if isinstance(value, str) else _show(value)


class _Reader:
    """Reads the states of one trace file; ``bad`` makes its errors."""

    def __init__(self, model: ir.Model | None, source: str, text: str | None):
        self.model = model
        self.source = source
        self.text = text

    def bad(self, code: str, message: str, where: tuple[str | int, ...],
            hint: str | None = None) -> Exception:
        return bad_trace(code, message, self.source, self.text, where, hint)

    def var_names(self, head: dict[str, Any], first: Any) -> list[str]:
        if self.model is not None:
            return [d.name for d in self.model.vars]
        names = head.get("vars")
        if isinstance(names, list) and all(isinstance(n, str) for n in names):
            return [n for n in names if n not in (_QUINT_ACTION, _QUINT_PICKS)]
        first = first if isinstance(first, dict) else {}
        return [k for k in first if not k.startswith("#") and k not in (_QUINT_ACTION, _QUINT_PICKS)]

    def step(self, raw: dict[str, Any], i: int, var_names: list[str]) -> Step:
        state: dict[str, Any] = {}
        for name in var_names:
            if name not in raw:
                raise self.bad("MC3201", f"no value for the variable '{name}'", ("states", i))
            try:
                if self.model is not None:
                    state[name] = decode_value(self.model.var(name).type, raw[name])
                else:
                    state[name] = decode_generic(raw[name])
            except ValueError as bad:
                raise self.bad(_value_code(str(bad)), str(bad),
                               ("states", i, name), getattr(bad, "hint", None)) from None
        action, params = self.action(raw, i)
        return Step(action, params, state)

    def action(self, raw: dict[str, Any], i: int) -> tuple[str | None, tuple[tuple[str, Any], ...]]:
        meta = raw.get("#meta") if isinstance(raw.get("#meta"), dict) else {}
        action = meta.get("action")
        params_json = meta.get("params") if isinstance(meta.get("params"), dict) else {}
        where: tuple[str | int, ...] = ("states", i, "#meta", "action")
        if action is None and isinstance(raw.get(_QUINT_ACTION), str):
            action = raw[_QUINT_ACTION]
            where = ("states", i, _QUINT_ACTION)
            picks = raw.get(_QUINT_PICKS)
            params_json = {k: v["value"] for k, v in picks.items()
                           if isinstance(v, dict) and v.get("tag") == "Some" and "value" in v} \
                if isinstance(picks, dict) else {}
        if i == 0 or not isinstance(action, str) or action in ("init", "step", "q::init", "q::step"):
            # The initial state has no action; generic names say nothing about
            # which action was taken, so replay fills it in.
            return None, ()
        if self.model is None:
            try:
                return action, tuple((k, decode_generic(v)) for k, v in params_json.items())
            except ValueError as bad:
                raise self.bad(_value_code(str(bad)), f"the parameters of {action}: {bad}", ("states", i, "#meta", "params")) from None
        return action, self.params(action, params_json, ("states", i, "#meta"), where)

    def params(self, action: str, params_json: dict[str, Any], base: tuple[str | int, ...],
               where: tuple[str | int, ...]) -> tuple[tuple[str, Any], ...]:
        """The parameters of ``action`` given by ``params_json``, which is
        ``params`` in the object at ``base`` (its action named at ``where``)."""
        assert self.model is not None
        try:
            decl = self.model.action(action)
        except KeyError:
            # The one did-you-mean helper lives with the command line; imported
            # here on use, so that reading traces does not load the CLI.
            raise self.bad("MC2201", f"unknown action '{action}': "
                           f"{self.model.name} has no action of that name", where,
                           hint=did_you_mean(action, [a.name for a in self.model.actions])) from None
        params = []
        for p in decl.params:
            if p.name not in params_json:
                raise self.bad("MC3201", f"{action} is taken without a value for its "
                               f"parameter '{p.name}'", base)
            try:
                params.append((p.name, decode_value(p.type, params_json[p.name])))
            except ValueError as bad:
                raise self.bad(_value_code(str(bad)), f"the parameter '{p.name}' of {action}: {bad}",
                               (*base, "params", p.name),
                               getattr(bad, "hint", None)) from None
        return tuple(params)

    def loop(self, head: dict[str, Any], steps: list[Step]) -> tuple[int | None, Step | None]:
        """A lasso's loop index (top-level ``loop``, as Apalache writes it)
        and its loop-back step (``#meta.loop-back``), or (None, None)."""
        loop = head.get("loop")
        if loop is None:
            return None, None
        if isinstance(loop, bool) or not isinstance(loop, int) or not 0 <= loop < len(steps):
            raise self.bad("MC3203", f"the loop index {_show(loop)} is not the index of a state "
                           f"(there are {len(steps)})", ("loop",),
                           hint="a lasso's last state is followed by states[loop]")
        meta = head.get("#meta") if isinstance(head.get("#meta"), dict) else {}
        back = meta.get("loop-back")
        base: tuple[str | int, ...] = ("#meta", "loop-back")
        if back is None:
            return loop, None
        if not isinstance(back, dict) or not isinstance(back.get("action"), str) \
                or not isinstance(back.get("params", {}), dict):
            raise self.bad("MC3203", "the loop-back step is {\"action\": name, \"params\": {...}}, "
                           f"found {_show(back)}", base)
        action, params_json = back["action"], back.get("params", {})
        state = steps[loop].state
        if self.model is None:
            try:
                return loop, Step(action, tuple((k, decode_generic(v)) for k, v in params_json.items()),
                                  state)
            except ValueError as bad:
                raise self.bad(_value_code(str(bad)), f"the parameters of {action}: {bad}",
                               (*base, "params")) from None
        return loop, Step(action, self.params(action, params_json, base, (*base, "action")), state)


def _value_code(message: str) -> str:
    """MC3202 for a number ITF cannot hold, MC3201 for any other bad value."""
    return "MC3202" if "digits: ITF integers" in message or "no floats" in message else "MC3201"


def open_itf(path: str | Path) -> tuple[Any, States | None, str]:
    """A trace file's top-level members, its states one at a time, and its
    text (``itf_json.stream_itf``).  Raises UsageError/TraceFileError."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as err:
        raise UsageError(f"cannot read {p}: {err.strerror or err}") from None
    except UnicodeDecodeError as err:
        raise bad_trace("MC1201", f"not UTF-8 text: {err.reason} at byte {err.start}",
                        str(p), None) from None
    head, states = stream_itf(text, str(p))
    return head, states, text


def read_itf(path: str | Path, model: ir.Model | None = None) -> Trace:
    """Read an ITF JSON file (see ``from_itf``), one state at a time."""
    head, states, text = open_itf(path)
    trace = itf_header(head, model)
    trace.steps = list(itf_steps(head, states, model, str(path), text))
    itf_loop(head, trace, model, str(path), text)
    return trace
