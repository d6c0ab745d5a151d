"""Published TLA+ models whose temporal properties TLC checks, translated
into specs/examples/, against TLC's figures on the reference explorer.

The TLA+ models and the configurations TLC ran are in bench/tla/ewd840/ and
bench/tla/disruptor/ (bench/liveness_vs_tlc.py runs TLC and us side by
side).  TLC's figures are TLC 2.15, ``-workers 1``; the tlaplus/Examples
manifest records the same distinct and generated counts for the published
configurations.  Each model shows both verdicts: the property holds with
the published fairness and is violated, as a lasso, without it (or, for a
property the published fairness does not give, with it).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from modelcheck import api
from modelcheck.engines.base import Status
from modelcheck.ir.nodes import PropertyKind
from modelcheck.trace.lasso import lasso_problem

EXAMPLES = Path(__file__).resolve().parents[3] / "specs" / "examples"


def _check(spec: str, **consts: object):
    model = api.load(str(EXAMPLES / spec), consts={k: str(v).lower() if isinstance(v, bool)
                                                   else str(v) for k, v in consts.items()})
    result = api.check(model, engine="reference")
    assert result.complete
    return model, result


def _counts(result) -> tuple[int, int, int]:
    return (result.stats.distinct_states, result.stats.generated_states, result.stats.depth)


def _verdicts(result, kind: PropertyKind) -> dict[str, set[Status]]:
    found: dict[str, set[Status]] = {}
    for p in result.properties:
        if p.kind is kind:
            found.setdefault(p.name, set()).add(p.status)
    return found


def _assert_lassos(model, result) -> None:
    """Every liveness counterexample is a fair lasso that breaks its property."""
    for p in result.properties:
        if p.kind is PropertyKind.LIVENESS and p.status is Status.VIOLATED:
            assert p.trace is not None and p.trace.loop is not None, p.name
            assert lasso_problem(model, p.trace) is None, (p.name, p.trace)


# EWD840 (specifications/ewd840): EWD840.cfg has N = 3 and PROPERTY Liveness
# under Spec == ... /\ WF_vars(System).  TLC (bench/tla/ewd840/EWD840.cfg):
# 302 distinct, 2,001 generated, depth 9, no error (the manifest: 302 and
# 2,001, with stateDepth 10).  EWD840_NoFair.cfg (SpecNoFair, no fairness):
# "Temporal properties were violated", same counts.  EWD840_AllTerminate.cfg
# (<>(\A i : ~active[i]) under Spec): violated.
EWD840_TLC = (302, 2_001, 9)


def test_ewd840_liveness_holds_under_weak_fairness_of_system():
    model, result = _check("ewd840.mc")
    assert _counts(result) == EWD840_TLC
    assert _verdicts(result, PropertyKind.LIVENESS) == {
        "Liveness": {Status.HOLDS}, "AllTerminate": {Status.VIOLATED}}
    assert _verdicts(result, PropertyKind.INVARIANT) == {
        "TerminationDetection": {Status.HOLDS}, "Inv": {Status.HOLDS}}
    _assert_lassos(model, result)


def test_ewd840_liveness_fails_without_fairness():
    model, result = _check("ewd840.mc", Fair=False)
    assert _counts(result) == EWD840_TLC
    assert _verdicts(result, PropertyKind.LIVENESS) == {
        "Liveness": {Status.VIOLATED}, "AllTerminate": {Status.VIOLATED}}
    _assert_lassos(model, result)
    # Unfair, the system may stop anywhere: a state where every node is
    # inactive but termination is not yet detected stutters forever.
    trace = result.get_property("Liveness").trace
    last = trace.steps[-1].state
    assert trace.loop == len(trace.steps) - 1 and trace.loop_back is None
    assert not any(last["active"].values())


def test_ewd840_the_system_takes_the_token_round():
    """With fairness the AllTerminate lasso cannot stop while the token can
    move: its cycle passes the token (System steps) while nodes keep
    sending."""
    _, result = _check("ewd840.mc")
    trace = result.get_property("AllTerminate").trace
    cycle = [s.action for s in trace.steps[trace.loop + 1:]]
    if trace.loop_back is not None:
        cycle.append(trace.loop_back.action)
    assert "System" in cycle and "SendMsg" in cycle


# Disruptor_SPMC (specifications/Disruptor): Disruptor_SPMC.cfg, one writer,
# three readers, MaxPublished 10, Size 4, PROPERTY Liveliness under the
# readers' weak fairness (\A r : WF_vars(BeginRead(r)) /\ WF_vars(EndRead(r))).
# TLC (bench/tla/disruptor/Disruptor_SPMC.cfg) and the manifest: 8,496
# distinct, 28,049 generated, depth 82, no error.  Disruptor_SPMC_NoFair.cfg:
# "Temporal properties were violated".
DISRUPTOR_TLC = (8_496, 28_049, 82)


def test_disruptor_liveliness_holds_under_the_readers_fairness():
    model, result = _check("disruptor_spmc.mc")
    assert _counts(result) == DISRUPTOR_TLC
    # Every binding (3 readers x 10 sequence numbers) holds.
    assert result.get_property("Liveliness").status is Status.HOLDS
    assert result.get_property("NoDataRaces").status is Status.HOLDS
    assert result.get_property("deadlock").status is Status.HOLDS


def test_disruptor_liveliness_fails_without_fairness():
    model, result = _check("disruptor_spmc.mc", Fair=False)
    assert _counts(result) == DISRUPTOR_TLC
    liveliness = result.get_property("Liveliness")
    assert liveliness.status is Status.VIOLATED
    _assert_lassos(model, result)
    # The lasso names the binding it breaks: a reader that stops reading.
    assert liveliness.trace.meta["instance"].startswith("Liveliness(r=")
