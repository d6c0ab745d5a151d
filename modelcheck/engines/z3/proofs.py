"""What a proof answers: ``ProofResult`` and its parts, shared by k-induction
and PDR, plus the conjuncts an invariant is split into."""
from __future__ import annotations

import enum
from dataclasses import dataclass, field

from modelcheck.diagnostics import Span
from modelcheck.ir import nodes as ir
from modelcheck.ir.ops import Op
from modelcheck.trace.trace import Trace

__all__ = ["ProofStatus", "Conjunct", "Obligation", "InvariantProof", "ProofResult", "conjuncts",
           "span_text", "lemma_declarations"]


class ProofStatus(enum.Enum):
    PROVED = "proved"          # holds in every reachable state (of this finite instance)
    REFUTED = "refuted"        # violated: a real counterexample from an initial state
    CTI = "not inductive"      # a counterexample to induction: no verdict on the invariant
    UNKNOWN = "unknown"        # timeout, or the solver could not decide


@dataclass(frozen=True)
class Conjunct:
    """One top-level conjunct of an invariant (``and`` is split): ``name`` is
    the property's name, with ``#i`` when the property has several."""
    name: str
    prop: str
    expr: ir.Expr
    text: str
    lemma: bool


@dataclass
class Obligation:
    """One solver query of a proof: ``kind`` is "initiation" (the initial
    states satisfy the conjunct; for k > 1, no path of fewer than k steps leaves
    it), "consecution" (``action`` preserves it), or "pdr"."""
    kind: str
    conjunct: str
    action: str | None
    status: ProofStatus
    seconds: float
    trace: Trace | None = None
    reason: str | None = None


@dataclass
class InvariantProof:
    """The verdict on one target invariant.  ``trace``: the counterexample
    (REFUTED) or the counterexample to induction (CTI) to show first."""
    name: str
    status: ProofStatus
    trace: Trace | None = None
    reason: str | None = None
    failed: list[Obligation] = field(default_factory=list)
    lemmas: tuple[str, ...] = ()
    invariant: list[str] = field(default_factory=list)   # PDR: the inductive invariant found


@dataclass
class ProofResult:
    model_name: str
    engine: str
    k: int
    invariants: list[InvariantProof]
    obligations: list[Obligation]
    elapsed_s: float
    notes: list[str] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        """0 every invariant proved, 1 one refuted or not inductive, 3 unknown."""
        statuses = {p.status for p in self.invariants}
        if statuses & {ProofStatus.REFUTED, ProofStatus.CTI}:
            return 1
        if ProofStatus.UNKNOWN in statuses:
            return 3
        return 0

    def get(self, name: str) -> InvariantProof:
        for p in self.invariants:
            if p.name == name:
                return p
        raise KeyError(name)


def span_text(model: ir.Model, span: Span | None) -> str | None:
    """The source text a span covers (one line, whitespace collapsed)."""
    if span is None:
        return None
    sources = dict(model.sources)
    text = sources.get(span.file)
    if text is None:
        return None
    lines = text.splitlines()
    if not 1 <= span.line <= len(lines) or not 1 <= span.end_line <= len(lines):
        return None
    if span.line == span.end_line:
        chunk = lines[span.line - 1][span.col - 1:span.end_col - 1]
    else:
        chunk = "\n".join([lines[span.line - 1][span.col - 1:]]
                          + lines[span.line:span.end_line - 1]
                          + [lines[span.end_line - 1][:span.end_col - 1]])
    return " ".join(chunk.split())


def _split(e: ir.Expr) -> list[ir.Expr]:
    if isinstance(e, ir.Apply) and e.op is Op.AND:
        return [x for a in e.args for x in _split(a)]
    return [e]


def conjuncts(model: ir.Model, prop: ir.Property, lemma: bool) -> list[Conjunct]:
    """The property's top-level conjuncts, each with its source text."""
    parts = _split(prop.expr)
    out = []
    for i, e in enumerate(parts, 1):
        name = prop.name if len(parts) == 1 else f"{prop.name}#{i}"
        text = span_text(model, e.span) or span_text(model, prop.span) or prop.name
        out.append(Conjunct(name, prop.name, e, text, lemma))
    return out


def lemma_declarations(name: str, lemmas: list[str]) -> list[str]:
    """An inductive invariant found for ``name`` as declarations to paste into
    the spec (``invariant <name>_pdr<i>: ...``)."""
    return [f"invariant {name}_pdr{i}: {text}" for i, text in enumerate(lemmas, 1)]
