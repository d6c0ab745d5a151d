"""The language server: pygls wiring between the protocol and ``analysis`` /
``navigate``.  Positions convert here, and only here: the compiler counts
lines and columns from 1, the protocol from 0 (both end exclusive)."""
from __future__ import annotations

import os
from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, version

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path
from pygls.workspace import TextDocument

from modelcheck.diagnostics import Diagnostic, Span
from modelcheck.lsp.analysis import Analysis, analyze
from modelcheck.lsp.navigate import completions, hover, lookup
from modelcheck.syntax import ast

__all__ = ["build_server", "to_lsp_diagnostic", "to_range"]

_COMPLETION_KINDS = {
    "const": lsp.CompletionItemKind.Constant, "type": lsp.CompletionItemKind.Class,
    "enum_member": lsp.CompletionItemKind.EnumMember,
    "model_value": lsp.CompletionItemKind.EnumMember,
    "variant_case": lsp.CompletionItemKind.EnumMember, "var": lsp.CompletionItemKind.Variable,
    "def": lsp.CompletionItemKind.Function, "action": lsp.CompletionItemKind.Method,
    "property": lsp.CompletionItemKind.Property, "param": lsp.CompletionItemKind.Variable,
    "local": lsp.CompletionItemKind.Variable, "builtin": lsp.CompletionItemKind.Function,
    "keyword": lsp.CompletionItemKind.Keyword,
}


def to_range(span: Span | None) -> lsp.Range:
    """A compiler span as a protocol range (the first character when unknown)."""
    if span is None:
        return lsp.Range(lsp.Position(0, 0), lsp.Position(0, 1))
    start = lsp.Position(span.line - 1, span.col - 1)
    end = lsp.Position(span.end_line - 1, span.end_col - 1)
    if (end.line, end.character) <= (start.line, start.character):
        end = lsp.Position(start.line, start.character + 1)
    return lsp.Range(start, end)


def _location(span: Span) -> lsp.Location:
    return lsp.Location(from_fs_path(os.path.abspath(span.file)) or span.file, to_range(span))


def to_lsp_diagnostic(diag: Diagnostic, analysis: Analysis,
                      encode: Callable[[lsp.Range], lsp.Range] = lambda r: r) -> lsp.Diagnostic:
    """One compiler diagnostic as the editor shows it: notes and the hint in
    the message.  A problem in an imported file is shown on the import that
    brings it in, with its own place as related information.  ``encode``
    turns a range of the buffer into the client's units."""
    lines = [diag.message, *(f"note: {n}" for n in diag.notes)]
    if diag.hint:
        lines.append(f"hint: {diag.hint}")
    span, related = diag.span, None
    if span is not None and span.file != analysis.path:
        lines[0] = f"{span}: {diag.message}"
        related = [lsp.DiagnosticRelatedInformation(_location(span), diag.message)]
        span = _import_span(analysis, span.file)
    severity = (lsp.DiagnosticSeverity.Warning if diag.severity == "warning"
                else lsp.DiagnosticSeverity.Error)
    return lsp.Diagnostic(range=encode(to_range(span)), message="\n".join(lines),
                          severity=severity, code=diag.code, source="modelcheck",
                          related_information=related)


def _import_span(analysis: Analysis, file: str) -> Span | None:
    """The buffer's import of ``file`` (or its first import: ``file`` may be
    imported through another one)."""
    imports = [i for i in (analysis.module.items if analysis.module else ())
               if isinstance(i, ast.ImportDecl) and i.span is not None]
    wanted = os.path.splitext(os.path.basename(file))[0]
    direct = [i for i in imports if i.name == wanted]
    chosen = (direct or imports or [None])[0]
    return chosen.span if chosen is not None else None


def _position(document: TextDocument, pos: lsp.Position) -> tuple[int, int]:
    """A client position as the compiler's line and column: the client counts
    UTF-16 units by default, the compiler characters."""
    server_pos = document.position_codec.position_from_client_units(document.lines, pos)
    return server_pos.line + 1, server_pos.character + 1


def _encoder(document: TextDocument) -> Callable[[lsp.Range], lsp.Range]:
    return lambda r: document.position_codec.range_to_client_units(document.lines, r)


def build_server() -> LanguageServer:
    """A server that answers for ``.mc`` buffers; ``start_io()`` runs it."""
    try:
        server_version = version("modelcheck")
    except PackageNotFoundError:
        server_version = "0"
    server = LanguageServer("modelcheck", server_version,
                            text_document_sync_kind=lsp.TextDocumentSyncKind.Full)
    # The last analysis of each open buffer, by URI: navigation reads it, and a
    # buffer that stops parsing keeps the declarations of the last one that did.
    analyses: dict[str, Analysis] = {}

    def refresh(ls: LanguageServer, uri: str) -> None:
        document = ls.workspace.get_text_document(uri)
        path = document.path or uri
        analysis = analyze(document.source, path, analyses.get(uri))
        analyses[uri] = analysis
        ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(
            uri=uri, version=document.version,
            diagnostics=[to_lsp_diagnostic(d, analysis, _encoder(document))
                         for d in analysis.diagnostics]))

    def current(ls: LanguageServer, uri: str) -> tuple[Analysis, TextDocument]:
        if uri not in analyses:
            refresh(ls, uri)
        return analyses[uri], ls.workspace.get_text_document(uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: LanguageServer, params: lsp.DidOpenTextDocumentParams) -> None:
        refresh(ls, params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: LanguageServer, params: lsp.DidChangeTextDocumentParams) -> None:
        refresh(ls, params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: LanguageServer, params: lsp.DidSaveTextDocumentParams) -> None:
        # Imported files may have changed on disk.
        refresh(ls, params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: LanguageServer, params: lsp.DidCloseTextDocumentParams) -> None:
        analyses.pop(params.text_document.uri, None)
        ls.text_document_publish_diagnostics(
            lsp.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[]))

    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    def on_hover(ls: LanguageServer, params: lsp.HoverParams) -> lsp.Hover | None:
        analysis, document = current(ls, params.text_document.uri)
        found = hover(analysis, *_position(document, params.position))
        if found is None:
            return None
        text, where = found
        return lsp.Hover(lsp.MarkupContent(lsp.MarkupKind.Markdown, text),
                         _encoder(document)(to_range(where)))

    @server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
    def on_definition(ls: LanguageServer, params: lsp.DefinitionParams) -> lsp.Location | None:
        analysis, document = current(ls, params.text_document.uri)
        found = lookup(analysis, *_position(document, params.position))
        if found is None:
            return None
        decl = found[0]
        if decl.span.file == analysis.path:
            return lsp.Location(params.text_document.uri,
                                _encoder(document)(to_range(decl.span)))
        return _location(decl.span)

    @server.feature(lsp.TEXT_DOCUMENT_COMPLETION)
    def on_completion(ls: LanguageServer, params: lsp.CompletionParams) -> lsp.CompletionList:
        analysis, document = current(ls, params.text_document.uri)
        names = completions(analysis, *_position(document, params.position))
        items = [lsp.CompletionItem(label=name, kind=_COMPLETION_KINDS.get(kind),
                                    detail=kind.replace("_", " "))
                 for name, kind in names]
        return lsp.CompletionList(is_incomplete=False, items=items)

    return server
