"""Writing traces to disk: replayed first, then written atomically as ITF JSON."""
from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator
from pathlib import Path

from modelcheck.fsutil import write_atomic, write_new
from modelcheck.ir import nodes as ir
from modelcheck.trace.itf_write import dumps_itf
from modelcheck.trace.replay import TraceReplayError
from modelcheck.trace.verify import trace_problem, verified_for
from modelcheck.behaviour import Behaviour

__all__ = ["write_trace", "default_trace_name", "DEFAULT_DIRECTORY"]

DEFAULT_DIRECTORY = "counterexamples"

_EXT = ".itf.json"

_UNSAFE = re.compile(r"[^A-Za-z0-9_.=+-]")


def default_trace_name(trace: Behaviour, model: ir.Model, when: float | None = None) -> str:
    """``<spec>-<property>-<YYYYmmddTHHMMSS>.itf.json`` (``error`` or the trace
    kind stands in for the property of a trace that is about none)."""
    stamp = time.strftime("%Y%m%dT%H%M%S", time.localtime(when))
    about = trace.property_name or ("error" if trace.kind == "error" else trace.kind)
    return f"{_UNSAFE.sub('_', model.name)}-{_UNSAFE.sub('_', about)}-{stamp}.itf.json"


def write_trace(trace: Behaviour, model: ir.Model, directory: str | Path = DEFAULT_DIRECTORY,
                name: str | None = None, *, fresh: bool = False) -> Path:
    """Replay and verify ``trace`` under the reference semantics (unless
    ``verify.verify_trace`` has passed it for ``model`` as it is), then write it as ITF JSON
    into ``directory`` (created if needed) under ``name`` or the default name,
    atomically: a reader sees the old file or the whole new one, never half.
    ``name`` replaces a file of that name, unless ``fresh``; the default name
    is always fresh: a name that is taken (another run wrote a trace for the
    same property in the same second) gets ``-2``, ``-3``... before the
    extension, claimed atomically, so two runs never write the same file.
    Returns the file written.  Raises TraceReplayError (an internal error)
    if the trace does not replay or does not show what it claims
    (``verify.trace_problem``), and OSError if it cannot be written."""
    problem = None if verified_for(model, trace) else trace_problem(model, trace)
    if problem is not None:
        raise TraceReplayError(f"internal error: refusing to write a trace that {problem}")
    folder = Path(directory)
    text = dumps_itf(trace, model, folder)
    folder.mkdir(parents=True, exist_ok=True)
    if name is not None and not fresh:
        target = folder / name
        write_atomic(target, text, durable=True)
        return target
    return write_new(_free_names(folder, name or default_trace_name(trace, model)), text,
                     durable=True)


#: How many ``-N`` names a fresh trace tries before it gives up.
_MAX_SUFFIX = 10_000


def _free_names(folder: Path, name: str) -> Iterator[Path]:
    """``name``, then ``name`` with ``-2``, ``-3``... before the extension."""
    yield folder / name
    stem, ext = (name[:-len(_EXT)], _EXT) if name.endswith(_EXT) else os.path.splitext(name)
    for n in range(2, _MAX_SUFFIX):
        yield folder / f"{stem}-{n}{ext}"

