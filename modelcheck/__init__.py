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

# Not ``typing.TYPE_CHECKING``: importing typing (and re) takes longer than
# the console script may wait for its signal handlers (cli/launch.py).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

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

# Imported on first use (PEP 562), not with the package: the console script
# (cli/launch.py) imports this package before its own first line runs, and a
# Ctrl-C or SIGTERM during these imports would end the run before launch.py
# can turn it into "interrupted".
_HOME = {
    **dict.fromkeys(("check", "default_engine", "load", "load_source"), "modelcheck.api"),
    **dict.fromkeys(("CheckOptions", "CheckResult", "PropertyResult", "Status"),
                    "modelcheck.engines.base"),
    **dict.fromkeys(("CompileError", "EvalError", "ModelcheckError", "UsageError"),
                    "modelcheck.errors"),
    **dict.fromkeys(("assert_holds", "assert_reachable", "assert_violated"), "modelcheck.testing"),
    "replay": "modelcheck.trace.replay",
    **dict.fromkeys(("Step", "Trace"), "modelcheck.trace.trace"),
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'modelcheck' has no attribute {name!r}")
    import importlib
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
