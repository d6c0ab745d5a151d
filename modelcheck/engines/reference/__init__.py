"""The reference engine: the plain, deterministic semantics every other engine
is tested against (evaluator, breadth-first explorer, simulator)."""
from __future__ import annotations

from modelcheck.engines.reference.engine import ReferenceEngine
from modelcheck.evaluate.evaluator import Evaluator, Transition

__all__ = ["ReferenceEngine", "Evaluator", "Transition"]
