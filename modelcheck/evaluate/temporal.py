"""Temporal properties and fairness, expanded into what an engine checks.

A ``liveness`` declaration with parameters is one property per binding, and a
``fair`` declaration with for-binders or ``*`` arguments is one fairness
condition per binding (docs/design.md, "Liveness").  Engines read the
expansion here, never the declarations, so every engine agrees on what the
conditions are and on their order.

A step *takes* a condition when its action and arguments match and it changes
the state (TLA+'s ``<<A>>_vars``); a condition is *enabled* in a state when some
step that takes it leaves that state, whether or not its target satisfies the
state constraints.  A step that changes nothing is a stutter: it takes nothing.
"""
from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from modelcheck.ir import nodes as ir
from modelcheck.ir.values import domain, render_value
from modelcheck.ir.visit import substitute

__all__ = ["ANY", "FairCondition", "LivenessCheck", "fair_conditions", "liveness_checks",
           "predicate_columns", "LIVENESS_FORMS"]

class _Any:
    """The ``_`` argument: any value."""

    def __repr__(self) -> str:
        return "_"


ANY: Any = _Any()

#: How each form reads, with P and Q standing for its predicates.
LIVENESS_FORMS = {
    ir.TemporalKind.EVENTUALLY: "eventually Q",
    ir.TemporalKind.LEADS_TO: "P leads to Q",
    ir.TemporalKind.ALWAYS_EVENTUALLY: "always eventually Q",
    ir.TemporalKind.EVENTUALLY_ALWAYS: "eventually always Q",
}


@dataclass(frozen=True)
class FairCondition:
    """One weak or strong fairness condition on the steps of ``action`` whose
    arguments match ``pattern`` (a value or ANY per parameter)."""
    kind: ir.FairKind
    action: str
    pattern: tuple[Any, ...]
    label: str
    #: ``fair weak A | B``: the other (action, pattern) pairs of the group;
    #: a step matching any of them matches the one condition.
    group: tuple[tuple[str, tuple[Any, ...]], ...] = ()

    def matches(self, action: str, params: tuple[tuple[str, Any], ...]) -> bool:
        for name, pattern in ((self.action, self.pattern), *self.group):
            if action == name and all(want is ANY or want == value
                                      for want, (_, value) in zip(pattern, params)):
                return True
        return False


@dataclass(frozen=True)
class LivenessCheck:
    """One binding of a ``liveness`` declaration: ``p`` and ``q`` are closed
    state predicates (the parameters replaced by their values)."""
    name: str
    kind: ir.TemporalKind
    instance: tuple[tuple[str, Any], ...]
    p: ir.Expr | None
    q: ir.Expr
    label: str


def liveness_checks(temporals: Iterable[ir.Temporal]) -> list[LivenessCheck]:
    """Every binding of every property, declarations in order, bindings
    first-parameter-slowest (the order of an action's instances)."""
    out: list[LivenessCheck] = []
    for t in temporals:
        names = tuple(p.name for p in t.params)
        for values in itertools.product(*(domain(p.type) for p in t.params)):
            consts = {p.name: ir.Const(v, p.type) for p, v in zip(t.params, values)}
            instance = tuple(zip(names, values))
            label = t.name if not names else t.name + "(" + ", ".join(
                f"{p.name}={render_value(p.type, v)}" for p, v in zip(t.params, values)) + ")"
            out.append(LivenessCheck(
                t.name, t.kind, instance,
                None if t.p is None else substitute(t.p, consts),
                substitute(t.q, consts), label))
    return out


def predicate_columns(checks: list[LivenessCheck], universe: Iterable[LivenessCheck] = ()
                      ) -> tuple[list[ir.Expr], list[tuple[int, int]]]:
    """The distinct predicates (the kernel's ``live_props`` columns) and, per
    check, the columns of its p (-1: none) and q.  The predicates of
    ``universe`` (every liveness property of the spec) come first, in its
    order, whether checked or not: the kernel's source then does not depend
    on which of them a run checks, so one kernel serves them all."""
    preds: list[ir.Expr] = []

    def col(e: ir.Expr) -> int:
        if e not in preds:
            preds.append(e)
        return preds.index(e)

    for c in universe:
        if c.p is not None:
            col(c.p)
        col(c.q)
    cols = [(-1 if c.p is None else col(c.p), col(c.q)) for c in checks]
    return preds, cols


def fair_conditions(model: ir.Model, evaluate: Any) -> list[FairCondition]:
    """Every fairness condition, declarations in order.  ``evaluate(expr,
    env)`` gives the value of a constant expression (the for-binders' domains,
    conditions and the arguments): the reference evaluator's ``eval`` with no
    state, so this module needs no evaluator of its own."""
    out: list[FairCondition] = []
    seen: set[tuple] = set()
    for decl in model.fairness:
        action = model.action(decl.action)
        for env in _binder_envs(decl.binders, evaluate):
            # a group's members have no '*' (typecheck): one pattern each
            group = tuple((m.action, _patterns(m, model.action(m.action), env, evaluate)[0])
                          for m in decl.group)
            for pattern in _patterns(decl, action, env, evaluate):
                key = (decl.kind, decl.action, pattern, group)
                if key in seen:
                    continue
                seen.add(key)
                label = " | ".join([_fair_label(decl.kind, action, pattern)]
                                   + [_fair_label(decl.kind, model.action(name), p).split(" ", 1)[1]
                                      for name, p in group])
                out.append(FairCondition(decl.kind, decl.action, pattern, label, group))
    return out


def _binder_envs(binders: tuple[ir.FairBinder, ...], evaluate: Any) -> list[dict[str, Any]]:
    envs: list[dict[str, Any]] = [{}]
    for b in binders:
        nxt = []
        for env in envs:
            elem_type = getattr(b.domain.type, "elem", None)
            values = evaluate(b.domain, env)
            ordered = sorted(values, key=_key(elem_type)) if elem_type is not None \
                else list(values)
            for v in ordered:
                inner = {**env, b.name: v}
                if b.cond is None or evaluate(b.cond, inner):
                    nxt.append(inner)
        envs = nxt
    return envs


def _key(t: Any) -> Any:
    from modelcheck.ir.values import order_key
    return lambda v: order_key(t, v)


def _patterns(decl: ir.Fairness, action: ir.Action, env: dict[str, Any],
              evaluate: Any) -> list[tuple[Any, ...]]:
    choices: list[list[Any]] = []
    for arg, param in zip(decl.args, action.params):
        if arg.kind is ir.FairArgKind.ANY:
            choices.append([ANY])
        elif arg.kind is ir.FairArgKind.EACH:
            choices.append(list(domain(param.type)))
        else:
            choices.append([evaluate(arg.value, env)])
    return [tuple(c) for c in itertools.product(*choices)]


def _fair_label(kind: ir.FairKind, action: ir.Action, pattern: tuple[Any, ...]) -> str:
    if not action.params or all(v is ANY for v in pattern):
        return f"{kind.value} {action.name}"
    args = ", ".join(f"{p.name}=_" if v is ANY else f"{p.name}={render_value(p.type, v)}"
                     for p, v in zip(action.params, pattern))
    return f"{kind.value} {action.name}({args})"
