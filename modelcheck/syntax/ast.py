"""The abstract syntax tree of a spec: frozen dataclasses, one per construct.

Nodes compare by meaning: every ``span`` (and ``name_span``) is kept out of
equality and hashing, so two parses of the same text that differ only in
layout give equal trees.  Operators are kept as the strings the user wrote
(``"+"``, ``"not in"``, ``"<="``); the type checker decides what they mean.

One module on purpose, though it is past the size the other modules keep
to: it is the catalogue of one grammar's nodes, and its four sections are
not separable layers.  Type nodes hold expressions (``lo..hi``), expressions
hold patterns and comprehension clauses, statements hold expressions and
l-values, declarations hold all three; the parser builds every node, and
the readers (name resolution, the type checker, the LSP, derived trace
values) take them as ``ast.X``, the checker dispatching on the class name.
Split files would each import the others' unions and every reader would
still need all of them, so a split would only add a re-exporting facade.
New constructs add a dataclass here.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Union

from modelcheck.diagnostics import Span

__all__ = [
    # types
    "BoolTypeExpr", "IntTypeExpr", "RangeTypeExpr", "NamedTypeExpr", "SetTypeExpr",
    "MapTypeExpr", "SeqTypeExpr", "BagTypeExpr", "OptionTypeExpr", "TupleTypeExpr",
    "RecordTypeExpr", "FieldDecl", "TypeExpr", "EnumDef", "ModelDef", "ModelCountDef",
    "TypeDef", "Ident", "VariantCase", "VariantDef",
    # expressions
    "IntLit", "BoolLit", "NoneLit", "NameRef", "PrimedRef", "BinOp", "UnaryOp", "IfExpr",
    "LetExpr", "WithIndex", "WithField", "Index", "Slice", "FieldAccess", "TupleLit",
    "SeqLit", "SetLit", "SeqComp", "SetComp", "MapComp", "CompFor", "Arg", "Call", "GenCall",
    "Pattern", "MatchArm", "MatchExpr", "IsTest", "Expr",
    # statements
    "LvIndex", "LvField", "LValue", "RequireStmt", "LetStmt", "PickStmt", "PickEachStmt",
    "AssignStmt", "IfStmt", "EitherStmt", "MatchStmtArm", "MatchStmt", "Stmt",
    # declarations
    "Param", "ImportDecl", "ConstDecl", "TypeDecl", "VarDecl", "DefDecl", "ActionDecl",
    "PropertyDecl", "Item", "Module", "PROPERTY_KINDS", "TEMPORAL_FORMS", "LivenessDecl",
    "FairArg", "FairDecl",
]


def _span() -> Any:
    # Locations live beside the meaning, not in it.
    return field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Ident:
    """A name together with where it was written (enum members, fields)."""
    name: str
    span: Span | None = _span()


# ------------------------------------------------------------------ types

@dataclass(frozen=True)
class BoolTypeExpr:
    span: Span | None = _span()


@dataclass(frozen=True)
class IntTypeExpr:
    """Plain ``int``: only legal nowhere (MC4001), kept so the error can point at it."""
    span: Span | None = _span()


@dataclass(frozen=True)
class RangeTypeExpr:
    lo: "Expr"
    hi: "Expr"
    span: Span | None = _span()


@dataclass(frozen=True)
class NamedTypeExpr:
    name: str
    span: Span | None = _span()


@dataclass(frozen=True)
class SetTypeExpr:
    """``set[T]`` or ``set[T, cap]`` (``capacity`` None when not given)."""
    elem: "TypeExpr"
    capacity: "Expr | None" = None
    span: Span | None = _span()


@dataclass(frozen=True)
class MapTypeExpr:
    key: "TypeExpr"
    value: "TypeExpr"
    span: Span | None = _span()


@dataclass(frozen=True)
class SeqTypeExpr:
    elem: "TypeExpr"
    capacity: "Expr"
    span: Span | None = _span()


@dataclass(frozen=True)
class BagTypeExpr:
    elem: "TypeExpr"
    capacity: "Expr"
    span: Span | None = _span()


@dataclass(frozen=True)
class OptionTypeExpr:
    elem: "TypeExpr"
    span: Span | None = _span()


@dataclass(frozen=True)
class TupleTypeExpr:
    elems: tuple["TypeExpr", ...]
    span: Span | None = _span()


@dataclass(frozen=True)
class FieldDecl:
    name: str
    type: "TypeExpr"
    span: Span | None = _span()


@dataclass(frozen=True)
class RecordTypeExpr:
    fields: tuple[FieldDecl, ...]
    span: Span | None = _span()


TypeExpr = Union[BoolTypeExpr, IntTypeExpr, RangeTypeExpr, NamedTypeExpr, SetTypeExpr,
                 MapTypeExpr, SeqTypeExpr, BagTypeExpr, OptionTypeExpr, TupleTypeExpr,
                 RecordTypeExpr]


@dataclass(frozen=True)
class EnumDef:
    members: tuple[Ident, ...]
    span: Span | None = _span()


@dataclass(frozen=True)
class ModelDef:
    """``model {a, b}``: model values named explicitly."""
    members: tuple[Ident, ...]
    span: Span | None = _span()


@dataclass(frozen=True)
class ModelCountDef:
    """``model(N)``: N model values named after the type (``node1``...)."""
    count: "Expr"
    span: Span | None = _span()


@dataclass(frozen=True)
class VariantCase:
    """One case of a variant: its name and its fields (none for ``Timeout``)."""
    name: str
    fields: tuple[FieldDecl, ...]
    span: Span | None = _span()


@dataclass(frozen=True)
class VariantDef:
    """``variant { Case(f: T, ...), Other, ... }``."""
    cases: tuple[VariantCase, ...]
    span: Span | None = _span()


TypeDef = Union[TypeExpr, EnumDef, ModelDef, ModelCountDef, VariantDef]


# ------------------------------------------------------------------ expressions

@dataclass(frozen=True)
class IntLit:
    value: int
    span: Span | None = _span()


@dataclass(frozen=True)
class BoolLit:
    value: bool
    span: Span | None = _span()


@dataclass(frozen=True)
class NoneLit:
    span: Span | None = _span()


@dataclass(frozen=True)
class NameRef:
    name: str
    span: Span | None = _span()


@dataclass(frozen=True)
class PrimedRef:
    """``x'``: the value of state variable x after the step."""
    name: str
    span: Span | None = _span()


