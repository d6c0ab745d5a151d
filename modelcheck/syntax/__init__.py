"""The syntax phase: text -> ``ast.Module`` (``parse``)."""
from modelcheck.syntax.parser import parse

__all__ = ["parse"]
