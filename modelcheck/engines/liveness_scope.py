"""Which temporal properties a run checks, and the verdict of each one an
engine leaves out: what an engine does with the liveness properties it is
given, beside what they mean (``modelcheck.evaluate.temporal``)."""
from __future__ import annotations

from modelcheck.engines.base import CheckOptions, CheckResult, PropertyResult, Status
from modelcheck.ir import nodes as ir

__all__ = ["SYMMETRY_OFF_NOTE", "selected_temporals", "settle_unchecked"]

#: The note an engine adds when it drops symmetry reduction for a run that
#: checks temporal properties (docs/engines/liveness.md says why).
SYMMETRY_OFF_NOTE = ("symmetry is off: liveness is checked on the full state graph, so the "
                     "counts are those without symmetry reduction")


def selected_temporals(model: ir.Model, options: CheckOptions) -> list[ir.Temporal]:
    """The temporal properties to check: all, or those ``--property`` names."""
    if options.invariants is None:
        return list(model.temporals)
    wanted = set(options.invariants)
    return [t for t in model.temporals if t.name in wanted]


def settle_unchecked(model: ir.Model, options: CheckOptions, result: CheckResult,
                     engine: str) -> None:
    """Give every selected temporal property the engine left out an UNKNOWN
    verdict with the reason: an engine that did not check one never lets it
    pass for HOLDS, or vanish from the report."""
    have = {p.name for p in result.properties}
    if options.simulate:
        reason = ("random simulation does not check liveness properties: a finite run "
                  "cannot show a fair cycle is missing; run without --simulate")
    else:
        reason = (f"the {engine} engine does not check liveness properties; the reference "
                  "and compiled engines do (docs/engines/liveness.md)")
    for t in selected_temporals(model, options):
        if t.name not in have:
            result.properties.append(PropertyResult(
                t.name, ir.PropertyKind.LIVENESS, Status.UNKNOWN, reason=reason))
