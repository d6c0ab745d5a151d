"""What the language server says about itself: one coded line per event, on
stderr (editors keep it in the server's output panel) and to the client as
``window/logMessage``, never a traceback.

pygls logs a handler's exception with its traceback (and Python would print
one for an uncaught error in a thread); ``ClientLog`` keeps the first line
of each record and the exception's type and message.  ``LOG_CODES`` lists
the codes."""
from __future__ import annotations

import asyncio
import logging
import sys
import threading
from collections.abc import Callable
from typing import TextIO

from lsprotocol import types as lsp

from modelcheck.lsp.framing import FRAMING_CODES

__all__ = ["LOG_CODES", "ClientLog", "install", "logger"]

LOG_CODES = {
    **FRAMING_CODES,
    "MCL004": "a message could not be handled (an internal error)",
    "MCL005": "a document too large for live analysis (a diagnostic)",
    "MCL006": "the analysis of a document failed (an internal error)",
    "MCL007": "a warning of the protocol library (pygls)",
}

#: The logger of modelcheck's own events; a record's ``code`` (``extra``) is its code.
logger = logging.getLogger("modelcheck.lsp")

#: The longest line logged.
_MAX_LINE = 1000

_LEVELS = {logging.ERROR: lsp.MessageType.Error, logging.WARNING: lsp.MessageType.Warning,
           logging.INFO: lsp.MessageType.Info}


def _one_line(record: logging.LogRecord) -> str:
    try:
        text = record.getMessage()
    except Exception:  # noqa: BLE001 - a badly formatted record still says something
        text = str(record.msg)
    lines = text.strip().splitlines() or [""]
    # pygls puts a whole traceback into some messages ("Unable to
    # deserialize message\n<traceback>"): its first line says what happened.
    line = lines[0]
    if record.exc_info and record.exc_info[1] is not None:
        exc = record.exc_info[1]
        line = f"{line} ({type(exc).__name__}: {exc})"
    if len(line) > _MAX_LINE:
        # pygls quotes whole messages, a document's text included.
        line = line[:_MAX_LINE] + f"... ({len(line):,} characters)"
    code = getattr(record, "code", None)
    if code is None:
        code = "MCL004" if record.levelno >= logging.ERROR else "MCL007"
    return f"{code}: {line}"


class ClientLog(logging.Handler):
    """Each record as one line on ``stream`` and, once ``send`` is set and
    a loop is known, as a ``window/logMessage`` to the client."""

    def __init__(self, stream: TextIO | None = None):
        super().__init__(logging.WARNING)
        self.stream = stream
        self.send: Callable[[lsp.LogMessageParams], None] | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self._busy = threading.local()

    def emit(self, record: logging.LogRecord) -> None:
        # Sending may itself log (a closed pipe): never recurse.
        if getattr(self._busy, "on", False):
            return
        self._busy.on = True
        try:
            line = _one_line(record)
            stream = self.stream if self.stream is not None else sys.stderr
            try:
                stream.write(f"modelcheck lsp: {record.levelname.lower()}: {line}\n")
                stream.flush()
            except (OSError, ValueError):
                pass
            if self.send is not None and self.loop is not None and not self.loop.is_closed():
                params = lsp.LogMessageParams(_LEVELS.get(record.levelno, lsp.MessageType.Log),
                                              line)
                try:
                    on_loop = asyncio.get_running_loop() is self.loop
                except RuntimeError:
                    on_loop = False
                if on_loop:
                    self.send(params)
                else:
                    self.loop.call_soon_threadsafe(self.send, params)
        except Exception:  # noqa: BLE001 - logging must never raise into the server
            pass
        finally:
            self._busy.on = False


def install(handler: ClientLog) -> None:
    """Route every logger of the process through ``handler`` (the server owns
    its process): pygls', asyncio's, and modelcheck's."""
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(logging.WARNING)

    def thread_error(args: threading.ExceptHookArgs) -> None:
        logger.error("thread %s stopped", getattr(args.thread, "name", "?"),
                     exc_info=(args.exc_type, args.exc_value, args.exc_traceback))

    threading.excepthook = thread_error
