"""After a syntax error: what to report, and where the parser goes on.

The parser skips the declaration that holds an error and parses the rest, so
one run reports the syntax errors of several declarations.  Two mistakes
show only in the declaration after them: a missing '}' (LALR notices it at
the next declaration, or further in when the '}' of an outer block closed an
inner one) and an unfinished declaration (`var x: T =` then the next `var`).
Each is reported once, the missing '}' naming the block left open, and the
parser goes on from the next declaration instead of failing again at each
later one.
"""
from __future__ import annotations

import re

from lark import Lark, Token
from lark.exceptions import UnexpectedEOF, UnexpectedInput, UnexpectedToken

from modelcheck.diagnostics import Diagnostic, Span
from modelcheck.syntax.blocks import Unclosed, line_col, unclosed_block
from modelcheck.syntax.messages import (accepted_tokens, describe_expected, describe_found,
                                        describe_syntax_error, end_span)

__all__ = ["MAX_SYNTAX_ERRORS", "collect_syntax_errors"]

#: How many syntax errors one parse reports before it gives up.
MAX_SYNTAX_ERRORS = 10

_ITEM_WORDS = ("const", "type", "symmetric", "var", "def", "action", "invariant", "constraint",
               "step", "sometimes", "terminal", "import", "liveness", "fair")

# A top-level declaration starts a line with one of these keywords: where the
# parser resumes after a syntax error.
_ITEM_START = re.compile(rf"^({'|'.join(_ITEM_WORDS)})\b", re.MULTILINE)
_HEADER = re.compile(r"(\s|#[^\n]*)*module\s+\w+")


def collect_syntax_errors(parser: Lark, source: str, path: str,
                          first: UnexpectedInput) -> list[Diagnostic]:
    """The diagnostics of every broken declaration, ``first`` the parser's first error."""
    diag, text = _diagnose(parser, first, source, source, path)
    diagnostics = [diag]
    if diag.message == "a spec starts with its 'module' line":
        return diagnostics      # every later declaration would repeat it
    while len(diagnostics) < MAX_SYNTAX_ERRORS and text is not None:
        try:
            parser.parse(text)
            break
        except UnexpectedInput as again:
            diag, text = _diagnose(parser, again, text, source, path)
            if diag in diagnostics:
                break
            diagnostics.append(diag)
    return diagnostics


def _diagnose(parser: Lark, error: UnexpectedInput, text: str, source: str,
              path: str) -> tuple[Diagnostic, str | None]:
    """The diagnostic for ``error``, found parsing ``text`` (``source`` with the
    declarations reported so far blanked out), and the text to parse next
    (None: nothing left to parse)."""
    for special in (_missing_brace, _unfinished_declaration):
        found = special(parser, error, text, source, path)
        if found is not None:
            return found
    return describe_syntax_error(parser, error, source, path), _blank_failed_item(text, error)


def _missing_brace(parser: Lark, error: UnexpectedInput, text: str, source: str,
                   path: str) -> tuple[Diagnostic, str | None] | None:
    if not isinstance(error, UnexpectedToken):
        return None
    tok = error.token
    at_end = tok.type == "$END"
    offset = len(text) if at_end else (tok.start_pos or 0)
    starts = [m.start() for m in _ITEM_START.finditer(text)]
    first = _header_end(text)
    if at_end or (str(tok) in _ITEM_WORDS and tok.type != "NAME"):
        # The parser met the next declaration (or the end) inside a block.
        if "}" not in accepted_tokens(parser, error):
            return None
        lo = max([s for s in starts if s < offset], default=first)
        found = unclosed_block(text, lo, offset)
        if found is None:
            return None
        resume = None if at_end else _blank(text, lo, offset)
    else:
        # An error inside a declaration is put down to a missing '}' only when
        # a '}' before it is indented as an outer block but closed an inner
        # one, and the declaration's braces do not balance.
        lo = max([s for s in starts if s <= offset], default=first)
        hi = min([s for s in starts if s > offset], default=len(text))
        found = unclosed_block(text, lo, hi)
        if found is None or found.closer is None or found.closer > offset:
            return None
        resume = _blank_failed_item(text, error)
    return _describe(parser, found, tok, text, source, path), resume


