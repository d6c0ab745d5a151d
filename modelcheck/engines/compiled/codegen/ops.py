"""Lowering of the built-in operations (``ir.ops.Op``), one function each."""
from __future__ import annotations

from contextlib import ExitStack
from typing import Callable

from modelcheck.engines.compiled.codegen.source import Region, Scalar, Val, slot
from modelcheck.engines.compiled.reps import Unsupported, field_types, rank_size, sparse, width
from modelcheck.ir import nodes as ir
from modelcheck.ir.ops import Op
from modelcheck.ir.types import BagType, IntType, SeqType, SetType, join

__all__ = ["apply"]


def apply(g, e: ir.Apply) -> Val:
    try:
        handler = _HANDLERS[e.op]
    except KeyError:
        raise Unsupported(f"operation {e.op.name}") from None
    return handler(g, e)


# ------------------------------------------------------------------ ints

def _binary(symbol: str) -> Callable:
    def lower(g, e: ir.Apply) -> Val:
        code = g.scalar(e.args[0])
        for arg in e.args[1:]:
            code = g.src.let(f"{code} {symbol} {g.scalar(arg)}", "i")
        return Scalar(code)
    return lower


def _division(symbol: str) -> Callable:
    def lower(g, e: ir.Apply) -> Val:
        a, b = g.scalar(e.args[0]), g.src.let(g.scalar(e.args[1]), "d")
        with g.src.block(f"if {b} == 0:"):
            g.fail("MC5002", e)
        return Scalar(g.src.let(f"{a} {symbol} {b}", "i"))
    return lower


def _neg(g, e: ir.Apply) -> Val:
    return Scalar(g.src.let(f"-{g.scalar(e.args[0])}", "i"))


def _minmax(fn: str) -> Callable:
    def lower(g, e: ir.Apply) -> Val:
        args = [g.scalar(a) for a in e.args]
        code = args[0]
        for a in args[1:]:
            code = g.src.let(f"{fn}({code}, {a})", "i")
        return Scalar(code)
    return lower


# ------------------------------------------------------------------ comparison and logic

def _equality(negate: bool) -> Callable:
    def lower(g, e: ir.Apply) -> Val:
        a, b = e.args
        t = join(a.type, b.type)
        if t is None:
            raise Unsupported(f"comparison of {a.type} and {b.type}")
        va, vb = g.gen(a), g.gen(b)
        if negate and g.is_scalar_type(t):
            return Scalar(f"({g.read(va, a.type)} != {g.read(vb, b.type)})")
        code = g.equal(va, a.type, vb, b.type, t)
        return Scalar(f"(not {code})" if negate else code)
    return lower


def _compare(symbol: str) -> Callable:
    # Results of comparisons and ``not`` stay expressions (their operands are
    # locals that never change once set), saving a statement each.
    def lower(g, e: ir.Apply) -> Val:
        a, b = g.scalar(e.args[0]), g.scalar(e.args[1])
        return Scalar(f"({a} {symbol} {b})")
    return lower


def _connective(is_and: bool) -> Callable:
    def lower(g, e: ir.Apply) -> Val:
        # Leading constants decide or drop out; a constant after a
        # non-constant argument is kept (the argument before may fail).
        args = list(e.args)
        while args:
            known, value = g.constant(args[0])
            if not known:
                break
            if bool(value) != is_and:
                return Scalar("False" if is_and else "True")
            args.pop(0)
        if not args:
            return Scalar("True" if is_and else "False")
        out = g.src.fresh("l")
        g.src.line(f"{out} = {g.scalar(args[0])}")
        with ExitStack() as stack:
            for arg in args[1:]:
                stack.enter_context(g.src.block(f"if {out}:" if is_and else f"if not {out}:"))
                g.src.line(f"{out} = {g.scalar(arg)}")
        return Scalar(out)
    return lower


def _not(g, e: ir.Apply) -> Val:
    return Scalar(f"(not {g.scalar(e.args[0])})")


def _implies(g, e: ir.Apply) -> Val:
    known, value = g.constant(e.args[0])
    if known:
        return Scalar("True") if not value else Scalar(g.src.let(g.scalar(e.args[1]), "l"))
    out = g.src.fresh("l")
    g.src.line(f"{out} = True")
    with g.src.block(f"if {g.scalar(e.args[0])}:"):
        g.src.line(f"{out} = {g.scalar(e.args[1])}")
    return Scalar(out)


# ------------------------------------------------------------------ sets

