"""Expressions: ``ast`` -> typed ``ir`` (names, literals, operators, indexing).

Types flow both ways: ``expr(e, env, expected)`` takes the type the context
expects, used only where an expression cannot type itself (``{}``, ``[]``,
``none``, a set literal where a bag is wanted); the caller then checks the
result against what it needs.  Every int expression gets its static interval
(``semantics.intervals``).  Calls, comprehensions and generators are in
``semantics.calls``, the TLA+ idioms in ``semantics.idioms``.
"""
from __future__ import annotations

from typing import Any

from modelcheck.diagnostics import did_you_mean
from modelcheck.ir import nodes as ir
from modelcheck.ir import types as T
from modelcheck.ir.ops import Op
from modelcheck.ir.types import BOOL, Type, join
from modelcheck.ir.values import domain
from modelcheck.semantics import intervals as I
from modelcheck.semantics.consts import NotConstant, fold
from modelcheck.semantics.context import Abort, Env, found_words, show
from modelcheck.semantics.hints import bag_operator_hint, option_compare_hint
from modelcheck.semantics.names import kind_word, model_value_index
from modelcheck.semantics.seqs import over_seq, positions
from modelcheck.syntax import ast

__all__ = ["ExprMixin", "needs_context"]


def needs_context(e: Any) -> bool:
    """Whether ``e`` can only be typed from its context (``{}``, ``[]``, ``none``)."""
    if isinstance(e, ast.NoneLit):
        return True
    if isinstance(e, (ast.SetLit, ast.SeqLit)) and not e.elems:
        return True
    if isinstance(e, ast.IfExpr):
        return needs_context(e.then) and needs_context(e.else_)
    return False


_COMPARE = {"==": Op.EQ, "!=": Op.NE, "<": Op.LT, "<=": Op.LE, ">": Op.GT, ">=": Op.GE}
_ARITH = {"+": (Op.ADD, I.add), "-": (Op.SUB, I.sub), "*": (Op.MUL, I.mul),
          "//": (Op.DIV, I.floordiv), "%": (Op.MOD, I.mod)}


def _op_capacity(op: str, a: int | None, b: int | None) -> int | None:
    """A bound on the size of ``a | b`` or ``a & b`` from the operands'
    capacities (None: no bound).  A type's capacity is a promise about the
    values of that type, so a union of two capped sets may hold both."""
    if op == "|":
        return None if a is None or b is None else a + b
    return b if a is None else a if b is None else min(a, b)


