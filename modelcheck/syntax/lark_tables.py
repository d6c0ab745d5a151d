"""The grammar and the Lark LALR parser built from it, its tables cached
across processes."""
from __future__ import annotations

import contextlib
import hashlib
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import lark
from lark import Lark

from modelcheck.fsutil import atomic_writer, default_cache_dir

__all__ = ["grammar_text", "lark_parser"]


def grammar_text() -> str:
    """The grammar: the copy inside the installed package (a wheel carries it as
    ``modelcheck/_grammar/modelcheck.lark``), else ``grammar/`` of the checkout."""
    packaged = resources.files("modelcheck").joinpath("_grammar", "modelcheck.lark")
    if packaged.is_file():
        return packaged.read_text(encoding="utf-8")
    repo_copy = Path(__file__).resolve().parents[2] / "grammar" / "modelcheck.lark"
    return repo_copy.read_text(encoding="utf-8")


_LARK_OPTIONS: dict[str, Any] = {"parser": "lalr", "propagate_positions": True,
                                 "maybe_placeholders": True}


@lru_cache(maxsize=1)
def lark_parser() -> Lark:
    """The LALR parser, built once per process.  Building its tables takes
    0.2-0.4 s, which every command paid: they are kept in the user's cache
    folder, in a file named by the hash of the grammar, the options and
    Lark's version, written atomically.  One that does not load is rebuilt."""
    text = grammar_text()
    key = hashlib.sha256(f"{lark.__version__}\n{sorted(_LARK_OPTIONS.items())}\n{text}"
                         .encode()).hexdigest()[:32]
    path = default_cache_dir() / "parser" / f"lark-{key}.pickle"
    with contextlib.suppress(Exception):      # missing, unreadable, damaged: rebuilt
        with open(path, "rb") as f:
            return Lark.load(f)
    parser = Lark(text, **_LARK_OPTIONS)
    with contextlib.suppress(OSError):        # a read-only cache only costs the time
        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_writer(path, binary=True) as f:
            parser.save(f)
    return parser
