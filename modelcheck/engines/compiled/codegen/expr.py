"""Lowering of IR expressions to generated code.

``ExprGen.gen(e)`` emits the statements that compute ``e`` and returns where
the value is (a ``Scalar`` or a ``Region``, in ``e.type``'s representation).
``gen_into(e, dst, t)`` writes the value straight into a region, which saves
the copy for the common ``x := x with [k] = v`` and ``msgs := msgs | {m}``.
A run-time error (MC5xxx) stores its code and the node's id in ``err`` and
returns -1 from the generated function; the engine then replays that step
under the reference evaluator for the exact message and trace.
"""
from __future__ import annotations

from typing import Any, Callable

from modelcheck.engines.compiled.codegen.source import ERR_CODES, Region, Scalar, Source, Val, slot
from modelcheck.engines.compiled.codegen import ranked
from modelcheck.engines.compiled.codegen.fold import Folder
from modelcheck.engines.compiled.codegen.params import Params, is_runtime
from modelcheck.engines.compiled.codegen.values import (Consts, ValueGen, is_scalar, needs_check,
                                                    same_rep)
from modelcheck.engines.compiled.codegen.layout import Layout
from modelcheck.engines.compiled.reps import (Unsupported, case_offsets, field_types, flatten,
                                              rank, rank_size, sparse, width)
from modelcheck.ir import nodes as ir
from modelcheck.ir.ops import Op
from modelcheck.ir.types import (BagType, BoolType, OptionType, RecordType, SeqType, SetType,
                                 TupleType, Type, join)
from modelcheck.ir.values import in_type

__all__ = ["ExprGen", "NodeTable"]


class NodeTable:
    """Ids for the IR nodes a kernel may report an error at."""

    def __init__(self) -> None:
        self.nodes: list[Any] = []

    def id(self, node: Any) -> int:
        self.nodes.append(node)
        return len(self.nodes) - 1


