"""The Python API: load a spec, check it with an engine.

``check`` is the one door to every engine: whatever engine ran, every trace in
its result (counterexamples, witnesses, the trace to a run-time error) is
replayed under the reference semantics, and checked to show what it claims
(``modelcheck.trace.verify``), before the result is handed back.  Without an
engine named, ``check`` runs the command line's default engine
(``default_engine``), so a test and ``modelcheck check`` agree.
"""
from __future__ import annotations

import importlib
import os
from collections.abc import Mapping
from typing import Any

from modelcheck.engines import get_engine
from modelcheck.engines.base import CheckOptions, CheckResult, NullReporter, Reporter
from modelcheck.engines.initial import demote_vacuous
from modelcheck.evaluate.evaluator import Evaluator
from modelcheck.engines.reference.explorer import select_properties
from modelcheck.engines.liveness_scope import settle_unchecked
from modelcheck.ir.nodes import Model
from modelcheck.trace.replay import TraceReplayError
from modelcheck.trace.verify import verify_trace

__all__ = ["load", "load_source", "check", "default_engine", "TraceReplayError", "REFERENCE", "AUTO"]

#: The engine every run falls back to; it is always importable.
REFERENCE = "reference"
#: The default engine: the compiled engine, with the reference explorer
#: answering while a new kernel compiles (engines/auto.py).
AUTO = "auto"


def load(path: str | os.PathLike[str], consts: Mapping[str, Any] | None = None) -> Model:
    """The spec at ``path`` (a string or a ``pathlib.Path``) compiled to IR,
    ``consts`` overriding its consts (values as text, as with ``-D``, or
    Python ints/bools).  Raises CompileError or UsageError.
    (``modelcheck.pipeline.load``; imported on use, so that engines and traces
    can be used without loading the front end.)"""
    from modelcheck import pipeline
    return pipeline.load(_path_text(path), consts=consts)


def load_source(source: str, path: str | os.PathLike[str] = "<string>",
                consts: Mapping[str, Any] | None = None) -> Model:
    """Like ``load`` for spec text held in memory (``path`` names it in messages)."""
    from modelcheck import pipeline
    return pipeline.load_source(source, path=_path_text(path), consts=consts)


def _path_text(path: str | os.PathLike[str]) -> str:
    """A path as the front end keeps it: text (spans, messages and the
    model's sources are keyed by it).  Raises TypeError for what is no path."""
    return os.fsdecode(path)


def default_engine() -> tuple[str, str | None]:
    """The engine run when none is named (by ``check`` and by the command
    line), and a one-line notice when it is not the first choice: ``auto``
    (the compiled engine, with the reference explorer answering while a new
    kernel compiles in the background; docs/engines/compiled.md) when numba
    is installed, otherwise the reference engine.  (A spec the compiled engine cannot lay out still runs on the
    reference engine: the compiled engine hands it over with a note, and the
    result's ``engine`` says which one ran.)"""
    try:
        module = importlib.import_module("modelcheck.engines.compiled.engine")
        available = getattr(module, "available", None)
        if callable(available):
            usable = available()
            # available() may answer a bool, or (bool, reason).
            ok, why = usable if isinstance(usable, tuple) else (bool(usable), None)
            if not ok:
                return REFERENCE, _fallback_notice(why or "numba cannot compile here")
        else:
            importlib.import_module("numba")
    except Exception as exc:  # an optional engine may fail to import in any way
        return REFERENCE, _fallback_notice(_first_line(exc))
    return AUTO, None


def _fallback_notice(why: str) -> str:
    return f"the compiled engine is not available ({why}); using the reference engine"


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


def check(model: Model, engine: str | None = None, options: CheckOptions | None = None,
          reporter: Reporter | None = None) -> CheckResult:
    """Check ``model`` with the named engine and return its result, every trace
    in it replayed.  ``engine`` None: the reference engine for a simulation
    (``options.simulate``), else ``default_engine()`` (its notice, when it
    falls back, goes to the reporter and into ``result.notes``); the result's
    ``engine`` names the engine that ran, ``requested_engine`` the one asked
    for (``auto`` for the default engine).  Raises UsageError for an unknown
    property name in ``options.invariants``, ValueError for an unknown engine, and
    TraceReplayError (an internal error) if the engine returned a trace that
    is not a behaviour of the model or does not violate its property.  A spec
    whose initial values admit no state gets UNKNOWN, never HOLDS."""
    options = options if options is not None else CheckOptions()
    reporter = reporter if reporter is not None else NullReporter()
    select_properties(model, options)      # unknown names fail here, for every engine
    notice = None
    if engine is None:
        engine, notice = (REFERENCE, None) if options.simulate else default_engine()
        if notice:
            reporter.note(notice)
    # No engine reports HOLDS over a spec with no initial state: that verdict
    # would be true of nothing.
    result = demote_vacuous(model, get_engine(engine).check(model, options, reporter))
    if notice:
        result.notes.insert(0, notice)
    result.requested_engine = engine
    settle_unchecked(model, options, result, engine)
    traces = [(prop.trace, None) for prop in result.properties if prop.trace is not None]
    error_trace = getattr(result.error, "trace", None)
    if error_trace is not None and error_trace.steps:
        traces.append((error_trace, result.error.diagnostic.code))
    if traces:
        evaluator = Evaluator(model)      # one for every trace: each action compiled once
        for trace, code in traces:
            verify_trace(model, trace, engine, code, evaluator)
    return result
