"""The compiled engine: packed states, numba kernels, a fingerprint table.

``Layout`` (the packed state layout, shared with the Spark engine) needs only
numpy; ``compile_model`` and ``CompiledEngine`` need numba.  All are imported
on first use.
"""
from __future__ import annotations

from typing import Any

__all__ = ["Layout", "compile_model", "CompiledModel", "CompiledEngine"]


def __getattr__(name: str) -> Any:
    # Imported on use: the default engine looks for numba through this
    # package before a search that may never need numpy's half second.
    if name == "Layout":
        from modelcheck.engines.compiled.codegen.layout import Layout
        return Layout
    if name in ("compile_model", "CompiledModel"):
        from modelcheck.engines.compiled import kernels
        return getattr(kernels, name)
    if name == "CompiledEngine":
        from modelcheck.engines.compiled.engine import CompiledEngine
        return CompiledEngine
    raise AttributeError(name)