class ExprGen(ValueGen):
    """Expression lowering for one generated function.

    ``state_arrays``: the array holding the pre-state (``U``) and, for step
    invariants, the post-state (``V``).  ``env`` maps bound names to values.
    """

    def __init__(self, src: Source, consts: Consts, layout: Layout, nodes: NodeTable,
                 pre: str = "U", post: str | None = None, folder: Folder | None = None):
        # a conversion past a sparse capacity has no node of its own
        super().__init__(src, consts, f"return fail(err, 5001, {nodes.id(None)})")
        self.layout = layout
        self.nodes = nodes
        self.pre, self.post = pre, post
        self.folder = folder
        self.params = Params()
        self.env: dict[str, Val] = {}

    def constant(self, e: ir.Expr) -> tuple[bool, Any]:
        """(True, value) for an expression that reads nothing (folded now)."""
        if self.folder is None:
            return (True, e.value) if isinstance(e, ir.Const) and not is_runtime(e) \
                else (False, None)
        return self.folder.constant(e)

    def folded(self, e: ir.Expr) -> ir.Expr:
        ok, value = self.constant(e)
        return ir.Const(value, e.type, e.span) if ok and not isinstance(e, ir.Const) else e

    # ------------------------------------------------------------ errors

    def fail(self, code: str, node: Any) -> None:
        self.src.line(f"return fail(err, {ERR_CODES[code]}, {self.nodes.id(node)})")

    def failer(self, node: Any) -> Callable[[str], None]:
        return lambda code: self.fail(code, node)

    # ------------------------------------------------------------ helpers

    def scalar(self, e: ir.Expr) -> str:
        """Code for a scalar expression's value."""
        return self.read(self.gen(e), e.type)

    def region(self, e: ir.Expr) -> Region:
        v = self.gen(e)
        assert isinstance(v, Region), e
        return v

    def cast(self, v: Val, frm: Type, to: Type) -> Val:
        if isinstance(v, Scalar) or same_rep(frm, to):
            return v
        return self.as_rep(v, frm, to)

    def part(self, region: Region, t: Type) -> Val:
        return Scalar(self.read(region, t)) if is_scalar(t) else region

    def var_region(self, name: str, primed: bool = False) -> Region:
        arr = self.post if primed else self.pre
        if arr is None:
            raise Unsupported(f"{name}' outside a step invariant")
        return Region(arr, str(self.layout.var(name).first))

    # ------------------------------------------------------------ dispatch

    def gen(self, e: ir.Expr) -> Val:
        if isinstance(e, (ir.Const, ir.Var, ir.Local)):
            return getattr(self, f"_gen_{type(e).__name__}")(e)
        e = self.folded(e)
        if isinstance(e, ir.Const):
            return self._gen_Const(e)
        # An equal expression over the same bindings, computed where this code
        # runs too, is not computed again (inlined defs repeat a lot).
        key = self._cse_key(e)
        if key is not None:
            hit = self.src.recall(key)
            if hit is not None:
                return hit
        value = getattr(self, f"_gen_{type(e).__name__}")(e)
        if key is not None:
            self.src.remember(key, value)
        return value

    def _cse_key(self, e: ir.Expr) -> object | None:
        if self.folder is None:
            return None
        shape, free = self.folder.shape(e)
        try:
            bound = tuple(sorted((name, self.env[name]) for name in free))
        except KeyError:
            return None
        return (self.pre, self.post, shape, bound)

    def _gen_Const(self, e: ir.Const) -> Val:
        if is_runtime(e):
            return Scalar(self.params.read(e))
        if isinstance(e.type, BoolType):
            return Scalar("True" if e.value else "False")
        if is_scalar(e.type):
            return Scalar(str(flatten(e.type, e.value)[0]))
        return self.consts.region(e.type, e.value)

    def _gen_Var(self, e: ir.Var) -> Val:
        return self.part(self.var_region(e.name, e.primed), e.type)

    def _gen_Local(self, e: ir.Local) -> Val:
        return ranked.whole(self, self.env[e.name])

    def _gen_LetExpr(self, e: ir.LetExpr) -> Val:
        self.env[e.name] = self.gen(e.value)
        return self.gen(e.body)

    def _gen_IfExpr(self, e: ir.IfExpr) -> Val:
        known, which = self.constant(e.cond)
        if known:
            branch = e.then if which else e.else_
            return self.cast(self.gen(branch), branch.type, e.type)
        cond = self.scalar(e.cond)
        src = self.src
        if is_scalar(e.type):
            out = src.fresh("c")
            with src.block(f"if {cond}:"):
                src.line(f"{out} = {self._coerce(self.gen(e.then), e.then.type, e.type)}")
            with src.block("else:"):
                src.line(f"{out} = {self._coerce(self.gen(e.else_), e.else_.type, e.type)}")
            return Scalar(out)
        dst = src.alloc(width(e.type))
        with src.block(f"if {cond}:"):
            self.gen_into(e.then, dst, e.type)
        with src.block("else:"):
            self.gen_into(e.else_, dst, e.type)
        return dst

    def _coerce(self, v: Val, frm: Type, to: Type) -> str:
        # Scalars share one representation across compatible types.
        return self.read(v, frm)

    # ------------------------------------------------------------ quantifiers

    def _gen_Quant(self, e: ir.Quant) -> Val:
        src = self.src
        out = src.fresh("q")
        is_all = e.kind is ir.QuantKind.ALL
        src.line(f"{out} = {'True' if is_all else 'False'}")
        with self.loop(e.var, e.domain):
            body = self.scalar(e.body)
            test = f"not {body}" if is_all else body
            with src.block(f"if {test}:"):
                src.line(f"{out} = {'False' if is_all else 'True'}")
                src.line("break")
        return Scalar(out)

    def _gen_SetComp(self, e: ir.SetComp) -> Val:
        src = self.src
        dst = src.alloc(width(e.type))
        self.zero(dst, width(e.type))
        with self.loop(e.var, e.domain):
            with self._filter(e.cond):
                elem = self.gen(e.elem)
                self.add_element(dst, e.type, elem, e.elem.type, e)
        return dst

    def _gen_SumComp(self, e: ir.SumComp) -> Val:
        src = self.src
        acc = src.fresh("acc")
        src.line(f"{acc} = 0")
        with self.loop(e.var, e.domain):
            with self._filter(e.cond):
                src.line(f"{acc} += {self.scalar(e.elem)}")
        return Scalar(acc)

    def _gen_MapComp(self, e: ir.MapComp) -> Val:
        src = self.src
        dst = src.alloc(width(e.type))
        key_t, wv = e.type.key, width(e.type.value)
        from modelcheck.engines.compiled.reps import rank_size
        r = src.fresh("r")
        with src.block(f"for {r} in range({rank_size(key_t)}):"):
            self.env[e.var] = self.unrank(r, key_t)
            value = self.gen(e.value)
            self.store(dst.at(f"{r} * {wv}"), value, e.value.type, e.type.value)
        return dst

    def _filter(self, cond: ir.Expr | None):
        if cond is None:
            return _nothing()
        return self.src.block(f"if {self.scalar(cond)}:")

    def loop(self, var: str, domain: ir.Expr):
        """A loop binding ``var`` to each element of ``domain`` in canonical order."""
        return _Loop(self, var, domain)

    # ------------------------------------------------------------ literals

    def _gen_SetLit(self, e: ir.SetLit) -> Val:
        dst = self.src.alloc(width(e.type))
        self.zero(dst, width(e.type))
        for elem in e.elems:
            self._add_literal(dst, e.type, elem)
        return dst

    def _add_literal(self, dst: Region, coll_t: Type, elem: ir.Expr) -> None:
        r, valid = self.rank_expr(elem, coll_t.elem)
        guard = self.src.block(f"if {valid}:") if valid is not None else _nothing()
        with guard:
            self.add_rank(dst, coll_t, r, fail=self.failer(elem))

    def _gen_BagLit(self, e: ir.BagLit) -> Val:
        dst = self.src.alloc(width(e.type))
        self.zero(dst, width(e.type))
        for elem in e.elems:
            self.add_element(dst, e.type, self.gen(elem), elem.type, e)
        return dst

    def rank_expr(self, e: ir.Expr, to: Type, probe: bool = False) -> tuple[str, str | None]:
        """The rank of ``e``'s value among ``to``'s values (and its validity),
        computed from the parts of a literal without building it.  ``probe``:
        the value is only looked up (``in``), so a record with a field outside
        ``to`` is fine here: it is simply not a value of ``to`` (the validity
        says so), as the reference finds it in no set.  A variant is built
        all the same: its fields are checked when it is built."""
        e = self.folded(e)
        if isinstance(e, ir.Const) and not is_runtime(e):
            if not in_type(to, e.value):
                return "0", "False"
            return str(rank(to, e.value)), None
        if isinstance(e, (ir.RecordLit, ir.TupleLit)) and isinstance(to, (RecordType, TupleType)):
            exprs = [dict(e.fields)[n] for n, _ in e.type.fields] \
                if isinstance(e, ir.RecordLit) else list(e.elems)
            code, valids = "0", []
            for fe, ft in zip(exprs, field_types(to)):
                rk, ok = self.rank_expr(fe, ft, probe)
                code = self.src.let(f"{code} * {rank_size(ft)} + {rk}", "r")
                if ok is not None:
                    valids.append(ok)
            return code, (self.src.let(" and ".join(valids), "ok") if valids else None)
        if isinstance(e, ir.Apply) and e.op is Op.SOME and isinstance(to, OptionType):
            rk, ok = self.rank_expr(e.args[0], to.elem, probe)
            return self.src.let(f"1 + {rk}", "r"), ok
        return self.rank(self.gen(e), e.type, to)

    def add_element(self, dst: Region, coll_t: Type, v: Val, vt: Type,
                    node: ir.Expr | None = None) -> None:
        """Add one element to the set (or bag) in ``dst`` (``node``: where a
        sparse collection's capacity is passed)."""
        r, valid = self.rank(v, vt, coll_t.elem)
        guard = self.src.block(f"if {valid}:") if valid is not None else _nothing()
        with guard:
            self.add_rank(dst, coll_t, r, fail=None if node is None else self.failer(node))

    def _gen_SeqLit(self, e: ir.SeqLit) -> Val:
        t = e.type
        dst = self.src.alloc(width(t))
        self.src.line(f"{slot(dst)} = {len(e.elems)}")
        we = width(t.elem)
        for k in range(t.capacity):
            target = dst.at(1 + k * we)
            if k < len(e.elems):
                self.store(target, self.gen(e.elems[k]), e.elems[k].type, t.elem)
            else:
                self.fill_default(target, t.elem)
        return dst

    def _gen_TupleLit(self, e: ir.TupleLit) -> Val:
        return self._fields(e.type, list(e.elems))

    def _gen_RecordLit(self, e: ir.RecordLit) -> Val:
        given = dict(e.fields)
        return self._fields(e.type, [given[n] for n, _ in e.type.fields])

    def _fields(self, t: RecordType | TupleType, exprs: list[ir.Expr]) -> Region:
        dst = self.src.alloc(width(t))
        off = 0
        for ft, fe in zip(field_types(t), exprs):
            self.store(dst.at(off), self.gen(fe), fe.type, ft)
            off += width(ft)
        return dst

    def _field_offset(self, t: RecordType, name: str) -> tuple[int, Type]:
        off = 0
        for n, ft in t.fields:
            if n == name:
                return off, ft
            off += width(ft)
        raise KeyError(name)

    def _gen_FieldGet(self, e: ir.FieldGet) -> Val:
        bound = self.env.get(e.record.name) if isinstance(e.record, ir.Local) else None
        if isinstance(bound, ranked.Ranked) and bound.type == e.record.type:
            return self.cast(ranked.field(self, bound, e.field), bound.type.field_type(e.field),
                             e.type)
        rec = self.region(e.record)
        off, ft = self._field_offset(e.record.type, e.field)
        return self.cast(self.part(rec.at(off), ft), ft, e.type)

    # ------------------------------------------------------------ variants

    def _gen_VariantLit(self, e: ir.VariantLit) -> Val:
        t = e.type
        index = t.case_index(e.case)
        ptype = t.case_type(e.case)
        off = case_offsets(t)[index][0]
        dst = self.src.alloc(width(t))
        self.fill_default(dst, t)
        self.src.line(f"{slot(dst)} = {index}")
        payload = self.folded(e.payload)
        # A variant's fields are checked when it is built (MC5001), as the
        # reference does: its slots only have room for its declared types.
        if isinstance(payload, ir.RecordLit):
            given = dict(payload.fields)
            at = off
            for name, ft in ptype.fields:
                fe = given[name]
                v = self.gen(fe)
                self.check(v, fe.type, ft, self.failer(fe))
                self.store(dst.at(at), v, fe.type, ft)
                at += width(ft)
        elif ptype.fields:
            if isinstance(payload, ir.Const) and not is_runtime(payload) \
                    and not in_type(ptype, payload.value):
                self.fail("MC5001", e)
                return dst
            v = self.gen(payload)
            self.check(v, payload.type, ptype, self.failer(e))
            self.store(dst.at(off), v, payload.type, ptype)
        return dst

    def _gen_CaseTest(self, e: ir.CaseTest) -> Val:
        region = self.region(e.subject)
        index = e.subject.type.case_index(e.case)
        return Scalar(self.src.let(f"{slot(region)} == {index}", "o"))

    def _gen_CasePayload(self, e: ir.CasePayload) -> Val:
        t = e.subject.type
        region = self.region(e.subject)
        ptype = t.case_type(e.case)
        off = case_offsets(t)[t.case_index(e.case)][0]
        return self.cast(region.at(off), ptype, e.type)

    def _gen_FieldSet(self, e: ir.FieldSet) -> Val:
        dst = self.src.alloc(width(e.type))
        self.gen_into(e, dst, e.type)
        return dst

    # ------------------------------------------------------------ writing into a region

    def gen_into(self, e: ir.Expr, dst: Region, t: Type, holds: str | None = None) -> None:
        """Write the value of ``e`` into ``dst`` as a value of ``t``.  ``holds``:
        the state variable whose unchanged value ``dst`` already holds."""
        if not same_rep(e.type, t) or is_scalar(t):
            self.store(dst, self.gen(e), e.type, t)
            return
        if isinstance(e, ir.Var) and not e.primed and holds == e.name:
            return
        if isinstance(e, ir.FieldSet):
            self.gen_into(e.record, dst, t, holds)
            off, ft = self._field_offset(t, e.field)
            self.store(dst.at(off), self.gen(e.value), e.value.type, ft)
            return
        if isinstance(e, ir.Apply) and e.op in _INTO:
            getattr(self, f"_into_{e.op.name}")(e, dst, t, holds)
            return
        v = self.gen(e)
        self.store(dst, v, e.type, t)

    def _into_MAP_SET(self, e: ir.Apply, dst: Region, t: Type, holds: str | None) -> None:
        m, k, v = e.args
        self.gen_into(m, dst, t, holds)
        r, valid = self.rank(self.gen(k), k.type, t.key)
        if valid is not None:
            with self.src.block(f"if not ({valid}):"):
                self.fail("MC5003", e)
        self.store(dst.at(f"{r} * {width(t.value)}"), self.gen(v), v.type, t.value)

    def _into_SEQ_SET(self, e: ir.Apply, dst: Region, t: Type, holds: str | None) -> None:
        s, i, v = e.args
        self.gen_into(s, dst, t, holds)
        idx = self.scalar(i)
        with self.src.block(f"if {idx} < 0 or {idx} >= {slot(dst)}:"):
            self.fail("MC5003", e)
        self.store(dst.at(f"1 + {idx} * {width(t.elem)}"), self.gen(v), v.type, t.elem)

    def _into_setop(self, e: ir.Apply, dst: Region, t: Type, holds: str | None) -> None:
        a, b = e.args
        if sparse(t) and e.op is Op.INTER:
            # t's capacity is the smaller operand's: a itself may not fit it
            self._sparse_inter(e, dst, t)
            return
        self.gen_into(a, dst, t, holds)
        src = self.src
        if isinstance(b, ir.SetLit) and e.op in (Op.UNION, Op.DIFF):
            for elem in b.elems:
                r, valid = self.rank_expr(elem, t.elem)
                guard = src.block(f"if {valid}:") if valid is not None else _nothing()
                with guard:
                    if e.op is Op.UNION:
                        self.add_rank(dst, t, r, fail=self.failer(e))
                    else:
                        self.remove_rank(dst, t, r)
            return
        if sparse(t):
            self._sparse_setop(e, dst, t)
            return
        rb = self.as_rep(self.gen(b), b.type, t)
        operator = {Op.UNION: "|=", Op.INTER: "&=", Op.DIFF: "&= ~"}[e.op]
        for k in range(width(t)):
            if e.op is Op.DIFF:
                src.line(f"{slot(dst, k)} &= ~{slot(rb, k)}")
            else:
                src.line(f"{slot(dst, k)} {operator} {slot(rb, k)}")

    _into_UNION = _into_INTER = _into_DIFF = _into_setop

    def _sparse_setop(self, e: ir.Apply, dst: Region, t: Type) -> None:
        """dst (holding a) |= b or -= b, element by element: b may be dense or sparse."""
        b = e.args[1]
        src = self.src
        rb, tb = self.region(b), b.type
        with self.each_element(rb, tb, canonical=False) as r:
            rk, valid = self.rerank(r, tb.elem, t.elem)
            with src.block(f"if {valid or 'True'}:"):
                if e.op is Op.UNION:
                    self.add_rank(dst, t, rk, fail=self.failer(e))
                else:
                    self.remove_rank(dst, t, rk)

    def _sparse_inter(self, e: ir.Apply, dst: Region, t: Type) -> None:
        """dst := the elements of a that are in b (a and b dense or sparse)."""
        a, b = e.args
        src = self.src
        ra, ta = self.region(a), a.type
        rb, tb = self.region(b), b.type
        self.zero(dst, width(t))
        with self.each_element(ra, ta, canonical=False) as r:
            rt, valid_t = self.rerank(r, ta.elem, t.elem)
            rk, valid_b = self.rerank(r, ta.elem, tb.elem)
            test = " and ".join(v for v in (valid_t, valid_b) if v) or "True"
            with src.block(f"if {test}:"):
                with src.block(f"if {self.contains(rb, tb, rk)}:"):
                    self.add_rank(dst, t, rt, fail=self.failer(e))

    def _into_BAG_ADD(self, e: ir.Apply, dst: Region, t: Type, holds: str | None) -> None:
        b, x = e.args
        self.gen_into(b, dst, t, holds)
        r, valid = self.rank_expr(x, t.elem)
        if valid is not None:
            with self.src.block(f"if not ({valid}):"):
                self.fail("MC5001", e)
        self.add_rank(dst, t, r, fail=self.failer(e))

    def _into_BAG_REMOVE(self, e: ir.Apply, dst: Region, t: Type, holds: str | None) -> None:
        b, x = e.args
        self.gen_into(b, dst, t, holds)
        r, valid = self.rank(self.gen(x), x.type, t.elem)
        if valid is not None:
            with self.src.block(f"if not ({valid}):"):
                self.fail("MC5005", e)
        ok = self.remove_rank(dst, t, r)
        with self.src.block(f"if not {ok}:"):
            self.fail("MC5005", e)

    # ------------------------------------------------------------ operators

    def _gen_Apply(self, e: ir.Apply) -> Val:
        from modelcheck.engines.compiled.codegen import ops as gen_ops
        return gen_ops.apply(self, e)


