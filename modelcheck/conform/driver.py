"""The driver: what a user writes for their system so that the conformance
harness can run a spec's behaviours on it (docs/conformance.md).

A driver brings the system up and down, performs the spec actions a user can
cause (``do_<Action>`` methods), waits for the system to settle after each,
and observes it, mapped onto the spec's variables (or the observable part of
them).  Actions without a ``do_`` method are the system's own: the harness
never performs them, it waits for them.
"""
from __future__ import annotations

import importlib
import time
from collections.abc import Mapping
from typing import Any

from modelcheck.errors import UsageError
from modelcheck.ir import nodes as ir

__all__ = ["Driver", "ConformError", "DriverFailure", "load_driver"]


class ConformError(UsageError):
    """Bad input to the harness: a driver that cannot be loaded, an
    observation that does not fit the spec.  ``code`` is its MC7xxx code."""

    def __init__(self, code: str, message: str, hint: str | None = None):
        self.code = code
        super().__init__(f"[{code}] {message}", hint)


class DriverFailure(RuntimeError):
    """An operation of the driver on the real system failed (the system
    could not be started, a command exited non-zero).  Raised by drivers;
    the harness reports it with the step it happened at (MC7002)."""


class Driver:
    """Subclass per system.  Every method has a default, so a driver writes
    only what its system needs; see ``examples/toy_queue.py``.

    ``observes``: the spec variables ``observe`` reports (the default
    ``project`` takes these from a model state).  ``settle_timeout_s`` and
    ``settle_poll_s`` bound the wait for the system's own actions."""

    observes: tuple[str, ...] = ()
    settle_timeout_s: float = 5.0
    settle_poll_s: float = 0.05

    # ------------------------------------------------------------ lifecycle

    def start(self, model: ir.Model) -> None:
        """Bring the system under test up, configured from ``model``'s consts."""

    def stop(self) -> None:
        """Bring it down; called once at the end, also after a failure."""

    def reset(self, model: ir.Model) -> None:
        """Put the system back in its initial state between runs (default:
        stop, then start)."""
        self.stop()
        self.start(model)

    # ------------------------------------------------------------ actions

    def drives(self, action: str) -> bool:
        """Whether the harness performs ``action`` (it has a ``do_`` method)
        rather than waiting for the system to take it."""
        return callable(getattr(self, f"do_{action}", None))

    def instance_key(self, action: str, params: Mapping[str, Any]) -> Any:
        """What the driver really does for this action instance.  Two
        instances with the same key are one operation on the system, whose
        outcome the system decides: a publish the client sends to any node,
        which the broker hands to whichever node leads (Publish(m, l) for
        every l is one key).  A walk may then perform it when every state
        the system may be in enables some instance with that key.  Default:
        the instance itself."""
        return (action, tuple(sorted(params.items())))

    def waits_for(self, action: str, params: Mapping[str, Any]) -> bool:
        """Whether this instance of a driven action is nonetheless the
        system's own (waited for, never performed): a node that pauses
        itself under pause_minority is NodeDown(n, pause), while
        NodeDown(n, crash) is driven.  Default: no instance."""
        return False

    def can_perform(self, action: str, params: Mapping[str, Any]) -> bool:
        """Whether a random walk may pick this driven action instance (default:
        every one the model enables).  A driver narrows it where the system
        under test cannot stay within the spec's assumptions (the spec's
        consumer stays connected: its node is not crashed)."""
        return True

    def perform(self, action: str, params: Mapping[str, Any]) -> None:
        """Perform one driven action instance on the real system."""
        getattr(self, f"do_{action}")(**dict(params))

    def wait_settled(self) -> dict[str, Any]:
        """Wait, bounded, until the system stops changing by itself; return
        what it shows then.  The default polls ``observe`` until two readings
        ``settle_poll_s`` apart agree (or ``settle_timeout_s`` passes): a
        system with its own notion of quiet (a sync finished) overrides this."""
        deadline = time.monotonic() + self.settle_timeout_s
        last = self.observe()
        while time.monotonic() < deadline:
            time.sleep(self.settle_poll_s)
            now = self.observe()
            if now == last:
                return now
            last = now
        return last

    # ------------------------------------------------------------ observing

    def observe(self) -> dict[str, Any]:
        """The real system's state, as spec values keyed by the names in
        ``observes`` (sets, dicts keyed by the spec's values, ints, enum
        member names)."""
        return {}

    def project(self, state: Mapping[str, Any]) -> dict[str, Any]:
        """The part of a model state that ``observe`` can see, in the same
        keys; override to observe something derived (a count, a union)."""
        return {k: state[k] for k in self.observes}

    def holds(self, prop: str, observation: Mapping[str, Any]) -> bool | None:
        """Whether the property ``prop`` holds on the real system, judged
        from ``observation``; None where it cannot be told from outside."""
        return None

    def past_bounds(self, observation: Mapping[str, Any]) -> str | None:
        """Why ``observation`` lies past the model's bounds (a counter the
        spec caps at a const, such as a term the real system reached through
        more election rounds than the row allows), or None.  The walk stops
        there, neither agreeing nor disagreeing: the bounded model has
        nothing to compare with, and calling it a mismatch would blame the
        system for the row's bound."""
        return None


def load_driver(ref: str, options: Mapping[str, str] | None = None) -> Driver:
    """The driver named ``module:Class`` (or ``module.Class``), made with
    ``options`` as keyword arguments."""
    module_name, sep, cls_name = ref.partition(":")
    if not sep:
        module_name, _, cls_name = ref.rpartition(".")
    if not module_name or not cls_name:
        raise ConformError("MC7001", f"'{ref}' does not name a driver class",
                           hint="write it as module:Class, e.g. "
                                "modelcheck.conform.examples.toy_queue:ToyQueueDriver")
    try:
        module = importlib.import_module(module_name)
    except ImportError as err:
        raise ConformError("MC7001", f"cannot import the driver module '{module_name}': {err}",
                           hint="the module must be importable: on PYTHONPATH or installed") \
            from None
    cls = getattr(module, cls_name, None)
    if not (isinstance(cls, type) and issubclass(cls, Driver)):
        raise ConformError("MC7001", f"'{cls_name}' in {module_name} is not a Driver subclass",
                           hint="subclass modelcheck.conform.Driver")
    try:
        return cls(**dict(options or {}))
    except TypeError as err:
        raise ConformError("MC7001", f"cannot make a {cls_name}: {err}") from None
