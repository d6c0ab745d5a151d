"""Variants (sum types): declarations, constructors, ``is``, ``match`` and
field reads, lowered so that no engine sees a ``match``.

A ``match`` becomes an ``if`` chain on ``CaseTest`` (an arm of several
cases: the ``or`` of their tests), the last arm being the final else; an arm
``Case as c`` starts with ``let c = CasePayload(subject, Case)``.  The
subject is bound once to a fresh name unless it is already a variable or a
local.  Coverage is checked here: MC3013 a case no arm takes, MC3015 an arm
that can never be taken, MC2001 a pattern naming no case of the subject's
type.  ``m.f`` outside a match is allowed only where every case has ``f``
(MC3014 otherwise).
"""
from __future__ import annotations

from typing import Any

from modelcheck.diagnostics import did_you_mean
from modelcheck.ir import nodes as ir
from modelcheck.ir import types as T
from modelcheck.ir.ops import Op
from modelcheck.ir.types import BOOL, Type, join
from modelcheck.semantics.context import Env, found_words
from modelcheck.semantics.exprs import needs_context
from modelcheck.syntax import ast

__all__ = ["VariantsMixin"]


def _quoted(names: Any) -> str:
    names = [f"'{n}'" for n in names]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


class VariantsMixin:
    """Checking and lowering of variant declarations and their uses."""

    # ------------------------------------------------------------ declarations and values

    def variant_type(self: Any, name: str, d: ast.VariantDef) -> T.VariantType:
        cases = tuple((c.name, T.RecordType(c.name, tuple(
            (f.name, self.convert_type(f.type)) for f in c.fields))) for c in d.cases)
        return T.VariantType(name, cases)

    def case_owner(self: Any, case: str, span: Any) -> T.VariantType:
        """The variant type declaring the case named ``case``."""
        sym = self.symbols[case]
        if sym.kind != "variant_case" and case in self.resolved.typed:
            sym = self.typed_meaning(case, span, None, kinds=("variant_case",))
        return self.named_type(sym.decl.name, span)

    def case_value(self: Any, e: ast.NameRef, owner: Any = None) -> ir.Expr:
        """A bare case name: the value of a case without fields (``owner``:
        its symbol, when the expected type chose among several)."""
        vt = (self.case_owner(e.name, e.span) if owner is None
              else self.named_type(owner.decl.name, e.span))
        rt = vt.case_type(e.name)
        if rt.fields:
            example = ", ".join(f"{n}=..." for n, _ in rt.fields)
            self.fail("MC3009", f"'{e.name}' is a case of {vt.name} with fields, not a value",
                      e.span, hint=f"construct it with its fields: {e.name}({example})")
        return ir.VariantLit(e.name, ir.RecordLit((), rt, e.span), vt, e.span)

    def case_call(self: Any, e: ast.Call, env: Env, owner: Any = None) -> ir.Expr:
        """``Case(f=e, ...)``: a record constructor of the case's fields."""
        vt = (self.case_owner(e.func, e.func_span) if owner is None
              else self.named_type(owner.decl.name, e.func_span))
        rt = vt.case_type(e.func)
        payload = self.record_lit(e, rt, env)
        # The payload has the declared field types: a value outside them is
        # MC5001 where the variant is written to a state variable.
        return ir.VariantLit(e.func, ir.RecordLit(payload.fields, rt, e.span), vt, e.span)

    def variant_subject(self: Any, node: ir.Expr, span: Any, what: str) -> T.VariantType:
        if not isinstance(node.type, T.VariantType):
            self.fail("MC3002", f"{what} needs a variant, found {found_words(node.type)}", span,
                      hint="match and 'is' tell apart the cases of a variant type "
                           "(type M = variant {...}); for other values use if")
        return node.type

    def check_case(self: Any, vt: T.VariantType, case: str, span: Any) -> None:
        cases = [c for c, _ in vt.cases]
        if case not in cases:
            self.fail("MC2001", f"'{case}' is not a case of {vt.name}", span,
                      hint=did_you_mean(case, cases, "its cases are", len(cases)))

    def narrow(self: Any, name: str, t: Type, case: str, case_span: Any, span: Any,
               env: Env) -> ir.Expr:
        """``m: C`` on the binder ``name`` (IR name) of type t: the test that
        it is in case C; from here on ``m.f`` reads C's field f."""
        vt = self.variant_subject(ir.Local(name, t, span), span, f"': {case}'")
        self.check_case(vt, case, case_span)
        env.unit.narrowed[name] = case
        return ir.CaseTest(ir.Local(name, t, span), case, BOOL, span)

    def bound_test(self: Any, e: ast.IsTest, env: Env) -> tuple[ir.Expr, Env, tuple]:
        """``m is C as c`` as the condition of if or require: the test, the
        scope where it holds (c bound) and (c's IR name, the payload)."""
        subject = self.expr(e.subject, env)
        vt = self.variant_subject(subject, e.subject.span, "'is'")
        self.check_case(vt, e.case, e.case_span)
        rt = vt.case_type(e.case)
        inner, name = env.bind(e.binder, rt)
        return (ir.CaseTest(subject, e.case, BOOL, e.span), inner,
                (name, ir.CasePayload(subject, e.case, rt, e.span)))

    def _e_IsTest(self: Any, e: ast.IsTest, env: Env, expected: Type | None) -> ir.Expr:
        if e.binder is not None:
            self.fail("MC3009", f"'is {e.case} as {e.binder}' binds {e.binder} only as the "
                      "whole condition of an if or a require", e.binder_span,
                      hint=f"write 'if ... is {e.case} as {e.binder} {{ ... }}', or "
                           f"'require ... is {e.case} as {e.binder}'")
        subject = self.expr(e.subject, env)
        vt = self.variant_subject(subject, e.subject.span, "'is'")
        self.check_case(vt, e.case, e.case_span)
        return ir.CaseTest(subject, e.case, BOOL, e.span)

    # ------------------------------------------------------------ fields

    def variant_field(self: Any, target: ir.Expr, name: str, span: Any, env: Env,
                      subject: str = "...") -> ir.Expr:
        """``m.f`` on a variant: the field of whichever case ``m`` is, where
        every case has it."""
        vt = target.type
        narrowed = env.unit.narrowed.get(target.name) if isinstance(target, ir.Local) else None
        if narrowed is not None and name in dict(vt.case_type(narrowed).fields):
            rt = vt.case_type(narrowed)
            return ir.FieldGet(ir.CasePayload(target, narrowed, rt, span), name,
                               rt.field_type(name), span)
        having = [c for c, rt in vt.cases if name in dict(rt.fields)]
        if not having:
            fields = sorted({n for _, rt in vt.cases for n, _ in rt.fields})
            self.fail("MC3004", f"no case of {vt.name} has a field '{name}'", span,
                      hint=did_you_mean(name, fields, "their fields are", len(fields)))
        joined: Type | None = vt.case_type(having[0]).field_type(name)
        for c in having[1:]:
            joined = None if joined is None else join(joined, vt.case_type(c).field_type(name))
        if len(having) < len(vt.cases) or joined is None:
            why = (f"only {_quoted(having)} {'has' if len(having) == 1 else 'have'} it"
                   if len(having) < len(vt.cases) else "its type differs between the cases")
            self.fail("MC3014", f"field '{name}' of a {vt.name} read outside its case: "
                      f"{why}", span, hint=f"read it inside a match: match {subject} "
                      f"{{ {having[0]} as c => c.{name}, ... }}")
        subject, bound = self._bound_subject(target, env)
        result: ir.Expr | None = None
        for case in reversed(having):
            rt = vt.case_type(case)
            value = ir.FieldGet(ir.CasePayload(subject, case, rt, span), name,
                                rt.field_type(name), span)
            result = value if result is None else ir.IfExpr(
                ir.CaseTest(subject, case, BOOL, span), value, result, joined, span)
        return self._bind_subject(bound, target, result, span)

    def payload_hint(self: Any, rt: T.RecordType, name: str) -> str | None:
        """For a missing field of a case's record: the cases that have it."""
        sym = self.symbols.get(rt.name) if rt.name else None
        if sym is None or sym.kind != "variant_case":
            return None
        vt = self.case_owner(rt.name, None)
        having = [c for c, r in vt.cases if name in dict(r.fields)]
        if not having:
            return None
        return (f"in {vt.name}, {_quoted(having)} {'has' if len(having) == 1 else 'have'} "
                f"a field '{name}'; match on that case to read it")

    # ------------------------------------------------------------ match

    def arm_cases(self: Any, vt: T.VariantType, patterns: list[ast.Pattern],
                  span: Any) -> list[tuple[str, ...]]:
        """The cases each arm takes, in order (MC2001, MC3013, MC3015)."""
        taken: list[str] = []
        out: list[tuple[str, ...]] = []
        for i, p in enumerate(patterns):
            if p.wildcard:
                rest = tuple(c for c, _ in vt.cases if c not in taken)
                if not rest:
                    self.fail("MC3015", f"match arm never taken: every case of {vt.name} is "
                              "already matched before '_'", p.span, hint="remove this arm")
                if i + 1 < len(patterns):
                    self.fail("MC3015", "match arm never taken: it comes after '_'",
                              patterns[i + 1].span, hint="'_' takes every case not named "
                              "before it: put it last")
                out.append(rest)
                taken.extend(rest)
                break
            names: list[str] = []
            for ident in p.cases:
                self.check_case(vt, ident.name, ident.span)
                if ident.name in taken or ident.name in names:
                    self.fail("MC3015", f"match arm never taken: case '{ident.name}' is "
                              "already matched before", ident.span,
                              hint=f"remove '{ident.name}' from this arm")
                names.append(ident.name)
            taken.extend(names)
            out.append(tuple(names))
        missing = [c for c, _ in vt.cases if c not in taken]
        if missing:
            self.fail("MC3013", f"match does not cover every case of {vt.name}: "
                      f"{_quoted(missing)} {'is' if len(missing) == 1 else 'are'} missing",
                      span, hint=f"add an arm for {'it' if len(missing) == 1 else 'each'}, "
                      "or '_' for every case not named")
        return out

    def _bound_subject(self: Any, subject: ir.Expr, env: Env) -> tuple[ir.Expr, str | None]:
        """The subject to test, and the fresh name it is bound to (None when it
        is a variable or a local already, read as often as needed)."""
        if isinstance(subject, (ir.Var, ir.Local)):
            return subject, None
        name = env.unit.fresh("subject")
        return ir.Local(name, subject.type, subject.span), name

    @staticmethod
    def _bind_subject(name: str | None, subject: ir.Expr, body: ir.Expr, span: Any) -> ir.Expr:
        if name is None:
            return body
        return ir.LetExpr(name, subject, body, body.type, span)

    @staticmethod
    def _case_test(subject: ir.Expr, cases: tuple[str, ...], span: Any) -> ir.Expr:
        tests = tuple(ir.CaseTest(subject, c, BOOL, span) for c in cases)
        return tests[0] if len(tests) == 1 else ir.Apply(Op.OR, tests, BOOL, span)

    def _arm_env(self: Any, vt: T.VariantType, pattern: ast.Pattern, subject: ir.Expr,
                 env: Env) -> tuple[Env, tuple[str, ir.Expr] | None]:
        """The arm's scope, and (name, payload) when it binds the case's fields."""
        if pattern.binder is None:
            return env, None
        case = pattern.cases[0].name
        rt = vt.case_type(case)
        inner, name = env.bind(pattern.binder.name, rt)
        return inner, (name, ir.CasePayload(subject, case, rt, pattern.span))

    def _e_MatchExpr(self: Any, e: ast.MatchExpr, env: Env, expected: Type | None) -> ir.Expr:
        target = self.expr(e.subject, env)
        vt = self.variant_subject(target, e.subject.span, "'match'")
        cases = self.arm_cases(vt, [a.pattern for a in e.arms], e.span)
        subject, bound = self._bound_subject(target, env)
        bodies: list[Any] = [None] * len(e.arms)
        common: Type | None = None
        # Arms that type themselves go first: they type a 'none' or '{}' arm.
        for i in sorted(range(len(e.arms)), key=lambda i: needs_context(e.arms[i].body)):
            arm = e.arms[i]
            inner, payload = self._arm_env(vt, arm.pattern, subject, env)
            body = self.expr(arm.body, inner, common if common is not None else expected)
            joined = body.type if common is None else join(common, body.type)
            if joined is None:
                self.fail("MC3001", f"the arms of 'match' have different types: "
                          f"{found_words(common)} and {found_words(body.type)}", arm.body.span)
            common = joined
            if payload is not None:
                body = ir.LetExpr(payload[0], payload[1], body, body.type, arm.span)
            bodies[i] = body
        result = bodies[-1]
        for arm_cases, body in zip(reversed(cases[:-1]), reversed(bodies[:-1])):
            result = ir.IfExpr(self._case_test(subject, arm_cases, e.span), body, result,
                               common, e.span)
        return self._bind_subject(bound, target, result, e.span)

    def match_stmt(self: Any, stmt: ast.MatchStmt, env: Env, assigned: dict, later: frozenset,
                   tail: tuple[Any, ...]) -> tuple[tuple[ir.Stmt, ...], dict]:
        """The statements of a match (an optional ``Let`` of the subject, then
        the ``If`` chain) and the assignments after it.  Each arm is its own
        path, as the branches of an if are."""
        target = self.expr(stmt.subject, env)
        vt = self.variant_subject(target, stmt.subject.span, "'match'")
        cases = self.arm_cases(vt, [a.pattern for a in stmt.arms], stmt.span)
        subject, bound = self._bound_subject(target, env)
        arms: list[tuple[ir.Stmt, ...]] = []
        merged: dict = {}
        for arm in stmt.arms:
            inner, payload = self._arm_env(vt, arm.pattern, subject, env)
            body, after = self.block(arm.body + tail, inner, dict(assigned), later)
            if payload is not None:
                body = (ir.Let(payload[0], payload[1], arm.span),) + body
            arms.append(body)
            merged = {**after, **merged}
        chain = arms[-1]
        for arm_cases, body in zip(reversed(cases[:-1]), reversed(arms[:-1])):
            chain = (ir.If(self._case_test(subject, arm_cases, stmt.span), body, chain,
                           stmt.span),)
        if bound is not None:
            chain = (ir.Let(bound, target, stmt.span),) + chain
        return chain, merged
