"""The semantic phases: ``resolve`` (names and imports) and ``typecheck`` (-> ir.Model)."""
from modelcheck.semantics.names import Resolved, resolve
from modelcheck.semantics.typecheck import typecheck

__all__ = ["Resolved", "resolve", "typecheck"]
