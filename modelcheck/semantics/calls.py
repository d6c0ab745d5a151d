"""Calls and comprehensions: built-in functions, record constructors, the
inlining of ``def`` s (a call becomes ``let`` bindings of the arguments around
the body; recursion is MC4003), ``all``/``any``/``sum`` generators and set and
map comprehensions.  The TLA+ idioms (``last``, ``elems``, ``index_of``,
``choose``, sequence comprehensions) are in ``semantics.idioms``; the
sequence reads they share with expressions in ``semantics.seqs``.
"""
from __future__ import annotations

from types import MappingProxyType
from typing import Any

from modelcheck.diagnostics import did_you_mean
from modelcheck.ir import nodes as ir
from modelcheck.ir import types as T
from modelcheck.ir.ops import Op
from modelcheck.ir.types import BOOL, Type, join
from modelcheck.ir.values import domain
from modelcheck.semantics import intervals as I
from modelcheck.semantics.consts import NotConstant, fold
from modelcheck.semantics.context import Env, found_words, show
from modelcheck.semantics.exprs import needs_context
from modelcheck.semantics.hints import ACTION_CALL_HINT, bag_function_hint
from modelcheck.semantics.names import BUILTINS, SOFT_BUILTINS, kind_word
from modelcheck.semantics.seqs import (SeqBinding, bind_elem, over_seq, positions, seq_elems,
                                       wrapped)
from modelcheck.semantics.types import MAX_ENUMERABLE, bounded_size
from modelcheck.syntax import ast

__all__ = ["CallsMixin", "BUILTIN_ARITY", "MAX_INLINED"]

#: Built-in -> (fewest, most) positional arguments.
BUILTIN_ARITY = MappingProxyType({"len": (1, 1), "min": (1, 2), "max": (1, 2), "append": (2, 2),
                 "head": (1, 1), "tail": (1, 1), "some": (1, 1), "is_some": (1, 1),
                 "is_none": (1, 1), "put": (2, 2), "take": (2, 2), "count": (2, 2),
                 "distinct": (1, 1), "sum": (1, 1), "all": (1, 1), "any": (1, 1),
                 "choose": (1, 1), "last": (1, 1), "elems": (1, 1), "index_of": (2, 2)})


#: The most def calls inlined into one declaration (MC4011).
MAX_INLINED = 20_000

#: Bound on the size of a set for ``len`` and ``sum`` ranges: far beyond any set
#: an engine could hold, yet computed without building huge numbers.
COUNT_LIMIT = 10 ** 12


def _count_bound(s: ir.Expr) -> int:
    """The most elements the set ``s`` can have.  A range ``lo..hi`` is never
    built (its len is hi - lo + 1, its elements are counted one by one), so
    its bound is exact however large; any other set is bounded by what an
    engine could ever hold."""
    elem = s.type.elem
    if ir.is_range(s) and isinstance(elem, T.IntType):
        return max(0, elem.hi - elem.lo + 1)
    if s.type.capacity is not None:
        # The front end keeps a set expression's capacity a true bound
        # (a union of capped sets adds theirs: exprs._op_capacity).
        return min(s.type.capacity, bounded_size(elem, COUNT_LIMIT))
    return bounded_size(elem, COUNT_LIMIT)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


