"""Reading a spec file: its text, or MC1006 at the first byte that is not UTF-8.

The spec file itself (``modelcheck.pipeline``) and every imported file
(``modelcheck.semantics.names``) are read here, so both report bad bytes the
same way: a diagnostic with the line and column, never a decoding traceback.
"""
from __future__ import annotations

from modelcheck.diagnostics import Diagnostic, Span
from modelcheck.errors import CompileError

__all__ = ["read_source"]


def read_source(path: str) -> str:
    """The text of the spec file at ``path``.  Raises OSError if it cannot be
    read, CompileError (MC1006) if it is not UTF-8."""
    with open(path, "rb") as handle:
        data = handle.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        # The bad bytes shown as U+FFFD keep the caret under the first of them.
        raise CompileError([_not_utf8(path, data, err)],
                           {path: data.decode("utf-8", errors="replace")}) from None


def _not_utf8(path: str, data: bytes, err: UnicodeDecodeError) -> Diagnostic:
    before = data[:err.start]
    line_start = before.rfind(b"\n") + 1
    line = before.count(b"\n") + 1
    # Everything before the first bad byte decodes, so columns count characters.
    col = len(before[line_start:].decode("utf-8")) + 1
    byte = data[err.start]
    return Diagnostic("MC1006", f"the file is not UTF-8: byte 0x{byte:02X} cannot be decoded",
                      Span(path, line, col, line, col + 1),
                      hint="save the file as UTF-8")
