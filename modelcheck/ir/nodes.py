"""The typed IR: the one representation every engine reads.

Conventions every engine may rely on (the front end guarantees them):

* Every expression carries its static ``type``; no type is unknown.  Int
  expression types carry the static interval of the value (interval arithmetic).
* ``const`` declarations are gone: their values (after ``-D`` overrides) appear
  as ``Const`` nodes.  A type name used as an expression (``Node``) is a
  ``Const`` holding the frozenset of its whole domain.
* User functions (``def``) are inlined: a call becomes ``LetExpr`` bindings of
  the arguments around the body.  There are no calls in the IR.
* Binders (action parameters, ``let``, ``pick``, quantifier and comprehension
  variables) have names unique within their action or property; a ``Local``
  names one of them.
* Statements read the state *before* the step; ``Assign`` replaces a whole
  state variable (``x[k].f := v`` is lowered to ``x := x with [k] = (x[k] with .f = v)``).
  On every path through an action body a variable is assigned at most once; a
  variable not assigned on the path taken keeps its value.
* ``Var(primed=True)`` appears only in step invariants.
* Values are those of ``modelcheck.ir.values`` (bool, int, str, frozenset,
  tuple, FrozenDict, None).
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Union

from modelcheck.diagnostics import Span
from modelcheck.ir.ops import RANGE_QUESTIONS, Op
from modelcheck.ir.types import BOOL, Type

__all__ = [
    "Const", "Var", "Local", "Apply", "IfExpr", "LetExpr", "Quant", "QuantKind",
    "SetComp", "SumComp", "MapComp", "SetLit", "SeqLit", "BagLit", "TupleLit",
    "RecordLit", "FieldGet", "FieldSet", "VariantLit", "CaseTest", "CasePayload", "Expr",
    "Require", "Let", "Pick", "Assign", "If", "Either", "Stmt",
    "Param", "Action", "VarDecl", "InitKind", "Property", "PropertyKind", "Model",
    "TemporalKind", "Temporal", "FairKind", "FairArgKind", "FairArg", "FairBinder", "Fairness",
    "is_range", "asks_a_range",
]


def _span() -> Any:
    # Spans are kept out of equality and hashing: nodes compare by meaning.
    return field(default=None, compare=False, repr=False)


# ------------------------------------------------------------------ expressions

@dataclass(frozen=True)
class Const:
    """A value.  ``name``: the spec's ``const`` it was read from, if any, so
    that an engine may read the value at run time instead of building it in
    (the compiled engine: one kernel for every value of a flag).  The name is
    kept out of equality: nodes compare by meaning."""
    value: Any
    type: Type
    span: Span | None = _span()
    name: str | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Var:
    """A state variable; ``primed`` reads the state after the step."""
    name: str
    type: Type
    primed: bool = False
    span: Span | None = _span()


@dataclass(frozen=True)
class Local:
    """A bound name: action parameter, let, pick, quantifier or comprehension variable."""
    name: str
    type: Type
    span: Span | None = _span()


@dataclass(frozen=True)
class Apply:
    op: Op
    args: tuple["Expr", ...]
    type: Type
    span: Span | None = _span()


def is_range(e: "Expr") -> bool:
    """Whether ``e`` is a range ``lo..hi``."""
    return isinstance(e, Apply) and e.op is Op.RANGE


def asks_a_range(e: "Expr") -> bool:
    """Whether ``e`` is ``len``, ``in``, ``min`` or ``max`` of a range written
    as ``lo..hi``: answered from the bounds, the range never built."""
    return isinstance(e, Apply) and e.op in RANGE_QUESTIONS and is_range(e.args[-1])


@dataclass(frozen=True)
class IfExpr:
    cond: "Expr"
    then: "Expr"
    else_: "Expr"
    type: Type
    span: Span | None = _span()


@dataclass(frozen=True)
class LetExpr:
    name: str
    value: "Expr"
    body: "Expr"
    type: Type
    span: Span | None = _span()


class QuantKind(enum.Enum):
    ALL = "all"
    ANY = "any"


@dataclass(frozen=True)
class Quant:
    """``all(body for var in domain)`` / ``any(...)``; a filter ``if c`` is
    lowered to ``c => body`` (all) or ``c and body`` (any).  Several ``for``
    clauses nest.  ``domain`` is a set (or the full domain of a type, as a Const)."""
    kind: QuantKind
    var: str
    domain: "Expr"
    body: "Expr"
    type: Type = BOOL
    span: Span | None = _span()


@dataclass(frozen=True)
class SetComp:
    """``{elem for var in domain if cond}``."""
    var: str
    domain: "Expr"
    cond: "Expr | None"
    elem: "Expr"
    type: Type
    span: Span | None = _span()


@dataclass(frozen=True)
class SumComp:
    """``sum(elem for var in domain if cond)``: each element of the set once."""
    var: str
    domain: "Expr"
    cond: "Expr | None"
    elem: "Expr"
    type: Type
    span: Span | None = _span()


@dataclass(frozen=True)
class MapComp:
    """``{var: value for var in K}``: a total map; ``var`` ranges over every
    value of the map's key type (``type.key``)."""
    var: str
    value: "Expr"
    type: Type
    span: Span | None = _span()


