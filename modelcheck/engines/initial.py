"""No vacuous verdicts: a spec whose initial values admit no state makes every
invariant hold over nothing and every invariant inductive.  Each engine
reports what it saw; ``modelcheck.api.check`` (every checking engine) and
the two proof engines pass their results through here, so that such a spec
is reported UNKNOWN with the reason, never HOLDS or PROVED."""
from __future__ import annotations

from typing import Any

from modelcheck.engines.base import CheckResult, Status
from modelcheck.errors import EvalError
from modelcheck.ir.nodes import InitKind, Model, PropertyKind

__all__ = ["NO_INITIAL_STATE", "has_initial_state", "demote_vacuous", "demote_vacuous_proof"]

NO_INITIAL_STATE = "no initial state: the spec's initial values admit no state"


def has_initial_state(model: Model) -> bool:
    """Whether the product of the variables' initial values is not empty.
    Initial values read only consts, so this needs no search; a value that
    fails to evaluate is left to the engine, which reports it as an error."""
    from modelcheck.evaluate.evaluator import Evaluator
    evaluator = Evaluator(model)
    for decl in model.vars:
        if decl.init_kind is not InitKind.IN:
            continue
        try:
            if len(evaluator.eval(decl.init, ())) == 0:
                return False
        except EvalError:
            return True
    return True


def _vacuous(status: Status, kind: PropertyKind | None) -> bool:
    # "sometimes P" never reached over no state is as empty as an invariant
    # that holds over none.
    if status in (Status.HOLDS, Status.HOLDS_UP_TO_BOUND):
        return True
    return status is Status.VIOLATED and kind is PropertyKind.SOMETIMES


def demote_vacuous(model: Model, result: CheckResult) -> CheckResult:
    """``result`` with each verdict that rests on no initial state made
    UNKNOWN (and the search marked incomplete, so the exit code is 3)."""
    if result.error is not None or result.stats.distinct_states > 0 or has_initial_state(model):
        return result
    for prop in result.properties:
        if _vacuous(prop.status, prop.kind):
            prop.status, prop.reason, prop.trace = Status.UNKNOWN, NO_INITIAL_STATE, None
    result.reason = NO_INITIAL_STATE
    return result


def demote_vacuous_proof(model: Model, result: Any) -> Any:
    """A ``ProofResult`` with every PROVED, REFUTED or UNKNOWN invariant made
    UNKNOWN for want of an initial state when the spec has none: then every invariant is
    inductive, and none can be violated."""
    from modelcheck.engines.z3.proofs import ProofStatus
    # UNKNOWN too: whatever a solver made of an empty set of initial states,
    # the missing initial state is the reason the user needs.
    settled = (ProofStatus.PROVED, ProofStatus.REFUTED, ProofStatus.UNKNOWN)
    if not any(p.status in settled for p in result.invariants) or has_initial_state(model):
        return result
    for proof in result.invariants:
        if proof.status in settled:
            proof.status, proof.reason, proof.invariant = ProofStatus.UNKNOWN, NO_INITIAL_STATE, []
            proof.trace = None
    if NO_INITIAL_STATE not in result.notes:
        result.notes.append(NO_INITIAL_STATE)
    return result
