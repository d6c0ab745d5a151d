"""From a Z3 model of an unrolled path to a ``Trace``, and from an error flag
to the reference evaluator's own ``EvalError``.

The solver says *that* a run-time error is reachable; the reference evaluator
says *which* one, with its message and span: the trace to the failing state
is decoded, and the failing evaluation is re-run there.  If the reference
evaluator does not fail where the encoding said it would, the encoding is
wrong, and that is reported as an internal error rather than guessed around.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import z3

from modelcheck.engines.z3.encoding import Encoding, StateCopy, StepCopy
from modelcheck.errors import EvalError
from modelcheck.ir import nodes as ir
from modelcheck.trace.trace import Step, Trace

__all__ = ["decode_trace", "rederive_error", "EncodingMismatch"]


class EncodingMismatch(RuntimeError):
    """The Z3 encoding and the reference semantics disagree: a bug in the
    Z3 engine (not a ModelcheckError: never the spec's fault)."""


def decode_trace(enc: Encoding, m: z3.ModelRef, states: list[StateCopy], steps: list[StepCopy],
                 kind: str, prop: str | None, full: ir.Model | None = None,
                 fixed: dict[str, Any] | None = None) -> Trace:
    """The path ``states[0] -> ... -> states[-1]`` in model ``m``.  When the
    encoding is of a frozen model (``slicing.freeze``), ``full`` is the whole
    model and ``fixed`` the frozen variables' values, put back in each state."""
    names = [v.name for v in (full or enc.model).vars]

    def state(copy: StateCopy) -> dict[str, Any]:
        values = {**(fixed or {}), **enc.decode_state(m, copy)}
        return {n: values[n] for n in names}

    out = [Step(None, (), state(states[0]))]
    for step, copy in zip(steps, states[1:]):
        action, params = enc.decode_step(m, step)
        out.append(Step(action, params, state(copy)))
    return Trace(enc.model.name, out, kind=kind, property_name=prop)


def rederive_error(trace: Trace | None, run: Callable[[], Any], what: str) -> EvalError:
    """Re-run the failing evaluation (``run``, against the reference evaluator)
    and return the error it raises, with ``trace`` (the path to the failing
    state; None for the initial states) attached."""
    try:
        run()
    except EvalError as err:
        err.trace = trace
        return err
    raise EncodingMismatch(
        f"internal error: the Z3 encoding flags a run-time error in {what}, but the reference "
        f"evaluator raises none there")