@dataclass(frozen=True)
class SetLit:
    elems: tuple["Expr", ...]
    type: Type
    span: Span | None = _span()


@dataclass(frozen=True)
class SeqLit:
    elems: tuple["Expr", ...]
    type: Type
    span: Span | None = _span()


@dataclass(frozen=True)
class BagLit:
    elems: tuple["Expr", ...]
    type: Type
    span: Span | None = _span()


@dataclass(frozen=True)
class TupleLit:
    elems: tuple["Expr", ...]
    type: Type
    span: Span | None = _span()


@dataclass(frozen=True)
class RecordLit:
    """Every field of the record type, in declaration order."""
    fields: tuple[tuple[str, "Expr"], ...]
    type: Type
    span: Span | None = _span()


@dataclass(frozen=True)
class FieldGet:
    record: "Expr"
    field: str
    type: Type
    span: Span | None = _span()


@dataclass(frozen=True)
class FieldSet:
    """``record with .field = value``."""
    record: "Expr"
    field: str
    value: "Expr"
    type: Type
    span: Span | None = _span()


@dataclass(frozen=True)
class VariantLit:
    """``Case(f=e, ...)``: the value of ``type`` (a ``VariantType``) in case
    ``case``; ``payload`` is a ``RecordLit`` of the case's record type (with
    no fields for a case without any)."""
    case: str
    payload: "Expr"
    type: Type
    span: Span | None = _span()


@dataclass(frozen=True)
class CaseTest:
    """Whether the variant ``subject`` is in case ``case``."""
    subject: "Expr"
    case: str
    type: Type = BOOL
    span: Span | None = _span()


@dataclass(frozen=True)
class CasePayload:
    """The fields of the variant ``subject`` as a record of case ``case``'s
    type.  The front end reads it only where ``CaseTest(subject, case)``
    holds (``match`` lowers to ``if`` on the tag, then ``let`` of the
    payload), so an engine that evaluates it elsewhere, as an eager symbolic
    encoding does, may give any value of the type there."""
    subject: "Expr"
    case: str
    type: Type
    span: Span | None = _span()


Expr = Union[Const, Var, Local, Apply, IfExpr, LetExpr, Quant, SetComp, SumComp,
             MapComp, SetLit, SeqLit, BagLit, TupleLit, RecordLit, FieldGet, FieldSet,
             VariantLit, CaseTest, CasePayload]


# ------------------------------------------------------------------ statements

@dataclass(frozen=True)
class Require:
    """The action is not enabled (on this path) unless ``cond`` holds."""
    cond: Expr
    span: Span | None = _span()


@dataclass(frozen=True)
class Let:
    name: str
    value: Expr
    span: Span | None = _span()


@dataclass(frozen=True)
class Pick:
    """Nondeterministic choice: one outcome per element of ``domain`` (a set);
    none if it is empty."""
    name: str
    domain: Expr
    span: Span | None = _span()


@dataclass(frozen=True)
class Assign:
    var: str
    value: Expr
    span: Span | None = _span()


@dataclass(frozen=True)
class If:
    cond: Expr
    then: tuple["Stmt", ...]
    else_: tuple["Stmt", ...]
    span: Span | None = _span()


@dataclass(frozen=True)
class Either:
    """Nondeterministic choice between branches: the outcomes of all of them."""
    branches: tuple[tuple["Stmt", ...], ...]
    span: Span | None = _span()


Stmt = Union[Require, Let, Pick, Assign, If, Either]


# ------------------------------------------------------------------ declarations

@dataclass(frozen=True)
class Param:
    name: str
    type: Type
    span: Span | None = _span()


@dataclass(frozen=True)
class Action:
    """One action; it is instantiated once per binding of its parameters, each
    ranging over its type's whole domain (in ``values.domain`` order)."""
    name: str
    params: tuple[Param, ...]
    body: tuple[Stmt, ...]
    span: Span | None = _span()


class InitKind(enum.Enum):
    EQ = "="     # var x: T = e       one initial value
    IN = "in"    # var x: T in S      any element of the set S


@dataclass(frozen=True)
class VarDecl:
    """A state variable.  ``init`` reads no state variable: the initial states
    are the product of the variables' initial values, in declaration order."""
    name: str
    type: Type
    init_kind: InitKind
    init: Expr
    span: Span | None = _span()


