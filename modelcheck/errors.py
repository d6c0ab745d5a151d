"""The exception hierarchy: one root, so callers can catch everything modelcheck raises."""
from __future__ import annotations

from modelcheck.behaviour import Behaviour
from modelcheck.diagnostics import Diagnostic

__all__ = ["ModelcheckError", "CompileError", "EvalError", "UsageError"]


class ModelcheckError(Exception):
    """Root of every error modelcheck raises on purpose."""


class CompileError(ModelcheckError):
    """A spec did not compile; carries every diagnostic its phase found,
    and the source texts needed to render them (path -> text)."""

    def __init__(self, diagnostics: list[Diagnostic], sources: dict[str, str] | None = None):
        self.diagnostics = list(diagnostics)
        self.sources = dict(sources or {})
        super().__init__("\n".join(str(d) for d in self.diagnostics))


class EvalError(ModelcheckError):
    """A run-time error in the spec (MC5xxx): out-of-range write, division by
    zero, index out of range...  Engines attach the trace that leads to the
    step that failed."""

    def __init__(self, diagnostic: Diagnostic, trace: Behaviour | None = None):
        self.diagnostic = diagnostic
        self.trace = trace
        super().__init__(str(diagnostic))


class UsageError(ModelcheckError):
    """Bad command-line input (an unknown -D name, a badly typed value...)."""

    def __init__(self, message: str, hint: str | None = None):
        self.hint = hint
        super().__init__(message)
