"""Name resolution: ``resolve(module, path) -> Resolved``.

Loads imports (``import common`` reads ``common.mc`` beside the importer),
builds the one namespace of the spec, and checks that every name used is
defined: MC2001 unknown name (with "did you mean"), MC2002 duplicate
definition, MC2003 unknown type, MC2004 missing import, MC2005 import cycle,
MC4006 a declaration an imported file may not hold.  The type checker relies
on the result: after ``resolve`` every name refers to something.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Mapping

from modelcheck.diagnostics import Diagnostic, Span, did_you_mean
from modelcheck.errors import CompileError
from modelcheck.syntax import ast
from modelcheck.syntax.parser import parse
from modelcheck.syntax.source import read_source

__all__ = ["Symbol", "Resolved", "resolve", "BUILTINS", "SOFT_BUILTINS", "GEN_BUILTINS",
           "model_value_index",
           "kind_word"]

#: Built-in functions (they are not in the namespace and cannot be redefined).
BUILTINS = frozenset({"len", "min", "max", "append", "head", "tail", "some", "is_some",
                      "is_none", "put", "take", "count", "distinct", "sum", "all", "any",
                      "choose"})
#: Built-ins a spec may still declare under their names (``var last``): its
#: own declaration then wins, and the built-in is out of reach in that spec.
SOFT_BUILTINS = frozenset({"last", "elems", "index_of"})
#: Built-ins that take a generator: ``all(p for x in S)``.
GEN_BUILTINS = frozenset({"all", "any", "sum", "choose"})
#: Keywords that are values: offered by did-you-mean for ``True``, ``None``...
LITERAL_WORDS = ("true", "false", "none")

_IMPORTABLE = (ast.ConstDecl, ast.TypeDecl, ast.DefDecl, ast.ImportDecl)
_TRAILING_NUMBER = re.compile(r"[1-9][0-9]*$")


@dataclass(frozen=True)
class Symbol:
    """One global name.  ``kind``: const, type, enum_member, model_value, var,
    def, action or property.  ``decl`` is the declaring item (the TypeDecl for
    enum members and model values)."""
    name: str
    kind: str
    decl: Any
    span: Span | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Resolved:
    """A spec with its imports loaded and its names checked.  ``items``: every
    declaration of every file, imported files first (in import order), without
    the import declarations; ``count_types``: names of ``model(N)`` types, whose
    values (``node1``...) are only known once N is; ``shared``: enum members
    named like a state variable (the variable is in ``symbols``), resolved by
    the expected type (docs/language.md)."""
    module: ast.Module
    items: tuple[ast.Item, ...]
    symbols: Mapping[str, Symbol]
    count_types: tuple[str, ...]
    path: str
    sources: tuple[tuple[str, str], ...]
    shared: Mapping[str, Symbol] = field(default_factory=lambda: MappingProxyType({}))
    #: Names of several values of different types (enum members of two enums,
    #: an enum member and a variant case): every meaning, declaration order,
    #: the first also in ``symbols``; the expected type picks one.
    typed: Mapping[str, tuple[Symbol, ...]] = field(
        default_factory=lambda: MappingProxyType({}))
    #: Actions named like a value (a variant case ``Phase1a`` beside the
    #: action ``Phase1a``): the value is in ``symbols``, the action here.
    actions_apart: Mapping[str, Symbol] = field(default_factory=lambda: MappingProxyType({}))

    def source_map(self) -> dict[str, str]:
        return dict(self.sources)


def model_value_index(name: str, type_name: str) -> int | None:
    """``node3`` of type ``Node`` -> 3; None if ``name`` is not of that form."""
    prefix = type_name.lower()
    rest = name[len(prefix):]
    if name.startswith(prefix) and rest.isdigit() and not rest.startswith("0"):
        return int(rest)
    return None


def resolve(module: ast.Module, path: str, source: str = "") -> Resolved:
    """Load the imports of ``module`` (read from ``path``) and check its names."""
    loader = _ImportLoader()
    loader.sources[path] = source
    items = loader.load_imports(module, path, stack=(os.path.normpath(path),))
    if loader.diagnostics:
        raise CompileError(loader.diagnostics, loader.sources)
    items.extend(i for i in module.items if not isinstance(i, ast.ImportDecl))
    diagnostics: list[Diagnostic] = []
    shared: dict[str, Symbol] = {}
    typed: dict[str, tuple[Symbol, ...]] = {}
    apart: dict[str, Symbol] = {}
    symbols = _collect_symbols(items, diagnostics, shared, typed, apart)
    count_types = tuple(name for name, s in symbols.items() if s.kind == "type"
                        and isinstance(s.decl.definition, ast.ModelCountDef))
    checker = _NameChecker(symbols, count_types, diagnostics)
    checker.actions_apart = apart
    checker.check_items(items)
    if diagnostics:
        raise CompileError(diagnostics, loader.sources)
    return Resolved(module, tuple(items), MappingProxyType(symbols), count_types, path,
                    tuple(loader.sources.items()), MappingProxyType(shared),
                    MappingProxyType(typed), MappingProxyType(apart))


class _ImportLoader:
    def __init__(self) -> None:
        self.diagnostics: list[Diagnostic] = []
        self.sources: dict[str, str] = {}
        self.loaded: set[str] = set()

    def load_imports(self, module: ast.Module, path: str, stack: tuple[str, ...]) -> list[Any]:
        items: list[Any] = []
        folder = os.path.dirname(path)
        for imp in (i for i in module.items if isinstance(i, ast.ImportDecl)):
            target = os.path.join(folder, imp.name + ".mc") if folder else imp.name + ".mc"
            key = os.path.normpath(target)
            if key in stack:
                chain = " -> ".join(os.path.basename(p) for p in stack[stack.index(key):])
                self.diagnostics.append(Diagnostic(
                    "MC2005", f"import cycle: {chain} -> {os.path.basename(key)}", imp.span,
                    hint="move the shared declarations into a third file both can import"))
                continue
            if key in self.loaded:
                continue
            try:
                text = read_source(target)
            except CompileError as err:
                self.diagnostics.extend(err.diagnostics)
                self.sources.update(err.sources)
                continue
            except OSError:
                self.diagnostics.append(Diagnostic(
                    "MC2004", f"cannot find '{imp.name}.mc' for 'import {imp.name}'", imp.span,
                    hint=f"imported files are read from the importing file's folder "
                         f"({folder or '.'})"))
                continue
            self.loaded.add(key)
            self.sources[target] = text
            try:
                imported = parse(text, target)
            except CompileError as err:
                self.diagnostics.extend(err.diagnostics)
                continue
            items.extend(self.load_imports(imported, target, stack + (key,)))
            for item in imported.items:
                if not isinstance(item, _IMPORTABLE):
                    self.diagnostics.append(Diagnostic(
                        "MC4006", f"an imported file may hold only type, const and def "
                        f"declarations, not {_item_word(item)}", item.span,
                        notes=(f"'{target}' is imported by '{path}'",)))
                elif not isinstance(item, ast.ImportDecl):
                    items.append(item)
        return items


def _item_word(item: Any) -> str:
    if isinstance(item, ast.VarDecl):
        return "a state variable"
    if isinstance(item, ast.ActionDecl):
        return "an action"
    if isinstance(item, ast.PropertyDecl):
        return f"a property ({item.kind})"
    if isinstance(item, ast.LivenessDecl):
        return "a property (liveness)"
    if isinstance(item, ast.FairDecl):
        return "a fairness declaration"
    return "this declaration"


def _declared_names(item: Any) -> list[tuple[str, str, Span | None]]:
    """(name, kind, span) of every global name one declaration introduces."""
    if isinstance(item, ast.ConstDecl):
        return [(item.name, "const", item.name_span)]
    if isinstance(item, ast.TypeDecl):
        out = [(item.name, "type", item.name_span)]
        definition = item.definition
        if isinstance(definition, ast.EnumDef):
            out.extend((m.name, "enum_member", m.span) for m in definition.members)
        elif isinstance(definition, ast.ModelDef):
            out.extend((m.name, "model_value", m.span) for m in definition.members)
        elif isinstance(definition, ast.VariantDef):
            # Case names are global constructors, like enum members.
            out.extend((c.name, "variant_case", c.span) for c in definition.cases)
        return out
    if isinstance(item, ast.VarDecl):
        return [(item.name, "var", item.name_span)]
    if isinstance(item, ast.DefDecl):
        return [(item.name, "def", item.name_span)]
    if isinstance(item, ast.ActionDecl):
        return [(item.name, "action", item.name_span)]
    if isinstance(item, (ast.PropertyDecl, ast.LivenessDecl)):
        return [(item.name, "property", item.name_span)]
    return []


_KIND_WORDS = {"const": "a const", "type": "a type", "enum_member": "an enum member",
               "model_value": "a model value", "var": "a state variable", "def": "a def",
               "action": "an action", "property": "a property",
               "variant_case": "a variant case"}


def kind_word(kind: str) -> str:
    return _KIND_WORDS.get(kind, kind)


#: Kinds of values whose type tells them apart (docs/language.md, "Names").
_TYPED_VALUES = frozenset({"enum_member", "variant_case"})


def _typed_apart(first: Symbol, kind: str, item: Any, typed: dict) -> bool:
    """Whether a second value named like ``first`` can be told apart by its
    type: an enum member or variant case of another type than every meaning
    the name already has."""
    if first.kind not in _TYPED_VALUES or kind not in _TYPED_VALUES:
        return False
    meanings = typed.get(first.name, (first,))
    if kind == "variant_case" and any(s.kind == "variant_case" for s in meanings):
        return False        # two variants' cases: a match arm could not tell them apart
    return all(s.decl is not item for s in meanings)


def _collect_symbols(items: list[Any], diagnostics: list[Diagnostic],
                     shared: dict[str, Symbol], typed: dict[str, tuple[Symbol, ...]],
                     apart: dict[str, Symbol]) -> dict[str, Symbol]:
    """Every declared name; an enum member named like a state variable goes
    to ``shared`` (a message's kind ``req`` next to a variable ``req``); values
    of different types sharing a name to ``typed``; an action named like a
    value to ``apart`` (the two are never written in the same place)."""
    symbols: dict[str, Symbol] = {}
    for item in items:
        for name, kind, span in _declared_names(item):
            if name in BUILTINS:
                diagnostics.append(Diagnostic(
                    "MC2002", f"'{name}' is a built-in function and cannot be redefined", span,
                    hint="choose another name"))
                continue
            first = symbols.get(name)
            if first is not None and name not in shared \
                    and {first.kind, kind} == {"var", "enum_member"}:
                member = Symbol(name, kind, item, span)
                if kind == "var":
                    member, symbols[name] = first, member
                shared[name] = member
                continue
            if first is not None and _typed_apart(first, kind, item, typed):
                typed[name] = typed.get(name, (first,)) + (Symbol(name, kind, item, span),)
                continue
            if first is not None and name not in apart and "action" in (first.kind, kind) \
                    and {first.kind, kind} - {"action"} <= _TYPED_VALUES \
                    and first.kind != kind:
                action = Symbol(name, kind, item, span)
                if kind != "action":
                    action, symbols[name] = first, action
                apart[name] = action
                continue
            if first is not None:
                diagnostics.append(Diagnostic(
                    "MC2002", f"'{name}' is already defined (as {kind_word(first.kind)})", span,
                    notes=(f"first defined at {first.span}",) if first.span else ()))
                continue
            symbols[name] = Symbol(name, kind, item, span)
    return symbols


def _arm_scope(pattern: ast.Pattern, scope: frozenset[str]) -> frozenset[str]:
    return scope if pattern.binder is None else scope | {pattern.binder.name}


class _NameChecker:
    """Walks every expression and type with the local scopes of the language."""

    def __init__(self, symbols: dict[str, Symbol], count_types: tuple[str, ...],
                 diagnostics: list[Diagnostic]) -> None:
        self.symbols = symbols
        self.count_types = count_types
        self.diagnostics = diagnostics
        self.actions_apart: dict[str, Symbol] = {}
        # parameter name -> the first action declaring it: a property or a
        # constraint naming one gets a hint instead of a bare "unknown name".
        self.action_params: dict[str, str] = {}

    def check_items(self, items: list[Any]) -> None:
        for item in items:
            if isinstance(item, ast.ActionDecl):
                for p in item.params:
                    self.action_params.setdefault(p.name, item.name)
        for item in items:
            if isinstance(item, ast.ConstDecl):
                self.type_expr(item.type)
                self.expr(item.value, frozenset())
            elif isinstance(item, ast.TypeDecl):
                d = item.definition
                if isinstance(d, ast.ModelCountDef):
                    self.expr(d.count, frozenset())
                elif isinstance(d, ast.VariantDef):
                    for case in d.cases:
                        self.type_expr(ast.RecordTypeExpr(case.fields, case.span))
                elif not isinstance(d, (ast.EnumDef, ast.ModelDef)):
                    self.type_expr(d)
            elif isinstance(item, ast.VarDecl):
                self.type_expr(item.type)
                self.expr(item.init, frozenset())
            elif isinstance(item, ast.DefDecl):
                scope = self.params(item.params)
                if item.result is not None:
                    self.type_expr(item.result)
                self.expr(item.body, scope)
            elif isinstance(item, ast.ActionDecl):
                self.block(item.body, self.params(item.params))
            elif isinstance(item, ast.PropertyDecl):
                self.expr(item.expr, frozenset())
            elif isinstance(item, ast.LivenessDecl):
                scope = self.params(item.params)
                if item.p is not None:
                    self.expr(item.p, scope)
                self.expr(item.q, scope)
            elif isinstance(item, ast.FairDecl):
                self.fair(item)

    def fair(self, item: ast.FairDecl) -> None:
        scope = self.fors(item.fors, frozenset())
        for member in (item, *item.also):
            sym = self.symbols.get(member.action)
            if member.action in self.actions_apart:
                sym = self.actions_apart[member.action]
            if sym is None or sym.kind != "action":
                actions = [n for n, s in self.symbols.items() if s.kind == "action"]
                actions.extend(self.actions_apart)
                self._unknown("MC2001", "action", member.action, member.action_span, actions)
            for arg in member.args or ():
                if arg.expr is not None:
                    self.expr(arg.expr, scope)

    def params(self, params: tuple[ast.Param, ...]) -> frozenset[str]:
        seen: dict[str, ast.Param] = {}
        for p in params:
            self.type_expr(p.type)
            if p.name in seen:
                self.diagnostics.append(Diagnostic(
                    "MC2002", f"parameter '{p.name}' is declared twice", p.span,
                    notes=(f"first declared at {seen[p.name].span}",)))
            seen[p.name] = p
        return frozenset(seen)

    # ------------------------------------------------------------ lookups

    def _is_model_value(self, name: str) -> bool:
        return any(model_value_index(name, t) is not None for t in self.count_types)

    def _unknown(self, code: str, what: str, name: str, span: Span | None,
                 candidates: list[str]) -> None:
        hint = did_you_mean(name, candidates)
        self.diagnostics.append(Diagnostic(code, f"unknown {what} '{name}'", span, hint=hint))

    def name(self, name: str, span: Span | None, scope: frozenset[str]) -> None:
        if name in scope or name in self.symbols or self._is_model_value(name):
            return
        if name in BUILTINS:
            self.diagnostics.append(Diagnostic(
                "MC3009", f"'{name}' is a built-in function: call it with arguments", span))
            return
        action = self.action_params.get(name)
        if action is not None:
            self.diagnostics.append(Diagnostic(
                "MC2001", f"unknown name '{name}': it is a parameter of action '{action}'", span,
                hint=f"a parameter exists only inside its action; elsewhere quantify over "
                     f"its type, e.g. all(... for {name} in T)"))
            return
        candidates = sorted(scope) + [n for n, s in self.symbols.items()
                                      if s.kind not in ("action", "property")]
        number = _TRAILING_NUMBER.search(name)
        if number is not None:
            # model(N) values are not symbols (N may be a const): the ones
            # with the word's number are offered, so that `Node1` and `nod1`
            # find `node1` rather than the type `Node`.
            candidates.extend(t.lower() + number.group() for t in self.count_types)
        self._unknown("MC2001", "name", name, span, candidates + list(LITERAL_WORDS))

    def type_expr(self, t: Any) -> None:
        if isinstance(t, ast.NamedTypeExpr):
            sym = self.symbols.get(t.name)
            if sym is None:
                types = [n for n, s in self.symbols.items() if s.kind == "type"]
                builtin = ["bool", "int", "set", "map", "seq", "bag", "option", "tuple"]
                self._unknown("MC2003", "type", t.name, t.span, types + builtin)
            elif sym.kind != "type":
                self.diagnostics.append(Diagnostic(
                    "MC2003", f"'{t.name}' is {kind_word(sym.kind)}, not a type", t.span))
        elif isinstance(t, ast.RangeTypeExpr):
            self.expr(t.lo, frozenset())
            self.expr(t.hi, frozenset())
        elif isinstance(t, ast.SetTypeExpr):
            self.type_expr(t.elem)
            if t.capacity is not None:
                self.expr(t.capacity, frozenset())
        elif isinstance(t, ast.OptionTypeExpr):
            self.type_expr(t.elem)
        elif isinstance(t, ast.MapTypeExpr):
            self.type_expr(t.key)
            self.type_expr(t.value)
        elif isinstance(t, (ast.SeqTypeExpr, ast.BagTypeExpr)):
            self.type_expr(t.elem)
            self.expr(t.capacity, frozenset())
        elif isinstance(t, ast.TupleTypeExpr):
            for e in t.elems:
                self.type_expr(e)
        elif isinstance(t, ast.RecordTypeExpr):
            seen: set[str] = set()
            for f in t.fields:
                if f.name in seen:
                    self.diagnostics.append(Diagnostic(
                        "MC2002", f"field '{f.name}' is declared twice", f.span))
                seen.add(f.name)
                self.type_expr(f.type)

    # ------------------------------------------------------------ statements

    def block(self, stmts: tuple[Any, ...], scope: frozenset[str]) -> None:
        for stmt in stmts:
            if isinstance(stmt, ast.RequireStmt):
                self.expr(stmt.cond, scope)
                scope = scope | _is_binder(stmt.cond)
            elif isinstance(stmt, ast.LetStmt):
                self.expr(stmt.value, scope)
                scope = scope | {stmt.name}
            elif isinstance(stmt, ast.PickStmt):
                self.expr(stmt.domain, scope)
                scope = scope | {stmt.name}
            elif isinstance(stmt, ast.PickEachStmt):
                # x and y are in scope in the witnesses' domain and the filter only
                self.expr(stmt.domain, scope)
                self.expr(stmt.witness_domain, scope | {stmt.var})
                self.expr(stmt.cond, scope | {stmt.var, stmt.witness})
            elif isinstance(stmt, ast.AssignStmt):
                self.name(stmt.target.name, stmt.target.name_span, scope)
                for step in stmt.target.steps:
                    if isinstance(step, ast.LvIndex):
                        self.expr(step.index, scope)
                self.expr(stmt.value, scope)
            elif isinstance(stmt, ast.IfStmt):
                self.expr(stmt.cond, scope)
                self.block(stmt.then, scope | _is_binder(stmt.cond))
                self.block(stmt.else_, scope)
            elif isinstance(stmt, ast.EitherStmt):
                for branch in stmt.branches:
                    self.block(branch, scope)
            elif isinstance(stmt, ast.MatchStmt):
                self.expr(stmt.subject, scope)
                for arm in stmt.arms:
                    self.block(arm.body, _arm_scope(arm.pattern, scope))

    # ------------------------------------------------------------ expressions

    def fors(self, fors: tuple[ast.CompFor, ...], scope: frozenset[str]) -> frozenset[str]:
        for clause in fors:
            self.expr(clause.domain, scope)
            scope = scope | {clause.var}
            if clause.cond is not None:
                self.expr(clause.cond, scope)
        return scope

    def expr(self, e: Any, scope: frozenset[str]) -> None:
        if isinstance(e, ast.NameRef):
            self.name(e.name, e.span, scope)
        elif isinstance(e, ast.PrimedRef):
            sym = self.symbols.get(e.name)
            if sym is None or sym.kind != "var":
                vars_ = [n for n, s in self.symbols.items() if s.kind == "var"]
                self._unknown("MC2001", "state variable", e.name, e.span, vars_)
        elif isinstance(e, (ast.IntLit, ast.BoolLit, ast.NoneLit)):
            return
        elif isinstance(e, ast.BinOp):
            self.expr(e.left, scope)
            self.expr(e.right, scope)
        elif isinstance(e, ast.UnaryOp):
            self.expr(e.operand, scope)
        elif isinstance(e, ast.IfExpr):
            for sub in (e.cond, e.then, e.else_):
                self.expr(sub, scope)
        elif isinstance(e, ast.LetExpr):
            self.expr(e.value, scope)
            self.expr(e.body, scope | {e.name})
        elif isinstance(e, (ast.WithIndex,)):
            for sub in (e.target, e.index, e.value):
                self.expr(sub, scope)
        elif isinstance(e, ast.WithField):
            self.expr(e.target, scope)
            self.expr(e.value, scope)
        elif isinstance(e, ast.Index):
            self.expr(e.target, scope)
            self.expr(e.index, scope)
        elif isinstance(e, ast.Slice):
            for sub in (e.target, e.lo, e.hi):
                if sub is not None:
                    self.expr(sub, scope)
        elif isinstance(e, ast.FieldAccess):
            self.expr(e.target, scope)
        elif isinstance(e, (ast.TupleLit, ast.SeqLit, ast.SetLit)):
            for sub in e.elems:
                self.expr(sub, scope)
        elif isinstance(e, (ast.SetComp, ast.SeqComp)):
            self.expr(e.elem, self.fors(e.fors, scope))
        elif isinstance(e, ast.MapComp):
            inner = self.fors(e.fors, scope)
            self.expr(e.key, inner)
            self.expr(e.value, inner)
        elif isinstance(e, ast.Call):
            self.call_target(e.func, e.func_span, scope)
            for arg in e.args:
                self.expr(arg.value, scope)
        elif isinstance(e, ast.GenCall):
            if e.func not in GEN_BUILTINS:
                self.call_target(e.func, e.func_span, scope)
            self.expr(e.elem, self.fors(e.fors, scope))
        elif isinstance(e, ast.MatchExpr):
            # Pattern case names are checked by the type checker, against the
            # cases of the subject's type (so did-you-mean offers only those).
            self.expr(e.subject, scope)
            for arm in e.arms:
                self.expr(arm.body, _arm_scope(arm.pattern, scope))
        elif isinstance(e, ast.IsTest):
            self.expr(e.subject, scope)
        else:
            raise TypeError(f"not an AST expression: {e!r}")

    def call_target(self, func: str, span: Span | None, scope: frozenset[str]) -> None:
        if func in BUILTINS or func in self.symbols or func in scope or func in SOFT_BUILTINS:
            return
        candidates = sorted(BUILTINS | GEN_BUILTINS) + [
            n for n, s in self.symbols.items() if s.kind in ("def", "type", "variant_case")]
        self._unknown("MC2001", "function", func, span, candidates)


def _is_binder(cond: Any) -> frozenset[str]:
    """The name ``m is C as c`` binds, as the condition of if or require."""
    if isinstance(cond, ast.IsTest) and cond.binder is not None:
        return frozenset({cond.binder})
    return frozenset()
