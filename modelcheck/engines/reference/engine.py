"""``ReferenceEngine``: the reference semantics behind the engine interface."""
from __future__ import annotations

from modelcheck.engines.base import CheckOptions, CheckResult, NullReporter, Reporter
from modelcheck.engines.reference.explorer import explore
from modelcheck.engines.reference.simulate import simulate
from modelcheck.ir.nodes import Model

__all__ = ["ReferenceEngine"]


class ReferenceEngine:
    """Breadth-first exploration of every reachable state, or random
    simulation when ``options.simulate`` asks for it."""

    name = "reference"

    def check(self, model: Model, options: CheckOptions | None = None,
              reporter: Reporter | None = None) -> CheckResult:
        options = options if options is not None else CheckOptions()
        reporter = reporter if reporter is not None else NullReporter()
        if options.simulate:
            return simulate(model, options, reporter)
        return explore(model, options, reporter)
