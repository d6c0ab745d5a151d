"""``ir_digest``: a hash of IR objects that is the same in every process.

Python's own ``hash`` of a string changes with the process's hash seed, and
so do the order of a frozenset and its pickle; this digest walks the objects
instead and sorts what has no order (sets, and maps, which compare without
their insertion order).  Two objects that compare equal get the same
digest: fields that equality leaves out (source spans, a model's path and
text) are left out here too, unless ``positions`` asks for them.

The compiled engine keys its kernel index and its cached kernel plans with
it, positions included (kcache.py): whether a model's kernel is in the
cache can then be known without generating the kernel's source, and its
plan, whose IR nodes carry the spans that run-time errors are reported at,
loaded instead of generated.
"""
from __future__ import annotations

import dataclasses
import enum
import hashlib
from typing import Any

from modelcheck.diagnostics import Span
from modelcheck.ir.values import FrozenDict

__all__ = ["ir_digest"]


def ir_digest(*objects: Any, positions: bool = False) -> str:
    """The sha256 (hex) of ``objects``: IR nodes, types, values, and the
    tuples, lists, sets and mappings that hold them.  ``positions``: the
    fields equality leaves out count too (spans, a model's path and text)."""
    return hashlib.sha256(_Encoder(positions).encode(objects)).hexdigest()


class _Encoder:
    """Bytes for an object, each kind tagged so that no two kinds meet.
    Frozen dataclasses are shared between IR trees, so each is encoded once
    per digest (by identity: the object is alive for the whole walk)."""

    def __init__(self, positions: bool) -> None:
        self._positions = positions
        self._seen: dict[int, bytes] = {}
        self._fields: dict[type, tuple[str, ...]] = {}

    def encode(self, obj: Any) -> bytes:
        if obj is None or isinstance(obj, (bool, int, float, str, bytes)):
            return b"%s:%s;" % (type(obj).__name__.encode(), repr(obj).encode())
        if isinstance(obj, enum.Enum):
            return b"E%s.%s;" % (type(obj).__qualname__.encode(), obj.name.encode())
        if isinstance(obj, (tuple, list)):
            return b"(" + b"".join(self.encode(x) for x in obj) + b")"
        if isinstance(obj, (frozenset, set)):
            return b"{" + b"".join(sorted(self.encode(x) for x in obj)) + b"}"
        if isinstance(obj, (FrozenDict, dict)):
            items = sorted(self.encode(k) + b"=" + self.encode(v) for k, v in obj.items())
            return b"[" + b"".join(items) + b"]"
        if isinstance(obj, Span):
            # The most common object with positions: its fields are plain.
            return b"S%s:%d:%d:%d:%d;" % (obj.file.encode(), obj.line, obj.col, obj.end_line,
                                          obj.end_col)
        if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
            key = id(obj)
            hit = self._seen.get(key)
            if hit is None:
                hit = self._dataclass(obj)
                self._seen[key] = hit
            return hit
        raise TypeError(f"ir_digest cannot encode a {type(obj).__name__}")

    def _dataclass(self, obj: Any) -> bytes:
        cls = type(obj)
        names = self._fields.get(cls)
        if names is None:
            names = tuple(f.name for f in dataclasses.fields(obj)
                          if f.compare or self._positions)
            self._fields[cls] = names
        body = b"".join(self.encode(getattr(obj, n)) for n in names)
        # Hashed, so that a subtree met again costs its digest, not its bytes.
        return b"D%s<%s>" % (cls.__qualname__.encode(), hashlib.sha1(body).hexdigest().encode())
