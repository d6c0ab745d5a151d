"""The Z3 engines: bounded model checking (``BmcEngine``, engine name
``bmc``), k-induction (``prove``) and PDR (``pdr``).

Attributes are imported on first use, so that importing this package (for
the result types in ``proofs``) does not load the solver."""
from __future__ import annotations

import importlib
from typing import Any

__all__ = ["BmcEngine", "prove", "pdr", "ProofResult", "ProofStatus", "InvariantProof",
           "Obligation", "EncodingOptions", "Encoding"]

_WHERE = {
    "BmcEngine": "bmc", "prove": "induction", "pdr": "pdr", "ProofResult": "proofs",
    "ProofStatus": "proofs", "InvariantProof": "proofs", "Obligation": "proofs",
    "EncodingOptions": "encoding", "Encoding": "encoding",
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
