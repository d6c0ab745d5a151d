"""One pass of the compiler over an editor's buffer, kept for the questions an
editor asks next (hover, definition, completion).

Pure: no LSP types and no I/O beyond reading imported files, so it is tested
without a server.  Positions here are the compiler's (1-based, end exclusive);
the server converts them to the protocol's."""
from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from modelcheck.diagnostics import Diagnostic, Span
from modelcheck.errors import CompileError
from modelcheck.ir.nodes import Model
from modelcheck.semantics.names import resolve
from modelcheck.semantics.typecheck import typecheck
from modelcheck.syntax import ast
from modelcheck.syntax.parser import parse
from modelcheck.syntax.source import read_source

__all__ = ["Decl", "Analysis", "Superseded", "analyze", "declarations", "name_span"]


class Superseded(Exception):
    """The buffer changed while it was analysed: the analysis stopped."""


@dataclass(frozen=True)
class Decl:
    """One name a spec declares.  ``kind``: const, type, enum_member,
    model_value, variant_case, var, def, action, property, param or local;
    ``span`` is the name's; ``item`` the declaring node (the TypeDecl for
    enum members and cases, the Param for a parameter); ``owner`` the type
    or action/def a member or parameter belongs to."""
    name: str
    kind: str
    span: Span
    item: Any
    owner: str = ""


@dataclass(frozen=True)
class Analysis:
    """The buffer at ``path`` after one compile.  ``module`` and ``decls`` come
    from the last buffer that parsed (a buffer being typed often does not), so
    navigation keeps working; ``model`` is set only when this buffer compiled.
    ``last_model`` is the model of the last buffer that compiled (this one's
    when it did): completing ``r.`` asks it for the type of ``r`` while the
    buffer, half typed, does not compile."""
    path: str
    source: str
    diagnostics: tuple[Diagnostic, ...]
    module: ast.Module | None
    decls: tuple[Decl, ...]
    model: Model | None
    sources: dict[str, str] = field(default_factory=dict)
    last_model: Model | None = None

    def text_of(self, file: str) -> str | None:
        """The text of ``file``: this buffer or an imported file."""
        return self.source if file == self.path else self.sources.get(file)


def analyze(source: str, path: str, previous: Analysis | None = None,
            stale: Callable[[], bool] | None = None) -> Analysis:
    """Parse, resolve and type-check ``source`` as the file at ``path`` (the
    phases of ``pipeline.load_source``, run one by one to keep the tree;
    imports are read from its folder), collecting diagnostics instead of
    raising.  ``previous`` supplies the declarations when ``source`` does not parse.
    ``stale()`` is asked between phases: true raises Superseded (a newer
    text is waiting, so the rest of this one's work would be thrown away)."""
    def check() -> None:
        if stale is not None and stale():
            raise Superseded()

    try:
        module = parse(source, path)
    except CompileError as err:
        old_module = previous.module if previous else None
        old_decls = previous.decls if previous else ()
        old_sources = previous.sources if previous else {}
        return Analysis(path, source, tuple(err.diagnostics), old_module, old_decls, None,
                        old_sources, previous.last_model if previous else None)
    check()
    imported, sources = _imported_items(module, path)
    decls = tuple(declarations(imported) + declarations(list(module.items)))
    model = None
    try:
        resolved = resolve(module, path, source)
        check()
        model = typecheck(resolved, None)
        diagnostics: tuple[Diagnostic, ...] = ()
    except CompileError as err:
        diagnostics = tuple(err.diagnostics)
        sources.update({p: t for p, t in err.sources.items() if p != path})
    last_model = model or (previous.last_model if previous else None)
    return Analysis(path, source, diagnostics, module, decls, model, sources, last_model)


def _imported_items(module: ast.Module, path: str) -> tuple[list[Any], dict[str, str]]:
    """The declarations of the files ``module`` imports, transitively, and
    their texts.  Unlike ``resolve`` it never fails: an unreadable or broken
    file contributes nothing (resolve reports it), so a name error in the
    buffer does not hide imported names from navigation."""
    items: list[Any] = []
    sources: dict[str, str] = {}
    seen = {os.path.normpath(path)}
    pending = [(module, path)]
    while pending:
        current, current_path = pending.pop(0)
        folder = os.path.dirname(current_path)
        for imp in (i for i in current.items if isinstance(i, ast.ImportDecl)):
            target = os.path.join(folder, imp.name + ".mc")
            if os.path.normpath(target) in seen:
                continue
            seen.add(os.path.normpath(target))
            try:
                text = read_source(target)
                imported = parse(text, target)
            except (OSError, CompileError):
                continue
            sources[target] = text
            items.extend(i for i in imported.items if not isinstance(i, ast.ImportDecl))
            pending.append((imported, target))
    return items, sources


def name_span(span: Span, name: str) -> Span:
    """The span of ``name`` written at the start of ``span`` (a parameter)."""
    return Span(span.file, span.line, span.col, span.line, span.col + len(name))


def declarations(items: list[Any]) -> list[Decl]:
    """Every global name the declarations introduce, in source order."""
    out: list[Decl] = []
    for item in items:
        span = getattr(item, "name_span", None)
        if isinstance(item, ast.ConstDecl) and span:
            out.append(Decl(item.name, "const", span, item))
        elif isinstance(item, ast.TypeDecl) and span:
            out.append(Decl(item.name, "type", span, item))
            out.extend(_members(item))
        elif isinstance(item, ast.VarDecl) and span:
            out.append(Decl(item.name, "var", span, item))
        elif isinstance(item, ast.DefDecl) and span:
            out.append(Decl(item.name, "def", span, item))
        elif isinstance(item, ast.ActionDecl) and span:
            out.append(Decl(item.name, "action", span, item))
        elif isinstance(item, (ast.PropertyDecl, ast.LivenessDecl)) and span:
            out.append(Decl(item.name, "property", span, item))
    return out


def _members(item: ast.TypeDecl) -> list[Decl]:
    definition = item.definition
    if isinstance(definition, ast.EnumDef):
        return [Decl(m.name, "enum_member", m.span, item, item.name)
                for m in definition.members if m.span]
    if isinstance(definition, ast.ModelDef):
        return [Decl(m.name, "model_value", m.span, item, item.name)
                for m in definition.members if m.span]
    if isinstance(definition, ast.VariantDef):
        # A case's span covers its fields too; its name is written first.
        return [Decl(c.name, "variant_case", name_span(c.span, c.name), item, item.name)
                for c in definition.cases if c.span]
    return []