_INTO = {Op.MAP_SET, Op.SEQ_SET, Op.UNION, Op.INTER, Op.DIFF, Op.BAG_ADD, Op.BAG_REMOVE}


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> None:
        return None


class _Loop:
    """``with gen.loop(var, domain):`` -- the body runs once per element."""

    def __init__(self, gen: ExprGen, var: str, domain: ir.Expr):
        self.gen, self.var, self.domain = gen, var, domain
        self._cm: Any = None

    def __enter__(self) -> None:
        gen, domain = self.gen, self.domain
        t = domain.type
        if isinstance(t, SeqType):
            # A sequence is iterated position by position, duplicates included.
            region = gen.region(domain)
            q = gen.src.fresh("q")
            self._cm = _NamedBlock(gen.src, f"for {q} in range({slot(region)}):", q)
            self._cm.__enter__()
            gen.env[self.var] = gen.part(region.at(f"1 + {q} * {width(t.elem)}"), t.elem)
            return
        if not isinstance(t, (SetType, BagType)):
            raise Unsupported(f"iteration over a {type(t).__name__}")
        if _big_range(gen, domain):
            # Too many values for a bitset: count through them instead,
            # in ascending (canonical) order, without building the set.
            lo, hi = gen.scalar(domain.args[0]), gen.scalar(domain.args[1])
            v = gen.src.fresh("v")
            self._cm = _NamedBlock(gen.src, f"for {v} in range({lo}, {hi} + 1):", v)
            gen.env[self.var] = Scalar(self._cm.__enter__())
            return
        if isinstance(domain, ir.Const) and isinstance(t, SetType):
            self._cm = self._const_loop(domain)
        else:
            self._cm = gen.each_element(gen.region(domain), t)
        r = self._cm.__enter__()
        gen.env[self.var] = ranked.bind_rank(gen, r, t.elem)

    def _const_loop(self, domain: ir.Const):
        from modelcheck.engines.compiled.reps import rank_size
        from modelcheck.ir.values import sort_values
        gen, t = self.gen, domain.type
        ranks = [rank(t.elem, v) for v in sort_values(t.elem, domain.value)]
        r = gen.src.fresh("r")
        if ranks == list(range(rank_size(t.elem))):
            return _NamedBlock(gen.src, f"for {r} in range({len(ranks)}):", r)
        table = gen.consts.array(ranks)
        return _NamedBlock(gen.src, f"for {r} in {table}:", r)

    def __exit__(self, *exc: Any) -> None:
        self._cm.__exit__(*exc)


class _NamedBlock:
    """A block whose ``__enter__`` yields a loop variable's name."""

    def __init__(self, src: Source, header: str, name: str):
        self._cm = src.block(header)
        self.name = name

    def __enter__(self) -> str:
        self._cm.__enter__()
        return self.name

    def __exit__(self, *exc: Any) -> None:
        self._cm.__exit__(*exc)


def _big_range(gen: ExprGen, e: ir.Expr) -> bool:
    """Whether ``e`` is a range ``lo..hi`` over more values than a bitset holds
    (the constant folder leaves those alone)."""
    return (ir.is_range(e) and gen.folder is not None
            and gen.folder.large(e))


def join_type(a: Type, b: Type) -> Type:
    t = join(a, b)
    if t is None:
        raise Unsupported(f"incompatible operand types {a} and {b}")
    return t

