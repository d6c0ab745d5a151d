"""``typecheck(resolved, consts) -> ir.Model``: the last phase of the front end.

Globals (consts, named types, state variable types) are computed on demand,
in whatever order uses need them, with a guard against definitions that
refer to themselves (MC2006).  Every declaration is then checked; errors in
one declaration or statement do not stop the others, and the phase raises
one CompileError with all of them.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from modelcheck.diagnostics import Diagnostic, Span
from modelcheck.errors import CompileError
from modelcheck.ir import nodes as ir
from modelcheck.ir import types as T
from modelcheck.ir.types import Type, render_int
from modelcheck.ir.values import in_type, render_value
from modelcheck.semantics.calls import CallsMixin
from modelcheck.semantics.consts import normalize_overrides, parse_const_value
from modelcheck.semantics.context import Abort, CheckerBase, Env, Unit, show
from modelcheck.semantics.exprs import ExprMixin
from modelcheck.semantics.idioms import IdiomsMixin
from modelcheck.semantics.names import Resolved
from modelcheck.semantics.stmts import StmtsMixin
from modelcheck.semantics.types import MAX_ENUMERABLE, TypesMixin, bounded_size
from modelcheck.semantics.variants import VariantsMixin
from modelcheck.syntax import ast

__all__ = ["typecheck", "Checker"]

#: The most instances (parameter bindings) one action may have (MC4007).
MAX_INSTANCES = 2 ** 20

_PROPERTY_KINDS = {"invariant": ir.PropertyKind.INVARIANT,
                   "step invariant": ir.PropertyKind.STEP,
                   "sometimes": ir.PropertyKind.SOMETIMES,
                   "terminal": ir.PropertyKind.TERMINAL,
                   "constraint": ir.PropertyKind.CONSTRAINT}
_TEMPORAL_KINDS = {k.value: k for k in ir.TemporalKind}


def typecheck(resolved: Resolved, consts: Mapping[str, Any] | None = None) -> ir.Model:
    """The typed IR of a resolved spec, with ``consts`` (``-D``) overrides.
    Raises UsageError for a bad override, CompileError for errors in the spec."""
    return Checker(resolved, consts).run()


class Checker(TypesMixin, ExprMixin, CallsMixin, IdiomsMixin, StmtsMixin, VariantsMixin,
              CheckerBase):
    """One type-checking run over one resolved spec."""

    def __init__(self, resolved: Resolved, consts: Mapping[str, Any] | None) -> None:
        super().__init__()
        self.resolved = resolved
        self.sources = resolved.source_map()
        self.symbols = resolved.symbols
        declared = [i.name for i in resolved.items if isinstance(i, ast.ConstDecl)]
        self.overrides = normalize_overrides(consts, declared)
        self._done: dict[tuple[str, str], Any] = {}
        self._busy: set[tuple[str, str]] = set()
        self._failed: set[tuple[str, str]] = set()
        self.exploding: set[str] = set()   # defs that expand past MAX_INLINED calls (MC4011)

    # ------------------------------------------------------------ globals on demand

    def _global(self, kind: str, name: str, compute: Callable[[], Any], span: Any) -> Any:
        key = (kind, name)
        if key in self._done:
            return self._done[key]
        if key in self._failed:
            raise Abort()
        if key in self._busy:
            self._failed.add(key)
            self.fail("MC2006", f"'{name}' is defined in terms of itself", span,
                      hint="break the cycle: a const or type cannot depend on itself")
        self._busy.add(key)
        try:
            value = compute()
        except Abort:
            self._failed.add(key)
            raise
        finally:
            self._busy.discard(key)
        self._done[key] = value
        return value

    def const(self, name: str) -> tuple[Type, Any]:
        decl = self.symbols[name].decl
        return self._global("const", name, lambda: self._const(decl), decl.name_span)

    def named_type(self, name: str, span: Any = None) -> Type:
        decl = self.symbols[name].decl
        return self._global("type", name, lambda: self._type_decl(decl), decl.name_span)

    def var_type(self, name: str) -> Type:
        decl = self.symbols[name].decl
        return self._global("var", name, lambda: self._var_type(decl), decl.name_span)

    def def_param_types(self, d: ast.DefDecl) -> tuple[Type, ...]:
        return self._global("params", d.name,
                            lambda: tuple(self.convert_type(p.type) for p in d.params),
                            d.name_span)

    def def_result_type(self, d: ast.DefDecl) -> Type | None:
        if d.result is None:
            return None
        return self._global("result", d.name, lambda: self.convert_type(d.result), d.name_span)

    def _const(self, decl: ast.ConstDecl) -> tuple[Type, Any]:
        t = self.convert_type(decl.type)
        node, value = self.const_value(decl.value, f"the value of const '{decl.name}'", t)
        self.expect_type(node, t, decl.value.span, f"for const '{decl.name}'")
        if not in_type(t, value):
            self.fail("MC3007", f"the value {render_value(node.type, value)} of '{decl.name}' "
                      f"is outside its type {show(t)}", decl.value.span)
        if decl.name in self.overrides:
            value = parse_const_value(self.overrides[decl.name], t, decl.name)
        return t, value

    def _type_decl(self, decl: ast.TypeDecl) -> Type:
        d = decl.definition
        if isinstance(d, ast.EnumDef):
            t: Type = T.EnumType(decl.name, tuple(m.name for m in d.members))
        elif isinstance(d, ast.ModelDef):
            t = T.ModelType(decl.name, tuple(m.name for m in d.members), decl.symmetric)
        elif isinstance(d, ast.ModelCountDef):
            count = self._model_count(decl.name, d.count)
            members = tuple(f"{decl.name.lower()}{i}" for i in range(1, count + 1))
            self._check_generated(decl, members)
            t = T.ModelType(decl.name, members, decl.symmetric)
        elif isinstance(d, ast.VariantDef):
            t = self.variant_type(decl.name, d)
        else:
            t = self.convert_type(d)
            if isinstance(t, T.RecordType) and t.name is None:
                t = T.RecordType(decl.name, t.fields)
        if decl.symmetric and not isinstance(t, T.ModelType):
            self.report("MC4010", f"only model types can be symmetric, and '{decl.name}' is "
                        f"{show(t) if not isinstance(t, T.EnumType) else 'an enum'}",
                        decl.span, hint="symmetry applies to interchangeable ids: "
                        "type Node = model(3)")
        return t

    def _model_count(self, name: str, expr: ast.Expr) -> int:
        """N of ``model(N)``, checked before any member is built: model(10**22)
        must be refused at once, not hang."""
        count = self.const_int(expr, f"the size of model type '{name}'")
        if count <= 0:
            self.fail("MC4009", f"a model type cannot have {render_int(count)} values",
                      expr.span, hint="a model type needs at least one value: model(1) or more")
        if count > MAX_ENUMERABLE:
            self.fail("MC4007", f"model type '{name}' would have {render_int(count)} values, "
                      f"more than the {MAX_ENUMERABLE} an engine can enumerate", expr.span,
                      hint=f"write model(N) with N at most {MAX_ENUMERABLE}: engines enumerate "
                           "the ids of a model type, so keep them to the few a scenario needs")
        return count

    def _check_generated(self, decl: ast.TypeDecl, members: tuple[str, ...]) -> None:
        for member in members:
            other = self.symbols.get(member)
            if other is not None:
                self.report("MC2002", f"'{member}', a value of model type '{decl.name}', is "
                            "already defined", other.span,
                            notes=(f"model({len(members)}) at {decl.span} names its values "
                                   f"{members[0]}..{members[-1]}",))

    def _var_type(self, decl: ast.VarDecl) -> Type:
        return self.convert_type(decl.type)

    # ------------------------------------------------------------ declarations

    def run(self) -> ir.Model:
        consts, types, vars_, actions, props, terminals, constraints = [], [], [], [], [], [], []
        temporals: list[ir.Temporal] = []
        fair_decls: list[ast.FairDecl] = []
        lists = {"terminal": terminals, "constraint": constraints}
        for item in self.resolved.items:
            try:
                if isinstance(item, ast.ConstDecl):
                    t, value = self.const(item.name)
                    consts.append((item.name, t, value))
                elif isinstance(item, ast.TypeDecl):
                    types.append((item.name, self.named_type(item.name)))
                elif isinstance(item, ast.VarDecl):
                    vars_.append(self.var_decl(item))
                elif isinstance(item, ast.DefDecl):
                    self.def_decl(item)
                elif isinstance(item, ast.ActionDecl):
                    actions.append(self.action(item))
                elif isinstance(item, ast.PropertyDecl):
                    prop = self.property(item)
                    lists.get(item.kind, props).append(prop)
                elif isinstance(item, ast.LivenessDecl):
                    temporals.append(self.liveness(item))
                elif isinstance(item, ast.FairDecl):
                    fair_decls.append(item)   # after the loop: it reads the action's params
            except Abort:
                continue
            except RecursionError:
                # The parser bounds nesting; only defs inlined into defs go deeper.
                self.report("MC1004", f"'{getattr(item, 'name', '')}' nests too deeply once "
                            "its defs are inlined", getattr(item, "span", None),
                            hint="flatten the chain of defs calling defs")
        fairness = []
        by_name = {a.name: a for a in actions}
        for item in fair_decls:
            try:
                if item.action in by_name and all(a.action in by_name for a in item.also):
                    fairness.append(self.fairness(item, by_name[item.action], by_name))
            except Abort:
                continue
        if self.diagnostics:
            raise CompileError(self.sorted_diagnostics(), self.resolved.source_map())
        return ir.Model(
            name=self.resolved.module.name, consts=tuple(consts), types=tuple(types),
            vars=tuple(vars_), actions=tuple(actions), properties=tuple(props),
            terminals=tuple(terminals), constraints=tuple(constraints),
            temporals=tuple(temporals), fairness=tuple(fairness), path=self.resolved.path, sources=self.resolved.sources)

    def sorted_diagnostics(self) -> list[Diagnostic]:
        order = {path: i for i, (path, _) in enumerate(self.resolved.sources)}

        def key(d: Diagnostic) -> tuple:
            s: Span | None = d.span
            if s is None:
                return (len(order), 0, 0)
            return (order.get(s.file, len(order)), s.line, s.col)
        return sorted(self.diagnostics, key=key)

    def var_decl(self, decl: ast.VarDecl) -> ir.VarDecl:
        t = self.var_type(decl.name)
        unit = Unit(f"the initial value of '{decl.name}'", init=True)
        env = Env(unit, {})
        if decl.init_kind == "=":
            init = self.expr(decl.init, env, t)
            self.expect_type(init, t, decl.init.span, f"for '{decl.name}'")
            kind = ir.InitKind.EQ
        else:
            init = self.expr(decl.init, env, T.SetType(t))
            self.expect_type(init, T.SetType(t), decl.init.span,
                             f"to choose the initial value of '{decl.name}' from")
            kind = ir.InitKind.IN
        return ir.VarDecl(decl.name, t, kind, init, decl.span)

    def def_decl(self, decl: ast.DefDecl) -> None:
        """Check the body once on its own, so its errors are reported even if
        it is never called (calls check it again, inlined)."""
        params = self.def_param_types(decl)
        result = self.def_result_type(decl)
        unit = Unit(f"def '{decl.name}'", primed=True, used={p.name for p in decl.params},
                    inlining=(decl.name,))
        scope = {p.name: ir.Local(p.name, t) for p, t in zip(decl.params, params)}
        start = len(self.diagnostics)
        try:
            body = self.expr(decl.body, Env(unit, scope), result)
        except Abort:
            if result is None:
                # A def without a result type takes it from each call (inlined
                # with the caller's expected type): a bare none is typed
                # there, and MC3005 is reported at the calls that do not.
                self.diagnostics[start:] = [d for d in self.diagnostics[start:]
                                            if d.code != "MC3005"]
            raise
        if result is not None:
            self.expect_type(body, result, decl.body.span, f"as the result of '{decl.name}'")

    def action(self, decl: ast.ActionDecl) -> ir.Action:
        params, scope = self.instance_params(decl)
        self._check_instances(decl, params)
        unit = Unit(f"action '{decl.name}'", used={p.name for p in decl.params})
        body, _ = self.block(decl.body, Env(unit, scope), {})
        return ir.Action(decl.name, tuple(params), body, decl.span)

    def instance_params(self, decl: ast.ActionDecl | ast.LivenessDecl
                        ) -> tuple[list[ir.Param], dict[str, ir.Local | None]]:
        """The parameters of an action or a liveness property: every binding
        is an instance, so each type must be small enough to enumerate."""
        params = []
        scope: dict[str, ir.Local | None] = {}
        for p in decl.params:
            t = self.convert_type(p.type)
            if bounded_size(t) > MAX_ENUMERABLE:
                self.fail("MC4007", f"parameter '{p.name}' has type {show(t)}, with more than "
                          f"{MAX_ENUMERABLE} values: too many instances of '{decl.name}'",
                          p.span, hint="use a smaller type, or pick the value inside from "
                          "a state variable (pick m in network)")
            params.append(ir.Param(p.name, t, p.span))
            scope[p.name] = ir.Local(p.name, t)
        return params, scope

    def _check_instances(self, decl: ast.ActionDecl | ast.LivenessDecl,
                         params: list[ir.Param]) -> None:
        # Engines list every binding of the parameters up front: three
        # parameters of 65536 values each are 2**48 instances.
        count = 1
        for p in params:
            count = min(count * bounded_size(p.type), MAX_INSTANCES + 1)
        if count > MAX_INSTANCES:
            what = "action" if isinstance(decl, ast.ActionDecl) else "liveness property"
            self.fail("MC4007", f"{what} '{decl.name}' has more than {MAX_INSTANCES} "
                      "instances (the product of its parameter types' sizes)",
                      decl.name_span or decl.span,
                      hint="use smaller parameter types, or pick some values inside the body")

    def property(self, decl: ast.PropertyDecl) -> ir.Property:
        kind = _PROPERTY_KINDS[decl.kind]
        unit = Unit(f"{decl.kind} '{decl.name}'", primed=kind is ir.PropertyKind.STEP)
        expr = self.bool_expr(decl.expr, Env(unit, {}), f"for {decl.kind} '{decl.name}'")
        return ir.Property(decl.name, kind, expr, decl.span)

    def liveness(self, decl: ast.LivenessDecl) -> ir.Temporal:
        params, scope = self.instance_params(decl)
        self._check_instances(decl, params)
        unit = Unit(f"liveness '{decl.name}'", used={p.name for p in decl.params})
        what = f"for liveness '{decl.name}'"
        p = None if decl.p is None else self.bool_expr(decl.p, Env(unit, scope), what)
        q = self.bool_expr(decl.q, Env(unit, scope), what)
        return ir.Temporal(decl.name, _TEMPORAL_KINDS[decl.kind], tuple(params), p, q, decl.span)

    def fairness(self, decl: ast.FairDecl, action: ir.Action,
                 by_name: dict[str, ir.Action] | None = None) -> ir.Fairness:
        unit = Unit(f"an argument of 'fair {decl.kind} {decl.action}'", const=True)
        clauses, env = self.fors(decl.fors, Env(unit, {}))
        binders = tuple(ir.FairBinder(name, dom, cond) for name, dom, cond in clauses)
        args = self._fair_args(decl, action, env)
        group = []
        for member in decl.also:
            m_args = self._fair_args(member, by_name[member.action], env)
            if any(a.kind is ir.FairArgKind.EACH for a in (*args, *m_args)):
                self.fail("MC3003", "'*' (each value, separately) cannot be used in a group "
                          "of actions: the group is one condition", member.span,
                          hint=f"give each binding its own group with for: fair {decl.kind} "
                               f"A(p) | B(p) for p in P")
            group.append(ir.Fairness(ir.FairKind(decl.kind), member.action, m_args, (),
                                     member.span))
        return ir.Fairness(ir.FairKind(decl.kind), action.name, args, binders, decl.span,
                           tuple(group))

    def _fair_args(self, decl: ast.FairDecl, action: ir.Action, env: Env) -> tuple:
        if decl.args is None:
            args = tuple(ir.FairArg(ir.FairArgKind.ANY) for _ in action.params)
        else:
            if len(decl.args) != len(action.params):
                self.fail("MC3003", f"action '{action.name}' takes {len(action.params)} "
                          f"argument{'s' * (len(action.params) != 1)}, this gives "
                          f"{len(decl.args)}", decl.action_span,
                          hint=f"fair {decl.kind} {action.name}("
                               + ", ".join(p.name for p in action.params) + ") with each "
                               "argument a value, _ (any value) or * (each value)")
            args = tuple(self._fair_arg(arg, param, env)
                         for arg, param in zip(decl.args, action.params))
        return args

    def _fair_arg(self, arg: ast.FairArg, param: ir.Param, env: Env) -> ir.FairArg:
        if arg.kind == "any":
            return ir.FairArg(ir.FairArgKind.ANY)
        if arg.kind == "each":
            return ir.FairArg(ir.FairArgKind.EACH)
        value = self.expr(arg.expr, env, param.type)
        self.expect_type(value, param.type, arg.span, f"for parameter '{param.name}'")
        return ir.FairArg(ir.FairArgKind.VALUE, value)