class CallsMixin:
    """Checking of calls, generators and comprehensions."""

    def _e_Call(self: Any, e: ast.Call, env: Env, expected: Type | None) -> ir.Expr:
        if e.func in env.scope:
            self.fail("MC3009", f"'{e.func}' is a local value, not a function", e.func_span)
        sym = self.symbols.get(e.func)
        if sym is None and (e.func in BUILTINS or e.func in SOFT_BUILTINS):
            return self.builtin(e, env, expected)
        if sym is not None and sym.kind == "def":
            return self.inline(e, sym.decl, env, expected)
        if sym is not None and e.func in self.resolved.typed and any(
                m.kind == "variant_case" for m in self.resolved.typed[e.func]):
            # only a variant case is called: an enum member named alike is not
            sym = self.typed_meaning(e.func, e.func_span, expected, kinds=("variant_case",))
            return self.case_call(e, env, sym)
        if sym is not None and sym.kind == "variant_case":
            return self.case_call(e, env)
        if sym is not None and sym.kind == "type":
            t = self.named_type(e.func, e.func_span)
            if isinstance(t, T.RecordType):
                return self.record_lit(e, t, env)
            self.fail("MC3009", f"'{e.func}' is the type {show(t)}, not a record type, so it "
                      f"cannot be called", e.func_span)
        what = kind_word(sym.kind) if sym is not None else "not a function"
        hint = ACTION_CALL_HINT if sym is not None and sym.kind == "action" else None
        self.fail("MC3009", f"'{e.func}' is {what}, not a function", e.func_span, hint=hint)

    # ------------------------------------------------------------ built-ins

    def builtin(self: Any, e: ast.Call, env: Env, expected: Type | None) -> ir.Expr:
        if e.func in ("all", "any"):
            self.fail("MC3011", f"{e.func}(...) takes a generator", e.span,
                      hint=f"write {e.func}(p(x) for x in S)")
        named = [a for a in e.args if a.name is not None]
        if named:
            self.fail("MC3003", f"{e.func}() takes no named arguments", named[0].span)
        lo, hi = BUILTIN_ARITY[e.func]
        if not lo <= len(e.args) <= hi:
            want = str(lo) if lo == hi else f"{lo} or {hi}"
            self.fail("MC3003", f"{e.func}() takes {want} argument{'s' if hi > 1 else ''}, "
                      f"found {len(e.args)}", e.span)
        args = [a.value for a in e.args]
        return getattr(self, "_b_" + e.func)(e, args, env, expected)

    def _b_len(self: Any, e: ast.Call, args: list, env: Env, expected: Type | None) -> ir.Expr:
        x = self.expr(args[0], env)
        t = x.type
        if isinstance(t, T.SetType):
            bound = _count_bound(x)
        elif isinstance(t, (T.SeqType, T.BagType)):
            bound = t.capacity
        else:
            self.fail("MC3002", f"len() needs a set, a sequence or a bag, found "
                      f"{found_words(t)}", args[0].span)
        return ir.Apply(Op.LEN, (x,), T.IntType(0, bound), e.span)

    def _minmax(self: Any, e: ast.Call, args: list, env: Env) -> ir.Expr:
        smallest = e.func == "min"
        if len(args) == 2:
            a = self.int_expr(args[0], env, f"as the first argument of {e.func}()")
            b = self.int_expr(args[1], env, f"as the second argument of {e.func}()")
            op, interval = (Op.MIN, I.minimum) if smallest else (Op.MAX, I.maximum)
            return ir.Apply(op, (a, b), interval(a.type, b.type), e.span)
        s = self.expr(args[0], env)
        if not (isinstance(s.type, T.SetType) and isinstance(s.type.elem, T.IntType)):
            self.fail("MC3002", f"{e.func}() takes two ints or a set of ints, found "
                      f"{found_words(s.type)}", args[0].span)
        return ir.Apply(Op.SET_MIN if smallest else Op.SET_MAX, (s,), s.type.elem, e.span)

    def _b_min(self: Any, e: ast.Call, args: list, env: Env, expected: Type | None) -> ir.Expr:
        return self._minmax(e, args, env)

    def _b_max(self: Any, e: ast.Call, args: list, env: Env, expected: Type | None) -> ir.Expr:
        return self._minmax(e, args, env)

    def _seq_arg(self: Any, e: ast.Call, arg: Any, env: Env, expected: Type | None) -> ir.Expr:
        s = self.expr(arg, env, expected if isinstance(expected, T.SeqType) else None)
        if not isinstance(s.type, T.SeqType):
            self.fail("MC3002", f"{e.func}() needs a sequence, found {found_words(s.type)}",
                      arg.span)
        return s

    def _b_append(self: Any, e: ast.Call, args: list, env: Env,
                  expected: Type | None) -> ir.Expr:
        if needs_context(args[0]) and not needs_context(args[1]):
            x = self.expr(args[1], env)
            s = self._seq_arg(e, args[0], env, T.SeqType(x.type, 0))
        else:
            s = self._seq_arg(e, args[0], env, expected)
            x = self.expr(args[1], env, s.type.elem)
        elem = join(s.type.elem, x.type)
        if elem is None:
            self.fail("MC3001", f"cannot append {found_words(x.type)} to {show(s.type)}",
                      args[1].span)
        return ir.Apply(Op.APPEND, (s, x), T.SeqType(elem, s.type.capacity + 1), e.span)

    def _b_head(self: Any, e: ast.Call, args: list, env: Env, expected: Type | None) -> ir.Expr:
        s = self._seq_arg(e, args[0], env, None)
        return ir.Apply(Op.HEAD, (s,), s.type.elem, e.span)

    def _b_tail(self: Any, e: ast.Call, args: list, env: Env, expected: Type | None) -> ir.Expr:
        s = self._seq_arg(e, args[0], env, expected)
        t = T.SeqType(s.type.elem, max(0, s.type.capacity - 1))
        return ir.Apply(Op.TAIL, (s,), t, e.span)

    def _b_some(self: Any, e: ast.Call, args: list, env: Env, expected: Type | None) -> ir.Expr:
        x = self.expr(args[0], env, expected.elem if isinstance(expected, T.OptionType)
                      else None)
        if isinstance(x.type, T.OptionType):
            self.fail("MC3012", "options do not nest: some() of an option", e.span)
        return ir.Apply(Op.SOME, (x,), T.OptionType(x.type), e.span)

    def _option_test(self: Any, e: ast.Call, args: list, env: Env, op: Op) -> ir.Expr:
        o = self.expr(args[0], env)
        if not isinstance(o.type, T.OptionType):
            self.fail("MC3002", f"{e.func}() needs an option, found {found_words(o.type)}",
                      args[0].span)
        return ir.Apply(op, (o,), BOOL, e.span)

    def _b_is_some(self: Any, e: ast.Call, args: list, env: Env,
                   expected: Type | None) -> ir.Expr:
        return self._option_test(e, args, env, Op.IS_SOME)

    def _b_is_none(self: Any, e: ast.Call, args: list, env: Env,
                   expected: Type | None) -> ir.Expr:
        return self._option_test(e, args, env, Op.IS_NONE)

    def _bag_args(self: Any, e: ast.Call, args: list, env: Env,
                  expected: Type | None) -> tuple[ir.Expr, ir.Expr]:
        b = self.expr(args[0], env, expected if isinstance(expected, T.BagType) else None)
        if not isinstance(b.type, T.BagType):
            self.fail("MC3002", f"{e.func}() needs a bag, found {found_words(b.type)}",
                      args[0].span, hint=bag_function_hint(e.func, b.type, args, self.written))
        x = self.expr(args[1], env, b.type.elem)
        if join(x.type, b.type.elem) is None:
            self.fail("MC3001", f"{e.func}() on a bag of {show(b.type.elem)}, found "
                      f"{found_words(x.type)}", args[1].span)
        return b, x

    def _b_put(self: Any, e: ast.Call, args: list, env: Env, expected: Type | None) -> ir.Expr:
        b, x = self._bag_args(e, args, env, expected)
        t = T.BagType(join(b.type.elem, x.type), b.type.capacity + 1)
        return ir.Apply(Op.BAG_ADD, (b, x), t, e.span)

    def _b_take(self: Any, e: ast.Call, args: list, env: Env, expected: Type | None) -> ir.Expr:
        b, x = self._bag_args(e, args, env, expected)
        return ir.Apply(Op.BAG_REMOVE, (b, x), b.type, e.span)

    def _b_count(self: Any, e: ast.Call, args: list, env: Env,
                 expected: Type | None) -> ir.Expr:
        b, x = self._bag_args(e, args, env, None)
        return ir.Apply(Op.BAG_COUNT, (b, x), T.IntType(0, b.type.capacity), e.span)

    def _b_distinct(self: Any, e: ast.Call, args: list, env: Env,
                    expected: Type | None) -> ir.Expr:
        b = self.expr(args[0], env)
        if not isinstance(b.type, T.BagType):
            self.fail("MC3002", f"distinct() needs a bag, found {found_words(b.type)}",
                      args[0].span)
        return ir.Apply(Op.BAG_DISTINCT, (b,), T.SetType(b.type.elem), e.span)

    def _b_sum(self: Any, e: ast.Call, args: list, env: Env, expected: Type | None) -> ir.Expr:
        s = self.expr(args[0], env)
        if not (isinstance(s.type, T.SetType) and isinstance(s.type.elem, T.IntType)):
            self.fail("MC3002", f"sum() takes a set of ints or a generator, found "
                      f"{found_words(s.type)}", args[0].span,
                      hint="write sum(f(x) for x in S)")
        inner, name = env.bind("x", s.type.elem)
        elem = ir.Local(name, s.type.elem, e.span)
        t = I.sum_of(s.type.elem, _count_bound(s))
        return ir.SumComp(name, s, None, elem, t, e.span)

    # ------------------------------------------------------------ records and defs

    def record_lit(self: Any, e: ast.Call, rt: T.RecordType, env: Env) -> ir.Expr:
        names = [n for n, _ in rt.fields]
        given: dict[str, ast.Arg] = {}
        for arg in e.args:
            if arg.name is None:
                self.fail("MC3004", f"the fields of {e.func} are given by name", arg.span,
                          hint=f"write {e.func}({names[0]}=...)" if names else None)
            if arg.name not in names:
                self.fail("MC3004", f"{e.func} has no field '{arg.name}'", arg.span,
                          hint=did_you_mean(arg.name, names, "its fields are", len(names)))
            if arg.name in given:
                self.fail("MC3004", f"field '{arg.name}' is given twice", arg.span)
            given[arg.name] = arg
        missing = [n for n in names if n not in given]
        if missing:
            self.fail("MC3004", f"{e.func}(...) is missing field"
                      f"{'s' if len(missing) > 1 else ''} "
                      + ", ".join(f"'{n}'" for n in missing), e.span,
                      hint="every field of a record must be given")
        fields = []
        for n, ft in rt.fields:
            arg = given[n]
            node = self.expr(arg.value, env, ft)
            self.expect_type(node, ft, arg.value.span, f"for field '{n}'")
            fields.append((n, node))
        t = T.RecordType(rt.name, tuple((n, node.type) for n, node in fields))
        return ir.RecordLit(tuple(fields), t, e.span)

    def inline(self: Any, e: ast.Call, d: ast.DefDecl, env: Env,
               expected: Type | None) -> ir.Expr:
        unit = env.unit
        self.count_inlining(unit, d, e.span)
        if d.name in unit.inlining:
            chain = " -> ".join(unit.inlining[unit.inlining.index(d.name):] + (d.name,))
            self.fail("MC4003", f"def '{d.name}' calls itself ({chain})", e.span,
                      hint="defs are inlined at every call, so they cannot be recursive")
        for arg in e.args:
            if arg.name is not None:
                self.fail("MC3003", f"the arguments of '{d.name}' are positional", arg.span)
        if len(e.args) != len(d.params):
            self.fail("MC3003", f"'{d.name}' takes {_plural(len(d.params), 'argument')}, "
                      f"found {len(e.args)}", e.span)
        param_types = self.def_param_types(d)
        values = []
        for p, pt, arg in zip(d.params, param_types, e.args):
            node = self.expr(arg.value, env, pt)
            self.expect_type(node, pt, arg.value.span, f"for parameter '{p.name}' of '{d.name}'")
            values.append(node)
        # The body sees only its parameters (and the globals), never the caller's locals.
        scope: dict[str, ir.Local | None] = {}
        names = []
        for p, node in zip(d.params, values):
            name = unit.fresh(p.name)
            names.append(name)
            scope[p.name] = ir.Local(name, node.type)
        result = self.def_result_type(d)
        saved = unit.inlining
        unit.inlining = saved + (d.name,)
        try:
            body = self.expr(d.body, Env(unit, scope), result or expected)
        finally:
            unit.inlining = saved
        if result is not None:
            self.expect_type(body, result, d.body.span, f"as the result of '{d.name}'")
        for name, node in reversed(list(zip(names, values))):
            body = ir.LetExpr(name, node, body, body.type, e.span)
        return body

    def count_inlining(self: Any, unit: Any, d: ast.DefDecl, span: Any) -> None:
        """MC4011 once a declaration has inlined MAX_INLINED def calls.  Each
        call copies the def's body: d1() = d0() + d0(), d2() = d1() + d1()...
        doubles at every level, and 30 levels would be a billion copies.  A
        def whose own check went past the limit is refused at once when called
        (``exploding``), so a long chain costs MAX_INLINED calls once, not per use."""
        # A def's own check starts with the def on the inlining stack.
        own_def = unit.inlining[0] if unit.inlining and \
            unit.what == f"def '{unit.inlining[0]}'" else None
        if len(unit.inlining) == (1 if own_def else 0):
            unit.root_call = span
        unit.inlined += 1
        if unit.inlined > MAX_INLINED or d.name in self.exploding:
            if own_def is not None:
                self.exploding.add(own_def)
            self.fail("MC4011", f"{unit.what} expands to more than {MAX_INLINED:,} def calls "
                      "once its defs are inlined", unit.root_call,
                      hint=f"each call copies the def's body, so calls of calls multiply; "
                           "compute a shared value once with let")

    # ------------------------------------------------------------ generators

    def iter_domain(self: Any, e: Any, env: Env, what: str) -> ir.Expr:
        """What a ``for`` or ``pick`` ranges over: a set (a bag: its distinct elements)."""
        node = self.expr(e, env)
        return self.domain_of(node, e, env, what)

    def domain_of(self: Any, node: ir.Expr, e: Any, env: Env, what: str,
                  seqs: bool = False) -> ir.Expr:
        """``node`` as a set to range over; a sequence (where ``seqs``) gives
        the set of its elements."""
        if seqs and isinstance(node.type, T.SeqType):
            return over_seq(node, env, lambda q: seq_elems(q, env, node.span))
        if isinstance(node.type, T.BagType):
            return ir.Apply(Op.BAG_DISTINCT, (node,), T.SetType(node.type.elem), node.span)
        if not isinstance(node.type, T.SetType):
            self.fail("MC3001", f"{what} ranges over a set, found {found_words(node.type)}",
                      e.span)
        return node

    def fors(self: Any, fors: tuple[ast.CompFor, ...], env: Env) -> tuple[list, Env]:
        clauses = []
        for clause in fors:
            if clause.case is not None:
                self.fail("MC3011", f"'for {clause.var}: {clause.case}' is not allowed here",
                          clause.case_span, hint="write the case test in the condition")
            dom = self.iter_domain(clause.domain, env, "'for'")
            env, name = env.bind(clause.var, dom.type.elem)
            cond = None
            if clause.cond is not None:
                cond = self.bool_expr(clause.cond, env, "as the 'if' filter")
            clauses.append((name, dom, cond))
        return clauses, env

    def gen_fors(self: Any, fors: tuple[ast.CompFor, ...], env: Env) -> tuple[list, Env]:
        """The clauses of a comprehension or generator: (name, domain, cond,
        wrap).  ``for x in s`` over a sequence ranges over its positions
        (name is the index) and ``wrap`` binds x to ``s[i]`` around what
        follows; ``for m: C in S`` keeps the elements in case C (its
        ``wrap`` binds nothing; the test joins the filter) and reads ``m.f``
        as C's field.  ``wrap`` is None where nothing is bound."""
        clauses = []
        for clause in fors:
            node = self.expr(clause.domain, env)
            wrap = None
            if isinstance(node.type, T.SeqType) and clause.case is None:
                seq, pre = node, None
                if not isinstance(node, (ir.Var, ir.Local, ir.Const)):
                    pre = env.unit.fresh("seq")
                    seq = ir.Local(pre, node.type, node.span)
                name = env.unit.fresh("i")
                dom = positions(seq, clause.span)
                env, var = env.bind(clause.var, seq.type.elem)
                get = ir.Apply(Op.SEQ_GET, (seq, ir.Local(name, dom.type.elem, clause.span)),
                               seq.type.elem, clause.span)
                wrap = SeqBinding(var, get, pre, node)
            else:
                dom = self.domain_of(node, clause.domain, env, "'for'", seqs=True)
                env, name = env.bind(clause.var, dom.type.elem)
            case_test = None
            if clause.case is not None:
                case_test = self.narrow(name, dom.type.elem, clause.case, clause.case_span,
                                        clause.domain.span, env)
            cond = None
            if clause.cond is not None:
                cond = self.bool_expr(clause.cond, env, "as the 'if' filter")
            if case_test is not None:
                cond = case_test if cond is None else ir.Apply(Op.AND, (case_test, cond),
                                                               BOOL, clause.span)
            clauses.append((name, dom, cond, wrap))
        return clauses, env

    def _e_GenCall(self: Any, e: ast.GenCall, env: Env, expected: Type | None) -> ir.Expr:
        if e.func not in ("all", "any", "sum", "choose"):
            hint = (f"write {e.func}({{e for x in S}})" if e.func in ("min", "max")
                    else None)
            self.fail("MC3011", f"only all, any, sum and choose take a generator, not "
                      f"{e.func}", e.func_span, hint=hint)
        if e.func == "choose":
            return self._choose_gen(e, env, expected)
        clauses, inner = self.gen_fors(e.fors, env)
        if e.func == "sum":
            body = self.int_expr(e.elem, inner, "to sum")
            for name, dom, cond, wrap in reversed(clauses):
                t = I.sum_of(body.type, _count_bound(dom))
                body = wrapped(wrap, ir.SumComp(name, dom, bind_elem(wrap, cond),
                                                bind_elem(wrap, body), t, e.span))
            return body
        body = self.bool_expr(e.elem, inner, f"in {e.func}(...)")
        kind = ir.QuantKind.ALL if e.func == "all" else ir.QuantKind.ANY
        for name, dom, cond, wrap in reversed(clauses):
            if cond is not None:
                # all: the filter is a premise; any: a conjunct (docs/design.md).
                op = Op.IMPLIES if kind is ir.QuantKind.ALL else Op.AND
                body = ir.Apply(op, (cond, body), BOOL, e.span)
            body = wrapped(wrap, ir.Quant(kind, name, dom, bind_elem(wrap, body), BOOL, e.span))
        return body

    def _e_SetComp(self: Any, e: ast.SetComp, env: Env, expected: Type | None) -> ir.Expr:
        clauses, inner = self.gen_fors(e.fors, env)
        outer = 1
        for name, dom, _, _ in clauses[:-1]:
            # bounded: a clause over sets of a large type has 2**|T| values
            outer = min(outer * bounded_size(dom.type.elem, COUNT_LIMIT), COUNT_LIMIT + 1)
        if outer > MAX_UNROLLED:
            self.fail("MC3011", f"the outer 'for' clauses of this set comprehension range "
                      f"over {outer:,} values, more than {MAX_UNROLLED}", e.fors[0].span,
                      hint="range over one set of tuples or records, or narrow the types "
                      "of the outer clauses")
        elem = self.expr(e.elem, inner, expected.elem if isinstance(expected, T.SetType)
                         else None)
        t = T.SetType(elem.type)
        name, dom, cond, wrap = clauses[-1]
        body: ir.Expr = wrapped(wrap, ir.SetComp(name, dom, bind_elem(wrap, cond),
                                                 bind_elem(wrap, elem), t, e.span))
        for name, dom, cond, wrap in reversed(clauses[:-1]):
            body = wrapped(wrap, _union_over(name, dom, bind_elem(wrap, cond),
                                             bind_elem(wrap, body), e.span))
        return body

    def _e_MapComp(self: Any, e: ast.MapComp, env: Env, expected: Type | None) -> ir.Expr:
        clause = e.fors[0]
        if len(e.fors) != 1 or clause.cond is not None:
            self.fail("MC3011", "a map comprehension takes one 'for' clause and no filter",
                      e.span, hint="a map has a value for every key: use 'if ... then ... "
                      "else ...' in the value")
        if not (isinstance(e.key, ast.NameRef) and e.key.name == clause.var):
            self.fail("MC3011", f"the key of a map comprehension must be its variable "
                      f"'{clause.var}'", e.key.span,
                      hint=f"write {{{clause.var}: ... for {clause.var} in K}}")
        dom = self.expr(clause.domain, env)
        key = self._map_key(dom, clause.domain, expected)
        inner, name = env.bind(clause.var, key)
        value = self.expr(e.value, inner, expected.value if isinstance(expected, T.MapType)
                          else None)
        return ir.MapComp(name, value, T.MapType(key, value.type), e.span)

    def _map_key(self: Any, dom: ir.Expr, dom_ast: Any, expected: Type | None) -> Type:
        """The key type a map comprehension ranges over: all of it, always."""
        if not isinstance(dom.type, T.SetType):
            self.fail("MC3001", f"a map comprehension ranges over a type, found "
                      f"{found_words(dom.type)}", dom_ast.span)
        candidates = [dom.type.elem]
        if isinstance(expected, T.MapType):
            candidates.insert(0, expected.key)
        try:
            value = fold(dom)
        except NotConstant:
            value = None
        for key in candidates:
            if bounded_size(key) > MAX_ENUMERABLE:
                self.check_enumerable(key, "map key type", dom_ast.span)
            if value is not None and value == frozenset(domain(key)):
                return key
        self.fail("MC3011", "a map comprehension must range over every key of the map",
                  dom_ast.span, hint="write {k: v for k in K} with K the key type; "
                  "use 'if k in S then ... else ...' for the other keys")


#: the most values the outer clauses of one set comprehension may range over
MAX_UNROLLED = 256


def _union_over(name: str, dom: ir.Expr, cond: ir.Expr | None, body: ir.Expr,
                span: Any) -> ir.Expr:
    """The union of ``body`` over every ``name`` in ``dom`` that passes ``cond``.

    The IR has no flattening union, so the clause is unrolled over the values
    of its element type: a value not in ``dom`` (or failing ``cond``)
    contributes the empty set.  Exact, and bounded by MAX_UNROLLED."""
    elem_t = dom.type.elem
    empty = ir.Const(frozenset(), body.type, span)
    terms = []
    for value in domain(elem_t):
        local = ir.Local(name, elem_t, span)
        test: ir.Expr = ir.Apply(Op.IN, (local, dom), BOOL, span)
        if cond is not None:
            test = ir.Apply(Op.AND, (test, cond), BOOL, span)
        terms.append(ir.LetExpr(name, ir.Const(value, elem_t, span),
                                ir.IfExpr(test, body, empty, body.type, span), body.type, span))
    result = terms[0] if terms else empty
    for term in terms[1:]:
        result = ir.Apply(Op.UNION, (result, term), body.type, span)
    return result
