"""The server's input stream, made safe to read: ``FramedInput`` sits between
stdin and pygls and hands pygls only whole JSON-RPC messages, each under a
``Content-Length`` that is right.

pygls trusts the stream: bytes that are not a message, or a header whose
length is wrong, leave its reader out of step with the messages for good (a
body read short runs into the next header, one read long swallows the next
messages), and it answers nothing again.  Here every message is checked
before pygls sees it, and the stream resynchronises on the next
``Content-Length`` header:

* bytes before a header that are not headers are skipped (MCL001);
* a body that is not a JSON-RPC message is dropped (MCL002);
* a body that is a message but not of the length its header says is taken
  at its real length (MCL003): the length is found by reading one JSON
  value, and a header line can never occur inside a JSON text (a string
  holds no raw line break), so the next header marks where a body ends.

What is skipped is said through ``log(code, text)``, once per resynchronisation."""
from __future__ import annotations

import json
import re
from collections import deque
from collections.abc import Callable
from typing import BinaryIO

__all__ = ["FramedInput", "FRAMING_CODES"]

#: The codes ``FramedInput`` logs with, and what each means.
FRAMING_CODES = {
    "MCL001": "bytes that are not a message skipped",
    "MCL002": "a message that is not JSON-RPC dropped",
    "MCL003": "a message whose Content-Length is wrong taken at its real length",
}

_HEADER = re.compile(rb"Content-Length[ \t]*:[ \t]*(\d{1,12})[ \t]*\r?\n", re.IGNORECASE)
_OTHER_HEADER = re.compile(rb"[A-Za-z0-9-]+[ \t]*:[^\r\n]*\r?\n")
#: Header lines after Content-Length longer than this are not headers.
_MAX_HEADERS = 8192
#: Kept when no header is in sight: a header may be cut at the end of a read.
_TAIL = 64
_CHUNK = 65536


