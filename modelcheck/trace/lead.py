"""The lead of an explanation: for a quantified invariant, the value it was
quantified over that broke it (the witness), the instance of its body that
went wrong, the step since which it has been wrong, and the body's conditions
with the step each has held since.  ``trace.explain`` puts it first, above
the tree of sub-formulas; the walk over the quantifiers is the explainer's
(passed in as ``ex``: its ``witness``, ``name`` and ``text``).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from modelcheck.evaluate.evaluator import Evaluator
from modelcheck.ir import nodes as ir
from modelcheck.ir.ops import Op
from modelcheck.trace.exprtext import bool_word, source_text
from modelcheck.trace.trace import Trace
from modelcheck.trace.view import format_value, step_label

__all__ = ["Lead", "find_lead", "LEAD_WIDTH"]


@dataclass(frozen=True)
class Lead:
    """For a quantified invariant (``not any(lost(m) for m in Msg)``,
    ``all(m in X => m in Y for m in Msg)``): the witness, the instance of the
    body that went wrong for it, and since when.  ``witness``: the bound
    names and their values (``(("m", "1"),)``); ``kind``: the domain's type
    name when it has one (``Msg``); ``body``: the instance as written;
    ``value``: what it is in the failing state; ``since``: the first step
    from which it kept that value to the failing state, with its label;
    ``parts``: the body's conditions (a conjunction's operands, an
    implication's premise and conclusion), each with its value there and the
    step since which it has had it (0: the initial state)."""
    witness: tuple[tuple[str, str], ...]
    kind: str | None
    body: str
    value: str
    since: int
    since_label: str | None
    parts: tuple[tuple[str, str, int, str | None], ...] = ()


#: A condition longer than this is cut short in the lead (the tree has it whole).
LEAD_WIDTH = 70


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= LEAD_WIDTH else text[:LEAD_WIDTH - 1] + "…"


def find_lead(evaluator: Evaluator, states: list[tuple], i: int, expr: ir.Expr,
              sources: Mapping[str, str], trace: Trace, model: ir.Model,
              ex: Any) -> Lead | None:
    """The witness of a quantified invariant that fails in state ``i`` and
    the step that made its instance go wrong (``Lead``); None when the
    property is no quantifier over something that went wrong.  ``ex``: the
    explainer of state ``i`` (``trace.explain``), whose ``witness``, ``name``
    and ``text`` it uses."""
    state = states[i]
    env: dict[str, Any] = {}
    e, expected = expr, True
    while True:
        if isinstance(e, ir.LetExpr):
            env[e.name] = evaluator.eval(e.value, state, env, None)
            e = e.body
        elif isinstance(e, ir.Apply) and e.op is Op.NOT:
            e, expected = e.args[0], not expected
        elif isinstance(e, ir.Apply) and e.op in (Op.AND, Op.OR) and \
                (e.op is Op.AND) is expected:
            # all(...) and all(...) needed true: the operand that is false
            e = next(a for a in e.args if bool(evaluator.eval(a, state, env, None)) is not expected)
        else:
            break
    if not isinstance(e, ir.Quant):
        return None
    got = bool(evaluator.eval(e, state, env, None))
    if got == expected or (e.kind is ir.QuantKind.ALL) is not expected:
        return None     # all(...) needed true and false / any(...) needed false and true
    witness: list[tuple[str, str]] = []
    written = source_text(e.domain.span, sources) or ""
    kind = written if written in {n for n, _ in model.types} else _type_name(e.domain.type, model)
    body: ir.Expr = e
    domains: list[tuple[ir.Expr, dict[str, Any], Any]] = []   # where each witness is drawn from
    while isinstance(body, ir.Quant) and body.kind is e.kind:
        found = ex.witness(body, env, got)
        if found is None:
            return None
        name, value, elem_type = found
        domains.append((body.domain, dict(env), value))
        env[name] = value
        witness.append((ex.name(name, body.body), format_value(value, elem_type)))
        body = body.body
    bad = e.kind is ir.QuantKind.ANY     # the instance's value that breaks the property

    def present(k: int) -> bool:
        # the witness is one of the values quantified over in state k
        return all(_member(v, evaluator.eval(d, states[k], denv, None)) for d, denv, v in domains)

    def since(x: ir.Expr, env_x: dict[str, Any], value: bool) -> int:
        k = i
        while k > 0 and present(k - 1) and bool(evaluator.eval(x, states[k - 1], env_x, None)) is value:
            k -= 1
        return k

    def label(k: int) -> str | None:
        return step_label(trace.steps[k], model, k) if k > 0 else None

    turned = since(body, env, bad)
    parts: list[tuple[str, str, int, str | None]] = []
    inner, inner_env, want = body, dict(env), bad
    # a def call is inlined as lets of its arguments around the def's body
    while isinstance(inner, ir.LetExpr):
        inner_env[inner.name] = evaluator.eval(inner.value, state, inner_env, None)
        inner = inner.body
    while isinstance(inner, ir.Apply) and inner.op is Op.NOT:
        inner, want = inner.args[0], not want
    conds: list[tuple[ir.Expr, bool]] = []
    if isinstance(inner, ir.Apply) and inner.op is Op.AND and want:
        conds = [(a, True) for a in inner.args]
    elif isinstance(inner, ir.Apply) and inner.op is Op.OR and not want:
        conds = [(a, False) for a in inner.args]
    elif isinstance(inner, ir.Apply) and inner.op is Op.IMPLIES and not want:
        conds = [(inner.args[0], True), (inner.args[1], False)]
    for c, value in conds:
        if bool(evaluator.eval(c, state, inner_env, None)) is not value:
            return None
        k = since(c, inner_env, value)
        parts.append((_short(ex.text(c)), bool_word(value), k, label(k)))
    return Lead(tuple(witness), kind, _short(ex.text(body)), bool_word(bad), turned, label(turned), tuple(parts))


def _type_name(t: Any, model: ir.Model) -> str | None:
    """The name the spec gives a quantifier's domain (``Msg`` for 1..M)."""
    elem = getattr(t, "elem", None)
    names = [name for name, declared in model.types if declared == elem]
    return names[0] if len(names) == 1 else None


def _member(value: Any, domain: Any) -> bool:
    if isinstance(domain, Mapping):
        return value in domain and bool(domain[value])
    return value in domain
