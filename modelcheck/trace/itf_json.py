"""ITF JSON text read safely: a bad trace file is a coded diagnostic at its
place in the file, never a Python error, and reading it takes bounded work.

Trace files come from other tools and from people, so the text is checked
before any recursive code sees it:

* nesting deeper than MAX_DEPTH is refused by an iterative scan, before
  ``json.loads`` (whose C scanner recurses) or any decoder runs;
* ITF has no floats: a fraction, an exponent, ``NaN`` or ``Infinity`` is
  refused (an integral float such as ``3.0`` below 2**53 is read as the int);
* an integer of more than MAX_INT_DIGITS digits is refused (the limit of
  Python's int/str conversion, and of a literal in a spec: no type holds one).

A long trace is read one state at a time (``stream_itf``): the file's small
members are decoded whole, the ``states`` array element by element, so that
no JSON tree of the whole file is built.  Whenever that scan meets anything
it does not expect, the whole-text reader (``loads_itf``) decides, so a bad
file gets the same diagnostic either way.

Codes (docs/itf.md): MC1201 not JSON or not an ITF trace, MC1202 nested too
deeply, MC2201 an unknown action, MC3201 a value that does not fit its type
(or is missing), MC3202 a number ITF cannot hold, MC3203 a lasso's loop index
that is not the index of a state (or a loop-back step that is not a step).
"""
from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from modelcheck.diagnostics import Diagnostic, Span
from modelcheck.errors import CompileError, UsageError

__all__ = ["MAX_DEPTH", "MAX_INT_DIGITS", "TRACE_FILE_CODES", "TraceFileError", "bad_trace",
           "json_path", "loads_itf", "locate", "States", "stream_itf"]

#: The deepest JSON nesting a trace file may have, counting the file's own
#: object (1), ``states`` (2) and a state (3).  The values of real specs nest
#: a few levels; the limit leaves the decoders' recursion far from Python's.
MAX_DEPTH = 200

#: The most digits an ITF integer may have.
MAX_INT_DIGITS = 4300

#: Every code a bad trace file gets, with its title.
TRACE_FILE_CODES = {
    "MC1201": "not JSON, or not an ITF trace",
    "MC1202": "nested too deeply",
    "MC2201": "unknown action in a trace",
    "MC3201": "value that does not fit its type, or is missing",
    "MC3202": "number ITF cannot hold (a float, or too many digits)",
    "MC3203": "lasso loop index that is not a state, or a bad loop-back step",
}

#: Lines longer than this are not shown under a diagnostic (a whole trace
#: written on one line): the place is still named as line:col.
_SHOWN_LINE = 240

_HINT_ITF = "a trace file is ITF JSON, as `modelcheck check` writes it (docs/itf.md)"


class TraceFileError(CompileError, UsageError):
    """A bad trace file: one coded diagnostic at its place in the file.  A
    UsageError too, so callers that fall back on any bad input keep doing so."""

    def __init__(self, diagnostic: Diagnostic, sources: dict[str, str] | None = None):
        super().__init__([diagnostic], sources)
        self.hint = diagnostic.hint

    @property
    def diagnostic(self) -> Diagnostic:
        return self.diagnostics[0]


def json_path(parts: Sequence[str | int]) -> str:
    """``("states", 3, "x")`` -> ``states[3].x`` (the root is ``$``)."""
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif re.fullmatch(r"[A-Za-z_#][\w#:]*", part):
            out += f".{part}" if out else part
        else:
            out += f"[{json.dumps(part)}]"
    return out or "$"


def bad_trace(code: str, message: str, source: str, text: str | None,
              where: Sequence[str | int] = (), hint: str | None = None,
              offset: int | None = None) -> TraceFileError:
    """The error for a bad trace file ``source`` (its ``text`` when known):
    the message is prefixed by the JSON path ``where``, and the span is the
    place of ``offset`` or of ``where`` in the text."""
    if where:
        message = f"{json_path(where)}: {message}"
    if offset is None and text is not None:
        offset = locate(text, where)
    if text is None or offset is None:
        return TraceFileError(Diagnostic(code, f"{source}: {message}", None, hint))
    span = Span.at(source, text, offset)
    start = text.rfind("\n", 0, offset) + 1
    end = text.find("\n", offset)
    end = len(text) if end < 0 else end
    # The source line is shown only when it is short; an empty text makes the
    # renderer show none (it would otherwise read the file again).
    shown = text if end - start <= _SHOWN_LINE else ""
    return TraceFileError(Diagnostic(code, message, span, hint), {source: shown})


# ------------------------------------------------------------------ scanning

# One left-to-right pass, each token matched once: a string (possibly
# unterminated), a bracket, or a run of anything else.  No backtracking
# across tokens, so the scan is linear in the text.
_SCAN = re.compile(r'"[^"\\]*+(?:\\.[^"\\]*+)*+"?|[\[\]{}]|[^"\[\]{}]++', re.S)


