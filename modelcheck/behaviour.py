"""A behaviour of a spec as plain data: the steps (action, parameters, state)
and what the behaviour is evidence of.  The lowest floor, beside
``diagnostics`` and ``errors`` (an EvalError carries the behaviour that led to
it): it imports nothing of modelcheck.  ``modelcheck.trace.trace.Trace`` is
the public type, a Behaviour that can also be written as ITF."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["DEADLOCK", "Behaviour", "Step"]

#: The property a deadlock is a violation of: the name a deadlock's
#: counterexample carries and its verdict is reported under.
DEADLOCK = "deadlock"


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
class Behaviour:
    """A behaviour of a spec, as data: what every engine and the reference
    semantics build, and ``modelcheck.trace.trace.Trace`` (which adds writing it
    as ITF) extends.  ``kind``: "counterexample", "witness" (for a
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
