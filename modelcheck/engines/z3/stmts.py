"""Action bodies to guarded symbolic updates.

One action instance (an action with its parameters bound, or with its
parameters left as choice unknowns) becomes an ``Instance``:

* ``alive``: the path through the body reaches its end with every ``require``
  true, for the values the choice unknowns take;
* ``writes``: the new value of each variable some path assigns, merged over
  the branches with if-then-else, already converted to the variable's declared
  type; a variable a path does not assign keeps its value there (the frame
  condition comes from here, never from the spec writer);
* ``faults``: the run-time errors (MC5xxx) the instance raises, each with the
  condition under which the reference evaluator would raise it;
* ``choices``: the unknowns standing for ``either`` branches, ``pick``
  elements and (in the ``choice`` parameter mode) parameters, each with the
  type whose values it ranges over and its well-formedness constraint.

Statements read the state before the step, so each statement is translated in
order against the pre-state plus the locals bound so far.
"""
from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import z3

from modelcheck.engines.z3.exprs import Exprs, Fault, Scope
from modelcheck.engines.z3.logic import FALSE, TRUE, conj, disj, is_false, neg
from modelcheck.engines.z3.symbolic import SSparse, SSparseBag, Sym, Syms
from modelcheck.ir import nodes as ir
from modelcheck.ir.types import IntType, SeqType, Type, render_type
from modelcheck.ir.values import domain_size

__all__ = ["Instance", "Choice", "Actions", "PARAM_MODES", "EXPAND_BINDINGS"]

#: How action parameters are encoded: one instance per binding, or one
#: instance per action with the parameters as choice unknowns.
PARAM_MODES = ("expand", "choice")

#: In the ``expand`` mode, an action with more bindings than this still has
#: its parameters as choice unknowns: ``Send(n: Node, v: 0..999)`` expanded
#: is 3,000 copies of its body, as unknowns one (no shipped spec has an
#: action of more than 32 bindings).
EXPAND_BINDINGS = 256


@dataclass(frozen=True)
class Choice:
    """A nondeterministic choice unknown: its value, the type it ranges over,
    the name it was made from (the same name in another step makes the same
    shape), and the constraints keeping it a value of the type."""
    name: str
    type: Type
    value: Sym
    wf: tuple[z3.BoolRef, ...]


@dataclass
class Instance:
    action: str
    params: tuple[tuple[str, Sym], ...]
    alive: z3.BoolRef
    writes: dict[str, Sym]
    faults: list[Fault]
    choices: list[Choice] = field(default_factory=list)


class Actions:
    """Translates the actions of a model over one symbolic pre-state."""

    def __init__(self, model: ir.Model, sy: Syms, exprs_for: Callable[[list[Fault]], Exprs],
                 param_mode: str = "expand"):
        if param_mode not in PARAM_MODES:
            raise ValueError(f"unknown parameter mode {param_mode!r}")
        self.model = model
        self.sy = sy
        self.exprs_for = exprs_for
        self.param_mode = param_mode
        self.decls = {v.name: v for v in model.vars}

    def instances(self, state: dict[str, Sym], tag: str) -> Iterator[Instance]:
        """Every instance of every action, in the reference evaluator's order.
        ``tag`` names this copy's choice unknowns."""
        for action in self.model.actions:
            if not action.params or (self.param_mode == "expand"
                                     and _bindings(action) <= EXPAND_BINDINGS):
                names = [p.name for p in action.params]
                for values in itertools.product(*(self.sy.domain(p.type) for p in action.params)):
                    params = tuple((n, self.sy.const(v, p.type))
                                   for n, v, p in zip(names, values, action.params))
                    yield self.instance(action, params, state, tag, [])
            else:
                choices = [self.choice(f"{tag}{action.name}.{p.name}", p.type) for p in action.params]
                params = tuple((p.name, c.value) for p, c in zip(action.params, choices))
                yield self.instance(action, params, state, tag, choices)

    def choice(self, name: str, t: Type) -> Choice:
        wf: list[z3.BoolRef] = []
        value = self.sy.fresh(t, name, wf)
        return Choice(name, t, value, tuple(wf))

    def instance(self, action: ir.Action, params: tuple[tuple[str, Sym], ...],
                 state: dict[str, Sym], tag: str, choices: list[Choice]) -> Instance:
        faults: list[Fault] = []
        run = _Run(self, self.exprs_for(faults), state, f"{tag}{action.name}", choices)
        scope = Scope(state, None, dict(params))
        alive, writes = run.block(action.body, scope, TRUE, {})
        return Instance(action.name, params, alive, writes, faults, choices)


def _bindings(action: ir.Action) -> int:
    total = 1
    for p in action.params:
        total *= domain_size(p.type)
    return total


