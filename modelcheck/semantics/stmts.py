"""Statements of an action body: ``ast`` -> ``ir`` statements.

An assignment to a part of a variable (``x[k].f := v``) is lowered to a
whole-variable ``Assign`` (``x := x with [k] = (x[k] with .f = v)``).
Several part assignments to one variable on one path compose in order, as
TLA+'s ``[x EXCEPT ![i] = a, ![j] = b]``: each builds on the value so far,
held in a ``Let``, and only the last one on the path is an ``Assign``, so
every engine sees one ``Assign`` per variable per path (docs/design.md).
Assigning a whole variable twice, or the whole and a part, is MC4002.
``let`` and ``pick`` names scope over the rest of their block.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from modelcheck.diagnostics import Span
from modelcheck.ir import nodes as ir
from modelcheck.ir import types as T
from modelcheck.ir.ops import Op
from modelcheck.ir.types import render_int
from modelcheck.ir.values import domain, domain_size, sort_values
from modelcheck.semantics.context import Abort, Env, found_words, show
from modelcheck.semantics.names import kind_word
from modelcheck.syntax import ast

__all__ = ["StmtsMixin", "assigned_names"]

#: The most values of the element type a ``pick each`` over a set read from
#: the state unrolls over (MC4007 beyond).
MAX_PICK_EACH = 64


@dataclass(frozen=True)
class Written:
    """How a variable has been assigned so far on the current path."""
    first: Span | None          # its first assignment on the path
    last: Span | None           # its latest one: where the final Assign reports
    whole: bool                 # the whole variable, not a part of it
    pending: ir.Local | None    # the value so far, when its Assign is still to come


#: variable name -> how it was assigned on the current path
Assigned = dict[str, Written]


def assigned_names(stmts: tuple[Any, ...]) -> frozenset[str]:
    """The variables that some path through the AST statements assigns."""
    names: set[str] = set()
    for stmt in stmts:
        if isinstance(stmt, ast.AssignStmt):
            names.add(stmt.target.name)
        elif isinstance(stmt, ast.IfStmt):
            names |= assigned_names(stmt.then) | assigned_names(stmt.else_)
        elif isinstance(stmt, ast.EitherStmt):
            for branch in stmt.branches:
                names |= assigned_names(branch)
        elif isinstance(stmt, ast.MatchStmt):
            for arm in stmt.arms:
                names |= assigned_names(arm.body)
    return frozenset(names)


class StmtsMixin:
    """Checking and lowering of statements."""

    def block(self: Any, stmts: tuple[Any, ...], env: Env, assigned: Assigned,
              later: frozenset[str] = frozenset()) -> tuple[tuple[ir.Stmt, ...], Assigned]:
        """The IR of a block and the variables assigned on some path through it
        (including those assigned before it).  ``later`` holds the variables
        assigned after the block on its path: their pending values are not
        yet final at its end."""
        out: list[ir.Stmt] = []
        for k, stmt in enumerate(stmts):
            rest = stmts[k + 1:]
            try:
                if isinstance(stmt, ast.LetStmt):
                    value = self.expr(stmt.value, env)
                    env, name = env.bind(stmt.name, value.type)
                    out.append(ir.Let(name, value, stmt.span))
                elif isinstance(stmt, ast.PickStmt):
                    domain = self.pick_domain(stmt, env)
                    env, name = env.bind(stmt.name, domain.type.elem)
                    out.append(ir.Pick(name, domain, stmt.span))
                    if stmt.case is not None:
                        # pick m: C in S: the elements of S in case C
                        test = self.narrow(name, domain.type.elem, stmt.case, stmt.case_span,
                                           stmt.domain.span, env)
                        out.append(ir.Require(test, stmt.span))
                elif isinstance(stmt, ast.PickEachStmt):
                    out.extend(self.pick_each(stmt, env))
                elif isinstance(stmt, ast.RequireStmt) and _binds(stmt.cond):
                    test, env, (name, payload) = self.bound_test(stmt.cond, env)
                    out.append(ir.Require(test, stmt.span))
                    out.append(ir.Let(name, payload, stmt.span))
                elif (isinstance(stmt, (ast.IfStmt, ast.EitherStmt, ast.MatchStmt))
                      and assigned_names((stmt,)) & assigned_names(rest)):
                    # A variable assigned both in a branch and after the join
                    # has a value so far that depends on the branch: the rest
                    # of the block moves into every branch, which keeps the
                    # same paths in the same order.
                    nodes, assigned = self.stmt(stmt, env, assigned, later, rest)
                    out.extend(nodes)
                    return tuple(out), assigned
                else:
                    nodes, assigned = self.stmt(stmt, env, assigned,
                                                later | assigned_names(rest))
                    out.extend(nodes)
            except Abort:
                if isinstance(stmt, (ast.LetStmt, ast.PickStmt)):
                    # Later statements may use the name; they are skipped quietly.
                    env, _ = env.bind(stmt.name, None)
                elif isinstance(stmt, ast.RequireStmt) and _binds(stmt.cond):
                    env, _ = env.bind(stmt.cond.binder, None)
        assigned = self.flush(out, assigned, later)
        return tuple(out), assigned

    @staticmethod
    def flush(out: list[ir.Stmt], assigned: Assigned, later: frozenset[str]) -> Assigned:
        """Emit the ``Assign`` of every pending value that is final here."""
        done = dict(assigned)
        for name, w in assigned.items():
            if w.pending is not None and name not in later:
                out.append(ir.Assign(name, w.pending, w.last))
                done[name] = replace(w, pending=None)
        return done

    def pick_domain(self: Any, stmt: ast.PickStmt, env: Env) -> ir.Expr:
        node = self.expr(stmt.domain, env)
        if isinstance(node.type, T.BagType):
            # pick among the distinct elements of a bag (docs/design.md)
            return ir.Apply(Op.BAG_DISTINCT, (node,), T.SetType(node.type.elem), node.span)
        if isinstance(node.type, T.SeqType):
            # pick among the distinct elements of a sequence
            return self.domain_of(node, stmt.domain, env, "pick", seqs=True)
        if not isinstance(node.type, T.SetType):
            hint = None
            if isinstance(node.type, T.MapType):
                hint = "to choose a key of a map, pick from its key type"
            elif isinstance(node.type, T.SeqType):
                hint = "to choose a position in a sequence, pick from 0..len(s) - 1"
            self.fail("MC4008", f"pick chooses from a set, found {found_words(node.type)}",
                      stmt.domain.span, hint=hint)
        return node

    def pick_each(self: Any, stmt: ast.PickEachStmt, env: Env) -> list[ir.Stmt]:
        """``pick each x in S: y in T if P`` in existing statements, so that
        every engine runs it: for each element v of S (in canonical order),
        ``let x = v; pick y in T; require P`` -- one outcome per combination
        of witnesses, as TLC enumerates ``\\A x \\in S : \\E y \\in T : P``.
        S known before the search (a type, a constant) unrolls over its
        elements; S read from the state unrolls over every value v of its
        element type, each counting its witnesses only where v is in S:
        ``pick c in 1..(if v in S then len({y for y in T if P}) else 1)``
        (the same number of outcomes, and straight-line code in every engine).
        x and y name nothing after the statement."""
        span = stmt.span
        node = self.expr(stmt.domain, env)
        dom = self.domain_of(node, stmt.domain, env, "'pick each'", seqs=True)
        elem = dom.type.elem
        out: list[ir.Stmt] = []
        if isinstance(dom, ir.Const):
            for v in sort_values(elem, dom.value):
                inner, x = env.bind(stmt.var, elem)
                out.append(ir.Let(x, ir.Const(v, elem, span), span))
                node = self.expr(stmt.witness_domain, inner)
                wdom = self.domain_of(node, stmt.witness_domain, inner, "'pick each'", seqs=True)
                inner, y = inner.bind(stmt.witness, wdom.type.elem)
                out.append(ir.Pick(y, wdom, span))
                out.append(ir.Require(self.bool_expr(stmt.cond, inner, "as the 'if' filter"),
                                      span))
            return out
        size = domain_size(elem)
        if size > MAX_PICK_EACH:
            self.fail("MC4007", f"'pick each' over a set read from the state tries every "
                      f"value of its element type {show(elem)}: {render_int(size)} values, "
                      f"more than {MAX_PICK_EACH}", stmt.domain.span,
                      hint="range over a type or a constant set, or give the element "
                      "type a narrower range")
        if not isinstance(dom, (ir.Var, ir.Local)):
            held = env.unit.fresh(f"{stmt.var}_set")
            out.append(ir.Let(held, dom, span))
            dom = ir.Local(held, dom.type, dom.span)
        witnesses = ast.Call("len", (ast.Arg(None, ast.SetComp(
            ast.NameRef(stmt.witness, stmt.witness_span),
            (ast.CompFor(stmt.witness, stmt.witness_domain, stmt.cond, span,
                         stmt.witness_span),), span), span),), span)
        one = ir.Const(1, T.IntType(1, 1), span)
        for v in domain(elem):
            inner, x = env.bind(stmt.var, elem)
            out.append(ir.Let(x, ir.Const(v, elem, span), span))
            count = self.expr(witnesses, inner)
            member = ir.Apply(Op.IN, (ir.Local(x, elem, span), dom), T.BOOL, span)
            hi = ir.IfExpr(member, count, one, T.join(count.type, one.type), span)
            rng = ir.Apply(Op.RANGE, (one, hi), T.SetType(T.IntType(1, max(1, hi.type.hi))),
                           span)
            out.append(ir.Pick(env.unit.fresh(f"{stmt.witness}_count"), rng, span))
        return out

    def stmt(self: Any, stmt: Any, env: Env, assigned: Assigned, later: frozenset[str],
             tail: tuple[Any, ...] = ()) -> tuple[tuple[ir.Stmt, ...], Assigned]:
        """The IR of one statement (a match may need two: the binding of its
        subject, then its if chain) and the assignments after it.  ``tail``:
        statements that follow the join, moved into every branch."""
        if isinstance(stmt, ast.MatchStmt):
            return self.match_stmt(stmt, env, assigned, later, tail)
        node, assigned = self.one_stmt(stmt, env, assigned, later, tail)
        return (node,), assigned

    def one_stmt(self: Any, stmt: Any, env: Env, assigned: Assigned, later: frozenset[str],
                 tail: tuple[Any, ...]) -> tuple[ir.Stmt, Assigned]:
        if isinstance(stmt, ast.RequireStmt):
            cond = self.bool_expr(stmt.cond, env, "after 'require'")
            return ir.Require(cond, stmt.span), assigned
        if isinstance(stmt, ast.AssignStmt):
            return self.assign(stmt, env, assigned, later)
        if isinstance(stmt, ast.IfStmt) and _binds(stmt.cond):
            # if m is C as c { ... }: c is C's fields in the first branch
            cond, inner, (name, payload) = self.bound_test(stmt.cond, env)
            then, after_then = self.block(stmt.then + tail, inner, dict(assigned), later)
            then = (ir.Let(name, payload, stmt.span),) + then
            else_, after_else = self.block(stmt.else_ + tail, env, dict(assigned), later)
            return ir.If(cond, then, else_, stmt.span), {**after_else, **after_then}
        if isinstance(stmt, ast.IfStmt):
            cond = self.bool_expr(stmt.cond, env, "as the condition of 'if'")
            then, after_then = self.block(stmt.then + tail, env, dict(assigned), later)
            else_, after_else = self.block(stmt.else_ + tail, env, dict(assigned), later)
            return ir.If(cond, then, else_, stmt.span), {**after_else, **after_then}
        if isinstance(stmt, ast.EitherStmt):
            branches = []
            merged: Assigned = {}
            for branch in stmt.branches:
                body, after = self.block(branch + tail, env, dict(assigned), later)
                branches.append(body)
                merged = {**after, **merged}
            return ir.Either(tuple(branches), stmt.span), merged
        raise TypeError(f"not an AST statement: {stmt!r}")

    def assign(self: Any, stmt: ast.AssignStmt, env: Env, assigned: Assigned,
               later: frozenset[str]) -> tuple[ir.Stmt, Assigned]:
        target = stmt.target
        name = target.name
        if name in env.scope:
            self.fail("MC3010", f"cannot assign to '{name}': it is a local name "
                      "(a parameter, let or pick)", target.name_span,
                      hint="only state variables (var) can be assigned")
        sym = self.symbols.get(name)
        kind = sym.kind if sym is not None else "model_value"   # node1 of a model(N) type
        if kind != "var":
            self.fail("MC3010", f"cannot assign to '{name}': it is {kind_word(kind)}",
                      target.name_span, hint="only state variables (var) can be assigned")
        whole = not target.steps
        prior = assigned.get(name)
        if prior is not None:
            self.twice(name, prior, whole, target.span)
        vtype = self.var_type(name)
        base = prior.pending if prior is not None and prior.pending is not None \
            else ir.Var(name, vtype, False, target.name_span)
        value = self.lower_target(base, target.steps, stmt.value, env, name)
        first = prior.first if prior is not None else target.span
        if whole or name not in later:
            return ir.Assign(name, value, stmt.span), \
                {**assigned, name: Written(first, stmt.span, whole, None)}
        # Another part of the variable is assigned further on this path.
        local = env.unit.fresh(f"{name}_upd")
        held = ir.Local(local, value.type, stmt.span)
        return ir.Let(local, value, stmt.span), \
            {**assigned, name: Written(first, stmt.span, False, held)}

    def twice(self: Any, name: str, prior: Written, whole: bool, span: Span | None) -> None:
        """MC4002 unless both assignments are to parts of the variable."""
        notes = (f"first assigned at {prior.first}",) if prior.first else ()
        if prior.whole and whole:
            self.fail("MC4002", f"'{name}' is assigned twice on one path", span, notes=notes,
                      hint="compute the new value in one assignment, or assign it in "
                      "different branches of if/either")
        if prior.whole:
            self.fail("MC4002", f"a part of '{name}' is assigned after the whole of it on "
                      "one path", span, notes=notes,
                      hint=f"fold this part into the value assigned to '{name}', or assign "
                      "only parts of it")
        if whole:
            self.fail("MC4002", f"'{name}' is assigned as a whole after a part of it on "
                      "one path", span, notes=notes,
                      hint=f"fold the part into the value assigned to '{name}', or assign "
                      "only parts of it")

    def lower_target(self: Any, base: ir.Expr, steps: tuple[Any, ...], value: Any,
                     env: Env, path: str) -> ir.Expr:
        """The new whole value of ``base`` once the part ``steps`` is replaced."""
        if not steps:
            node = self.expr(value, env, base.type)
            self.expect_type(node, base.type, value.span, f"for '{path}'")
            return node
        step, rest = steps[0], steps[1:]
        if isinstance(step, ast.LvField):
            sub = f"{path}.{step.field}"
            return self.with_field(
                base, step.field, env, step.span,
                lambda old, env_: self.lower_target(old, rest, value, env_, sub))
        sub = f"{path}[...]"
        return self.with_index(base, step.index, value, env, step.span,
                               lambda old, env_: self.lower_target(old, rest, value, env_, sub))


def _binds(cond: Any) -> bool:
    """Whether a condition is ``m is C as c``, which binds c."""
    return isinstance(cond, ast.IsTest) and cond.binder is not None
