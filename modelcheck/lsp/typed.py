"""Types the compiled model knows and the syntax tree does not: those of
local names (``let``, ``pick``, ``match ... as``), the model values that
``model(N)`` generates, and the fields of what is written before a ``.``.

The type checker renames binders (``x``, ``x_2``...) and inlines defs, so a
local is found in the IR by the span of the statement or expression that
binds it, and by its name up to that renaming.  Pure functions of an
``Analysis``; positions are the compiler's (1-based)."""
from __future__ import annotations

import re
from dataclasses import fields, is_dataclass
from typing import Any

from modelcheck.diagnostics import Span
from modelcheck.ir import nodes as ir
from modelcheck.ir import types as T
from modelcheck.ir.types import render_type
from modelcheck.lsp.analysis import Analysis, Decl
from modelcheck.syntax import ast

__all__ = ["local_type", "generated_value", "generated_values", "field_completions",
           "type_of_name"]

_IDENT_END = re.compile(r"[A-Za-z_][A-Za-z0-9_]*$")
_PARTIAL = re.compile(r"[A-Za-z0-9_]*$")
_SpanKey = tuple[str, int, int]

# One model's index at a time: the server asks about the latest analysis
# again and again, and an index of an older model is never asked for again.
_cached: tuple[Any, dict[_SpanKey, list[tuple[str, T.Type]]]] | None = None


def _key(span: Span | None) -> _SpanKey | None:
    if span is None:
        return None
    # The start alone: the IR's span of an inlined def's ``let ... ;`` ends
    # elsewhere than the tree's, and no two binders start at one place.
    return (span.file, span.line, span.col)


def _binder_index(model: ir.Model) -> dict[_SpanKey, list[tuple[str, T.Type]]]:
    """IR binders by the span of their binding node: (IR name, type) each."""
    global _cached
    if _cached is not None and _cached[0] is model:
        return _cached[1]
    index: dict[_SpanKey, list[tuple[str, T.Type]]] = {}
    seen: set[int] = set()
    # Consts, named types and sources hold no binders, and const values may be large.
    stack: list[Any] = [model.vars, model.actions, model.properties, model.terminals,
                        model.constraints, model.temporals, model.fairness]
    while stack:
        node = stack.pop()
        if isinstance(node, tuple):
            stack.extend(node)
            continue
        if not is_dataclass(node) or isinstance(node, (type, Span)) \
                or type(node).__module__ == T.__name__:
            continue
        # Inlined defs share subtrees: each is walked once.
        if id(node) in seen:
            continue
        seen.add(id(node))
        bound: T.Type | None = None
        if isinstance(node, (ir.Let, ir.LetExpr)):
            bound = node.value.type
        elif isinstance(node, ir.Pick) and isinstance(node.domain.type, T.SetType):
            bound = node.domain.type.elem
        key = _key(getattr(node, "span", None))
        if bound is not None and key is not None:
            index.setdefault(key, []).append((node.name, bound))
        stack.extend(getattr(node, f.name) for f in fields(node))
    _cached = (model, index)
    return index


def _renamed(ir_name: str, name: str) -> bool:
    return ir_name == name or re.fullmatch(re.escape(name) + r"_\d+", ir_name) is not None


def _local_types(model: ir.Model | None, decl: Decl, narrow: bool = True) -> list[T.Type]:
    if model is None or decl.kind != "local" or decl.owner not in ("let", "pick", "match"):
        return []
    found = _binder_index(model).get(_key(decl.item.span) or ("", 0, 0), [])
    out: list[T.Type] = []
    for ir_name, typ in found:
        if _renamed(ir_name, decl.name) and typ not in out:
            out.append(typ)
    if narrow and decl.owner == "pick" and getattr(decl.item, "case", None):
        # ``pick m: C in S``: m is read as case C (its fields are C's).
        out = [t.case_type(decl.item.case) if isinstance(t, T.VariantType) else t for t in out]
    return out


def local_type(model: ir.Model | None, decl: Decl) -> str | None:
    """The type of a ``let``, ``pick`` or ``match ... as`` local as the model
    has it; a def's local, inlined where the def is called with arguments of
    different types, lists each.  None when the model has no trace of it (a
    def never called, a buffer that did not compile)."""
    types = _local_types(model, decl, narrow=False)
    case = getattr(decl.item, "case", None) if decl.owner == "pick" else None
    if case:
        return " or ".join(f"{render_type(t)}, case {_render_local(t.case_type(case))}"
                           if isinstance(t, T.VariantType) else render_type(t) for t in types) \
            or None
    return " or ".join(_render_local(t) for t in types) if types else None


def _render_local(t: T.Type) -> str:
    # A named record (a match arm's case, a record type) by its fields too:
    # its name alone says nothing about what ``.`` may read.
    if isinstance(t, T.RecordType) and t.name:
        inner = ", ".join(f"{n}: {render_type(ft)}" for n, ft in t.fields)
        return f"{t.name} {{{inner}}}" if inner else t.name
    return render_type(t)


