"""Why a trace is a counterexample, for the trace page's "why" panel: the
property as written in the spec (with the comment above it), the consts the
trace was made under, and ``trace explain``'s tree for the step where the
property fails (``modelcheck.trace.explain``; a lasso's why is its fairness
panel, ``modelcheck.trace.lasso``).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from modelcheck.diagnostics import Span
from modelcheck.errors import EvalError, UsageError
from modelcheck.ir.nodes import Model, PropertyKind
from modelcheck.trace.explain import Explanation, explain
from modelcheck.trace.trace import Trace
from modelcheck.trace.view import format_value

__all__ = ["Why", "why", "MAX_COMMENT_LINES", "MAX_SOURCE_LINES"]

#: Lines of the comment above a property's declaration shown with it.
MAX_COMMENT_LINES = 12
#: Lines of a declaration shown before the rest is cut.
MAX_SOURCE_LINES = 30


@dataclass(frozen=True)
class Why:
    """``source``: the declaration's lines as (line number, text), the
    comment above it first; ``where``: its place (``file:line``);
    ``consts``: (name, value) of the model the trace was read with;
    ``explanation``: explain's tree (None for a liveness property or when
    the property is not one explain knows); ``headline``: one sentence."""
    property_name: str | None
    kind: str | None
    headline: str
    where: str | None
    source: tuple[tuple[int, str], ...]
    consts: tuple[tuple[str, str], ...]
    explanation: Explanation | None


def _declaration(model: Model, name: str) -> tuple[str | None, Span | None]:
    for prop in model.properties:
        if prop.name == name:
            return prop.kind.value, prop.span
    for temporal in model.temporals:
        if temporal.name == name:
            return f"liveness ({temporal.kind.value})", temporal.span
    return None, None


def _source_lines(span: Span | None, sources: Mapping[str, str]) -> tuple[tuple[int, str], ...]:
    """The lines of the declaration at ``span``, with the comment lines right
    above it (a property's comment says what it means)."""
    if span is None or span.file not in sources:
        return ()
    lines = sources[span.file].splitlines()
    if not 1 <= span.line <= len(lines):
        return ()
    end = min(max(span.end_line, span.line), len(lines), span.line + MAX_SOURCE_LINES - 1)
    first = span.line
    while first > 1 and span.line - first < MAX_COMMENT_LINES and lines[first - 2].lstrip().startswith("#"):
        first -= 1
    return tuple((n, lines[n - 1]) for n in range(first, end + 1))


def _headline(trace: Trace, explanation: Explanation | None) -> str:
    name = trace.property_name or "the property"
    if trace.loop is not None:
        return f"{name} is violated by this lasso: the cycle below says how, and why it is fair"
    if explanation is None or explanation.step is None:
        return f"{name} is violated by this trace" if trace.kind == "counterexample" else \
            f"this trace is a {trace.kind or 'trace'} for {name}"
    step = explanation.step
    at = f"state {step}, reached by step {step}: {explanation.label}" if step else "the initial state"
    if explanation.kind is PropertyKind.SOMETIMES:
        return f"{name} first holds in {at}"
    if explanation.kind is PropertyKind.STEP:
        return f"the step invariant {name} fails on step {step}: {explanation.label}"
    return f"{name} is false in {at}"


def why(trace: Trace, model: Model | None) -> Why | None:
    """The why panel of ``trace``'s page; None for a trace about no property
    of ``model`` (a scenario, another tool's trace, no spec at hand)."""
    if model is None or not trace.property_name:
        return None
    kind, span = _declaration(model, trace.property_name)
    if kind is None:
        return None
    explanation = None
    if trace.loop is None and any(p.name == trace.property_name for p in model.properties):
        try:
            explanation = explain(trace, model, trace.property_name)
        except (UsageError, EvalError):
            # states without the spec's variables, or a property that cannot
            # be evaluated on them: the panel still says what is known
            explanation = None
    consts = tuple((name, format_value(value, t)) for name, t, value in model.consts)
    where = f"{Path(span.file).name}:{span.line}" if span is not None else None
    return Why(trace.property_name, kind, _headline(trace, explanation), where,
               _source_lines(span, dict(model.sources)), consts, explanation)
