"""The language server: pygls wiring between the protocol and ``analysis`` /
``navigate``.  Positions convert here, and only here: the compiler counts
lines and columns from 1, the protocol from 0 (both end exclusive).

Analyses run off the protocol's thread (``live``), the input is framed
defensively (``framing``) and logs are coded lines (``logs``): the server
keeps answering whatever its input or its buffers hold."""
from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, version
from typing import Any, BinaryIO

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path
from pygls.workspace import TextDocument

from modelcheck.diagnostics import Diagnostic, Span
from modelcheck.lsp.analysis import Analysis
from modelcheck.lsp.framing import FramedInput
from modelcheck.lsp.live import Live, Text
from modelcheck.lsp.logs import ClientLog, install, logger
from modelcheck.lsp.navigate import completions, fields_at, hover, lookup
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


class _Server(LanguageServer):
    """pygls' server reading its input through ``FramedInput`` (a stream
    that goes out of step is resynchronised) and logging through
    ``ClientLog`` (coded lines, no tracebacks)."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.client_log = ClientLog()

    def start_io(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
        install(self.client_log)
        self.client_log.send = self.window_log_message

        def log(code: str, text: str) -> None:
            logger.warning(text, extra={"code": code})

        super().start_io(FramedInput(stdin or sys.stdin.buffer, log), stdout)


def build_server() -> LanguageServer:
    """A server that answers for ``.mc`` buffers; ``start_io()`` runs it."""
    try:
        server_version = version("modelcheck")
    except PackageNotFoundError:
        server_version = "0"
    server = _Server("modelcheck", server_version,
                     text_document_sync_kind=lsp.TextDocumentSyncKind.Full)

    def publish(uri: str, text: Text, analysis: Analysis) -> None:
        document = server.workspace.get_text_document(uri)
        server.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(
            uri=uri, version=text.version,
            diagnostics=[to_lsp_diagnostic(d, analysis, _encoder(document))
                         for d in analysis.diagnostics]))

    def log(code: str, text: str) -> None:
        logger.error(text, extra={"code": code})

    # The analyses of the open buffers: navigation reads the last one, and a
    # buffer that stops parsing keeps the declarations of the last one that did.
    live = Live(publish, log)

    def text_of(ls: LanguageServer, uri: str) -> Callable[[], Text]:
        def read() -> Text:
            document = ls.workspace.get_text_document(uri)
            return Text(document.source, document.path or uri, document.version)
        return read

    def changed(ls: LanguageServer, uri: str, debounce: bool) -> None:
        # The loop is known from the first message on: logs from the reader's
        # thread reach the client through it.
        server.client_log.loop = asyncio.get_running_loop()
        live.changed(uri, text_of(ls, uri)(), debounce)

    async def current(ls: LanguageServer, uri: str) -> tuple[Analysis, TextDocument] | None:
        """The analysis to answer from, or None for a buffer that is neither
        open nor a readable file (nothing to say about it)."""
        document = ls.workspace.get_text_document(uri)
        try:
            document.source
        except (OSError, ValueError):
            return None
        return await live.current(uri, text_of(ls, uri)), document

    @server.feature(lsp.INITIALIZED)
    def on_initialized(ls: LanguageServer, params: lsp.InitializedParams) -> None:
        server.client_log.loop = asyncio.get_running_loop()

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: LanguageServer, params: lsp.DidOpenTextDocumentParams) -> None:
        changed(ls, params.text_document.uri, debounce=False)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: LanguageServer, params: lsp.DidChangeTextDocumentParams) -> None:
        changed(ls, params.text_document.uri, debounce=True)

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: LanguageServer, params: lsp.DidSaveTextDocumentParams) -> None:
        # Imported files may have changed on disk.
        changed(ls, params.text_document.uri, debounce=False)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: LanguageServer, params: lsp.DidCloseTextDocumentParams) -> None:
        live.closed(params.text_document.uri)
        ls.text_document_publish_diagnostics(
            lsp.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[]))

    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    async def on_hover(ls: LanguageServer, params: lsp.HoverParams) -> lsp.Hover | None:
        if (got := await current(ls, params.text_document.uri)) is None:
            return None
        analysis, document = got
        found = hover(analysis, *_position(document, params.position))
        if found is None:
            return None
        text, where = found
        return lsp.Hover(lsp.MarkupContent(lsp.MarkupKind.Markdown, text),
                         _encoder(document)(to_range(where)))

    @server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
    async def on_definition(ls: LanguageServer,
                            params: lsp.DefinitionParams) -> lsp.Location | None:
        if (got := await current(ls, params.text_document.uri)) is None:
            return None
        analysis, document = got
        found = lookup(analysis, *_position(document, params.position))
        if found is None:
            return None
        decl = found[0]
        if decl.span.file == analysis.path:
            return lsp.Location(params.text_document.uri,
                                _encoder(document)(to_range(decl.span)))
        return _location(decl.span)

    # "." asks for completion at once: what follows it is a field.
    @server.feature(lsp.TEXT_DOCUMENT_COMPLETION, lsp.CompletionOptions(trigger_characters=["."]))
    async def on_completion(ls: LanguageServer,
                            params: lsp.CompletionParams) -> lsp.CompletionList:
        if (got := await current(ls, params.text_document.uri)) is None:
            return lsp.CompletionList(is_incomplete=False, items=[])
        analysis, document = got
        fields = fields_at(analysis, *_position(document, params.position))
        if fields is not None:
            return lsp.CompletionList(is_incomplete=False, items=[
                lsp.CompletionItem(label=name, kind=lsp.CompletionItemKind.Field, detail=typ)
                for name, typ in fields])
        names = completions(analysis, *_position(document, params.position))
        items = [lsp.CompletionItem(label=name, kind=_COMPLETION_KINDS.get(kind),
                                    detail=kind.replace("_", " "))
                 for name, kind in names]
        return lsp.CompletionList(is_incomplete=False, items=items)

    return server
