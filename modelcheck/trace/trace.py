"""The Trace type every engine returns: a list of steps, each the action taken
(with its parameters) and the state reached.  The first step is the initial
state (no action)."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from modelcheck.ir.nodes import Model

__all__ = ["Step", "Trace"]


@dataclass(frozen=True)
class Step:
    """``action`` is None for the initial state.  ``params`` are (name, value)
    in declaration order.  ``state`` maps every state variable to its value
    (``modelcheck.ir.values`` representation)."""
    action: str | None
    params: tuple[tuple[str, Any], ...]
    state: dict[str, Any] = field(hash=False)

    def label(self) -> str:
        if self.action is None:
            return "Init"
        if not self.params:
            return self.action
        return f"{self.action}({', '.join(f'{k}={v}' for k, v in self.params)})"


@dataclass
class Trace:
    """A behaviour of a spec.  ``kind``: "counterexample", "witness" (for a
    ``sometimes`` property), "error" (leads to a run-time error) or "scenario".
    ``property_name``: the property it is about, if any."""
    model_name: str
    steps: list[Step]
    kind: str = "counterexample"
    property_name: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    # A lasso (a liveness counterexample, docs/design.md "Liveness"): after
    # the last step the behaviour returns to steps[loop] and goes round
    # forever.  ``loop_back`` is the step from the last state back to
    # steps[loop] (its state is steps[loop].state); it is None exactly when
    # loop is the last index: the last state then stutters forever.
    loop: int | None = None
    loop_back: Step | None = None
    # What verify.verify_trace last proved of this trace: (the model, what
    # the trace said then).  Writing the trace verifies it again only if
    # either has changed since (verify.verified_for).
    verified: Any = field(default=None, compare=False, repr=False)

    def __len__(self) -> int:
        """The number of steps taken (actions), not counting the initial state."""
        return max(0, len(self.steps) - 1)

    @property
    def states(self) -> list[dict[str, Any]]:
        return [s.state for s in self.steps]

    def to_itf(self, model: Model) -> dict[str, Any]:
        """The trace as ITF JSON (``json.dump`` it), as ``save`` writes it;
        ``model`` is the spec it is a behaviour of (its types direct the encoding)."""
        # Imported here: the ITF writer imports this module.
        from modelcheck.trace.itf import dumps_itf
        # Through the text, so that what comes back holds JSON values only.
        return json.loads(dumps_itf(self, model))

    def save(self, path: str | Path, model: Model) -> Path:
        """Write the trace as an ITF JSON file at ``path`` (its folder is
        created), after replaying it under the reference semantics; the file
        reads back with ``modelcheck.trace.itf.read_itf`` and opens with
        ``modelcheck trace show``.  Raises TraceReplayError if the trace is not
        a behaviour of ``model``."""
        from modelcheck.trace.store import write_trace  # it imports this module too
        target = Path(path)
        return write_trace(self, model, target.parent, target.name)
