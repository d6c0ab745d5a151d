"""The front end as one call: source -> ``ast.Module`` -> ``Resolved`` -> ``ir.Model``.

Each phase collects every diagnostic it finds and raises one CompileError;
the next phase runs only on a clean result.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from modelcheck.errors import UsageError
from modelcheck.ir.digest import mark_origin
from modelcheck.ir.nodes import Model
from modelcheck.semantics.names import resolve
from modelcheck.semantics.typecheck import typecheck
from modelcheck.syntax.parser import parse
from modelcheck.syntax.source import read_source

__all__ = ["load", "load_source"]


def load(path: str, consts: Mapping[str, Any] | None = None) -> Model:
    """Load the spec file at ``path`` with ``-D`` style ``consts`` overrides
    (name -> value, values as text or Python ints/bools).

    Raises UsageError if the file cannot be read or an override is bad, and
    CompileError with the diagnostics of the first phase that fails (MC1006
    for a file that is not UTF-8)."""
    try:
        source = read_source(path)
    except FileNotFoundError:
        raise UsageError(f"no such spec file: {path}") from None
    except OSError as err:
        raise UsageError(f"cannot read spec file {path}: {err}") from None
    return load_source(source, path, consts)


def load_source(source: str, path: str = "<string>",
                consts: Mapping[str, Any] | None = None) -> Model:
    """Like ``load``, for spec text; imports are read relative to ``path``'s folder."""
    module = parse(source, path)
    resolved = resolve(module, path, source)
    model = typecheck(resolved, consts)
    mark_origin(model, consts)
    return model
