"""Finding the spec a trace file was written from, wherever the file is read.

A trace modelcheck writes names its spec three ways in ``#meta``: ``source``,
the path as it was given (relative to the working folder of that run),
``source-absolute``, and ``source-sha256``, the SHA-256 of the spec's text.
The path alone breaks as soon as the trace is read from another folder, so
the spec is looked for, in this order:

1. ``source`` relative to the current folder;
2. ``source`` relative to the trace file's folder and then each folder above
   it (a trace in ``<root>/counterexamples/`` names ``specs/x.mc`` relative to
   ``<root>``);
3. ``source-absolute``.

When the file records a hash, the first candidate whose text has that hash
wins.  A spec that exists but whose text differs from every recorded hash is
still used (the trace is replayed against it, so a trace the edited spec no
longer allows is reported as such) but with a warning: the spec changed since
the trace was written.  A file without a hash (written before hashes were
recorded) takes the first candidate that exists, as it always did.
"""
from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["SpecLookup", "find_spec", "given_spec", "spec_identity", "text_sha256",
           "SOURCE_KEY", "ABSOLUTE_KEY", "HASH_KEY"]

SOURCE_KEY, ABSOLUTE_KEY, HASH_KEY = "source", "source-absolute", "source-sha256"

#: How many folders above the trace file's own are tried: enough for any
#: layout a person keeps, bounded so a lookup stays cheap.
_MAX_UP = 8


@dataclass(frozen=True)
class SpecLookup:
    """Where the spec a trace names was found.  ``path`` is None when the
    trace names no spec of ours (another tool's trace) or it was not found
    (``missing`` says which one and where it was looked for).  ``changed``:
    found, but its text is not the one the trace was written from."""
    path: str | None
    named: str | None = None
    changed: bool = False
    missing: str | None = None


def text_sha256(text: str) -> str:
    """The hash recorded for a spec: SHA-256 of its text as UTF-8 (the bytes
    of the file, since specs are read as UTF-8 exactly)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def spec_identity(path: str, sources: Mapping[str, str],
                  folder: Path | None = None) -> dict[str, str]:
    """The ``#meta`` entries beside ``source`` that let a reader find the
    spec again: its text's hash (when the text is at hand) and its absolute
    path (when it is a file), unless ``folder``, where the trace is written,
    lies inside the working folder that ``source`` is relative to: the search
    from the trace file's folder upwards finds it then, and the file stays
    the same on every machine (a project's committed counterexamples do not
    change when they are written again elsewhere).  Empty for a spec held
    only in memory."""
    out: dict[str, str] = {}
    if not path or path.startswith("<"):
        return out
    p = Path(path)
    if p.is_file() and not _found_upwards(p, folder):
        out[ABSOLUTE_KEY] = str(p.resolve())
    text = dict(sources).get(path)
    if text is not None:
        out[HASH_KEY] = text_sha256(text)
    return out


def _found_upwards(spec: Path, folder: Path | None) -> bool:
    """Whether a reader's search from ``folder`` upwards reaches the working
    folder that the relative path ``spec`` starts from."""
    if folder is None or spec.is_absolute() or ".." in spec.parts:
        return False
    cwd = Path.cwd().resolve()
    try:
        depth = len(folder.resolve().relative_to(cwd).parts)
    except ValueError:
        return False
    return depth <= _MAX_UP


def _file_sha256(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except (OSError, ValueError):
        return None


def _is_file(path: Path) -> bool:
    """Whether ``path`` is a file; a name no file can have (too long, a NUL
    byte: a hostile or broken trace file) is simply not one."""
    try:
        return path.is_file()
    except (OSError, ValueError):
        return False


def _printable(text: str, limit: int = 200) -> str:
    """A name from the trace file, safe to show on one line."""
    shown = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    return shown if len(shown) <= limit else shown[:limit - 1] + "…"


def _candidates(source: str, absolute: str | None, trace_path: str | Path) -> list[Path]:
    """Where to look, in order, without repeats."""
    out: list[Path] = []
    src = Path(source)
    if src.is_absolute():
        out.append(src)
    else:
        out.append(Path.cwd() / src)
        folder = Path(trace_path).resolve().parent
        for k, base in enumerate((folder, *folder.parents)):
            if k > _MAX_UP:
                break
            out.append(base / src)
    if absolute:
        out.append(Path(absolute))
    seen: set[Path] = set()
    unique = []
    for c in out:
        key = c.resolve() if _is_file(c) else c
        if key not in seen:
            seen.add(key)
            unique.append(c)
    return unique


def _shown(path: Path) -> str:
    """A found spec's path as the user will read it: relative to the current
    folder when it lies below it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def given_spec(meta: Mapping[str, Any], spec: str) -> SpecLookup:
    """The spec given by hand (``--spec``): used as it is, but said to have
    changed when the file records a hash its text does not have."""
    digest = meta.get(HASH_KEY)
    changed = isinstance(digest, str) and _file_sha256(Path(spec)) not in (None, digest)
    return SpecLookup(spec, spec, changed=changed)


def find_spec(meta: Mapping[str, Any], trace_path: str | Path) -> SpecLookup:
    """The spec the trace file at ``trace_path`` names in its ``#meta`` (see
    the module doc for the order and the hash rule).  Only a ``.mc`` source
    counts: another tool's ``source`` (a ``.qnt`` file) is not ours to read."""
    source = meta.get(SOURCE_KEY)
    if not (isinstance(source, str) and source.endswith(".mc")):
        return SpecLookup(None)
    absolute = meta.get(ABSOLUTE_KEY) if isinstance(meta.get(ABSOLUTE_KEY), str) else None
    digest = meta.get(HASH_KEY) if isinstance(meta.get(HASH_KEY), str) else None
    existing = [c for c in _candidates(source, absolute, trace_path) if _is_file(c)]
    if not existing:
        at = f", nor at {_printable(absolute)}" if absolute and absolute != source else ""
        return SpecLookup(None, source, missing=f"the spec it names, {_printable(source)}, is not "
                                                 f"found from here or from the trace's folder{at}")
    if digest is None:
        return SpecLookup(_shown(existing[0]), source)
    for c in existing:
        if _file_sha256(c) == digest:
            return SpecLookup(_shown(c), source)
    return SpecLookup(_shown(existing[0]), source, changed=True)
