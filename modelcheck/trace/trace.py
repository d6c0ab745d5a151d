"""The Trace type every engine returns: a list of steps, each the action taken
(with its parameters) and the state reached.  The first step is the initial
state (no action)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

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

    def __len__(self) -> int:
        """The number of steps taken (actions), not counting the initial state."""
        return max(0, len(self.steps) - 1)

    @property
    def states(self) -> list[dict[str, Any]]:
        return [s.state for s in self.steps]
