"""Engine registry.  Engines are imported lazily so that a missing optional
dependency (numba, z3, pyspark) only matters when that engine is asked for."""
from __future__ import annotations

import importlib
import importlib.util

from modelcheck.engines.base import Engine
from modelcheck.errors import UsageError

__all__ = ["ENGINES", "EXTRAS", "get_engine", "require_extra"]

#: engine name -> "module:ClassName"
ENGINES: dict[str, str] = {
    # The default: the compiled engine, the reference explorer answering
    # while a new kernel compiles (docs/engines/compiled.md, "The first run").
    "auto": "modelcheck.engines.auto:AutoEngine",
    "reference": "modelcheck.engines.reference.engine:ReferenceEngine",
    "compiled": "modelcheck.engines.compiled.engine:CompiledEngine",
    "bmc": "modelcheck.engines.z3.bmc:BmcEngine",
    "spark": "modelcheck.engines.spark.engine:SparkEngine",
}

#: engine (or ``prove`` method) name -> (the module it imports, the package
#: that provides it, the extra of modelcheck that installs it).  These
#: packages are optional (pyspark alone is about 500 MB).
EXTRAS: dict[str, tuple[str, str, str]] = {
    "bmc": ("z3", "z3-solver", "z3"),
    "induction": ("z3", "z3-solver", "z3"),
    "pdr": ("z3", "z3-solver", "z3"),
    "spark": ("pyspark", "pyspark", "spark"),
}


def require_extra(name: str) -> None:
    """Raise UsageError, naming the extra to install, when the optional
    package the engine ``name`` needs is not installed.  Checked before the
    engine is imported: the spark engine would otherwise run its small levels
    in-process and fail only when a level grew large enough for Spark."""
    needs = EXTRAS.get(name)
    if needs is None:
        return
    module, package, extra = needs
    try:
        found = importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        raise UsageError(f"the {name} engine needs {package}: "
                         f"pip install 'modelcheck[{extra}]'")


def get_engine(name: str) -> Engine:
    try:
        target = ENGINES[name]
    except KeyError:
        raise ValueError(f"unknown engine {name!r}; choose one of {', '.join(ENGINES)}") from None
    require_extra(name)
    module_name, class_name = target.split(":")
    module = importlib.import_module(module_name)
    return getattr(module, class_name)()
