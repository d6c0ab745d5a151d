"""Writing traces to disk: replayed first, then written atomically as ITF JSON."""
from __future__ import annotations

import re
import time
from pathlib import Path

from modelcheck.fsutil import write_atomic
from modelcheck.ir import nodes as ir
from modelcheck.trace.itf import dumps_itf
from modelcheck.trace.replay import TraceReplayError
from modelcheck.trace.verify import trace_problem, verified_for
from modelcheck.trace.trace import Trace

__all__ = ["write_trace", "default_trace_name", "DEFAULT_DIRECTORY"]

DEFAULT_DIRECTORY = "counterexamples"

_UNSAFE = re.compile(r"[^A-Za-z0-9_.=+-]")


def default_trace_name(trace: Trace, model: ir.Model, when: float | None = None) -> str:
    """``<spec>-<property>-<YYYYmmddTHHMMSS>.itf.json`` (``error`` or the trace
    kind stands in for the property of a trace that is about none)."""
    stamp = time.strftime("%Y%m%dT%H%M%S", time.localtime(when))
    about = trace.property_name or ("error" if trace.kind == "error" else trace.kind)
    return f"{_UNSAFE.sub('_', model.name)}-{_UNSAFE.sub('_', about)}-{stamp}.itf.json"


def write_trace(trace: Trace, model: ir.Model, directory: str | Path = DEFAULT_DIRECTORY,
                name: str | None = None) -> Path:
    """Replay and verify ``trace`` under the reference semantics (unless
    ``verify.verify_trace`` has passed it for ``model`` as it is), then write it as ITF JSON
    into ``directory`` (created if needed) under ``name`` or the default name,
    atomically: a reader sees the old file or the whole new one, never half.
    Raises TraceReplayError (an internal error) if the trace does not replay
    or does not show what it claims (``verify.trace_problem``)."""
    problem = None if verified_for(model, trace) else trace_problem(model, trace)
    if problem is not None:
        raise TraceReplayError(f"internal error: refusing to write a trace that {problem}")
    folder = Path(directory)
    text = dumps_itf(trace, model, folder)
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / (name or _unused_name(folder, default_trace_name(trace, model)))
    write_atomic(target, text, durable=True)
    return target


def _unused_name(folder: Path, name: str) -> str:
    """``name``, or ``name`` with ``-2``, ``-3``... before the extension when two
    traces for the same property are written within the same second."""
    if not (folder / name).exists():
        return name
    stem = name[:-len(".itf.json")]
    n = 2
    while (folder / f"{stem}-{n}.itf.json").exists():
        n += 1
    return f"{stem}-{n}.itf.json"

