"""How deep a spec may nest (MC1004): brackets, counted in the text before
the parser runs, and each declaration's syntax tree, after it."""
from __future__ import annotations

import re

from lark import Tree

from modelcheck.diagnostics import Diagnostic, Span

__all__ = ["MAX_NESTING", "MAX_BRACKETS", "brackets_too_deep", "tree_too_deep"]

#: How deep the syntax tree may nest (MC1004).  Every phase and engine walks
#: expressions recursively; this keeps them far from Python's recursion limit
#: (a chain ``a + b + ...`` of 120 terms is 120 levels).
MAX_NESTING = 120

#: How deep brackets may nest (MC1004), checked before the parser runs.
#: Redundant parentheses leave the tree flat, but LALR reduces each pair
#: through every precedence level (~15 reductions): 100,000 pairs took 6-10 s
#: of CPU.  Python stops at 200; a spec never needs more than a few dozen.
MAX_BRACKETS = 1000

_BRACKET_OR_COMMENT = re.compile(r"[(\[{]|[)\]}]|#[^\n]*")


def brackets_too_deep(source: str, path: str) -> Diagnostic | None:
    """MC1004 at the first bracket that opens deeper than MAX_BRACKETS."""
    depth = 0
    for match in _BRACKET_OR_COMMENT.finditer(source):
        char = match.group()[0]
        if char in "([{":
            depth += 1
            if depth > MAX_BRACKETS:
                return Diagnostic("MC1004", f"brackets nest more than {MAX_BRACKETS} "
                                  "levels deep here", Span.at(path, source, match.start()),
                                  hint="remove redundant parentheses, or name parts with "
                                  "let or a def")
        elif char != "#":
            depth = max(depth - 1, 0)
    return None


def tree_too_deep(tree: Tree, path: str) -> Diagnostic | None:
    """MC1004 at the declaration whose syntax tree nests deeper than MAX_NESTING."""
    stack = [(child, 2, child) for child in tree.children if isinstance(child, Tree)]
    while stack:
        node, depth, item = stack.pop()
        if depth > MAX_NESTING:
            meta = item.meta
            # A caret at the start: the whole declaration may span many lines.
            span = None if getattr(meta, "empty", True) else Span(
                path, meta.line, meta.column, meta.line, meta.column + 1)
            return Diagnostic("MC1004", f"this declaration nests more than {MAX_NESTING} "
                              "levels deep", span, hint="name parts with let or a def, or "
                              "use sum/all/any over a set instead of a long chain")
        stack.extend((child, depth + 1, item) for child in node.children
                     if isinstance(child, Tree))
    return None