class _Run:
    """The translation of one instance's body."""

    def __init__(self, actions: Actions, ex: Exprs, state: dict[str, Sym], prefix: str,
                 choices: list[Choice]):
        self.actions = actions
        self.sy = actions.sy
        self.ex = ex
        self.state = state
        self.prefix = prefix
        self.choices = choices
        self.counter = itertools.count()

    def new_choice(self, kind: str, t: Type) -> Choice:
        c = self.actions.choice(f"{self.prefix}.{kind}{next(self.counter)}", t)
        self.choices.append(c)
        return c

    def block(self, stmts: tuple[ir.Stmt, ...], scope: Scope, alive: z3.BoolRef,
              writes: dict[str, Sym]) -> tuple[z3.BoolRef, dict[str, Sym]]:
        ex, sy = self.ex, self.sy
        for stmt in stmts:
            if is_false(alive):
                return FALSE, writes
            if isinstance(stmt, ir.Require):
                alive = conj([alive, ex.boolean(stmt.cond, scope, alive)])
            elif isinstance(stmt, ir.Let):
                scope = scope.bind(stmt.name, ex.tr(stmt.value, scope, alive))
            elif isinstance(stmt, ir.Assign):
                writes = {**writes, stmt.var: self.assign(stmt, scope, alive)}
            elif isinstance(stmt, ir.If):
                c = ex.boolean(stmt.cond, scope, alive)
                a1, w1 = self.block(stmt.then, scope, conj([alive, c]), writes)
                a2, w2 = self.block(stmt.else_, scope, conj([alive, neg(c)]), writes)
                alive = disj([a1, a2])
                writes = self.merge([(c, w1), (TRUE, w2)], writes)
            elif isinstance(stmt, ir.Either):
                n = len(stmt.branches)
                pick = self.new_choice("either", IntType(0, n - 1)).value
                outs = []
                for i, branch in enumerate(stmt.branches):
                    chosen = sy.nums.eq_const(pick, i)
                    a, w = self.block(branch, scope, conj([alive, chosen]), writes)
                    outs.append((a, chosen, w))
                alive = disj(a for a, _, _ in outs)
                writes = self.merge([(chosen, w) for _, chosen, w in outs], writes)
            elif isinstance(stmt, ir.Pick):
                value, ok = self.pick(stmt, scope, alive)
                alive = conj([alive, ok])
                scope = scope.bind(stmt.name, value)
            else:
                raise TypeError(f"unknown statement {type(stmt).__name__}")
        return alive, writes

    def assign(self, stmt: ir.Assign, scope: Scope, alive: z3.BoolRef) -> Sym:
        decl = self.actions.decls[stmt.var]
        value = self.ex.tr(stmt.value, scope, alive)
        fits = self.sy.in_type(value, decl.type)
        self.ex.fault(alive, neg(fits), "MC5001",
                      f"value of '{decl.name}' is outside its declared type "
                      f"{render_type(decl.type)}", stmt.span)
        return self.sy.convert(value, decl.type)

    def pick(self, stmt: ir.Pick, scope: Scope, alive: z3.BoolRef) -> tuple[Sym, z3.BoolRef]:
        dom = self.ex.tr(stmt.domain, scope, alive)
        elems = self.ex.co.elements(dom)
        if not elems:
            return self.sy.default(_elem_type(dom)), FALSE
        if isinstance(dom.type, SeqType) or isinstance(dom, (SSparse, SSparseBag)):
            # A sequence may hold an element twice: choose a position.  So
            # for a set or bag over a large type, whose element as a choice
            # would have to be quantified over (enabledness, deadlock).
            pos = self.new_choice("pick", IntType(0, len(elems) - 1)).value
            value = elems[-1][1]
            for i in range(len(elems) - 2, -1, -1):
                value = self.sy.ite(self.sy.nums.eq_const(pos, i), elems[i][1], value)
            ok = disj(conj([self.sy.nums.eq_const(pos, i), g]) for i, (g, _) in enumerate(elems))
            return value, ok
        # A set or bag: choose the element itself, then require that it is there.
        c = self.new_choice("pick", _elem_type(dom))
        ok = disj(conj([g, self.sy.eq(c.value, x)]) for g, x in elems)
        return c.value, ok

    def merge(self, outs: list[tuple[z3.BoolRef, dict[str, Sym]]],
              before: dict[str, Sym]) -> dict[str, Sym]:
        """The writes after a branch: ``outs`` are (condition, writes) in order,
        the last one taken when no earlier condition holds."""
        names = sorted({n for _, w in outs for n in w if w[n] is not before.get(n)})
        if not names:
            return before
        merged = dict(before)
        for name in names:
            old = before.get(name, self.state[name])
            value = outs[-1][1].get(name, old)
            for cond, w in reversed(outs[:-1]):
                value = self.sy.ite(cond, w.get(name, old), value)
            merged[name] = value
        return merged


def _elem_type(dom: Sym) -> Any:
    t = dom.type
    return t.elem