@dataclass(frozen=True)
class BinOp:
    """``op`` is the operator as written: arithmetic, set, comparison, boolean,
    ``in``, ``not in``, ``..``."""
    op: str
    left: "Expr"
    right: "Expr"
    span: Span | None = _span()


@dataclass(frozen=True)
class UnaryOp:
    op: str                     # "-" or "not"
    operand: "Expr"
    span: Span | None = _span()


@dataclass(frozen=True)
class IfExpr:
    cond: "Expr"
    then: "Expr"
    else_: "Expr"
    span: Span | None = _span()


@dataclass(frozen=True)
class LetExpr:
    name: str
    value: "Expr"
    body: "Expr"
    span: Span | None = _span()
    name_span: Span | None = _span()


@dataclass(frozen=True)
class WithIndex:
    """``target with [index] = value``."""
    target: "Expr"
    index: "Expr"
    value: "Expr"
    span: Span | None = _span()


@dataclass(frozen=True)
class WithField:
    """``target with .field = value``."""
    target: "Expr"
    field: str
    value: "Expr"
    span: Span | None = _span()


@dataclass(frozen=True)
class Index:
    target: "Expr"
    index: "Expr"
    span: Span | None = _span()


@dataclass(frozen=True)
class Slice:
    target: "Expr"
    lo: "Expr | None"
    hi: "Expr | None"
    span: Span | None = _span()


@dataclass(frozen=True)
class FieldAccess:
    target: "Expr"
    field: str
    span: Span | None = _span()


@dataclass(frozen=True)
class TupleLit:
    elems: tuple["Expr", ...]
    span: Span | None = _span()


@dataclass(frozen=True)
class SeqLit:
    elems: tuple["Expr", ...]
    span: Span | None = _span()


@dataclass(frozen=True)
class SetLit:
    """``{a, b}`` or ``{}``: a set, or a bag where a bag is expected."""
    elems: tuple["Expr", ...]
    span: Span | None = _span()


@dataclass(frozen=True)
class CompFor:
    """One ``for var in domain [if cond]`` clause; ``for var: Case in domain``
    takes only the elements of the variant in that case (``case``)."""
    var: str
    domain: "Expr"
    cond: "Expr | None"
    span: Span | None = _span()
    var_span: Span | None = _span()
    case: str | None = None
    case_span: Span | None = _span()


