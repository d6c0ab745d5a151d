"""What the type checker carries around: the diagnostics it collects, the
declaration being checked (a ``Unit``) and the local scope.

The checker is one class assembled from mixins, one module per concern
(types, expressions, calls, statements, globals); ``CheckerBase`` is what
they share.  All state lives on the instance: one ``Checker`` per
``typecheck`` call.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, NoReturn

from modelcheck.diagnostics import Diagnostic, Span
from modelcheck.ir import nodes as ir
from modelcheck.ir import types as T
from modelcheck.ir.types import Type, join, render_type

__all__ = ["Abort", "Unit", "Scope", "Env", "CheckerBase", "show", "expected_words",
           "found_words"]


class Abort(Exception):
    """A diagnostic has been recorded; give up on the current declaration or
    statement and go on with the next one (so each phase reports many errors)."""


#: Source name -> the Local it denotes (IR name after renaming, and type), or
#: None for a name whose declaration failed to check (uses of it are skipped
#: quietly: the failure has been reported once already).
Scope = Mapping[str, "ir.Local | None"]


@dataclass
class Unit:
    """The declaration an expression belongs to, and what it may read.

    ``used`` holds the binder names already taken in this unit: binders are
    renamed (``x``, ``x_2``...) so that each is unique per action or property.
    """
    what: str
    primed: bool = False        # may read x' (step invariants)
    const: bool = False         # must be a constant expression
    init: bool = False          # an initial value: reading state is MC4004
    used: set[str] = field(default_factory=set)
    inlining: tuple[str, ...] = ()
    inlined: int = 0            # def calls inlined so far (MC4011 past MAX_INLINED)
    root_call: Any = None       # the span of the outermost call being inlined
    # The last suffix tried per name: fresh() stays constant-time when a def
    # is inlined thousands of times.
    suffixes: dict[str, int] = field(default_factory=dict)
    # Binders narrowed to one case of their variant (``pick m: C in S``, ``for
    # m: C in S``): IR name -> case; ``m.f`` reads that case's field.  IR names
    # are unique in a unit, so the entry holds exactly where the binder does.
    narrowed: dict[str, str] = field(default_factory=dict)

    def fresh(self, name: str) -> str:
        candidate, n = name, self.suffixes.get(name, 1)
        if n > 1:
            candidate = f"{name}_{n}"
        while candidate in self.used:
            n += 1
            candidate = f"{name}_{n}"
        self.suffixes[name] = n
        self.used.add(candidate)
        return candidate


@dataclass(frozen=True)
class Env:
    """Where an expression is checked: its unit and the local names in scope."""
    unit: Unit
    scope: Scope

    def bind(self, name: str, t: Type | None) -> tuple["Env", str]:
        """A new binder (renamed to be unique in the unit); t None poisons it."""
        ir_name = self.unit.fresh(name)
        local = None if t is None else ir.Local(ir_name, t)
        return Env(self.unit, {**self.scope, name: local}), ir_name


def show(t: Type) -> str:
    """A type in messages: as the user writes it."""
    return render_type(t)


class CheckerBase:
    """Diagnostics and the helpers every part of the checker uses."""

    def __init__(self) -> None:
        self.diagnostics: list[Diagnostic] = []
        # The spec's files, to quote the user's own words in hints.
        self.sources: Mapping[str, str] = {}

    def written(self, node: Any, default: str) -> str:
        """``node`` (an AST node) as the user wrote it, when it fits on one
        line; ``default`` otherwise."""
        span = getattr(node, "span", None)
        text = self.sources.get(span.file) if span is not None else None
        if text is None or span.line != span.end_line:
            return default
        lines = text.split("\n")
        if span.line > len(lines):
            return default
        return lines[span.line - 1][span.col - 1:span.end_col - 1].strip() or default

    def report(self, code: str, message: str, span: Span | None, hint: str | None = None,
               notes: tuple[str, ...] = ()) -> None:
        diag = Diagnostic(code, message, span, hint=hint, notes=notes)
        if diag not in self.diagnostics:
            self.diagnostics.append(diag)

    def fail(self, code: str, message: str, span: Span | None, hint: str | None = None,
             notes: tuple[str, ...] = ()) -> NoReturn:
        self.report(code, message, span, hint, notes)
        raise Abort()

    def expect_type(self, node: Any, expected: Type, span: Span | None,
                    what: str = "") -> None:
        """MC3001 unless ``node`` (an IR expression) has the shape of ``expected``."""
        if join(node.type, expected) is None:
            where = f" {what}" if what else ""
            self.fail("MC3001", f"expected {expected_words(expected, node.type)}{where}, "
                      f"found {found_words(node.type)}", span,
                      hint=_mismatch_hint(node.type, expected))


_CATEGORY = {T.BoolType: "a bool", T.IntType: "an int", T.SetType: "a set", T.MapType: "a map",
             T.SeqType: "a sequence", T.BagType: "a bag", T.OptionType: "an option",
             T.TupleType: "a tuple", T.RecordType: "a record"}


def expected_words(expected: Type, found: Type | None = None) -> str:
    """``expected`` in a message: the category ("a set") when the found value
    is of another kind altogether, else the exact type."""
    if isinstance(expected, (T.EnumType, T.ModelType, T.BoolType, T.VariantType)):
        return show(expected)
    if isinstance(expected, T.RecordType) and expected.name:
        return show(expected)
    if found is not None and type(found) is type(expected):
        return show(expected)
    return _CATEGORY[type(expected)]


def found_words(found: Type) -> str:
    if isinstance(found, T.IntType):
        if found.lo == found.hi:
            return f"the int {found.lo}"
        return f"an int ({show(found)})"
    return show(found)


def _mismatch_hint(found: Type, expected: Type) -> str | None:
    if isinstance(expected, T.OptionType) and join(found, expected.elem) is not None:
        return "wrap the value: some(...)"
    if isinstance(found, T.OptionType) and join(found.elem, expected) is not None:
        return "take the value out of the option with '.value' (after checking is_some)"
    if isinstance(expected, T.SetType) and join(found, expected.elem) is not None:
        return "a single element is not a set: write {x}"
    return None
