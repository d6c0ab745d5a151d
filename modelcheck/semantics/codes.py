"""The table of diagnostic codes the front end emits, with a one-line title each.

MC1xxx syntax, MC2xxx names, MC3xxx types, MC4xxx model well-formedness
(MC5xxx, run-time errors, belong to the evaluator).  The golden tests keep one
example per code, and docs/language.md lists them; ``CODES`` is the one place
they are defined.
"""
from __future__ import annotations

from types import MappingProxyType

__all__ = ["CODES", "title"]

CODES = MappingProxyType({
    # syntax
    "MC1001": "unexpected token",
    "MC1002": "unexpected character",
    "MC1003": "unexpected end of file",
    "MC1004": "nested too deeply",
    "MC1005": "integer literal too large",
    "MC1006": "file is not UTF-8",
    "MC1007": "badly formed liveness or fairness declaration",
    # names
    "MC2001": "unknown name",
    "MC2002": "duplicate definition",
    "MC2003": "unknown type",
    "MC2004": "imported file not found",
    "MC2005": "import cycle",
    "MC2006": "definition refers to itself",
    "MC2007": "ambiguous name (a state variable and an enum member, or values of two types)",
    # types
    "MC3001": "type mismatch",
    "MC3002": "operator not defined for these operand types",
    "MC3003": "wrong number of arguments",
    "MC3004": "unknown, missing or repeated record field",
    "MC3005": "cannot tell the type of an empty literal",
    "MC3006": "not a constant expression",
    "MC3007": "constant value outside its type",
    "MC3008": "bad tuple or sequence index",
    "MC3009": "name used as the wrong kind of thing",
    "MC3010": "assignment to something that is not a state variable",
    "MC3011": "badly formed comprehension",
    "MC3012": "options do not nest",
    "MC3013": "match does not cover every case",
    "MC3014": "field of a variant read outside its case",
    "MC3015": "match arm never taken",
    # model well-formedness
    "MC4001": "unbounded int in a declaration",
    "MC4002": "variable assigned twice on one path",
    "MC4003": "recursive def",
    "MC4004": "initial value reads a state variable",
    "MC4005": "primed variable outside a step invariant",
    "MC4006": "declaration not allowed in an imported file",
    "MC4007": "type too large to enumerate",
    "MC4008": "pick over something that is not a set",
    "MC4009": "empty type",
    "MC4010": "symmetric on a type that is not a model type",
    "MC4011": "def calls expand too far",
})


def title(code: str) -> str:
    """The one-line title of a code (KeyError if the code is not ours)."""
    return CODES[code]