@dataclass(frozen=True)
class SeqComp:
    """``[elem for x in D if c]``: a sequence, in the order of D."""
    elem: "Expr"
    fors: tuple[CompFor, ...]
    span: Span | None = _span()


@dataclass(frozen=True)
class SetComp:
    elem: "Expr"
    fors: tuple[CompFor, ...]
    span: Span | None = _span()


@dataclass(frozen=True)
class MapComp:
    key: "Expr"
    value: "Expr"
    fors: tuple[CompFor, ...]
    span: Span | None = _span()


@dataclass(frozen=True)
class Arg:
    """A call argument; ``name`` is set for ``name=value`` (record constructors)."""
    name: str | None
    value: "Expr"
    span: Span | None = _span()


@dataclass(frozen=True)
class Call:
    func: str
    args: tuple[Arg, ...]
    span: Span | None = _span()
    func_span: Span | None = _span()


@dataclass(frozen=True)
class GenCall:
    """``all(e for x in S)``, ``any(...)``, ``sum(...)``."""
    func: str
    elem: "Expr"
    fors: tuple[CompFor, ...]
    span: Span | None = _span()
    func_span: Span | None = _span()


@dataclass(frozen=True)
class Pattern:
    """A match arm's pattern: the cases it names (empty for ``_``) and, for
    ``Case as name``, the name its fields are bound to."""
    cases: tuple[Ident, ...]
    binder: Ident | None = None
    span: Span | None = _span()

    @property
    def wildcard(self) -> bool:
        return not self.cases


@dataclass(frozen=True)
class MatchArm:
    pattern: Pattern
    body: "Expr"
    span: Span | None = _span()


@dataclass(frozen=True)
class MatchExpr:
    """``match subject { pattern => expr, ... }``."""
    subject: "Expr"
    arms: tuple[MatchArm, ...]
    span: Span | None = _span()


@dataclass(frozen=True)
class IsTest:
    """``subject is Case``; ``subject is Case as c`` also binds c to the
    case's fields (only as the condition of ``if`` or ``require``)."""
    subject: "Expr"
    case: str
    span: Span | None = _span()
    case_span: Span | None = _span()
    binder: str | None = None
    binder_span: Span | None = _span()


Expr = Union[IntLit, BoolLit, NoneLit, NameRef, PrimedRef, BinOp, UnaryOp, IfExpr, LetExpr,
             WithIndex, WithField, Index, Slice, FieldAccess, TupleLit, SeqLit, SetLit,
             SetComp, SeqComp, MapComp, Call, GenCall, MatchExpr, IsTest]


# ------------------------------------------------------------------ statements

@dataclass(frozen=True)
class LvIndex:
    index: "Expr"
    span: Span | None = _span()


@dataclass(frozen=True)
class LvField:
    field: str
    span: Span | None = _span()


@dataclass(frozen=True)
class LValue:
    """``x``, ``x[k]``, ``x.f``, ``x[k].f``...: a state variable and a path into it."""
    name: str
    steps: tuple[LvIndex | LvField, ...]
    span: Span | None = _span()
    name_span: Span | None = _span()


@dataclass(frozen=True)
class RequireStmt:
    cond: "Expr"
    span: Span | None = _span()


@dataclass(frozen=True)
class LetStmt:
    name: str
    value: "Expr"
    span: Span | None = _span()
    name_span: Span | None = _span()


@dataclass(frozen=True)
class PickStmt:
    """``pick x in S``; ``pick x: Case in S`` picks only elements in that case."""
    name: str
    domain: "Expr"
    span: Span | None = _span()
    name_span: Span | None = _span()
    case: str | None = None
    case_span: Span | None = _span()


@dataclass(frozen=True)
class PickEachStmt:
    """``pick each x in S: y in T if P``: a guard with one outcome per
    combination of witnesses, a y for every x (TLA+'s ``\\A x \\in S : \\E y
    \\in T : P`` in an action, as TLC enumerates it).  x and y name nothing
    after the statement."""
    var: str
    domain: "Expr"
    witness: str
    witness_domain: "Expr"
    cond: "Expr"
    span: Span | None = _span()
    var_span: Span | None = _span()
    witness_span: Span | None = _span()