class PropertyKind(enum.Enum):
    INVARIANT = "invariant"      # holds in every reachable state
    STEP = "step invariant"      # holds on every step (reads x and x')
    SOMETIMES = "sometimes"      # reachable: the answer is a witness trace
    TERMINAL = "terminal"        # states where no enabled action is not a deadlock
    CONSTRAINT = "constraint"    # states the search does not store (TLC's CONSTRAINT)
    LIVENESS = "liveness"        # a temporal property (Model.temporals); kind of its results


@dataclass(frozen=True)
class Property:
    name: str
    kind: PropertyKind
    expr: Expr
    span: Span | None = _span()


class TemporalKind(enum.Enum):
    """The temporal forms (docs/design.md, "Liveness"); TLA+ in the comments."""
    EVENTUALLY = "eventually"                # <>Q
    LEADS_TO = "leads to"                    # P ~> Q
    ALWAYS_EVENTUALLY = "always eventually"  # []<>Q
    EVENTUALLY_ALWAYS = "eventually always"  # <>[]Q


@dataclass(frozen=True)
class Temporal:
    """``liveness Name(params): <form>``.  One property per binding of the
    params (each must hold), like an action's instances.  ``p`` is the left
    side of LEADS_TO (None otherwise); ``q`` the predicate of every form.
    Both are state predicates (no primes) over the params and the state."""
    name: str
    kind: TemporalKind
    params: tuple["Param", ...]
    p: Expr | None
    q: Expr
    span: Span | None = _span()


class FairKind(enum.Enum):
    WEAK = "weak"        # WF: continuously enabled => eventually taken
    STRONG = "strong"    # SF: enabled infinitely often => eventually taken


class FairArgKind(enum.Enum):
    VALUE = "value"      # this value (an expression over the for-binders and consts)
    ANY = "any"          # ``_``: any value, the bindings taken together (TLA+ \E)
    EACH = "each"        # ``*``: each value separately (TLA+ \A ... : WF(A(p)))


@dataclass(frozen=True)
class FairArg:
    kind: FairArgKind
    value: Expr | None = None


@dataclass(frozen=True)
class FairBinder:
    """``for name in domain [if cond]``: the domain is constant."""
    name: str
    domain: Expr
    cond: Expr | None = None


@dataclass(frozen=True)
class Fairness:
    """``fair weak A(args) for x in D``.  ``args`` has one entry per
    parameter of the action (``fair weak A`` without parentheses: all ANY, the
    action as a whole, TLA+ WF_vars(A)).  The for-binders and EACH arguments
    make one fairness condition per binding."""
    kind: FairKind
    action: str
    args: tuple[FairArg, ...]
    binders: tuple[FairBinder, ...] = ()
    span: Span | None = _span()
    # ``fair weak A | B(args)``: the other actions of the group (each a
    # Fairness of the same kind, without binders, its arguments ANY or
    # VALUE); a step of any of them takes the one condition, TLA+
    # WF_vars(A \/ B)
    group: tuple["Fairness", ...] = ()


@dataclass(frozen=True)
class Model:
    name: str
    consts: tuple[tuple[str, Type, Any], ...]   # (name, type, value after -D)
    types: tuple[tuple[str, Type], ...]         # named types, for rendering
    vars: tuple[VarDecl, ...]
    actions: tuple[Action, ...]
    properties: tuple[Property, ...]            # invariants, step invariants, sometimes
    terminals: tuple[Property, ...]             # TERMINAL declarations
    # CONSTRAINT declarations: a state failing one is checked, not stored
    # (docs/design.md, "State constraints"); engines that cannot follow that
    # rule must decline a model where this is not empty.
    constraints: tuple[Property, ...] = ()
    # ``liveness`` and ``fair`` declarations (docs/design.md, "Liveness").
    temporals: tuple[Temporal, ...] = ()
    fairness: tuple[Fairness, ...] = ()
    path: str = field(default="", compare=False)
    sources: tuple[tuple[str, str], ...] = field(default=(), compare=False, repr=False)

    def var(self, name: str) -> VarDecl:
        for v in self.vars:
            if v.name == name:
                return v
        raise KeyError(name)

    def action(self, name: str) -> Action:
        for a in self.actions:
            if a.name == name:
                return a
        raise KeyError(name)

    def get_property(self, name: str) -> Property:
        for p in self.properties:
            if p.name == name:
                return p
        raise KeyError(name)

    @property
    def const_values(self) -> dict[str, Any]:
        return {name: value for name, _, value in self.consts}

    @property
    def symmetric_types(self) -> tuple[Type, ...]:
        from modelcheck.ir.types import ModelType
        return tuple(t for _, t in self.types if isinstance(t, ModelType) and t.symmetric)
