"""``ir_digest``: a hash of IR objects that is the same in every process.

Python's own ``hash`` of a string changes with the process's hash seed, and
so do the order of a frozenset and its pickle; this digest walks the objects
instead and sorts what has no order (sets, and maps, which compare without
their insertion order).  Two objects that compare equal get the same
digest: fields that equality leaves out (source spans, a model's path and
text) are left out here too, unless ``positions`` asks for them.

The compiled engine keys its kernel index and its cached kernel plans with
it, positions included (engines/compiled/cache/kcache.py): whether a model's kernel is in the
cache can then be known without generating the kernel's source, and its
plan, whose IR nodes carry the spans that run-time errors are reported at,
loaded instead of generated.
"""
from __future__ import annotations

import dataclasses
import enum
import hashlib
from collections.abc import Callable
from typing import Any

from modelcheck.diagnostics import Span
from modelcheck.ir.values import FrozenDict

__all__ = ["ir_digest", "mark_origin", "model_digest"]

#: Where ``mark_origin`` notes a model's origin: an attribute of the object
#: itself, not a field, so ``dataclasses.replace`` (a changed model) drops it
#: and pickling (a model sent to a worker process) keeps it.
_ORIGIN = "_front_end_origin"


def ir_digest(*objects: Any, positions: bool = False) -> str:
    """The sha256 (hex) of ``objects``: IR nodes, types, values, and the
    tuples, lists, sets and mappings that hold them.  ``positions``: the
    fields equality leaves out count too (spans, a model's path and text)."""
    return hashlib.sha256(_Encoder(positions).encode(objects)).hexdigest()


def mark_origin(model: Any, overrides: Any) -> None:
    """Note on ``model`` a digest of what the front end made it from: the
    text of every source file it read (their paths included) and the const
    overrides.  The front end is deterministic (its IR is the same under
    every hash seed: tests/unit/ir/test_digest.py), so that digest stands for
    the model's ``ir_digest`` with positions, at a thousandth of the cost:
    the default engine digests each configuration it runs (30,000 nodes for
    the quorum queue, 40-60 ms)."""
    h = hashlib.sha256(b"front end origin\0")
    for path, text in model.sources:
        h.update(b"%d:%s\0%d:%s\0" % (len(path), path.encode(), len(text), text.encode()))
    h.update(repr(sorted((str(k), repr(v)) for k, v in dict(overrides or {}).items())).encode())
    object.__setattr__(model, _ORIGIN, h.hexdigest())


def model_digest(model: Any, *extra: Any) -> str:
    """``ir_digest(model, extra, positions=True)``, or a digest of the same
    reach from the model's origin (``mark_origin``) where it has one."""
    origin = model.__dict__.get(_ORIGIN)
    if origin is None:
        return ir_digest(model, extra, positions=True)
    return hashlib.sha256(b"origin %s %s" % (origin.encode(), ir_digest(
        extra, positions=True).encode())).hexdigest()


class _Encoder:
    """Bytes for an object, each kind tagged so that no two kinds meet.
    Frozen dataclasses are shared between IR trees, so each is encoded once
    per digest (by identity: the object is alive for the whole walk).  How
    to encode is decided once per type (``_how``): a model of the quorum
    queue is some 30,000 nodes, and the default engine digests every
    configuration it runs."""

    def __init__(self, positions: bool) -> None:
        self._positions = positions
        self._seen: dict[int, bytes] = {}
        self._by_type: dict[type, Callable[[Any], bytes]] = {}

    def encode(self, obj: Any) -> bytes:
        how = self._by_type.get(type(obj))
        if how is None:
            how = self._by_type[type(obj)] = self._how(type(obj))
        return how(obj)

    def _how(self, cls: type) -> Callable[[Any], bytes]:
        if cls in _ATOMS:
            tag = cls.__name__.encode()
            return lambda obj: b"%s:%s;" % (tag, repr(obj).encode())
        if issubclass(cls, enum.Enum):
            return lambda obj: b"E%s.%s;" % (type(obj).__qualname__.encode(), obj.name.encode())
        if issubclass(cls, (tuple, list)):
            return self._sequence
        if issubclass(cls, (frozenset, set)):
            return self._set
        if issubclass(cls, (FrozenDict, dict)):
            return self._mapping
        if cls is Span:
            # The most common object with positions: its fields are plain.
            return lambda obj: b"S%s:%d:%d:%d:%d;" % (obj.file.encode(), obj.line, obj.col,
                                                      obj.end_line, obj.end_col)
        if dataclasses.is_dataclass(cls):
            names = tuple(f.name for f in dataclasses.fields(cls) if f.compare or self._positions)
            head = b"D%s<" % cls.__qualname__.encode()
            return lambda obj: self._dataclass(obj, head, names)
        raise TypeError(f"ir_digest cannot encode a {cls.__name__}")

    def _sequence(self, obj: Any) -> bytes:
        encode = self.encode
        return b"(" + b"".join([encode(x) for x in obj]) + b")"

    def _set(self, obj: Any) -> bytes:
        encode = self.encode
        return b"{" + b"".join(sorted([encode(x) for x in obj])) + b"}"

    def _mapping(self, obj: Any) -> bytes:
        encode = self.encode
        return b"[" + b"".join(sorted([encode(k) + b"=" + encode(v)
                                       for k, v in obj.items()])) + b"]"

    def _dataclass(self, obj: Any, head: bytes, names: tuple[str, ...]) -> bytes:
        key = id(obj)
        hit = self._seen.get(key)
        if hit is None:
            encode = self.encode
            body = b"".join([encode(getattr(obj, n)) for n in names])
            # Hashed, so that a subtree met again costs its digest, not its bytes.
            hit = self._seen[key] = head + hashlib.sha1(body).hexdigest().encode() + b">"
        return hit


_ATOMS = frozenset({type(None), bool, int, float, str, bytes})