def _in(g, e: ir.Apply) -> Val:
    x, coll = e.args
    t = coll.type
    if not isinstance(t, (SetType, BagType)):
        raise Unsupported(f"'in' on a {type(t).__name__}")
    r, valid = g.rank_expr(x, t.elem, probe=True)     # the reference evaluates x first
    test = g.contains(g.region(coll), t, r)
    if valid is None:
        return Scalar(g.src.let(test, "m"))
    out = g.src.fresh("m")
    g.src.line(f"{out} = False")
    with g.src.block(f"if {valid}:"):
        g.src.line(f"{out} = {test}")
    return Scalar(out)


def _into_new(g, e: ir.Apply) -> Val:
    dst = g.src.alloc(width(e.type))
    g.gen_into(e, dst, e.type)
    return dst


def _subset(g, e: ir.Apply) -> Val:
    a, b = e.args
    t = join(a.type, b.type)
    ra, rb = g.as_rep(g.gen(a), a.type, t), g.as_rep(g.gen(b), b.type, t)
    if sparse(t):
        return Scalar(g.src.let(f"sp_within({ra.arr}, {ra.off}, {rb.arr}, {rb.off})", "s"))
    parts = [f"({slot(ra, k)} & ~{slot(rb, k)}) == 0" for k in range(width(t))]
    return Scalar(g.src.let(" and ".join(parts), "s"))


def _range(g, e: ir.Apply) -> Val:
    lo, hi = g.scalar(e.args[0]), g.scalar(e.args[1])
    t = e.type
    if not isinstance(t.elem, IntType):
        raise Unsupported("a range over non-ints")
    dst = g.src.alloc(width(t))
    g.zero(dst, width(t))
    v = g.src.fresh("v")
    base = t.elem.lo
    with g.src.block(f"for {v} in range(max({lo}, {base}), min({hi}, {t.elem.hi}) + 1):"):
        g.src.line(f"setbit({dst.arr}, {dst.off}, {v} - {base})")
    return dst


def _set_extreme(lowest: bool) -> Callable:
    def lower(g, e: ir.Apply) -> Val:
        s = e.args[0]
        region, t = g.region(s), s.type
        if not isinstance(t.elem, IntType):
            raise Unsupported("min/max of a set of non-ints")
        if sparse(t):
            # ranks ascend with the ints; the last entry is at the count
            count = g.src.let(slot(region), "n")
            with g.src.block(f"if {count} == 0:"):
                g.fail("MC5006", e)
            at = "1" if lowest else count
            return Scalar(g.src.let(f"{slot(region, at)} + {t.elem.lo}", "i"))
        found = _first_present(g, region, rank_size(t.elem), lowest, "MC5006", e)
        return Scalar(g.src.let(f"{found} + {t.elem.lo}", "i"))
    return lower


def _first_present(g, region: Val, n: int, lowest: bool, code: str, e: ir.Apply) -> str:
    """The rank of the first element present in a set held in bits, of ``n``
    ranks: the lowest, or with ``lowest`` False the highest (min, max,
    choose); the run-time error ``code`` when the set is empty."""
    found, r = g.src.fresh("f"), g.src.fresh("r")
    g.src.line(f"{found} = -1")
    order = f"range({n})" if lowest else f"range({n - 1}, -1, -1)"
    with g.src.block(f"for {r} in {order}:"):
        with g.src.block(f"if bit({region.arr}, {region.off}, {r}):"):
            g.src.line(f"{found} = {r}")
            g.src.line("break")
    with g.src.block(f"if {found} < 0:"):
        g.fail(code, e)
    return found


def _choose(g, e: ir.Apply) -> Val:
    """choose(S): the element of lowest rank, which is the first in the
    canonical order where ``rank_is_canonical``; MC5008 on an empty set."""
    from modelcheck.engines.compiled.reps import rank_is_canonical
    s = e.args[0]
    t = s.type
    if not isinstance(t, SetType) or not rank_is_canonical(t.elem) or (
            ir.is_range(s) and g.folder is not None and g.folder.large(s)):
        raise Unsupported(f"choose from {type(t.elem).__name__} values")
    region = g.region(s)
    if sparse(t):
        count = g.src.let(slot(region), "n")
        with g.src.block(f"if {count} == 0:"):
            g.fail("MC5008", e)
        return g.unrank(g.src.let(slot(region, "1"), "r"), t.elem)
    return g.unrank(_first_present(g, region, rank_size(t.elem), True, "MC5008", e), t.elem)


