"""Questions about a position in a spec: which name is there, where it is
declared, what its type is, and which names may be written there.

Positions are the compiler's: 1-based line and column.  Pure functions of an
``Analysis``; the server converts to and from the protocol's positions."""
from __future__ import annotations

import re
from dataclasses import dataclass, fields, is_dataclass
from typing import Any

from modelcheck.diagnostics import Span
from modelcheck.ir.types import render_type
from modelcheck.ir.values import render_value
from modelcheck.lsp.analysis import Analysis, Decl, name_span
from modelcheck.lsp.typed import field_completions, generated_value, generated_values, local_type
from modelcheck.semantics.names import BUILTINS
from modelcheck.syntax import ast
from modelcheck.syntax.parser import keywords

__all__ = ["word_at", "lookup", "hover", "completions", "fields_at", "CONTEXTUAL_WORDS"]

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: Words the grammar reads as keywords only in one place (regex terminals and
#: ``fair``'s kind), so ``keywords()`` does not list them.
CONTEXTUAL_WORDS = ("eventually", "always", "leads to", "weak", "strong")
_LOCAL_WORDS = {ast.LetStmt: "let", ast.LetExpr: "let", ast.PickStmt: "pick"}


@dataclass(frozen=True)
class _Binder:
    decl: Decl
    scope: Span


def word_at(source: str, line: int, col: int) -> tuple[str, Span] | None:
    """The name at ``line``/``col`` (the cursor may sit just after it) and its
    span; None in a comment, on a record field (``m.kind``), or off any name."""
    lines = source.splitlines()
    if not 1 <= line <= len(lines):
        return None
    text = lines[line - 1]
    for match in _IDENT.finditer(text):
        if match.start() + 1 <= col <= match.end() + 1:
            before = text[:match.start()]
            if "#" in before or match.group()[0].isdigit():
                return None
            stripped = before.rstrip()
            if stripped.endswith(".") and not stripped.endswith(".."):
                return None
            return match.group(), Span("", line, match.start() + 1, line, match.end() + 1)
    return None


def _contains(span: Span | None, line: int, col: int) -> bool:
    if span is None:
        return False
    return (span.line, span.col) <= (line, col) <= (span.end_line, span.end_col)


def _enclosing_item(analysis: Analysis, line: int, col: int) -> Any:
    if analysis.module is None:
        return None
    return next((item for item in analysis.module.items
                 if _contains(item.span, line, col) and item.span.file == analysis.path), None)


def _binders(item: Any) -> list[_Binder]:
    """The local names an item declares (parameters, let, pick, for and match
    binders), each with the region where it can be used."""
    out: list[_Binder] = []
    owner = getattr(item, "name", "")
    end = item.span

    def visit(node: Any, parent: Any) -> None:
        if isinstance(node, tuple):
            for child in node:
                visit(child, parent)
            return
        if not is_dataclass(node) or isinstance(node, Span):
            return
        if isinstance(node, ast.Param) and node.span:
            out.append(_Binder(Decl(node.name, "param", name_span(node.span, node.name), node,
                                    owner), item.span))
        elif isinstance(node, (ast.LetStmt, ast.PickStmt)) and node.name_span:
            # A statement's name is in scope up to the end of the declaration.
            scope = Span(end.file, node.span.line, node.span.col, end.end_line, end.end_col)
            out.append(_Binder(Decl(node.name, "local", node.name_span, node,
                                    _LOCAL_WORDS[type(node)]), scope))
        elif isinstance(node, ast.PickEachStmt):
            # ``pick each x in S: y in T if P``: x and y name nothing after
            # the statement (x is read in T and P, y in P).
            for name, span in ((node.var, node.var_span), (node.witness, node.witness_span)):
                if span is not None:
                    out.append(_Binder(Decl(name, "local", span, node, "pick"), node.span))
        elif isinstance(node, ast.LetExpr) and node.name_span:
            out.append(_Binder(Decl(node.name, "local", node.name_span, node, "let"), node.span))
        elif isinstance(node, ast.CompFor) and node.var_span:
            # The element of a comprehension is written before its ``for``.
            scope = getattr(parent, "span", None) or item.span
            out.append(_Binder(Decl(node.var, "local", node.var_span, node, "for"), scope))
        elif isinstance(node, (ast.MatchArm, ast.MatchStmtArm)) and node.pattern.binder \
                and node.pattern.binder.span:
            binder = node.pattern.binder
            out.append(_Binder(Decl(binder.name, "local", binder.span, node, "match"), node.span))
        for f in fields(node):
            visit(getattr(node, f.name), node)

    visit(item, None)
    return out


def _locals_at(analysis: Analysis, line: int, col: int) -> list[Decl]:
    """The local names in scope at a position, innermost first."""
    item = _enclosing_item(analysis, line, col)
    if item is None:
        return []
    inside = [b for b in _binders(item) if _contains(b.scope, line, col)]
    inside.sort(key=lambda b: (b.scope.line, b.scope.col), reverse=True)
    return [b.decl for b in inside]


def lookup(analysis: Analysis, line: int, col: int) -> tuple[Decl, Span] | None:
    """The declaration of the name at a position (a local one first, as the
    compiler resolves it), and the span of the name under the cursor."""
    found = word_at(analysis.source, line, col)
    if found is None:
        return None
    name, where = found
    for decl in _locals_at(analysis, line, col):
        if decl.name == name:
            return decl, where
    matches = [d for d in analysis.decls if d.name == name]
    on_decl = [d for d in matches if d.span.file == analysis.path and _contains(d.span, line, col)]
    # A state variable wins over an enum member of the same name, as in resolve.
    matches.sort(key=lambda d: d.kind != "var")
    chosen = (on_decl or matches or [None])[0]
    if chosen is None:
        chosen = generated_value(analysis, name)
    return (chosen, where) if chosen is not None else None


def _slice(text: str | None, span: Span | None) -> str:
    if text is None or span is None:
        return ""
    lines = text.splitlines()[span.line - 1:span.end_line]
    if not lines:
        return ""
    if len(lines) == 1:
        return lines[0][span.col - 1:span.end_col - 1]
    lines[-1] = lines[-1][:span.end_col - 1]
    lines[0] = lines[0][span.col - 1:]
    return "\n".join(lines)


def _first_line(analysis: Analysis, decl: Decl) -> str:
    """The declaration's first line, without the ``{`` or ``=`` that opens its body."""
    text = _slice(analysis.text_of(decl.span.file), decl.item.span).splitlines()
    line = text[0].rstrip() if text else decl.name
    for opener in ("{", "="):
        if line.endswith(opener):
            line = line[:-1].rstrip()
    return line


def _ir_var_type(analysis: Analysis, name: str) -> str | None:
    model = analysis.model
    if model is None:
        return None
    return next((render_type(v.type) for v in model.vars if v.name == name), None)


def _ir_param_type(analysis: Analysis, owner: str, name: str) -> str | None:
    model = analysis.model
    if model is None:
        return None
    for holder in (*model.actions, *model.temporals):
        if holder.name == owner:
            return next((render_type(p.type) for p in holder.params if p.name == name), None)
    return None


def _signature(analysis: Analysis, decl: Decl) -> str:
    """The code line of a hover: the name with its type or its declaration."""
    kind, name, item = decl.kind, decl.name, decl.item
    text = analysis.text_of(decl.span.file)
    if kind == "var":
        typ = _ir_var_type(analysis, name) or _slice(text, item.type.span)
        return f"var {name}: {typ}"
    if kind == "const":
        model = analysis.model
        for const_name, typ, value in (model.consts if model else ()):
            if const_name == name:
                return f"const {name}: {render_type(typ)} = {render_value(typ, value)}"
        return _first_line(analysis, decl)
    if kind == "type":
        whole = _slice(text, item.span)
        return whole if whole.count("\n") < 8 else _first_line(analysis, decl)
    if kind in ("enum_member", "model_value"):
        return f"{name}: {decl.owner}"
    if kind == "variant_case":
        case = next(c for c in item.definition.cases if c.name == name)
        return f"{_slice(text, case.span)}: {decl.owner}"
    if kind == "param":
        typ = _ir_param_type(analysis, decl.owner, name) or _slice(text, item.type.span)
        return f"{name}: {typ}"
    if kind == "local":
        typ = local_type(analysis.model, decl)
        return f"{decl.owner} {name}: {typ}" if typ else f"{decl.owner} {name}"
    return _first_line(analysis, decl)


_KIND_WORDS = {"const": "const", "type": "type", "enum_member": "enum member",
               "model_value": "model value", "variant_case": "variant case",
               "var": "state variable", "def": "def", "action": "action",
               "property": "property", "param": "parameter", "local": "local name"}


def hover(analysis: Analysis, line: int, col: int) -> tuple[str, Span] | None:
    """Markdown for the name at a position (its type or its declaration), and
    the span of the name."""
    found = lookup(analysis, line, col)
    if found is None:
        return None
    decl, where = found
    what = _KIND_WORDS[decl.kind]
    if decl.kind == "param":
        what += f" of `{decl.owner}`"
    where_declared = "" if decl.span.file == analysis.path else f" (from `{decl.span.file}`)"
    return f"```modelcheck\n{_signature(analysis, decl)}\n```\n{what}{where_declared}", where


def completions(analysis: Analysis, line: int, col: int) -> list[tuple[str, str]]:
    """(name, kind) of every name that may be written at a position: the
    local names in scope, the spec's declarations, built-ins and keywords."""
    out: dict[str, str] = {}
    for decl in (*_locals_at(analysis, line, col), *analysis.decls, *generated_values(analysis)):
        out.setdefault(decl.name, decl.kind)
    for name in sorted(BUILTINS):
        out.setdefault(name, "builtin")
    for word in (*sorted(keywords()), *CONTEXTUAL_WORDS):
        out.setdefault(word, "keyword")
    return list(out.items())


def fields_at(analysis: Analysis, line: int, col: int) -> list[tuple[str, str]] | None:
    """(field, type) of each field that may be written after the ``.`` before
    the cursor (``r.``, ``r.fi``, ``m[k].``); None when the cursor does not
    follow a ``.``, and then ``completions`` answers."""
    return field_completions(analysis, line, col, _locals_at(analysis, line, col))
