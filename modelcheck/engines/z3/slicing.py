"""Cone of influence: the part of a model that a property depends on.

Starting from the state variables the property reads, a variable is relevant
when an action that writes a relevant variable reads it (in a ``require``, a
condition, a ``let``/``pick``, or the value written to a relevant variable).
The sliced model keeps the relevant variables, the actions that write one of
them (with their writes to other variables removed), and drops the rest.

The sliced model over-approximates the original on the relevant variables:
every step of the original projects to a step of the slice or to no change
(an action that writes no relevant variable), and a removed write can only
remove run-time errors, never add behaviour the original lacks on the
relevant part.  So an invariant proved on the slice holds on the original;
a counterexample on the slice proves nothing (PDR re-finds counterexamples
with BMC on the full model).
"""
from __future__ import annotations

from dataclasses import replace

from modelcheck.ir import nodes as ir
from modelcheck.ir.visit import state_vars_read, stmts_assigned_vars

__all__ = ["cone_of_influence", "slice_model"]


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
    roots = frozenset().union(*(state_vars_read(p.expr) for p in props))
    keep = cone_of_influence(model, roots)
    actions = tuple(replace(a, body=_without_writes(a.body, keep)) for a in model.actions
                    if stmts_assigned_vars(a.body) & keep)
    return replace(model, vars=tuple(v for v in model.vars if v.name in keep), actions=actions,
                   properties=tuple(props), terminals=())
