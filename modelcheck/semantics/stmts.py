"""Statements of an action body: ``ast`` -> ``ir`` statements.

An assignment to a part of a variable (``x[k].f := v``) is lowered to a
whole-variable ``Assign`` (``x := x with [k] = (x[k] with .f = v)``).  Each
path through the body may assign a variable once (MC4002); ``let`` and
``pick`` names scope over the rest of their block.
"""
from __future__ import annotations

from typing import Any

from modelcheck.diagnostics import Span
from modelcheck.ir import nodes as ir
from modelcheck.ir import types as T
from modelcheck.ir.ops import Op
from modelcheck.semantics.context import Abort, Env, found_words
from modelcheck.semantics.names import kind_word
from modelcheck.syntax import ast

__all__ = ["StmtsMixin"]

#: variable name -> where it was first assigned on the current path
Assigned = dict[str, "Span | None"]


class StmtsMixin:
    """Checking and lowering of statements."""

    def block(self: Any, stmts: tuple[Any, ...], env: Env,
              assigned: Assigned) -> tuple[tuple[ir.Stmt, ...], Assigned]:
        """The IR of a block and the variables assigned on some path through it
        (including those assigned before it)."""
        out: list[ir.Stmt] = []
        for stmt in stmts:
            try:
                if isinstance(stmt, ast.LetStmt):
                    value = self.expr(stmt.value, env)
                    env, name = env.bind(stmt.name, value.type)
                    out.append(ir.Let(name, value, stmt.span))
                elif isinstance(stmt, ast.PickStmt):
                    domain = self.pick_domain(stmt, env)
                    env, name = env.bind(stmt.name, domain.type.elem)
                    out.append(ir.Pick(name, domain, stmt.span))
                else:
                    node, assigned = self.stmt(stmt, env, assigned)
                    out.append(node)
            except Abort:
                if isinstance(stmt, (ast.LetStmt, ast.PickStmt)):
                    # Later statements may use the name; they are skipped quietly.
                    env, _ = env.bind(stmt.name, None)
        return tuple(out), assigned

    def pick_domain(self: Any, stmt: ast.PickStmt, env: Env) -> ir.Expr:
        node = self.expr(stmt.domain, env)
        if isinstance(node.type, T.BagType):
            # pick among the distinct elements of a bag (docs/design.md)
            return ir.Apply(Op.BAG_DISTINCT, (node,), T.SetType(node.type.elem), node.span)
        if not isinstance(node.type, T.SetType):
            hint = None
            if isinstance(node.type, T.MapType):
                hint = "to choose a key of a map, pick from its key type"
            elif isinstance(node.type, T.SeqType):
                hint = "to choose a position in a sequence, pick from 0..len(s) - 1"
            self.fail("MC4008", f"pick chooses from a set, found {found_words(node.type)}",
                      stmt.domain.span, hint=hint)
        return node

    def stmt(self: Any, stmt: Any, env: Env,
             assigned: Assigned) -> tuple[ir.Stmt, Assigned]:
        if isinstance(stmt, ast.RequireStmt):
            cond = self.bool_expr(stmt.cond, env, "after 'require'")
            return ir.Require(cond, stmt.span), assigned
        if isinstance(stmt, ast.AssignStmt):
            return self.assign(stmt, env, assigned)
        if isinstance(stmt, ast.IfStmt):
            cond = self.bool_expr(stmt.cond, env, "as the condition of 'if'")
            then, after_then = self.block(stmt.then, env, dict(assigned))
            else_, after_else = self.block(stmt.else_, env, dict(assigned))
            return ir.If(cond, then, else_, stmt.span), {**after_else, **after_then}
        if isinstance(stmt, ast.EitherStmt):
            branches = []
            merged: Assigned = {}
            for branch in stmt.branches:
                body, after = self.block(branch, env, dict(assigned))
                branches.append(body)
                merged = {**after, **merged}
            return ir.Either(tuple(branches), stmt.span), merged
        raise TypeError(f"not an AST statement: {stmt!r}")

    def assign(self: Any, stmt: ast.AssignStmt, env: Env,
               assigned: Assigned) -> tuple[ir.Stmt, Assigned]:
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
        if name in assigned:
            first = assigned[name]
            self.fail("MC4002", f"'{name}' is assigned twice on one path", target.span,
                      notes=(f"first assigned at {first}",) if first else (),
                      hint="compute the new value in one assignment, or assign it in "
                      "different branches of if/either")
        assigned = {**assigned, name: target.span}
        base = ir.Var(name, self.var_type(name), False, target.name_span)
        value = self.lower_target(base, target.steps, stmt.value, env, name)
        return ir.Assign(name, value, stmt.span), assigned

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