def _len(g, e: ir.Apply) -> Val:
    c = e.args[0]
    if ir.is_range(c) and g.folder is not None and g.folder.large(c):
        # A range's length is arithmetic (the 64-bit audit bounds hi - lo + 1).
        lo, hi = g.scalar(c.args[0]), g.scalar(c.args[1])
        return Scalar(g.src.let(f"max(0, {hi} - {lo} + 1)", "n"))
    region, t = g.region(c), c.type
    if isinstance(t, SetType):
        return Scalar(g.size(region, t))
    if isinstance(t, SeqType):
        return Scalar(g.src.let(slot(region), "n"))
    if isinstance(t, BagType):
        return Scalar(g.size(region, t))
    raise Unsupported(f"len of a {type(t).__name__}")


# ------------------------------------------------------------------ maps

def _map_get(g, e: ir.Apply) -> Val:
    m, k = e.args
    region, t = g.region(m), m.type
    r, valid = g.rank(g.gen(k), k.type, t.key)
    if valid is not None:
        with g.src.block(f"if not ({valid}):"):
            g.fail("MC5003", e)
    return g.cast(g.part(region.at(f"{r} * {width(t.value)}"), t.value), t.value, e.type)


# ------------------------------------------------------------------ sequences

def _seq_elem(g, region: Region, t: SeqType, index: str) -> Region:
    if not (index.isidentifier() or index.lstrip("-").isdigit()):
        index = f"({index})"
    return region.at(f"1 + {index} * {width(t.elem)}")


def _seq_get(g, e: ir.Apply) -> Val:
    s, i = e.args
    region = g.region(s)
    idx = g.src.let(g.scalar(i), "k")
    with g.src.block(f"if {idx} < 0 or {idx} >= {slot(region)}:"):
        g.fail("MC5003", e)
    return g.cast(g.part(_seq_elem(g, region, s.type, idx), s.type.elem), s.type.elem, e.type)


def _append(g, e: ir.Apply) -> Val:
    s, x = e.args
    t = e.type
    dst = g.src.alloc(width(t))
    g.store(dst, g.gen(s), s.type, t)
    n = g.src.let(slot(dst), "n")
    with g.src.block(f"if {n} >= {t.capacity}:"):
        g.fail("MC5001", e)
    g.store(_seq_elem(g, dst, t, n), g.gen(x), x.type, t.elem)
    g.src.line(f"{slot(dst)} = {n} + 1")
    return dst


def _concat(g, e: ir.Apply) -> Val:
    a, b = e.args
    t = e.type
    dst = g.src.alloc(width(t))
    g.store(dst, g.gen(a), a.type, t)
    rb = g.region(b)
    n1, n2 = g.src.let(slot(dst), "n"), g.src.let(slot(rb), "n")
    with g.src.block(f"if {n1} + {n2} > {t.capacity}:"):
        g.fail("MC5001", e)
    q = g.src.fresh("q")
    with g.src.block(f"for {q} in range({n2}):"):
        part = g.part(_seq_elem(g, rb, b.type, q), b.type.elem)
        g.store(_seq_elem(g, dst, t, f"{n1} + {q}"), part, b.type.elem, t.elem)
    g.src.line(f"{slot(dst)} = {n1} + {n2}")
    return dst


def _head(g, e: ir.Apply) -> Val:
    s = e.args[0]
    region = g.region(s)
    with g.src.block(f"if {slot(region)} == 0:"):
        g.fail("MC5003", e)
    return g.cast(g.part(_seq_elem(g, region, s.type, "0"), s.type.elem), s.type.elem, e.type)


def _copy_run(g, dst: Region, t: SeqType, src_region: Region, st: SeqType,
              start: str, n: str) -> None:
    """dst := src[start : start + n] (dst's unused slots get defaults)."""
    q = g.src.fresh("q")
    g.src.line(f"{slot(dst)} = {n}")
    with g.src.block(f"for {q} in range({t.capacity}):"):
        target = _seq_elem(g, dst, t, q)
        with g.src.block(f"if {q} < {n}:"):
            part = g.part(_seq_elem(g, src_region, st, f"{start} + {q}"), st.elem)
            g.store(target, part, st.elem, t.elem)
        with g.src.block("else:"):
            g.fill_default(target, t.elem)


def _tail(g, e: ir.Apply) -> Val:
    s = e.args[0]
    region, t = g.region(s), e.type
    n = g.src.let(slot(region), "n")
    with g.src.block(f"if {n} == 0:"):
        g.fail("MC5003", e)
    dst = g.src.alloc(width(t))
    _copy_run(g, dst, t, region, s.type, "1", g.src.let(f"{n} - 1", "n"))
    return dst


