"""Engine registry.  Engines are imported lazily so that a missing optional
dependency (numba, z3, pyspark) only matters when that engine is asked for."""
from __future__ import annotations

import importlib

from modelcheck.engines.base import Engine

__all__ = ["ENGINES", "get_engine"]

#: engine name -> "module:ClassName"
ENGINES: dict[str, str] = {
    "reference": "modelcheck.engines.reference.engine:ReferenceEngine",
    "compiled": "modelcheck.engines.compiled.engine:CompiledEngine",
    "bmc": "modelcheck.engines.z3.bmc:BmcEngine",
    "spark": "modelcheck.engines.spark.engine:SparkEngine",
}


def get_engine(name: str) -> Engine:
    try:
        target = ENGINES[name]
    except KeyError:
        raise ValueError(f"unknown engine {name!r}; choose one of {', '.join(ENGINES)}") from None
    module_name, class_name = target.split(":")
    module = importlib.import_module(module_name)
    return getattr(module, class_name)()