# One bracket run at a time, with the strings and other text before it (or
# the rest of the text, at its end): every match succeeds where it starts
# and the next starts where it ended, so the scan is linear, and it holds no
# copy of the text.
_BRACKET_RUN = re.compile(r'(?:[^"\[\]{}]++|"[^"\\]*+(?:\\.[^"\\]*+)*+"?)*+'
                          r'(?:([\[{]++)|([\]}]++)|\Z)', re.S)


def _too_deep(text: str) -> int | None:
    """The offset of the first bracket nested past MAX_DEPTH, if any."""
    # First the cheap question: the depth after each run of brackets.
    depth = 0
    for m in _BRACKET_RUN.finditer(text):
        opening, closing = m.group(1), m.group(2)
        depth += len(opening) if opening is not None else -len(closing or "")
        if depth > MAX_DEPTH:
            break
    else:
        return None
    # Too deep: find the place, token by token.
    depth = 0
    for m in _SCAN.finditer(text):
        c = text[m.start()]
        if c in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return m.start()
        elif c in "]}":
            depth -= 1
    return None


_TOKEN = re.compile(r'\s*+(?:("[^"\\]*+(?:\\.[^"\\]*+)*+"?)|([\[\]{},:])|([^\s\[\]{},:"]++))', re.S)


def _values(text: str) -> Iterator[tuple[tuple[str | int, ...], int, str]]:
    """(JSON path, offset, first token) of every value in ``text``, in order.
    Iterative, and tolerant of bad JSON (it is used to place errors)."""
    stack: list[list[Any]] = []          # [is_object, key or index, expecting a key]
    for m in _TOKEN.finditer(text):
        string, punct, atom = m.group(1), m.group(2), m.group(3)
        if punct is not None:
            top = stack[-1] if stack else None
            if punct in "[{":
                yield tuple(f[1] for f in stack), m.start(2), punct
                stack.append([punct == "{", None if punct == "{" else 0, punct == "{"])
            elif punct in "]}":
                if stack:
                    stack.pop()
            elif punct == ":" and top is not None:
                top[2] = False
            elif punct == "," and top is not None:
                if top[0]:
                    top[2] = True
                elif isinstance(top[1], int):
                    top[1] += 1
            continue
        if string is not None and stack and stack[-1][0] and stack[-1][2]:
            try:
                stack[-1][1] = json.loads(string)
            except ValueError:
                stack[-1][1] = string.strip('"')
            continue
        start = m.start(1) if string is not None else m.start(3)
        yield tuple(f[1] for f in stack), start, string if string is not None else atom


def locate(text: str, where: Sequence[str | int]) -> int | None:
    """The offset of the value at the JSON path ``where`` in ``text``."""
    target = tuple(where)
    for path, offset, _ in _values(text):
        if path == target:
            return offset
    return None


_NUMBER = re.compile(r"-?\d+(\.\d*)?([eE][-+]?\d+)?")


def _not_itf_number(token: str) -> str | None:
    """Why the number ``token`` is not an ITF number, or None."""
    if token in ("NaN", "Infinity", "-Infinity"):
        return f"{token} is not a number ITF has: ITF has no floats"
    m = _NUMBER.fullmatch(token)
    if m is None:
        return None
    if m.group(1) is None and m.group(2) is None:
        digits = len(token.lstrip("-"))
        if digits > MAX_INT_DIGITS:
            return (f"an integer of {digits:,} digits: ITF integers have at most "
                    f"{MAX_INT_DIGITS:,} digits here")
        return None
    value = float(token)
    if math.isfinite(value) and value.is_integer() and abs(value) < 2 ** 53:
        return None
    shown = token if len(token) <= 40 else token[:37] + "..."
    return f"{shown} is a float: ITF has no floats"


_SURROGATE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _refuse_lone_surrogates(data: Any, text: str, source: str) -> None:
    """A ``\\ud800`` escape without its pair decodes to a string that is not
    Unicode text, and nothing can print it."""
    for path, offset, token in _values(text):
        if token.startswith('"') and _SURROGATE.search(token):
            try:
                json.loads(token).encode("utf-8")
            except (UnicodeEncodeError, ValueError):
                raise bad_trace("MC1201", "a string holds an unpaired surrogate escape: "
                                "not Unicode text", source, text, path, offset=offset) from None
    try:
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except (UnicodeEncodeError, ValueError):
        raise bad_trace("MC1201", "a key holds an unpaired surrogate escape: not Unicode text",
                        source, text) from None


class _Refused(Exception):
    pass


def _float(token: str) -> int:
    value = float(token)
    if math.isfinite(value) and value.is_integer() and abs(value) < 2 ** 53:
        return int(value)
    raise _Refused(token)


def _constant(token: str) -> Any:
    raise _Refused(token)


def _refuse_deep(text: str, source: str) -> None:
    deep = _too_deep(text)
    if deep is not None:
        raise bad_trace("MC1202", f"the JSON is nested more than {MAX_DEPTH} levels deep",
                        source, text, offset=deep,
                        hint="no ITF value nests that deep; the file is damaged or not a trace")