def _slice(g, e: ir.Apply) -> Val:
    s, i, j = e.args
    region, t = g.region(s), e.type
    n = g.src.let(slot(region), "n")
    lo = _slice_bound(g, i, n, "0")
    hi = _slice_bound(g, j, n, n)
    count = g.src.let(f"max(0, {hi} - {lo})", "n")
    dst = g.src.alloc(width(t))
    with g.src.block(f"if {count} > {t.capacity}:"):
        g.fail("MC5001", e)
    _copy_run(g, dst, t, region, s.type, lo, count)
    return dst


def _slice_bound(g, bound: ir.Expr, n: str, missing: str) -> str:
    if isinstance(bound, ir.Const) and bound.value is None:
        return missing
    b = g.src.fresh("k")
    g.src.line(f"{b} = {g.scalar(bound)}")
    with g.src.block(f"if {b} < 0:"):
        g.src.line(f"{b} = max(0, {b} + {n})")
    g.src.line(f"{b} = min({b}, {n})")
    return b


# ------------------------------------------------------------------ tuples and options

def _tuple_get(g, e: ir.Apply) -> Val:
    tup, index = e.args
    if not isinstance(index, ir.Const):
        raise Unsupported("a tuple index that is not a constant")
    region = g.region(tup)
    fields = field_types(tup.type)
    off = sum(width(f) for f in fields[:index.value])
    ft = fields[index.value]
    return g.cast(g.part(region.at(off), ft), ft, e.type)


def _some(g, e: ir.Apply) -> Val:
    x = e.args[0]
    dst = g.src.alloc(width(e.type))
    g.src.line(f"{slot(dst)} = 1")
    g.store(dst.at(1), g.gen(x), x.type, e.type.elem)
    return dst


def _tag_test(some: bool) -> Callable:
    def lower(g, e: ir.Apply) -> Val:
        region = g.region(e.args[0])
        return Scalar(g.src.let(f"{slot(region)} {'!=' if some else '=='} 0", "o"))
    return lower


def _opt_get(g, e: ir.Apply) -> Val:
    o = e.args[0]
    region = g.region(o)
    with g.src.block(f"if {slot(region)} == 0:"):
        g.fail("MC5004", e)
    return g.cast(g.part(region.at(1), o.type.elem), o.type.elem, e.type)


# ------------------------------------------------------------------ bags

def _bag_count(g, e: ir.Apply) -> Val:
    b, x = e.args
    region = g.region(b)
    r, valid = g.rank_expr(x, b.type.elem, probe=True)
    count = g.count_of(region, b.type, r)
    if valid is None:
        return Scalar(g.src.let(count, "n"))
    return Scalar(g.src.let(f"{count} if {valid} else 0", "n"))


def _bag_distinct(g, e: ir.Apply) -> Val:
    b = e.args[0]
    region = g.region(b)
    t = e.type
    dst = g.src.alloc(width(t))
    g.zero(dst, width(t))
    with g.each_element(region, b.type, canonical=False) as r:
        g.add_rank(dst, t, r, fail=g.failer(e))
    return dst


_HANDLERS: dict[Op, Callable] = {
    Op.ADD: _binary("+"), Op.SUB: _binary("-"), Op.MUL: _binary("*"),
    Op.DIV: _division("//"), Op.MOD: _division("%"), Op.NEG: _neg,
    Op.MIN: _minmax("min"), Op.MAX: _minmax("max"),
    Op.EQ: _equality(False), Op.NE: _equality(True),
    Op.LT: _compare("<"), Op.LE: _compare("<="), Op.GT: _compare(">"), Op.GE: _compare(">="),
    Op.AND: _connective(True), Op.OR: _connective(False), Op.NOT: _not, Op.IMPLIES: _implies,
    Op.IN: _in, Op.UNION: _into_new, Op.INTER: _into_new, Op.DIFF: _into_new,
    Op.SUBSET: _subset, Op.RANGE: _range, Op.SET_MIN: _set_extreme(True),
    Op.SET_MAX: _set_extreme(False), Op.LEN: _len,
    Op.MAP_GET: _map_get, Op.MAP_SET: _into_new,
    Op.SEQ_GET: _seq_get, Op.SEQ_SET: _into_new, Op.APPEND: _append, Op.CONCAT: _concat,
    Op.HEAD: _head, Op.TAIL: _tail, Op.SLICE: _slice,
    Op.TUPLE_GET: _tuple_get,
    Op.SOME: _some, Op.IS_SOME: _tag_test(True), Op.IS_NONE: _tag_test(False),
    Op.OPT_GET: _opt_get,
    Op.BAG_ADD: _into_new, Op.BAG_REMOVE: _into_new, Op.BAG_COUNT: _bag_count,
    Op.BAG_DISTINCT: _bag_distinct, Op.CHOOSE: _choose,
}

assert not set(Op) - set(_HANDLERS), "every operation has a lowering"