@dataclass(frozen=True)
class AssignStmt:
    target: LValue
    value: "Expr"
    span: Span | None = _span()


@dataclass(frozen=True)
class IfStmt:
    cond: "Expr"
    then: tuple["Stmt", ...]
    else_: tuple["Stmt", ...]
    span: Span | None = _span()


@dataclass(frozen=True)
class EitherStmt:
    branches: tuple[tuple["Stmt", ...], ...]
    span: Span | None = _span()


@dataclass(frozen=True)
class MatchStmtArm:
    pattern: Pattern
    body: tuple["Stmt", ...]
    span: Span | None = _span()


@dataclass(frozen=True)
class MatchStmt:
    """``match subject { pattern { stmts } ... }``."""
    subject: "Expr"
    arms: tuple[MatchStmtArm, ...]
    span: Span | None = _span()


Stmt = Union[RequireStmt, LetStmt, PickStmt, PickEachStmt, AssignStmt, IfStmt, EitherStmt,
             MatchStmt]


# ------------------------------------------------------------------ declarations

@dataclass(frozen=True)
class Param:
    name: str
    type: TypeExpr
    span: Span | None = _span()


@dataclass(frozen=True)
class ImportDecl:
    name: str
    span: Span | None = _span()


@dataclass(frozen=True)
class ConstDecl:
    name: str
    type: TypeExpr
    value: Expr
    span: Span | None = _span()
    name_span: Span | None = _span()


@dataclass(frozen=True)
class TypeDecl:
    name: str
    symmetric: bool
    definition: TypeDef
    span: Span | None = _span()
    name_span: Span | None = _span()


@dataclass(frozen=True)
class VarDecl:
    """``var x: T = e`` (init_kind ``"="``) or ``var x: T in S`` (``"in"``)."""
    name: str
    type: TypeExpr
    init_kind: str
    init: Expr
    span: Span | None = _span()
    name_span: Span | None = _span()


@dataclass(frozen=True)
class DefDecl:
    name: str
    params: tuple[Param, ...]
    result: TypeExpr | None
    body: Expr
    span: Span | None = _span()
    name_span: Span | None = _span()


@dataclass(frozen=True)
class ActionDecl:
    name: str
    params: tuple[Param, ...]
    body: tuple[Stmt, ...]
    span: Span | None = _span()
    name_span: Span | None = _span()


#: The property keywords, as written.  A ``constraint`` is not checked but
#: bounds the search (TLC's CONSTRAINT); it shares the declaration's shape.
PROPERTY_KINDS = ("invariant", "step invariant", "sometimes", "terminal", "constraint")


@dataclass(frozen=True)
class PropertyDecl:
    """``kind`` is one of PROPERTY_KINDS."""
    kind: str
    name: str
    expr: Expr
    span: Span | None = _span()
    name_span: Span | None = _span()


#: The temporal forms, as written (``kind`` of a LivenessDecl).
TEMPORAL_FORMS = ("eventually", "leads to", "always eventually", "eventually always")


@dataclass(frozen=True)
class LivenessDecl:
    """``liveness Name(params): form``; ``p`` is the left side of ``leads to``."""
    name: str
    params: tuple[Param, ...]
    kind: str
    p: Expr | None
    q: Expr
    span: Span | None = _span()
    name_span: Span | None = _span()


@dataclass(frozen=True)
class FairArg:
    """One argument of a ``fair`` declaration: ``kind`` is "value" (``expr``),
    "any" (``_``) or "each" (``*``)."""
    kind: str
    expr: Expr | None = None
    span: Span | None = _span()


@dataclass(frozen=True)
class FairDecl:
    """``fair weak A(args) for x in D``; ``args`` is None without parentheses."""
    kind: str
    action: str
    args: tuple[FairArg, ...] | None
    fors: tuple["CompFor", ...]
    span: Span | None = _span()
    action_span: Span | None = _span()
    # ``fair weak A | B(args)``: the other actions of the group, each a
    # FairDecl of the same kind without fors (docs/language.md)
    also: tuple["FairDecl", ...] = ()


Item = Union[ImportDecl, ConstDecl, TypeDecl, VarDecl, DefDecl, ActionDecl, PropertyDecl,
             LivenessDecl, FairDecl]


@dataclass(frozen=True)
class Module:
    name: str
    items: tuple[Item, ...]
    path: str = field(default="", compare=False)
    span: Span | None = _span()