def _unfinished_declaration(parser: Lark, error: UnexpectedInput, text: str, source: str,
                            path: str) -> tuple[Diagnostic, str | None] | None:
    """`var x: 0..3 =` then `var y ...`: the parser fails in the next
    declaration (where no keyword fits, the lexer even reads its keyword as a
    name, `= var`), and skipping that one would fail again at each later
    declaration.  When the declaration before the failing one does not parse
    on its own, the error is said at the keyword, with what that declaration
    expected, and the parser resumes at the keyword."""
    if not isinstance(error, UnexpectedToken) or error.token.type == "$END":
        return None
    offset = error.token.start_pos or 0
    starts = [m.start() for m in _ITEM_START.finditer(text)]
    at = max([s for s in starts if s <= offset], default=None)
    if at is None or "\n" in text[at:offset]:
        return None         # the failing line is not a declaration's first
    keyword = _ITEM_START.match(text, at).group(1)
    lo = max([s for s in starts if s < at], default=_header_end(text))
    if lo >= at:
        return None
    try:
        parser.parse("module m\n" + text[lo:at])
        return None
    except UnexpectedToken as cut:
        if cut.token.type != "$END":
            return None
        expected = describe_expected(accepted_tokens(parser, cut))
    except UnexpectedInput:
        return None
    line, _ = line_col(text, lo)
    diag = Diagnostic("MC1001", f"unexpected keyword '{keyword}': expected {expected}",
                      Span.at(path, source, at, len(keyword)),
                      hint=f"the declaration at line {line} is not finished")
    return diag, _blank(text, lo, at)


def _describe(parser: Lark, found: Unclosed, tok: Token, text: str, source: str,
              path: str) -> Diagnostic:
    block = found.block
    at_end = tok.type == "$END"
    name = block.owner or "it"
    code, lead = ("MC1003", "unexpected end of file") if at_end else ("MC1001", "missing '}'")
    message = f"{lead}: {block.describe(text)} is not closed"
    notes: list[str] = []
    if found.closer is not None:
        span = Span.at(path, source, found.closer)
        if found.meant_for is not None:
            line, _ = line_col(text, found.meant_for.offset)
            meant = f"{found.meant_for.owner} (line {line})" if found.meant_for.owner \
                else f"line {line}"
            notes.append(f"this '}}' is indented as {meant}, but it closes "
                         f"{block.owner or 'the block'}")
        if at_end:
            notes.append("the parser reached the end of the file")
        else:
            line, col = line_col(text, tok.start_pos or 0)
            notes.append(f"the parser stopped at line {line}, column {col}: unexpected "
                         f"{describe_found(parser, tok)}")
        hint = f"add '}}' before this line to close {name}"
    elif at_end:
        span = end_span(source, path)
        hint = f"add '}}' at the end to close {name}"
    else:
        span = Span(path, tok.line, tok.column, tok.end_line, tok.end_column)
        hint = f"add '}}' before this declaration to close {name}"
    notes.extend(f"{outer.describe(text)} is not closed either" for outer in found.outer)
    return Diagnostic(code, message, span, hint=hint, notes=tuple(notes))


def _header_end(text: str) -> int:
    """Where the `module` line ends: a resumed parse must keep it."""
    header = _HEADER.match(text)
    return header.end() if header is not None else 0


def _blank(text: str, lo: int, hi: int) -> str:
    """``text`` with ``text[lo:hi]`` made spaces (newlines kept, so that later
    positions do not move)."""
    return text[:lo] + re.sub(r"[^\n]", " ", text[lo:hi]) + text[hi:]


def _error_offset(error: UnexpectedInput) -> int | None:
    if isinstance(error, UnexpectedToken) and error.token.type == "$END":
        return None
    if isinstance(error, UnexpectedEOF):
        return None
    pos = getattr(error, "pos_in_stream", None)
    if isinstance(error, UnexpectedToken):
        pos = error.token.start_pos
    return pos if isinstance(pos, int) else None


def _blank_failed_item(text: str, error: UnexpectedInput) -> str | None:
    """Blank the declaration holding the error, or None when there is nothing
    to resume at."""
    offset = _error_offset(error)
    if offset is None:
        return None
    starts = [m.start() for m in _ITEM_START.finditer(text)]
    before = [s for s in starts if s <= offset]
    after = [s for s in starts if s > offset]
    if not before or not after:
        return None
    return _blank(text, before[-1], after[0])
