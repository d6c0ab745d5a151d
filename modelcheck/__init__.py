"""modelcheck: a model checker for replication protocols, with a Python front end.

    import modelcheck
    model = modelcheck.load("specs/examples/two_phase.mc", consts={"N": "5"})
    result = modelcheck.check(model)            # the reference engine
    for p in result.properties:
        print(p.name, p.status, p.steps)
"""
from __future__ import annotations

from modelcheck.api import check, load, load_source
from modelcheck.engines.base import CheckOptions, CheckResult, Status
from modelcheck.errors import CompileError, EvalError, ModelcheckError, UsageError
from modelcheck.trace.replay import replay
from modelcheck.trace.trace import Step, Trace

__all__ = ["load", "load_source", "check", "CheckOptions", "CheckResult", "Status", "Trace",
           "Step", "replay", "CompileError", "EvalError", "UsageError", "ModelcheckError"]
