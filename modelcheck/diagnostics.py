"""Source spans and diagnostics.  Rendering to text lives here too (it is pure:
it returns a string; the CLI decides where it goes)."""
from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass, field

__all__ = ["Span", "Diagnostic", "Severity", "render_diagnostic", "did_you_mean"]


@dataclass(frozen=True)
class Span:
    """A region of a source file; lines and columns are 1-based, end exclusive."""
    file: str
    line: int
    col: int
    end_line: int
    end_col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"

    @classmethod
    def at(cls, file: str, text: str, offset: int, length: int = 1) -> "Span":
        """The ``length`` characters of ``text`` from ``offset`` (one line)."""
        line = text.count("\n", 0, offset) + 1
        col = offset - text.rfind("\n", 0, offset)
        return cls(file, line, col, line, col + length)


class Severity:
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True)
class Diagnostic:
    """One problem found in a spec.  ``code``: MC1xxx syntax, MC2xxx names,
    MC3xxx types, MC4xxx model well-formedness, MC5xxx evaluation."""
    code: str
    message: str
    span: Span | None
    hint: str | None = None
    notes: tuple[str, ...] = ()
    severity: str = Severity.ERROR

    def __str__(self) -> str:
        where = f"{self.span}: " if self.span else ""
        return f"{where}{self.severity}[{self.code}]: {self.message}"


def render_diagnostic(diag: Diagnostic, source: str | None) -> str:
    """Render as::

        error[MC2004]: unknown name 'leadr'
          --> specs/raft.mc:12:9
           |
        12 |     if leadr == n {
           |        ^^^^^
           = hint: did you mean 'leader'?
    """
    lines = [f"{diag.severity}[{diag.code}]: {diag.message}"]
    span = diag.span
    if span is not None:
        lines.append(f"  --> {span.file}:{span.line}:{span.col}")
        src_lines = source.splitlines() if source is not None else []
        if 1 <= span.line <= len(src_lines):
            text = src_lines[span.line - 1].expandtabs(4)
            gutter = str(span.line)
            pad = " " * len(gutter)
            width = (span.end_col - span.col) if span.end_line == span.line else len(text) - span.col + 1
            width = max(1, width)
            lines.append(f"{pad} |")
            lines.append(f"{gutter} | {text}")
            lines.append(f"{pad} | {' ' * (span.col - 1)}{'^' * width}")
    for note in diag.notes:
        lines.append(f"   = note: {note}")
    if diag.hint:
        lines.append(f"   = hint: {diag.hint}")
    return "\n".join(lines)


#: Words from Python and TLA+ habits, and what the language writes instead.
#: A habit is offered only when its replacement is among the choices.
HABITS = {
    "True": "true", "False": "false", "None": "none", "TRUE": "true", "FALSE": "false",
    "exists": "any", "forall": "all", "Cardinality": "len", "Len": "len",
    "Append": "append", "Head": "head", "Tail": "tail", "elif": "else if",
}


def did_you_mean(word: str, choices: Iterable[str], listing: str | None = None,
                 most_listed: int = 12) -> str | None:
    """The one "did you mean 'x'?" hint of the project: a Python or TLA+
    habit first (``True`` -> ``true``, ``exists`` -> ``any``), then a name
    equal but for case, then the closest name ignoring case.  With nothing
    close and a ``listing`` label, the choices themselves (when there are few
    enough to read), so the user still learns what would have been accepted."""
    options = list(choices)
    habit = HABITS.get(word)
    if habit is not None and habit in options:
        return f"did you mean '{habit}'?"
    folded: dict[str, str] = {}
    for option in options:
        folded.setdefault(option.lower(), option)
    same = folded.get(word.lower())
    if same is not None and same != word:
        return f"did you mean '{same}'?"
    close = difflib.get_close_matches(word.lower(), list(folded), n=1, cutoff=0.6)
    if close:
        return f"did you mean '{folded[close[0]]}'?"
    if listing is not None and options and len(options) <= most_listed:
        return f"{listing}: " + ", ".join(options)
    return None
