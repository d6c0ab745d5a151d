"""The pieces every code generator shares: the source builder, the two kinds
of value a generated expression yields, and the scratch allocator.

Generated code is straight-line Python over int64 arrays, compiled by numba:

* a *scalar* value (bool, int, enum or model index) is a Python expression,
  almost always the name of a local;
* a *region* value is a run of ``reps.width(T)`` slots in an int64 array:
  ``U`` (the unpacked pre-state), ``V`` (the post-state in step checks),
  ``P`` (the successor being built), ``S`` (scratch for intermediate values)
  or a module constant ``K<n>``.  ``off`` is a Python expression.

Scratch regions are allocated statically, one per IR node that yields a
composite value; a node inside a loop reuses its region on every iteration,
which is safe because a value never outlives the iteration that made it
(accumulators get their own region outside the loop).
"""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator

__all__ = ["Scalar", "Region", "Val", "Source", "slot", "add_off", "ERR_CODES"]

#: Error codes a kernel reports (err[0]); err[1] is the IR node id.
ERR_CODES = {
    "MC5001": 5001, "MC5002": 5002, "MC5003": 5003, "MC5004": 5004,
    "MC5005": 5005, "MC5006": 5006, "MC5008": 5008,
}


@dataclass(frozen=True)
class Scalar:
    code: str


@dataclass(frozen=True)
class Region:
    arr: str
    off: str

    def at(self, k: int | str) -> "Region":
        return Region(self.arr, add_off(self.off, k))


Val = Scalar | Region


def add_off(off: str, k: int | str) -> str:
    """``off + k`` as the sum of its non-constant terms and one constant (the
    generated code stays short: numba's compile time grows with it)."""
    const = 0
    terms: list[str] = []
    for part in _terms(off) + _terms(str(k)):
        if _is_int(part):
            const += int(part)
        else:
            terms.append(part)
    if const or not terms:
        terms.append(str(const))
    return " + ".join(terms)


def _terms(code: str) -> list[str]:
    """The top-level summands of ``code`` (each one kept as an operand of +)."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(code):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif depth == 0 and code.startswith(" + ", i):
            out.append(code[start:i])
            start = i + 3
    out.append(code[start:])
    return [_term(t.strip()) for t in out]


def _term(code: str) -> str:
    """``code`` safe as an operand of ``+`` (shifts and masks bind looser)."""
    if code.isidentifier() or _is_int(code):
        return code
    if any(op in code for op in (">>", "<<", "&", "|", "^", " if ")):
        return f"({code})"
    return code


def _is_int(text: str) -> bool:
    try:
        int(text)
    except ValueError:
        return False
    return True


def slot(region: Region, k: int | str = 0) -> str:
    """The array element holding slot ``k`` of ``region``."""
    return f"{region.arr}[{add_off(region.off, k)}]"


class Source:
    """Indented Python source with fresh local names and a scratch allocator."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.depth = 0
        self._names = 0
        self.scratch = 0          # slots of S used so far (per function)
        self.scratch_max = 0
        # Values computed so far, one table per open block: code emitted in a
        # block runs after (and only with) the code of the blocks around it,
        # so their values can be reused there.
        self.scopes: list[dict] = [{}]

    def line(self, text: str) -> None:
        self.lines.append("    " * self.depth + text)

    def blank(self) -> None:
        self.lines.append("")

    @contextmanager
    def block(self, header: str) -> Iterator[None]:
        self.line(header)
        self.depth += 1
        self.scopes.append({})
        start = len(self.lines)
        try:
            yield
        finally:
            if len(self.lines) == start:
                self.line("pass")
            self.scopes.pop()
            self.depth -= 1

    def remember(self, key: object, value: object) -> None:
        self.scopes[-1][key] = value

    def recall(self, key: object) -> object | None:
        for scope in reversed(self.scopes):
            hit = scope.get(key)
            if hit is not None:
                return hit
        return None

    def fresh(self, prefix: str = "t") -> str:
        self._names += 1
        return f"{prefix}{self._names}"

    def let(self, code: str, prefix: str = "t") -> str:
        """Bind ``code`` to a fresh local (unless it already is a name or literal)."""
        if code.isidentifier() or _is_int(code) or code in ("True", "False"):
            return code
        name = self.fresh(prefix)
        self.line(f"{name} = {code}")
        return name

    def alloc(self, width: int) -> Region:
        """A scratch region of ``width`` slots, private to the current node."""
        region = Region("S", str(self.scratch))
        self.scratch += max(1, width)
        self.scratch_max = max(self.scratch_max, self.scratch)
        return region

    def start_function(self) -> None:
        self.scratch = 0
        self.scopes = [{}]

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"