def loads_itf(text: str, source: str) -> Any:
    """The JSON value of a trace file's ``text`` (see the module doc).
    Raises TraceFileError."""
    _refuse_deep(text, source)
    try:
        data = json.loads(text, parse_float=_float, parse_constant=_constant)
        if _SURROGATE.search(text):
            _refuse_lone_surrogates(data, text, source)
        return data
    except json.JSONDecodeError as err:
        raise bad_trace("MC1201", f"not valid JSON: {err.msg}", source, text,
                        offset=err.pos, hint=_HINT_ITF) from None
    except (_Refused, ValueError):
        # A float ITF cannot hold, or an integer past Python's conversion limit.
        pass
    for path, offset, token in _values(text):
        why = _not_itf_number(token)
        if why is not None:
            hint = 'write integers as JSON integers, or {"#bigint": "digits"}' \
                if "float" in why else "no type of a spec holds an integer that large"
            raise bad_trace("MC3202", why, source, text, path, offset=offset, hint=hint)
    raise bad_trace("MC1201", "not valid JSON", source, text, hint=_HINT_ITF)


# ------------------------------------------------------------------ streaming

#: The states of a trace file, read afresh on each call, one at a time.
States = Callable[[], Iterator[Any]]

_WS = re.compile(r"[ \t\n\r]*")


class _Unexpected(Exception):
    """The streaming scan met something it does not handle itself."""


def stream_itf(text: str, source: str) -> tuple[Any, States | None]:
    """A trace file's top-level value without its ``states``, and the states
    one at a time (None when the value has no ``states`` array): the same
    values, and the same diagnostics, as ``loads_itf`` (see the module doc).
    Raises TraceFileError, from the call or from the states' iterator."""
    _refuse_deep(text, source)
    if _SURROGATE.search(text):
        # Rare, and checked over the whole text: the whole-text reader.
        return _split(loads_itf(text, source))
    decoder = json.JSONDecoder(parse_float=_float, parse_constant=_constant)
    try:
        head, at = _head(decoder, text)
    except (_Unexpected, _Refused, ValueError, IndexError):
        return _split(loads_itf(text, source))
    if at is None:
        return head, None

    def states() -> Iterator[Any]:
        try:
            yield from _elements(decoder, text, at)
        except (_Unexpected, _Refused, ValueError, IndexError):
            loads_itf(text, source)     # raises the diagnostic for the file
            raise bad_trace("MC1201", "not valid JSON", source, text, hint=_HINT_ITF) from None
    return head, states


def _split(data: Any) -> tuple[Any, States | None]:
    if not isinstance(data, dict) or not isinstance(data.get("states"), list):
        return data, None
    states = data.pop("states")
    return data, lambda: iter(states)


def _skip_ws(text: str, pos: int) -> int:
    m = _WS.match(text, pos)
    return m.end() if m is not None else pos


def _head(decoder: json.JSONDecoder, text: str) -> tuple[dict[str, Any], int | None]:
    """The top-level object's members but ``states``, and the offset of the
    ``states`` array (skipped, decoded one element at a time)."""
    pos = _skip_ws(text, 0)
    if text[pos:pos + 1] != "{":
        raise _Unexpected
    head: dict[str, Any] = {}
    at = None
    pos = _skip_ws(text, pos + 1)
    if text[pos:pos + 1] == "}":
        pos += 1
    else:
        while True:
            if text[pos:pos + 1] != '"':
                raise _Unexpected
            key, pos = decoder.raw_decode(text, pos)
            pos = _skip_ws(text, pos)
            if text[pos:pos + 1] != ":" or key in head or (key == "states" and at is not None):
                raise _Unexpected       # a duplicate key: json.loads keeps the last
            pos = _skip_ws(text, pos + 1)
            if key == "states" and text[pos:pos + 1] == "[":
                at = pos
                skip = _elements(decoder, text, pos)
                while True:
                    try:
                        next(skip)
                    except StopIteration as end:
                        pos = end.value
                        break
            else:
                head[key], pos = decoder.raw_decode(text, pos)
            pos = _skip_ws(text, pos)
            if text[pos:pos + 1] == ",":
                pos = _skip_ws(text, pos + 1)
                continue
            if text[pos:pos + 1] != "}":
                raise _Unexpected
            pos += 1
            break
    if _skip_ws(text, pos) != len(text):
        raise _Unexpected
    return head, at


def _elements(decoder: json.JSONDecoder, text: str, pos: int) -> Iterator[Any]:
    """The elements of the array at ``pos``, one at a time; returns the
    offset after it."""
    pos = _skip_ws(text, pos + 1)
    if text[pos:pos + 1] == "]":
        return pos + 1
    while True:
        value, pos = decoder.raw_decode(text, pos)
        yield value
        pos = _skip_ws(text, pos)
        if text[pos:pos + 1] == ",":
            pos = _skip_ws(text, pos + 1)
        elif text[pos:pos + 1] == "]":
            return pos + 1
        else:
            raise _Unexpected
