"""The ``--json`` output: one JSON object per check.  Its shape is a stable
contract, documented in docs/cli.md and described by the JSON Schema
``modelcheck/schemas/check.schema.json``; change it only by adding keys.
``schema_version`` is raised when a member is removed, renamed or changes
meaning (never for an added member)."""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from modelcheck.diagnostics import Diagnostic
from modelcheck.engines.base import CheckResult, PropertyResult
from modelcheck.errors import CompileError, EvalError, ModelcheckError, UsageError
from modelcheck.ir.nodes import Model

__all__ = ["SCHEMA_VERSION", "outcome_json", "failure_json", "property_json", "error_json",
           "write_error_json", "plain_value", "dumps"]

#: The version of the ``check --json`` contract (the schema's ``schema_version``).
SCHEMA_VERSION = 1


def plain_value(value: Any) -> Any:
    """A spec value as plain JSON: sets and sequences as lists (sets in a
    deterministic order), maps and records as objects with text keys."""
    if isinstance(value, (bool, int, str)) or value is None:
        return value
    if isinstance(value, frozenset):
        return sorted((plain_value(v) for v in value), key=_sort_key)
    if isinstance(value, tuple):
        return [plain_value(v) for v in value]
    if isinstance(value, Mapping):
        return {str(plain_value(k)): plain_value(v) for k, v in value.items()}
    return str(value)


def _sort_key(v: Any) -> str:
    return json.dumps(v, sort_keys=True)


def property_json(prop: PropertyResult) -> dict[str, Any]:
    out = {
        "kind": prop.kind.value if prop.kind is not None else "deadlock",
        "status": prop.status.value,
        "steps": prop.steps,
        "trace_file": prop.trace_file,
        "reason": prop.reason,
    }
    if prop.trace is not None and prop.trace.loop is not None:
        # A lasso: where its cycle starts, and which binding it breaks.
        out["loop"] = prop.trace.loop
        out["instance"] = prop.trace.meta.get("instance")
    return out


def _diagnostic_json(diag: Diagnostic) -> dict[str, Any]:
    span = diag.span
    return {
        "code": diag.code,
        "message": diag.message,
        "file": span.file if span else None,
        "line": span.line if span else None,
        "col": span.col if span else None,
        "hint": diag.hint,
    }


def error_json(error: ModelcheckError | Any, trace_file: str | None = None) -> dict[str, Any]:
    """The ``error`` member: the first diagnostic of a compile or run-time
    error, or the message of a usage error."""
    if isinstance(error, EvalError):
        out = _diagnostic_json(error.diagnostic)
        out["trace_file"] = trace_file
        return out
    if isinstance(error, CompileError) and error.diagnostics:
        out = _diagnostic_json(error.diagnostics[0])
        out["trace_file"] = None
        return out
    hint = error.hint if isinstance(error, UsageError) else None
    return {"code": None, "message": str(error), "file": None, "line": None, "col": None,
            "hint": hint, "trace_file": None}


def write_error_json(path: str, message: str, code: str = "MC6001") -> dict[str, Any]:
    """A member of ``write_errors``: a result file that could not be written."""
    return {"code": code, "message": message, "file": path, "line": None, "col": None,
            "hint": "free some space, or give --out a folder that can be written",
            "trace_file": None}


def outcome_json(spec: str, model: Model, engine: str, result: CheckResult,
                 error_trace_file: str | None = None,
                 write_errors: Sequence[Any] = ()) -> dict[str, Any]:
    """The object ``modelcheck check --json`` prints for one check.
    ``engine`` is the engine that answered (``runner.engine_that_ran``);
    ``write_errors`` the ``runner.WriteError`` of each trace not written."""
    stats = result.stats
    return {
        "schema_version": SCHEMA_VERSION,
        "spec": spec,
        "model": model.name,
        "engine": engine,
        "requested_engine": result.requested_engine or engine,
        "consts": {name: plain_value(value) for name, _, value in model.consts},
        "properties": {p.name: property_json(p) for p in result.properties},
        "distinct_states": stats.distinct_states,
        "generated_states": stats.generated_states,
        "depth": stats.depth,
        "elapsed_s": round(stats.elapsed_s, 3),
        "complete": result.complete,
        "reason": result.reason,
        "error": error_json(result.error, error_trace_file) if result.error is not None else None,
        "notes": list(result.notes),
        "write_errors": [write_error_json(e.path, e.message(), e.code) for e in write_errors],
    }


def failure_json(spec: str, engine: str | None, defines: Mapping[str, str],
                 error: ModelcheckError) -> dict[str, Any]:
    """The object printed when the spec did not load (or the flags were bad):
    every member is present, nothing was checked."""
    return {
        "schema_version": SCHEMA_VERSION,
        "spec": spec,
        "model": None,
        "engine": engine,
        "requested_engine": engine,
        "consts": dict(defines),
        "properties": {},
        "distinct_states": 0,
        "generated_states": 0,
        "depth": 0,
        "elapsed_s": 0.0,
        "complete": False,
        "reason": "the spec did not load" if isinstance(error, CompileError) else "bad input",
        "error": error_json(error),
        "notes": [],
        "write_errors": [],
    }


def dumps(obj: Any) -> str:
    return json.dumps(obj, indent=2, ensure_ascii=False)
