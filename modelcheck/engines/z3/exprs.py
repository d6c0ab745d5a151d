"""IR expressions to symbolic values.

``Exprs.tr(expr, scope, guard)`` gives the symbolic value of an expression.
``guard`` is the condition under which the reference evaluator actually
evaluates it (short-circuit ``and``/``or``/``=>``, the branch taken by an
``if``, quantifiers stopping at the first decisive element, the path through
the action so far): a run-time error (MC5xxx) inside it is recorded as a
``Fault`` whose condition includes the guard, so an error is flagged exactly
when the reference evaluator would raise it.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import z3

from modelcheck.diagnostics import Span
from modelcheck.engines.z3.containers import Containers
from modelcheck.engines.z3.logic import TRUE, conj, disj, implies, is_false, neg
from modelcheck.engines.z3.symbolic import (EncodingUnsupported, SBag, SBool, SMap, SOpt, SProd,
                                            SSeq, SSet, SSparse, SSparseBag, SVariant, Sym, Syms)
from modelcheck.ir import nodes as ir
from modelcheck.ir.ops import Op
from modelcheck.ir.types import (MAX_RANGE_SET, BagType, MapType, RecordType, TupleType, Type,
                                 VariantType, render_type)

__all__ = ["Exprs", "Scope", "Fault"]


@dataclass(frozen=True)
class Fault:
    """A run-time error the spec raises when ``cond`` holds."""
    cond: z3.BoolRef
    code: str
    message: str
    span: Span | None = None


@dataclass(frozen=True)
class Scope:
    """What names mean: the state before the step, the state after it (step
    invariants only), and the bound locals."""
    state: dict[str, Sym]
    post: dict[str, Sym] | None = None
    locals: dict[str, Sym] = field(default_factory=dict)

    def bind(self, name: str, value: Sym) -> "Scope":
        return Scope(self.state, self.post, {**self.locals, name: value})


_CMP = {Op.LT: "<", Op.LE: "<=", Op.GT: ">", Op.GE: ">="}


class Exprs:
    """Translates expressions; faults found are appended to ``faults``."""

    def __init__(self, sy: Syms, co: Containers, faults: list[Fault]):
        self.sy = sy
        self.co = co
        self.nums = sy.nums
        self.faults = faults

    def fault(self, guard: z3.BoolRef, fails: z3.BoolRef, code: str, message: str,
              span: Span | None) -> None:
        cond = conj([guard, fails])
        if not is_false(cond):
            self.faults.append(Fault(cond, code, message, span))

    def boolean(self, e: ir.Expr, scope: Scope, guard: z3.BoolRef) -> z3.BoolRef:
        s = self.tr(e, scope, guard)
        assert isinstance(s, SBool), e
        return s.term

    # ---------------------------------------------------------------- dispatch

    def tr(self, e: ir.Expr, scope: Scope, guard: z3.BoolRef) -> Sym:
        self.sy.tick()
        if isinstance(e, ir.Const):
            return self.sy.const(e.value, e.type)
        if isinstance(e, ir.Var):
            states = scope.post if e.primed else scope.state
            if states is None:
                raise EncodingUnsupported(f"primed variable {e.name}' outside a step invariant")
            return states[e.name]
        if isinstance(e, ir.Local):
            return scope.locals[e.name]
        if isinstance(e, ir.Apply):
            return self.apply(e, scope, guard)
        if isinstance(e, ir.IfExpr):
            c = self.boolean(e.cond, scope, guard)
            a = self.tr(e.then, scope, conj([guard, c]))
            b = self.tr(e.else_, scope, conj([guard, neg(c)]))
            return self.sy.ite(c, a, b)
        if isinstance(e, ir.LetExpr):
            value = self.tr(e.value, scope, guard)
            return self.tr(e.body, scope.bind(e.name, value), guard)
        if isinstance(e, ir.Quant):
            return self.quant(e, scope, guard)
        if isinstance(e, (ir.SetComp, ir.SumComp)):
            return self.comprehension(e, scope, guard)
        if isinstance(e, ir.MapComp):
            return self.map_comp(e, scope, guard)
        if isinstance(e, ir.SetLit):
            elems = [self.tr(x, scope, guard) for x in e.elems]
            if isinstance(e.type, BagType):
                return self.co.bag_of(self._elem_shape(e.type.elem, elems), elems)
            return self.co.set_of(self._elem_shape(e.type.elem, elems), [(TRUE, x) for x in elems])
        if isinstance(e, ir.BagLit):
            elems = [self.tr(x, scope, guard) for x in e.elems]
            return self.co.bag_of(self._elem_shape(e.type.elem, elems), elems)
        if isinstance(e, ir.SeqLit):
            elems = [self.tr(x, scope, guard) for x in e.elems]
            et = self._elem_shape(e.type.elem, elems)
            n = self.nums
            return SSeq(et, len(elems), n.const(len(elems)),
                        tuple(self.sy.coerce(x, et) for x in elems))
        if isinstance(e, ir.TupleLit):
            parts = tuple(self.tr(x, scope, guard) for x in e.elems)
            return SProd(TupleType(tuple(p.type for p in parts)), parts)
        if isinstance(e, ir.RecordLit):
            parts = tuple(self.tr(x, scope, guard) for _, x in e.fields)
            name = e.type.name if isinstance(e.type, RecordType) else None
            rtype = RecordType(name, tuple((n, p.type) for (n, _), p in zip(e.fields, parts)))
            return SProd(rtype, parts)
        if isinstance(e, ir.FieldGet):
            rec = self.tr(e.record, scope, guard)
            assert isinstance(rec, SProd)
            return rec.parts[_field_index(rec.ptype, e.field)]
        if isinstance(e, ir.FieldSet):
            rec = self.tr(e.record, scope, guard)
            value = self.tr(e.value, scope, guard)
            assert isinstance(rec, SProd) and isinstance(rec.ptype, RecordType)
            i = _field_index(rec.ptype, e.field)
            parts = list(rec.parts)
            parts[i] = value
            fields = list(rec.ptype.fields)
            fields[i] = (e.field, value.type)
            return SProd(RecordType(rec.ptype.name, tuple(fields)), tuple(parts))
        if isinstance(e, (ir.VariantLit, ir.CaseTest, ir.CasePayload)):
            return self.variant(e, scope, guard)
        raise EncodingUnsupported(f"expression {type(e).__name__}")

    def variant(self, e: ir.VariantLit | ir.CaseTest | ir.CasePayload, scope: Scope,
                guard: z3.BoolRef) -> Sym:
        if isinstance(e, ir.VariantLit):
            t = e.type
            assert isinstance(t, VariantType)
            payload = self.tr(e.payload, scope, guard)
            assert isinstance(payload, SProd)
            i = t.case_index(e.case)
            # A variant's fields are checked where it is built (MC5001), as
            # the reference does; after that it holds its declared types.
            ptype = t.cases[i][1]
            self.fault(guard, neg(self.sy.in_type(payload, ptype)), "MC5001",
                       f"a field of {e.case} is outside its declared type", e.span)
            tag = self.nums.widen(self.nums.const(i), 0, len(t.cases) - 1)
            payload = self.sy.convert(payload, ptype)
            return SVariant(t, tag, tuple(payload if j == i else self.sy.default(ct)
                                          for j, (_, ct) in enumerate(t.cases)))
        subject = self.tr(e.subject, scope, guard)
        assert isinstance(subject, SVariant)
        i = subject.vtype.case_index(e.case)
        if isinstance(e, ir.CaseTest):
            return SBool(self.nums.eq_const(subject.tag, i))
        # The front end reads a payload only where its case test holds, so
        # the payload slots serve whatever the tag (see ir.CasePayload).
        return subject.payloads[i]

    def _elem_shape(self, t: Type, elems: list[Sym]) -> Type:
        for x in elems:
            t = self.sy.join(t, x.type)
        return t

    # ---------------------------------------------------------------- binders

    def quant(self, e: ir.Quant, scope: Scope, guard: z3.BoolRef) -> Sym:
        dom = self.tr(e.domain, scope, guard)
        want_any = e.kind is ir.QuantKind.ANY
        terms = []
        prefix = TRUE        # every earlier element left the answer open
        for g, x in self.co.elements(dom):
            body = self.boolean(e.body, scope.bind(e.var, x), conj([guard, prefix, g]))
            decisive = body if want_any else neg(body)
            terms.append(conj([g, decisive]))
            prefix = conj([prefix, implies(g, neg(decisive))])
        found = disj(terms)
        return SBool(found if want_any else neg(found))

    def comprehension(self, e: ir.SetComp | ir.SumComp, scope: Scope, guard: z3.BoolRef) -> Sym:
        dom = self.tr(e.domain, scope, guard)
        items: list[tuple[z3.BoolRef, Sym]] = []
        for g, x in self.co.elements(dom):
            inner = scope.bind(e.var, x)
            g_in = conj([guard, g])
            keep = g if e.cond is None else conj([g, self.boolean(e.cond, inner, g_in)])
            items.append((keep, self.tr(e.elem, inner, conj([guard, keep]))))
        if isinstance(e, ir.SumComp):
            n = self.nums
            return n.total([n.ite(k, v, n.const(0)) for k, v in items])
        et = self._elem_shape(e.type.elem, [v for _, v in items])
        return self.co.set_of(et, items)

    def map_comp(self, e: ir.MapComp, scope: Scope, guard: z3.BoolRef) -> Sym:
        assert isinstance(e.type, MapType)
        key = e.type.key
        vals = [self.tr(e.value, scope.bind(e.var, self.sy.const(k, key)), guard)
                for k in self.sy.domain(key)]
        vt = self._elem_shape(e.type.value, vals)
        return SMap(key, vt, tuple(self.sy.coerce(v, vt) for v in vals))

    # ---------------------------------------------------------------- operations

    def apply(self, e: ir.Apply, scope: Scope, guard: z3.BoolRef) -> Sym:
        op = e.op
        if op in (Op.AND, Op.OR):
            return self._connective(op, e.args, scope, guard)
        if op is Op.IMPLIES:
            a = self.boolean(e.args[0], scope, guard)
            b = self.boolean(e.args[1], scope, conj([guard, a]))
            return SBool(implies(a, b))
        if op is Op.SLICE:
            s = self.tr(e.args[0], scope, guard)
            bounds = [None if isinstance(x, ir.Const) and x.value is None else self.tr(x, scope, guard)
                      for x in e.args[1:]]
            bounds += [None] * (2 - len(bounds))
            return self.co.slice(s, bounds[0], bounds[1])
        if ir.asks_a_range(e):
            return self._range_question(e, scope, guard)
        args = [self.tr(a, scope, guard) for a in e.args]
        return self._op(op, args, e, guard)

    def _range_question(self, e: ir.Apply, scope: Scope, guard: z3.BoolRef) -> Sym:
        """``len``, ``in``, ``min``, ``max`` of ``lo..hi`` from its bounds, as
        the reference evaluator answers them: the range is never built, so
        ``len(0..10^21)`` is one subtraction (and no MC5007)."""
        n = self.nums
        lo_e, hi_e = e.args[-1].args
        lo = self.tr(lo_e, scope, guard)
        if e.op is Op.IN:
            # Python's chained lo <= x <= hi: hi is evaluated only when lo <= x.
            x = self.tr(e.args[0], scope, guard)
            above = n.cmp("<=", lo, x)
            hi = self.tr(hi_e, scope, conj([guard, above]))
            return SBool(conj([above, n.cmp("<=", x, hi)]))
        hi = self.tr(hi_e, scope, guard)
        if e.op is Op.LEN:
            return n.max(n.const(0), n.add(n.sub(hi, lo), n.const(1)))
        smallest = e.op is Op.SET_MIN
        self.fault(guard, n.cmp(">", lo, hi), "MC5006",
                   f"{'min' if smallest else 'max'} of an empty set", e.span)
        return lo if smallest else hi

    def _connective(self, op: Op, args: tuple[ir.Expr, ...], scope: Scope,
                    guard: z3.BoolRef) -> Sym:
        terms = []
        for a in args:
            t = self.boolean(a, scope, conj([guard] + [x if op is Op.AND else neg(x) for x in terms]))
            terms.append(t)
        return SBool(conj(terms) if op is Op.AND else disj(terms))

    def _op(self, op: Op, args: list[Sym], e: ir.Apply, guard: z3.BoolRef) -> Sym:
        n, co, sy = self.nums, self.co, self.sy
        span = e.span
        if op is Op.ADD:
            return n.add(args[0], args[1])
        if op is Op.SUB:
            return n.sub(args[0], args[1])
        if op is Op.MUL:
            return n.mul(args[0], args[1])
        if op is Op.NEG:
            return n.neg(args[0])
        if op in (Op.DIV, Op.MOD):
            a, b = args
            self.fault(guard, n.eq_const(b, 0), "MC5002",
                       "division by zero" if op is Op.DIV else "modulo by zero", span)
            return n.floordiv(a, b) if op is Op.DIV else n.mod(a, b)
        if op is Op.MIN:
            return n.min(args[0], args[1])
        if op is Op.MAX:
            return n.max(args[0], args[1])
        if op is Op.EQ:
            return SBool(sy.eq(args[0], args[1]))
        if op is Op.NE:
            return SBool(neg(sy.eq(args[0], args[1])))
        if op in _CMP:
            return SBool(n.cmp(_CMP[op], args[0], args[1]))
        if op is Op.NOT:
            return SBool(neg(args[0].term))
        if op is Op.IN:
            x, s = args
            if isinstance(s, (SSet, SSparse)):
                return SBool(co.member(s, x))
            if isinstance(s, SSparseBag):
                return SBool(self.sy.sparse_bags.member(s, x))
            if isinstance(s, SBag):
                return SBool(n.cmp(">", co.bag_count(s, x), n.const(0)))
            if isinstance(s, SSeq):
                return SBool(co.seq_contains(s, x))
            raise EncodingUnsupported(f"'in' on a value of type {render_type(s.type)}")
        if op is Op.UNION:
            return co.union(args[0], args[1])
        if op is Op.INTER:
            return co.inter(args[0], args[1])
        if op is Op.DIFF:
            return co.diff(args[0], args[1])
        if op is Op.SUBSET:
            return SBool(co.subset(args[0], args[1]))
        if op is Op.RANGE:
            lo, hi = args
            size = n.add(n.sub(hi, lo), n.const(1))
            self.fault(guard, n.cmp(">", size, n.const(MAX_RANGE_SET)), "MC5007",
                       "a range of more values than a set may hold when it is built", span)
            return co.range_set(lo, hi)
        if op in (Op.SET_MIN, Op.SET_MAX):
            value, empty = co.extreme(args[0], op is Op.SET_MAX)
            self.fault(guard, empty, "MC5006", f"{'max' if op is Op.SET_MAX else 'min'} of an empty set",
                       span)
            return value
        if op is Op.LEN:
            s = args[0]
            if isinstance(s, (SSet, SSparse)):
                return co.size(s)
            if isinstance(s, SSeq):
                return s.length
            if isinstance(s, (SBag, SSparseBag)):
                return co.bag_size(s)
            raise EncodingUnsupported(f"len of a value of type {render_type(s.type)}")
        if op is Op.MAP_GET:
            value, bad = co.map_get(args[0], args[1])
            self.fault(guard, bad, "MC5003", "map key outside the map's key type", span)
            return value
        if op is Op.MAP_SET:
            value, bad = co.map_set(args[0], args[1], args[2])
            self.fault(guard, bad, "MC5003", "map key outside the map's key type", span)
            return value
        if op is Op.SEQ_GET:
            value, bad = co.seq_get(args[0], args[1])
            self.fault(guard, bad, "MC5003", "sequence index out of range", span)
            return value
        if op is Op.SEQ_SET:
            value, bad = co.seq_set(args[0], args[1], args[2])
            self.fault(guard, bad, "MC5003", "sequence index out of range", span)
            return value
        if op is Op.APPEND:
            return co.append(args[0], args[1])
        if op is Op.CONCAT:
            return co.concat(args[0], args[1])
        if op is Op.HEAD:
            value, bad = co.head(args[0])
            self.fault(guard, bad, "MC5003", "head of an empty sequence", span)
            return value
        if op is Op.TAIL:
            value, bad = co.tail(args[0])
            self.fault(guard, bad, "MC5003", "tail of an empty sequence", span)
            return value
        if op is Op.TUPLE_GET:
            t = args[0]
            i = e.args[1].value if isinstance(e.args[1], ir.Const) else args[1].const
            assert isinstance(t, SProd) and i is not None
            return t.parts[i]
        if op is Op.SOME:
            v = args[0]
            return SOpt(v.type, TRUE, v)
        if op is Op.IS_SOME:
            return SBool(args[0].present)
        if op is Op.IS_NONE:
            return SBool(neg(args[0].present))
        if op is Op.OPT_GET:
            o = args[0]
            self.fault(guard, neg(o.present), "MC5004", ".value of none", span)
            return o.value
        if op is Op.BAG_ADD:
            return co.bag_put(args[0], args[1])
        if op is Op.BAG_REMOVE:
            value, absent = co.bag_take(args[0], args[1])
            self.fault(guard, absent, "MC5005", "take of an element not in the bag", span)
            return value
        if op is Op.BAG_COUNT:
            return co.bag_count(args[0], args[1])
        if op is Op.BAG_DISTINCT:
            return co.distinct(args[0])
        if op is Op.CHOOSE:
            elem = e.args[0].type.elem
            value, empty = co.first(args[0], elem)
            self.fault(guard, empty, "MC5008",
                       "choose from an empty set: no element satisfies the condition", span)
            return value
        raise EncodingUnsupported(f"operation {op.value}")


def _field_index(t: RecordType | TupleType, name: str) -> int:
    for i, (n, _) in enumerate(t.fields):
        if n == name:
            return i
    raise KeyError(name)

