"""Writing a behaviour as ITF JSON (the encodings are in ``itf``'s doc and
docs/itf.md).  Apart from reading, which builds ``Trace`` objects, so that
``Trace.to_itf`` and ``Trace.save`` can use it without an import circle."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from modelcheck.behaviour import Behaviour, Step
from modelcheck.ir import nodes as ir
from modelcheck.ir.types import (BagType, BoolType, EnumType, IntType, MapType, ModelType,
                                 OptionType, RecordType, SeqType, SetType, TupleType, Type,
                                 VariantType, render_type)
from modelcheck.ir.values import domain, sort_values
from modelcheck.trace.spec_source import spec_identity

__all__ = ["ITF_FORMAT_DESCRIPTION", "UNIT", "to_itf", "dumps_itf", "encode_value"]

ITF_FORMAT_DESCRIPTION = "https://apalache-mc.org/docs/adr/015adr-trace.html"

#: JSON numbers are exact only up to 2**53 in most readers.
_SAFE_INT = 2 ** 53
#: The value of a variant case without fields.
UNIT = {"#tup": []}
_UNIT = UNIT


def encode_value(t: Type, v: Any) -> Any:
    """The ITF JSON of the value ``v`` of type ``t``."""
    if isinstance(t, BoolType):
        return bool(v)
    if isinstance(t, IntType):
        return v if -_SAFE_INT < v < _SAFE_INT else {"#bigint": str(v)}
    if isinstance(t, (EnumType, ModelType)):
        return v
    if isinstance(t, SetType):
        return {"#set": [encode_value(t.elem, e) for e in sort_values(t.elem, v)]}
    if isinstance(t, MapType):
        return {"#map": [[encode_value(t.key, k), encode_value(t.value, v[k])]
                         for k in domain(t.key)]}
    if isinstance(t, RecordType):
        return {name: encode_value(ft, v[name]) for name, ft in t.fields}
    if isinstance(t, TupleType):
        return {"#tup": [encode_value(et, e) for et, e in zip(t.elems, v)]}
    if isinstance(t, SeqType):
        return [encode_value(t.elem, e) for e in v]
    if isinstance(t, OptionType):
        if v is None:
            return {"tag": "None", "value": dict(_UNIT)}
        return {"tag": "Some", "value": encode_value(t.elem, v)}
    if isinstance(t, BagType):
        return {"#map": [[encode_value(t.elem, e), v[e]] for e in sort_values(t.elem, v.keys())]}
    if isinstance(t, VariantType):
        payload = t.case_type(v.tag)
        fields = encode_value(payload, v.value) if payload.fields else dict(_UNIT)
        return {"tag": v.tag, "value": fields}
    raise TypeError(f"cannot encode a value of type {t!r}")


def to_itf(trace: Behaviour, model: ir.Model, folder: Path | None = None) -> dict[str, Any]:
    """The trace as an ITF JSON object (``json.dump`` it); ``folder``: where
    the file will be written, if it is known."""
    var_types = {d.name: d.type for d in model.vars}
    meta: dict[str, Any] = {
        "format": "ITF",
        "format-description": ITF_FORMAT_DESCRIPTION,
        "source": model.path,
        **spec_identity(model.path, model.sources, folder),
        "description": _description(trace),
        "generated-by": "modelcheck",
        "spec": model.name,
        "property": trace.property_name,
        "kind": trace.kind,
        "consts": {name: encode_value(t, v) for name, t, v in model.consts},
        "const-types": {name: render_type(t) for name, t, _ in model.consts},
        "var-types": {name: render_type(t) for name, t in var_types.items()},
    }
    for key, value in trace.meta.items():
        meta.setdefault(key, value)
    states = []
    for i, step in enumerate(trace.steps):
        step_meta: dict[str, Any] = {"index": i}
        if step.action is not None:
            step_meta["action"] = step.action
            step_meta["params"] = _encode_params(model, step)
        state: dict[str, Any] = {"#meta": step_meta}
        for decl in model.vars:
            state[decl.name] = encode_value(decl.type, step.state[decl.name])
        states.append(state)
    out: dict[str, Any] = {"#meta": meta, "vars": [d.name for d in model.vars], "states": states}
    if trace.loop is not None:
        # ADR-015's lasso: the last state is followed by states[loop].
        out["loop"] = trace.loop
        if trace.loop_back is not None:
            meta["loop-back"] = {"action": trace.loop_back.action,
                                 "params": _encode_params(model, trace.loop_back)}
    return out


def dumps_itf(trace: Behaviour, model: ir.Model, folder: Path | None = None) -> str:
    """The ITF JSON text of a trace, as written to files (into ``folder``)."""
    # default=str: free-form entries a caller put in trace.meta must not make
    # the trace unwritable.
    return json.dumps(to_itf(trace, model, folder), indent=2, ensure_ascii=False,
                      default=str) + "\n"


def _description(trace: Behaviour) -> str:
    what = {"counterexample": "counterexample to", "witness": "witness for",
            "error": "trace to a run-time error", "scenario": "scenario"}.get(trace.kind, trace.kind)
    if trace.loop is not None:
        cycle = "the last state stutters forever" if trace.loop_back is None else \
            f"then back to state {trace.loop}, forever"
        return f"{what} {trace.property_name} in {trace.model_name} ({len(trace)} steps, {cycle})"
    if trace.property_name:
        return f"{what} {trace.property_name} in {trace.model_name} ({len(trace)} steps)"
    return f"{what} in {trace.model_name} ({len(trace)} steps)"


def _encode_params(model: ir.Model, step: Step) -> dict[str, Any]:
    try:
        action = model.action(step.action or "")
    except KeyError:
        raise ValueError(f"the trace names an action '{step.action}' that "
                         f"{model.name} does not have") from None
    types = {p.name: p.type for p in action.params}
    return {name: encode_value(types[name], value) for name, value in step.params}