class ExprMixin:
    """Expression checking; one method per AST node type."""

    def expr(self: Any, e: Any, env: Env, expected: Type | None = None) -> ir.Expr:
        method = getattr(self, "_e_" + type(e).__name__)
        return method(e, env, expected)

    def bool_expr(self: Any, e: Any, env: Env, what: str = "") -> ir.Expr:
        node = self.expr(e, env, BOOL)
        self.expect_type(node, BOOL, e.span, what)
        return node

    def int_expr(self: Any, e: Any, env: Env, what: str = "") -> ir.Expr:
        node = self.expr(e, env)
        if not isinstance(node.type, T.IntType):
            self.fail("MC3001", f"expected an int{' ' + what if what else ''}, found "
                      f"{found_words(node.type)}", e.span)
        return node

    # ------------------------------------------------------------ atoms

    def _e_IntLit(self: Any, e: ast.IntLit, env: Env, expected: Type | None) -> ir.Expr:
        return ir.Const(e.value, I.point(e.value), e.span)

    def _e_BoolLit(self: Any, e: ast.BoolLit, env: Env, expected: Type | None) -> ir.Expr:
        return ir.Const(e.value, BOOL, e.span)

    def _e_NoneLit(self: Any, e: ast.NoneLit, env: Env, expected: Type | None) -> ir.Expr:
        if isinstance(expected, T.OptionType):
            return ir.Const(None, expected, e.span)
        if expected is not None:
            self.fail("MC3001", f"expected {show(expected)}, found none", e.span)
        hint = "compare it with a typed value (o == none) or assign it to a variable"
        notes: tuple[str, ...] = ()
        unit = env.unit
        if unit.inlining:
            hint = (f"give def '{unit.inlining[-1]}' a result type (-> option[T]), or "
                    "call it where an option is expected (o := f(), o == f())")
            if unit.root_call is not None and unit.what != f"def '{unit.inlining[0]}'":
                notes = (f"in the call in {unit.what} at {unit.root_call}",)
        self.fail("MC3005", "cannot tell which option type 'none' has here", e.span,
                  hint=hint, notes=notes)

    def _e_NameRef(self: Any, e: ast.NameRef, env: Env, expected: Type | None) -> ir.Expr:
        if e.name in env.scope:
            local = env.scope[e.name]
            if local is None:
                raise Abort()
            return ir.Local(local.name, local.type, e.span)
        sym = self.symbols.get(e.name)
        if sym is None:
            return self.count_model_value(e.name, e.span)
        if e.name in self.resolved.typed:
            sym = self.typed_meaning(e.name, e.span, expected)
        if sym.kind == "const":
            t, value = self.const(e.name)
            return ir.Const(value, I.point(value) if isinstance(t, T.IntType) else t, e.span,
                            name=e.name)
        if sym.kind == "type":
            t = self.named_type(e.name, e.span)
            self.check_enumerable(t, "type", e.span)
            return ir.Const(frozenset(domain(t)), T.SetType(t), e.span)
        if sym.kind == "variant_case":
            return self.case_value(e, sym)
        if sym.kind in ("enum_member", "model_value"):
            return ir.Const(e.name, self.named_type(sym.decl.name, e.span), e.span)
        if sym.kind == "var" and e.name in self.resolved.shared:
            return self.shared_name(e, env, expected)
        if sym.kind == "var":
            return self.state_var(e.name, e.span, env, primed=False)
        if sym.kind == "def":
            self.fail("MC3009", f"'{e.name}' is a def: call it with its arguments, "
                      f"{e.name}(...)", e.span)
        self.fail("MC3009", f"'{e.name}' is {kind_word(sym.kind)}, not a value", e.span)

    def shared_name(self: Any, e: ast.NameRef, env: Env, expected: Type | None) -> ir.Expr:
        """A name that is both a state variable and an enum member: the member
        where its enum is expected, the variable where another type is."""
        member = self.resolved.shared[e.name]
        enum_t = self.named_type(member.decl.name, e.span)
        if expected == enum_t:
            return ir.Const(e.name, enum_t, e.span)
        if expected is not None:
            return self.state_var(e.name, e.span, env, primed=False)
        self.fail("MC2007", f"'{e.name}' is both a state variable and a member of enum "
                  f"'{member.decl.name}', and nothing here expects either type", e.span,
                  notes=(f"the member is declared at {member.span}",),
                  hint=f"it is the member where a {member.decl.name} is expected and the "
                  f"variable where a {show(self.var_type(e.name))} is (compare it with a "
                  "value of the type you mean), or rename one of them")

    def typed_meaning(self: Any, name: str, span: Any, expected: Type | None,
                      kinds: tuple[str, ...] = ("enum_member", "variant_case")) -> Any:
        """The meaning of a name several values share (enum members of two
        enums, a member and a variant case): the one of the expected type."""
        meanings = [m for m in self.resolved.typed[name] if m.kind in kinds]
        if len(meanings) == 1:
            return meanings[0]
        owners = [(m, self.named_type(m.decl.name, span)) for m in meanings]
        for m, t in owners:
            if expected == t:
                return m
        words = " and ".join(f"{'a case of variant' if m.kind == 'variant_case' else 'a member of enum'}"
                             f" '{m.decl.name}'" for m, _ in owners)
        self.fail("MC2007", f"'{name}' is {words}, and nothing here expects one of these types",
                  span, notes=tuple(f"declared at {m.span}" for m, _ in owners if m.span),
                  hint=f"it is the value of the type expected where it is written: compare or "
                  f"assign it to a value of the type you mean, or rename one of them")

    def is_shared_name(self: Any, e: Any, env: Env) -> bool:
        """Whether ``e`` is a name that only its expected type can resolve."""
        return (isinstance(e, ast.NameRef) and e.name not in env.scope
                and (e.name in self.resolved.shared or e.name in self.resolved.typed))

    def count_model_value(self: Any, name: str, span: Any) -> ir.Expr:
        """``node3``: a value of a ``model(N)`` type, once N is known."""
        for type_name in self.resolved.count_types:
            if model_value_index(name, type_name) is None:
                continue
            t = self.named_type(type_name, span)
            if name in t.members:
                return ir.Const(name, t, span)
            have = f"{t.members[0]} to {t.members[-1]}" if t.members else "no values"
            self.fail("MC2001", f"unknown name '{name}'", span,
                      notes=(f"{type_name} = model({len(t.members)}) has {have}",))
        raise AssertionError(f"name resolution let {name!r} through")

    def state_var(self: Any, name: str, span: Any, env: Env, primed: bool) -> ir.Expr:
        unit = env.unit
        if unit.const:
            self.fail("MC3006", f"{unit.what} must be a constant, but it reads state variable "
                      f"'{name}'", span)
        if unit.init:
            self.fail("MC4004", f"{unit.what} reads state variable '{name}'", span,
                      hint="initial values are computed before any state exists; "
                      "use a const or a literal")
        if primed and not unit.primed:
            self.fail("MC4005", f"{name}' (the value after the step) can only be read in a "
                      f"step invariant, not in {unit.what}", span)
        return ir.Var(name, self.var_type(name), primed, span)

    def _e_PrimedRef(self: Any, e: ast.PrimedRef, env: Env, expected: Type | None) -> ir.Expr:
        return self.state_var(e.name, e.span, env, primed=True)

    # ------------------------------------------------------------ operators

    def _e_UnaryOp(self: Any, e: ast.UnaryOp, env: Env, expected: Type | None) -> ir.Expr:
        if e.op == "not":
            operand = self.bool_expr(e.operand, env, "after 'not'")
            return ir.Apply(Op.NOT, (operand,), BOOL, e.span)
        operand = self.int_expr(e.operand, env, "after unary '-'")
        return ir.Apply(Op.NEG, (operand,), I.neg(operand.type), e.span)

    def pair(self: Any, left: Any, right: Any, env: Env,
             expected: Type | None = None) -> tuple[ir.Expr, ir.Expr]:
        """Both operands, the one that types itself first (it types the other)."""
        if ((needs_context(left) or self.is_shared_name(left, env))
                and not (needs_context(right) or self.is_shared_name(right, env))):
            r = self.expr(right, env, expected)
            return self.expr(left, env, r.type), r
        lhs = self.expr(left, env, expected)
        return lhs, self.expr(right, env, lhs.type)

    def _e_BinOp(self: Any, e: ast.BinOp, env: Env, expected: Type | None) -> ir.Expr:
        op = e.op
        if op in ("and", "or", "=>"):
            return self._logic(e, env)
        if op in ("==", "!="):
            lhs, rhs = self.pair(e.left, e.right, env)
            if join(lhs.type, rhs.type) is None:
                self.fail("MC3002", f"cannot compare {found_words(lhs.type)} with "
                          f"{found_words(rhs.type)}", e.span,
                          hint=option_compare_hint(e, lhs.type, rhs.type, self.written))
            return ir.Apply(_COMPARE[op], (lhs, rhs), BOOL, e.span)
        if op in ("<", "<=", ">", ">="):
            return self._order(e, env)
        if op in ("in", "not in"):
            node = self._membership(e, env)
            if op == "not in":
                return ir.Apply(Op.NOT, (node,), BOOL, e.span)
            return node
        if op == "..":
            lo = self.int_expr(e.left, env, "as the lower bound of '..'")
            hi = self.int_expr(e.right, env, "as the upper bound of '..'")
            elem = T.IntType(min(lo.type.lo, hi.type.hi), max(lo.type.lo, hi.type.hi))
            return ir.Apply(Op.RANGE, (lo, hi), T.SetType(elem), e.span)
        if op in ("|", "&"):
            return self._set_op(e, env, expected)
        return self._arith(e, env, expected)

    def _logic(self: Any, e: ast.BinOp, env: Env) -> ir.Expr:
        lhs = self.bool_expr(e.left, env, f"on the left of '{e.op}'")
        rhs = self.bool_expr(e.right, env, f"on the right of '{e.op}'")
        if e.op == "=>":
            return ir.Apply(Op.IMPLIES, (lhs, rhs), BOOL, e.span)
        op = Op.AND if e.op == "and" else Op.OR
        args: list[ir.Expr] = []
        for part in (lhs, rhs):
            # a and b and c is one n-ary AND: engines short-circuit it in order.
            if isinstance(part, ir.Apply) and part.op is op:
                args.extend(part.args)
            else:
                args.append(part)
        return ir.Apply(op, tuple(args), BOOL, e.span)

    def _order(self: Any, e: ast.BinOp, env: Env) -> ir.Expr:
        lhs, rhs = self.pair(e.left, e.right, env)
        if isinstance(lhs.type, T.IntType) and isinstance(rhs.type, T.IntType):
            return ir.Apply(_COMPARE[e.op], (lhs, rhs), BOOL, e.span)
        if isinstance(lhs.type, T.SetType) and isinstance(rhs.type, T.SetType):
            if join(lhs.type, rhs.type) is None:
                self.fail("MC3002", f"cannot compare {show(lhs.type)} with {show(rhs.type)}",
                          e.span)
            small, big = (lhs, rhs) if e.op in ("<", "<=") else (rhs, lhs)
            subset = ir.Apply(Op.SUBSET, (small, big), BOOL, e.span)
            if e.op in ("<=", ">="):
                return subset
            proper = ir.Apply(Op.NE, (lhs, rhs), BOOL, e.span)
            return ir.Apply(Op.AND, (subset, proper), BOOL, e.span)
        self.fail("MC3002", f"'{e.op}' compares two ints or two sets, found "
                  f"{found_words(lhs.type)} and {found_words(rhs.type)}", e.span)

    def collection(self: Any, e: Any, env: Env, expected: Type | None = None) -> ir.Expr:
        """A set or a bag (``in``, ``pick``, ``for``)."""
        node = self.expr(e, env, expected)
        if not isinstance(node.type, (T.SetType, T.BagType)):
            self.fail("MC3001", f"expected a set, found {found_words(node.type)}", e.span)
        return node

    def _membership(self: Any, e: ast.BinOp, env: Env) -> ir.Expr:
        if needs_context(e.right) and not needs_context(e.left):
            elem = self.expr(e.left, env)
            coll = self.collection(e.right, env, T.SetType(elem.type))
        else:
            coll = self.expr(e.right, env)
            if isinstance(coll.type, T.SeqType):
                return self.seq_contains(e, coll, env)
            if not isinstance(coll.type, (T.SetType, T.BagType)):
                self.fail("MC3001", f"expected a set, found {found_words(coll.type)}",
                          e.right.span)
            elem = self.expr(e.left, env, coll.type.elem)
        if join(elem.type, coll.type.elem) is None:
            kind = "set" if isinstance(coll.type, T.SetType) else "bag"
            self.fail("MC3001", f"'{e.op}' looks for {found_words(elem.type)} in a {kind} of "
                      f"{show(coll.type.elem)}", e.span)
        return ir.Apply(Op.IN, (elem, coll), BOOL, e.span)

    def seq_contains(self: Any, e: ast.BinOp, seq: ir.Expr, env: Env) -> ir.Expr:
        """``x in s`` on a sequence: any(s[i] == x for i in 0..len(s) - 1)."""
        elem = self.expr(e.left, env, seq.type.elem)
        if join(elem.type, seq.type.elem) is None:
            self.fail("MC3001", f"'{e.op}' looks for {found_words(elem.type)} in a sequence "
                      f"of {show(seq.type.elem)}", e.span)
        x, bound = elem, None
        if not isinstance(elem, (ir.Var, ir.Local, ir.Const)):
            bound = env.unit.fresh("x")
            x = ir.Local(bound, elem.type, elem.span)

        def body(q: ir.Expr) -> ir.Expr:
            dom = positions(q, e.span)
            i = env.unit.fresh("i")
            get = ir.Apply(Op.SEQ_GET, (q, ir.Local(i, dom.type.elem, e.span)), q.type.elem,
                           e.span)
            test = ir.Apply(Op.EQ, (get, x), BOOL, e.span)
            return ir.Quant(ir.QuantKind.ANY, i, dom, test, BOOL, e.span)
        node = over_seq(seq, env, body)
        if bound is not None:
            node = ir.LetExpr(bound, elem, node, BOOL, e.span)
        return node

    def _set_op(self: Any, e: ast.BinOp, env: Env, expected: Type | None) -> ir.Expr:
        lhs, rhs = self.pair(e.left, e.right, env, expected)
        word = "union" if e.op == "|" else "intersection"
        if isinstance(lhs.type, T.SetType) and isinstance(rhs.type, T.SetType):
            t = join(lhs.type, rhs.type)
            if t is None:
                self.fail("MC3002", f"the {word} of {show(lhs.type)} and {show(rhs.type)}: "
                          f"the elements have different types", e.span)
            t = T.SetType(t.elem, _op_capacity(e.op, lhs.type.capacity, rhs.type.capacity))
            return ir.Apply(Op.UNION if e.op == "|" else Op.INTER, (lhs, rhs), t, e.span)
        hint = "the boolean operators are 'and' and 'or'" if BOOL in (lhs.type, rhs.type) \
            else bag_operator_hint(e, lhs.type, self.written)
        self.fail("MC3002", f"'{e.op}' ({word}) needs two sets, found {found_words(lhs.type)} "
                  f"and {found_words(rhs.type)}", e.span, hint=hint)

    def _arith(self: Any, e: ast.BinOp, env: Env, expected: Type | None) -> ir.Expr:
        lhs, rhs = self.pair(e.left, e.right, env, expected)
        lt, rt = lhs.type, rhs.type
        if isinstance(lt, T.IntType) and isinstance(rt, T.IntType):
            op, interval = _ARITH[e.op]
            return ir.Apply(op, (lhs, rhs), interval(lt, rt), e.span)
        if e.op == "+" and isinstance(lt, T.SeqType) and isinstance(rt, T.SeqType):
            elem = join(lt.elem, rt.elem)
            if elem is None:
                self.fail("MC3002", f"cannot concatenate {show(lt)} and {show(rt)}", e.span)
            return ir.Apply(Op.CONCAT, (lhs, rhs), T.SeqType(elem, lt.capacity + rt.capacity),
                            e.span)
        if e.op == "-" and isinstance(lt, T.SetType) and isinstance(rt, T.SetType):
            if join(lt, rt) is None:
                self.fail("MC3002", f"the difference of {show(lt)} and {show(rt)}: "
                          f"the elements have different types", e.span)
            return ir.Apply(Op.DIFF, (lhs, rhs), lt, e.span)
        hint = None
        if e.op == "+" and isinstance(lt, T.SetType):
            hint = "the union of sets is written '|'"
        elif e.op == "+" and isinstance(lt, T.SeqType):
            hint = "to add one element, write append(s, x)"
        else:
            hint = bag_operator_hint(e, lt, self.written)
        needs = {"+": "two ints or two sequences", "-": "two ints or two sets"}.get(
            e.op, "two ints")
        self.fail("MC3002", f"'{e.op}' needs {needs}, found {found_words(lt)} and "
                  f"{found_words(rt)}", e.span, hint=hint)

    # ------------------------------------------------------------ compound

    def _e_IfExpr(self: Any, e: ast.IfExpr, env: Env, expected: Type | None) -> ir.Expr:
        cond = self.bool_expr(e.cond, env, "as the condition of 'if'")
        then, else_ = self.pair(e.then, e.else_, env, expected)
        t = join(then.type, else_.type)
        if t is None:
            self.fail("MC3001", f"the branches of 'if' have different types: "
                      f"{found_words(then.type)} and {found_words(else_.type)}", e.span)
        return ir.IfExpr(cond, then, else_, t, e.span)

    def _e_LetExpr(self: Any, e: ast.LetExpr, env: Env, expected: Type | None) -> ir.Expr:
        value = self.expr(e.value, env)
        inner, name = env.bind(e.name, value.type)
        body = self.expr(e.body, inner, expected)
        return ir.LetExpr(name, value, body, body.type, e.span)

    def _e_WithIndex(self: Any, e: ast.WithIndex, env: Env, expected: Type | None) -> ir.Expr:
        target = self.expr(e.target, env, expected)
        return self.with_index(target, e.index, e.value, env, e.span,
                               lambda old, env_: self.expr(e.value, env_, old.type))

    def with_index(self: Any, target: ir.Expr, index: Any, value: Any, env: Env, span: Any,
                   make_value: Any) -> ir.Expr:
        """``target with [index] = v`` where ``make_value(old_elem_node, env)`` builds v
        (shared with the lowering of ``x[k] := v``)."""
        t = target.type
        if isinstance(t, T.MapType):
            key = self.expr(index, env, t.key)
            self.expect_type(key, t.key, index.span, "as the map key")
            old = ir.Apply(Op.MAP_GET, (target, key), t.value, span)
            new = make_value(old, env)
            self.expect_type(new, t.value, getattr(value, "span", span), "as the map value")
            return ir.Apply(Op.MAP_SET, (target, key, new),
                            T.MapType(t.key, join(t.value, new.type)), span)
        if isinstance(t, T.SeqType):
            pos = self.int_expr(index, env, "as the sequence index")
            old = ir.Apply(Op.SEQ_GET, (target, pos), t.elem, span)
            new = make_value(old, env)
            self.expect_type(new, t.elem, getattr(value, "span", span), "as the element")
            return ir.Apply(Op.SEQ_SET, (target, pos, new),
                            T.SeqType(join(t.elem, new.type), t.capacity), span)
        self.fail("MC3002", f"only maps and sequences can be updated at an index, not "
                  f"{found_words(t)}", span)

    def _e_WithField(self: Any, e: ast.WithField, env: Env, expected: Type | None) -> ir.Expr:
        target = self.expr(e.target, env, expected)
        return self.with_field(target, e.field, env, e.span,
                               lambda old, env_: self.expr(e.value, env_, old.type),
                               e.value.span)

    def with_field(self: Any, target: ir.Expr, name: str, env: Env, span: Any,
                   make_value: Any, value_span: Any = None) -> ir.Expr:
        ftype = self.record_field(target, name, span)
        old = ir.FieldGet(target, name, ftype, span)
        new = make_value(old, env)
        self.expect_type(new, ftype, value_span or span, f"for field '{name}'")
        rt = target.type
        fields = tuple((n, join(ft, new.type) if n == name else ft) for n, ft in rt.fields)
        return ir.FieldSet(target, name, new, T.RecordType(rt.name, fields), span)

    def record_field(self: Any, target: ir.Expr, name: str, span: Any) -> Type:
        """The type of field ``name`` of a record-typed node (MC3004 if none)."""
        t = target.type
        if not isinstance(t, T.RecordType):
            self.fail("MC3002", f"only records have fields, not {found_words(t)}", span)
        names = [n for n, _ in t.fields]
        if name not in names:
            self.fail("MC3004", f"{show(t)} has no field '{name}'", span,
                      hint=self.payload_hint(t, name)
                      or did_you_mean(name, names, "its fields are", len(names)))
        return t.field_type(name)

    def _e_Index(self: Any, e: ast.Index, env: Env, expected: Type | None) -> ir.Expr:
        target = self.expr(e.target, env)
        t = target.type
        if isinstance(t, T.MapType):
            key = self.expr(e.index, env, t.key)
            self.expect_type(key, t.key, e.index.span, "as the map key")
            return ir.Apply(Op.MAP_GET, (target, key), t.value, e.span)
        if isinstance(t, T.SeqType):
            pos = self.int_expr(e.index, env, "as the sequence index")
            if pos.type.hi < 0:
                # Python's s[-1] would be MC5003 at run time: said here, at once.
                seq = self.written(e.target, "s")
                which = (f"sequence index {pos.type.lo} is negative" if pos.type.lo == pos.type.hi
                         else f"this sequence index is always negative ({show(pos.type)})")
                self.fail("MC3008", f"{which}: there are no negative indexes", e.index.span,
                          hint=f"indexes count from 0, so the last element is "
                               f"{seq}[len({seq}) - 1]")
            return ir.Apply(Op.SEQ_GET, (target, pos), t.elem, e.span)
        if isinstance(t, T.TupleType):
            pos = self.int_expr(e.index, env, "as the tuple index")
            try:
                i = fold(pos)
            except NotConstant:
                self.fail("MC3008", "a tuple index must be a constant", e.index.span,
                          hint="write t[0], t[1]...")
            if not 0 <= i < len(t.elems):
                self.fail("MC3008", f"tuple index {i} is out of range for {show(t)}",
                          e.index.span, hint=f"indices go from 0 to {len(t.elems) - 1}")
            return ir.Apply(Op.TUPLE_GET, (target, ir.Const(i, I.point(i), e.index.span)),
                            t.elems[i], e.span)
        hint = "sets have no order: test membership with 'in' or choose with 'pick'" \
            if isinstance(t, (T.SetType, T.BagType)) else None
        self.fail("MC3002", f"cannot index {found_words(t)}", e.span, hint=hint)

    def _e_Slice(self: Any, e: ast.Slice, env: Env, expected: Type | None) -> ir.Expr:
        target = self.expr(e.target, env, expected)
        t = target.type
        if not isinstance(t, T.SeqType):
            self.fail("MC3002", f"only sequences can be sliced, not {found_words(t)}", e.span)
        lo = (self.int_expr(e.lo, env, "as the slice start") if e.lo is not None
              else ir.Const(0, I.point(0), e.span))
        hi = (self.int_expr(e.hi, env, "as the slice end") if e.hi is not None
              else ir.Apply(Op.LEN, (target,), T.IntType(0, t.capacity), e.span))
        return ir.Apply(Op.SLICE, (target, lo, hi), t, e.span)

    def _e_FieldAccess(self: Any, e: ast.FieldAccess, env: Env,
                       expected: Type | None) -> ir.Expr:
        target = self.expr(e.target, env)
        if isinstance(target.type, T.OptionType):
            if e.field != "value":
                self.fail("MC3004", f"an option has only '.value', not '.{e.field}'", e.span)
            return ir.Apply(Op.OPT_GET, (target,), target.type.elem, e.span)
        if isinstance(target.type, T.VariantType):
            subject = e.target.name if isinstance(e.target, ast.NameRef) else "..."
            return self.variant_field(target, e.field, e.span, env, subject)
        return ir.FieldGet(target, e.field, self.record_field(target, e.field, e.span), e.span)

    # ------------------------------------------------------------ literals

    def _e_TupleLit(self: Any, e: ast.TupleLit, env: Env, expected: Type | None) -> ir.Expr:
        hints: tuple[Any, ...] = (None,) * len(e.elems)
        if isinstance(expected, T.TupleType) and len(expected.elems) == len(e.elems):
            hints = expected.elems
        elems = tuple(self.expr(x, env, h) for x, h in zip(e.elems, hints))
        return ir.TupleLit(elems, T.TupleType(tuple(x.type for x in elems)), e.span)

    def elements(self: Any, e: Any, env: Env, hint: Type | None, what: str) -> tuple:
        """The elements of a literal and their common type (None if there are none).
        Elements that type themselves go first: they type ``none`` or ``{}`` beside them."""
        nodes: list[Any] = [None] * len(e.elems)
        common: Type | None = None
        for i in sorted(range(len(e.elems)), key=lambda i: needs_context(e.elems[i])):
            x = e.elems[i]
            node = self.expr(x, env, common if common is not None else hint)
            joined = node.type if common is None else join(common, node.type)
            if joined is None:
                self.fail("MC3001", f"the elements of a {what} must have one type: found "
                          f"{found_words(common)} and {found_words(node.type)}", x.span)
            common = joined
            nodes[i] = node
        return tuple(nodes), (common if nodes else hint)

    def _e_SeqLit(self: Any, e: ast.SeqLit, env: Env, expected: Type | None) -> ir.Expr:
        hint = expected.elem if isinstance(expected, T.SeqType) else None
        elems, common = self.elements(e, env, hint, "sequence")
        if common is None:
            self.fail("MC3005", "cannot tell the type of the empty sequence '[]' here", e.span,
                      hint="compare it with a typed value or assign it to a variable")
        return ir.SeqLit(elems, T.SeqType(common, len(elems)), e.span)

    def _e_SetLit(self: Any, e: ast.SetLit, env: Env, expected: Type | None) -> ir.Expr:
        if isinstance(expected, T.BagType):
            elems, common = self.elements(e, env, expected.elem, "bag")
            return ir.BagLit(elems, T.BagType(common, len(elems)), e.span)
        if isinstance(expected, T.MapType) and not e.elems:
            self.fail("MC3001", "'{}' cannot be a map: a map has a value for every key",
                      e.span, hint="write {k: v for k in K}")
        hint = expected.elem if isinstance(expected, T.SetType) else None
        elems, common = self.elements(e, env, hint, "set")
        if common is None:
            self.fail("MC3005", "cannot tell the type of the empty set '{}' here", e.span,
                      hint="compare it with a typed value or assign it to a variable")
        return ir.SetLit(elems, T.SetType(common), e.span)