def generated_values(analysis: Analysis) -> list[Decl]:
    """The model values of each ``model(N)`` type, when the model is known."""
    model = analysis.model
    if model is None:
        return []
    named = dict(model.types)
    out: list[Decl] = []
    for decl in analysis.decls:
        if decl.kind == "type" and isinstance(decl.item.definition, ast.ModelCountDef):
            typ = named.get(decl.name)
            for member in (typ.members if isinstance(typ, T.ModelType) else ()):
                out.append(_value_decl(member, decl))
    return out


def _value_decl(name: str, type_decl: Decl) -> Decl:
    # A generated value is declared by the ``model(N)`` that makes it.
    span = type_decl.item.definition.span or type_decl.span
    return Decl(name, "model_value", span, type_decl.item, type_decl.name)


def generated_value(analysis: Analysis, name: str) -> Decl | None:
    """The declaration of ``name`` if it is a value a ``model(N)`` type
    generates (``node3`` of ``type Node = model(N)``).  Without a model the
    count is unknown and any index is taken."""
    for decl in analysis.decls:
        if decl.kind != "type" or not isinstance(decl.item.definition, ast.ModelCountDef):
            continue
        if re.fullmatch(re.escape(decl.name.lower()) + r"[1-9][0-9]*", name) is None:
            continue
        # While the buffer does not compile, the last count there was.
        model = analysis.model or analysis.last_model
        typ = dict(model.types).get(decl.name) if model is not None else None
        if isinstance(typ, T.ModelType) and name not in typ.members:
            continue
        return _value_decl(name, decl)
    return None


def type_of_name(analysis: Analysis, decl: Decl) -> T.Type | None:
    """The type of a state variable, const, parameter or local, from the
    model of the buffer or, while it does not compile, of the last one that did."""
    model = analysis.model or analysis.last_model
    if model is None:
        return None
    if decl.kind == "var":
        return next((v.type for v in model.vars if v.name == decl.name), None)
    if decl.kind == "const":
        return next((t for n, t, _ in model.consts if n == decl.name), None)
    if decl.kind == "param":
        for holder in (*model.actions, *model.temporals):
            if holder.name == decl.owner:
                return next((p.type for p in holder.params if p.name == decl.name), None)
        return None
    types = _local_types(model, decl)
    return types[0] if len(types) == 1 else None


def _chain_before_dot(text: str) -> list[str] | None:
    """The name and the accesses written before a ``.`` that ends ``text``
    (``m.body[k].`` -> ["m", ".body", "[]"]), or None when ``text`` does not
    end in a field access."""
    if not text.endswith(".") or text.endswith(".."):
        return None
    parts: list[str] = []
    rest = text[:-1].rstrip()
    while True:
        if rest.endswith("]"):
            depth, i = 0, len(rest) - 1
            while i >= 0:
                depth += {"]": 1, "[": -1}.get(rest[i], 0)
                if depth == 0:
                    break
                i -= 1
            if i < 0:
                return None
            parts.append("[]")
            rest = rest[:i].rstrip()
            continue
        found = _IDENT_END.search(rest)
        if found is None or (found.start() > 0 and rest[found.start() - 1].isdigit()):
            return None
        rest = rest[:found.start()]
        if rest.endswith(".") and not rest.endswith(".."):
            parts.append("." + found.group())
            rest = rest[:-1].rstrip()
            continue
        parts.append(found.group())
        return parts[::-1]


def _step(typ: T.Type | None, part: str) -> T.Type | None:
    if part == "[]":
        if isinstance(typ, T.MapType):
            return typ.value
        if isinstance(typ, T.SeqType):
            return typ.elem
        return None
    name = part[1:]
    if isinstance(typ, T.RecordType):
        return next((t for n, t in typ.fields if n == name), None)
    if isinstance(typ, T.VariantType):
        # A field of a variant value is read where it is narrowed to one
        # case; the first case that has the field says its type.
        for _, case in typ.cases:
            found = next((t for n, t in case.fields if n == name), None)
            if found is not None:
                return found
    return None


def field_completions(analysis: Analysis, line: int, col: int,
                      locals_at: list[Decl]) -> list[tuple[str, str]] | None:
    """(field, its type) for each field that may follow the ``.`` before the
    cursor (``r.`` or ``r.fi``); None when the cursor is not after a ``.``.
    A variant value not narrowed to a case offers every case's fields, each
    with its case.  ``locals_at`` are the local names in scope there."""
    lines = analysis.source.splitlines()
    if not 1 <= line <= len(lines):
        return None
    before = lines[line - 1][:col - 1]
    if "#" in before:
        return None
    before = before[:_PARTIAL.search(before).start()]
    chain = _chain_before_dot(before)
    if chain is None:
        return None
    head = chain[0]
    decl = next((d for d in locals_at if d.name == head), None) \
        or next((d for d in analysis.decls if d.name == head and d.kind in ("var", "const")),
                None)
    typ = type_of_name(analysis, decl) if decl is not None else None
    for part in chain[1:]:
        typ = _step(typ, part)
    if isinstance(typ, T.RecordType):
        return [(name, render_type(t)) for name, t in typ.fields]
    if isinstance(typ, T.VariantType):
        return [(name, f"{render_type(t)} ({case})")
                for case, record in typ.cases for name, t in record.fields]
    return []
