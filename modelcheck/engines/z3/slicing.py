"""Cone of influence: the part of a model that a property depends on.

Starting from the state variables the property reads, a variable is relevant
when an action that writes a relevant variable reads it (in a ``require``, a
condition, a ``let``/``pick``, or the value written to a relevant variable).
The sliced model keeps the relevant variables, the actions that write one of
them (with their writes to other variables removed), and drops the rest.

Before slicing, ``freeze`` replaces by their initial value the variables no
enabled action can ever write (a budget of crashes that starts at 0, a
feature switched off by a const), and drops the actions a false ``require``
on such values disables: a spec's configuration often leaves much of it
unused, and the prover should not carry it.  That step is exact.

The sliced model over-approximates the original on the relevant variables:
every step of the original projects to a step of the slice or to no change
(an action that writes no relevant variable), and a removed write can only
remove run-time errors, never add behaviour the original lacks on the
relevant part.  The state constraints are kept, and the variables they
read are relevant, so "in the model" means the same on both.  So an
invariant proved on the slice holds on the original;
a counterexample on the slice proves nothing (PDR re-finds counterexamples
with BMC on the full model).
"""
from __future__ import annotations

from dataclasses import replace

from typing import Any

from modelcheck.evaluate.evaluator import Evaluator
from modelcheck.errors import EvalError
from modelcheck.ir import nodes as ir
from modelcheck.ir.ops import Op
from modelcheck.ir.values import in_type
from modelcheck.ir.visit import (free_vars, map_expr, map_stmts, state_vars_read,
                                 stmts_assigned_vars)

__all__ = ["cone_of_influence", "slice_model", "frozen_vars", "freeze", "frozen_facts"]


def _without_writes(body: tuple[ir.Stmt, ...], keep: frozenset[str]) -> tuple[ir.Stmt, ...]:
    out: list[ir.Stmt] = []
    for stmt in body:
        if isinstance(stmt, ir.Assign):
            if stmt.var in keep:
                out.append(stmt)
        elif isinstance(stmt, ir.If):
            out.append(replace(stmt, then=_without_writes(stmt.then, keep),
                               else_=_without_writes(stmt.else_, keep)))
        elif isinstance(stmt, ir.Either):
            out.append(replace(stmt, branches=tuple(_without_writes(b, keep)
                                                    for b in stmt.branches)))
        else:
            out.append(stmt)
    return tuple(out)


def cone_of_influence(model: ir.Model, roots: frozenset[str]) -> frozenset[str]:
    """The state variables that can influence the variables ``roots``."""
    relevant = frozenset(roots)
    while True:
        grown = set(relevant)
        for action in model.actions:
            if stmts_assigned_vars(action.body) & relevant:
                grown |= state_vars_read(_without_writes(action.body, relevant))
        if grown == relevant:
            return relevant
        relevant = frozenset(grown)


def slice_model(model: ir.Model, props: list[ir.Property]) -> ir.Model:
    """The model cut down to what ``props`` depend on (see the module doc)."""
    keep = cone_of_influence(model, _roots(model, props))
    actions = tuple(replace(a, body=_without_writes(a.body, keep)) for a in model.actions
                    if stmts_assigned_vars(a.body) & keep)
    return replace(model, vars=tuple(v for v in model.vars if v.name in keep), actions=actions,
                   properties=tuple(props), terminals=())


def _roots(model: ir.Model, props: list[ir.Property]) -> frozenset[str]:
    # The constraints decide which states are expanded: what they read is
    # relevant to every property.
    return frozenset().union(*(state_vars_read(p.expr) for p in [*props, *model.constraints]))


def _conjuncts(e: ir.Expr) -> list[ir.Expr]:
    if isinstance(e, ir.Apply) and e.op is Op.AND:
        return [x for a in e.args for x in _conjuncts(a)]
    return [e]


def _disabled(ev: Evaluator, action: ir.Action, fixed: dict[str, Any], state: tuple) -> bool:
    """The action's leading ``require`` s reach a false conjunct that reads
    only fixed variables, before anything that could raise a run-time error
    (so dropping the action changes neither its steps nor its errors)."""
    for stmt in action.body:
        if not isinstance(stmt, ir.Require):
            return False
        for c in _conjuncts(stmt.cond):
            if free_vars(c) or not state_vars_read(c) <= fixed.keys():
                return False
            try:
                value = ev.eval(c, state)
            except EvalError:
                return False
            if value is False:
                return True
    return False


def frozen_vars(model: ir.Model) -> tuple[dict[str, Any], frozenset[str]]:
    """The variables that keep their initial value in every reachable state
    (with that value), and the actions that are never enabled."""
    ev = Evaluator(model)
    fixed: dict[str, Any] = {}
    for decl in model.vars:
        if decl.init_kind is ir.InitKind.EQ:
            try:
                value = ev.eval(decl.init, ())
            except EvalError:
                continue
            if in_type(decl.type, value):     # else the initial states raise MC5001: keep it
                fixed[decl.name] = value
    while True:
        state = tuple(fixed.get(v.name) for v in model.vars)
        disabled = {a.name for a in model.actions if _disabled(ev, a, fixed, state)}
        written = set()
        for a in model.actions:
            if a.name not in disabled:
                written |= stmts_assigned_vars(a.body)
        if not written & fixed.keys():
            return fixed, frozenset(disabled)
        fixed = {k: v for k, v in fixed.items() if k not in written}


def freeze(model: ir.Model) -> tuple[ir.Model, dict[str, Any]]:
    """The model with its frozen variables replaced by their values and its
    never-enabled actions removed (an exact reduction, see the module doc),
    and the frozen variables' values."""
    fixed, disabled = frozen_vars(model)
    if not fixed and not disabled:
        return model, fixed
    types = {v.name: v.type for v in model.vars}

    def subst(e: ir.Expr) -> ir.Expr:
        if isinstance(e, ir.Var) and e.name in fixed:
            return ir.Const(fixed[e.name], types[e.name], e.span)
        return e

    actions = tuple(replace(a, body=map_stmts(a.body, subst)) for a in model.actions
                    if a.name not in disabled)
    props = tuple(replace(p, expr=map_expr(p.expr, subst)) for p in model.properties)
    terminals = tuple(replace(p, expr=map_expr(p.expr, subst)) for p in model.terminals)
    constraints = tuple(replace(p, expr=map_expr(p.expr, subst)) for p in model.constraints)
    return replace(model, vars=tuple(v for v in model.vars if v.name not in fixed),
                   actions=actions, properties=props, terminals=terminals,
                   constraints=constraints), fixed


def frozen_facts(model: ir.Model, prop: ir.Property) -> list[tuple[ir.VarDecl, Any]]:
    """The frozen variables in the property's cone of influence, with their
    values: what a proof about the frozen model assumes of the whole one."""
    fixed, _ = frozen_vars(model)
    cone = cone_of_influence(model, _roots(model, [prop]))
    return [(decl, fixed[decl.name]) for decl in model.vars if decl.name in fixed and decl.name in cone]