class FramedInput:
    """A reader for pygls (``readline`` and ``read``) over ``raw`` that
    frames each message as ``Content-Length: N\\r\\n\\r\\n`` and its body."""

    def __init__(self, raw: BinaryIO, log: Callable[[str, str], None]):
        self._raw = raw
        self._log = log
        self._buf = bytearray()
        self._eof = False
        self._out: deque[bytes] = deque()
        self._body = b""
        # The message being read: (where its body starts, its declared length).
        self._hdr: tuple[int, int] | None = None
        self._scanned = 0
        self._skipped = bytearray()
        self._skipped_count = 0

    # ---------------------------------------------------------------- pygls' side

    def readline(self) -> bytes:
        if not self._out:
            body = self._next_message()
            if body is None:
                return b""
            self._out.extend([b"Content-Length: %d\r\n" % len(body), b"\r\n"])
            self._body = body
        return self._out.popleft()

    def read(self, n: int) -> bytes:
        body, self._body = self._body[:n], self._body[n:]
        return body

    # ---------------------------------------------------------------- the stream

    def _fill(self) -> None:
        read1 = getattr(self._raw, "read1", None)
        data = read1(_CHUNK) if read1 is not None else self._raw.read(1)
        if not data:
            self._eof = True
        self._buf += data

    def _next_message(self) -> bytes | None:
        while True:
            body = self._parse()
            if body is not None:
                self._report_skipped()
                return body
            if self._eof:
                self._skip(len(self._buf))
                self._report_skipped()
                return None
            self._fill()

    def _skip(self, n: int) -> None:
        """Drop the first ``n`` bytes of the buffer, counting those that are
        neither blank nor header lines (a Content-Type before the length)."""
        dropped = bytes(self._buf[:n])
        del self._buf[:n]
        self._hdr = None
        self._scanned = 0
        rest = _OTHER_HEADER.sub(b"", dropped).strip()
        if rest:
            self._skipped_count += len(dropped)
            if len(self._skipped) < 40:
                self._skipped += dropped[:40 - len(self._skipped)]

    def _report_skipped(self) -> None:
        if self._skipped_count:
            self._log("MCL001", f"skipped {self._skipped_count} bytes that were not a message "
                                f"(starting {bytes(self._skipped)!r})")
            self._skipped.clear()
            self._skipped_count = 0

    def _parse(self) -> bytes | None:
        """The next whole message's body, or None when more bytes are needed."""
        buf = self._buf
        while True:
            if self._hdr is None:
                m = _HEADER.search(buf)
                if m is None:
                    if len(buf) > _TAIL:
                        self._skip(len(buf) - _TAIL)
                    return None
                if m.start():
                    self._skip(m.start())
                    continue
                start = self._headers_end(m.end())
                if start is None:
                    return None
                if start < 0:
                    # Not a header after all: look for the next one past it.
                    self._skip(m.end())
                    continue
                self._hdr = (start, int(m.group(1)))
                self._scanned = start
            start, length = self._hdr
            if len(buf) - start >= length:
                body = bytes(buf[start:start + length])
                verdict = _verdict(body)
                if verdict == "message":
                    del buf[:start + length]
                    self._hdr = None
                    return body
                if verdict == "other":
                    self._log("MCL002", f"dropped a body of {length} bytes that is JSON but "
                                        f"not a JSON-RPC message")
                    del buf[:start + length]
                    self._hdr = None
                    continue
            # The declared length does not fit what came: the body ends at the
            # next header, if one has come.
            nxt = _HEADER.search(buf, max(start, self._scanned - _TAIL))
            self._scanned = len(buf)
            end = nxt.start() if nxt else len(buf)
            if nxt or len(buf) - start >= length or _ends_an_object(buf, start, end):
                found = _leading_message(bytes(buf[start:end]))
                if found is not None:
                    body, used = found
                    self._log("MCL003", f"a message's Content-Length said {length} bytes; "
                                        f"it has {len(body)}")
                    del buf[:start + used]
                    self._hdr = None
                    return body
            if nxt is None:
                return None
            self._log("MCL002", f"dropped {nxt.start() - start} bytes under a Content-Length "
                                f"of {length} that are not a JSON-RPC message")
            del buf[:nxt.start()]
            self._hdr = None

    def _headers_end(self, pos: int) -> int | None:
        """Where the body starts, after the header lines from ``pos`` and the
        blank line; None if they have not all come; -1 if they are not headers."""
        buf = self._buf
        while True:
            nl = buf.find(b"\n", pos)
            if nl < 0:
                return None if len(buf) - pos < _MAX_HEADERS else -1
            line = bytes(buf[pos:nl + 1])
            if not line.strip():
                return nl + 1
            if not _OTHER_HEADER.fullmatch(line) or nl - pos > _MAX_HEADERS:
                return -1
            pos = nl + 1


def _ends_an_object(buf: bytearray, start: int, end: int) -> bool:
    """Whether ``buf[start:end]`` ends in ``}`` (and blanks): only then can
    it hold a whole message.  Asked at each read of a long body, so it
    looks at the end only."""
    i = end - 1
    while i >= start and buf[i] in b" \t\r\n":
        i -= 1
    return i >= start and buf[i] == ord("}")


def _verdict(body: bytes) -> str:
    """"message" (a JSON-RPC object), "other" (JSON, not one) or "invalid"."""
    try:
        value = json.loads(body)
    except ValueError:
        return "invalid"
    return "message" if isinstance(value, dict) and "jsonrpc" in value else "other"


def _leading_message(region: bytes) -> tuple[bytes, int] | None:
    """The JSON-RPC message at the start of ``region`` (after blanks) and
    how many bytes of ``region`` it and those blanks take, if there is one."""
    text = region.decode("utf-8", "surrogateescape")
    begin = len(text) - len(text.lstrip())
    try:
        _, end = json.JSONDecoder().raw_decode(text, begin)
    except ValueError:
        return None
    body = text[begin:end].encode("utf-8", "surrogateescape")
    if _verdict(body) != "message":
        return None
    return body, len(text[:end].encode("utf-8", "surrogateescape"))
