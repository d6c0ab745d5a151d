"""The Trace type every engine returns: a list of steps, each the action taken
(with its parameters) and the state reached.  The first step is the initial
state (no action)."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from modelcheck.behaviour import Behaviour, Step

if TYPE_CHECKING:
    from modelcheck.ir.nodes import Model

__all__ = ["Step", "Trace"]


@dataclass
class Trace(Behaviour):
    """A behaviour of a spec (``modelcheck.behaviour.Behaviour``: its steps,
    kind, property, lasso), as the engines return it, with the means to
    write it as ITF."""

    def to_itf(self, model: Model) -> dict[str, Any]:
        """The trace as ITF JSON (``json.dump`` it), as ``save`` writes it;
        ``model`` is the spec it is a behaviour of (its types direct the encoding)."""
        # Imported when used: building a trace (every engine does) needs no writer.
        from modelcheck.trace.itf_write import dumps_itf
        # Through the text, so that what comes back holds JSON values only.
        return json.loads(dumps_itf(self, model))

    def save(self, path: str | Path, model: Model) -> Path:
        """Write the trace as an ITF JSON file at ``path`` (its folder is
        created), after replaying it under the reference semantics; the file
        reads back with ``modelcheck.trace.itf.read_itf`` and opens with
        ``modelcheck trace show``.  Raises TraceReplayError if the trace is not
        a behaviour of ``model``."""
        from modelcheck.trace.store import write_trace
        target = Path(path)
        return write_trace(self, model, target.parent, target.name)
