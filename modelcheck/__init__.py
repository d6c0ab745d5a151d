"""modelcheck: a model checker for replication protocols, with a Python front end.

    import modelcheck
    model = modelcheck.load("specs/examples/two_phase.mc", consts={"N": "5"})
    result = modelcheck.check(model)            # the default engine, as `modelcheck check`
    print(result)                               # CheckResult(two_phase, engine=compiled, ...)
    modelcheck.assert_holds(result, "Consistent")
    for p in result.violations:
        p.trace.save(f"{p.name}.itf.json", model)

docs/api.md describes the API, its assertion helpers and the pytest plugin.
"""
from __future__ import annotations

from modelcheck.api import check, default_engine, load, load_source
from modelcheck.engines.base import CheckOptions, CheckResult, PropertyResult, Status
from modelcheck.errors import CompileError, EvalError, ModelcheckError, UsageError
from modelcheck.testing import assert_holds, assert_reachable, assert_violated
from modelcheck.trace.replay import replay
from modelcheck.trace.trace import Step, Trace

__all__ = ["load", "load_source", "check", "default_engine", "CheckOptions", "CheckResult",
           "PropertyResult", "Status", "Trace", "Step", "replay",
           "assert_holds", "assert_violated", "assert_reachable",
           "CompileError", "EvalError", "UsageError", "ModelcheckError"]
