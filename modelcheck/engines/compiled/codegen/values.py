"""Generated code that moves values around: copies, conversions between
compatible types, the MC5001 checks on writes, equality, ranks, and loops
over the elements of a set.

Two compatible types (same shape) may still hold a value differently: an
element of ``set[0..3]`` sits at bit ``v - 0`` but in ``set[1..5]`` at bit
``v - 1``; a ``seq[T, 2]`` has fewer slots than a ``seq[T, 3]``.  ``same_rep``
says when slots can be copied as they are; ``store`` converts otherwise.

One module on purpose, just past the size the others keep to: ``ValueGen``'s
copies, checks and comparisons recurse into each other through every type
(a record's copy checks its fields, a set's comparison ranks its elements);
the collections' element loops are already apart (``colls``).
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Callable, Iterator

from modelcheck.engines.compiled.codegen.colls import Elements
from modelcheck.engines.compiled.codegen.source import Region, Scalar, Source, Val, add_off, slot
from modelcheck.engines.compiled.reps import (Unsupported, capped, case_offsets, chunks, default,
                                              field_types, flatten, rank, rank_is_canonical,
                                              rank_size, sparse, to_signed, unrank, width)
from modelcheck.ir.types import (BagType, BoolType, EnumType, IntType, MapType, ModelType,
                                 OptionType, RecordType, SeqType, SetType, TupleType, Type,
                                 VariantType)

__all__ = ["Consts", "is_scalar", "same_rep", "needs_check", "ValueGen"]

Fail = Callable[[str], None]


def is_scalar(t: Type) -> bool:
    return isinstance(t, (BoolType, IntType, EnumType, ModelType))


def same_rep(a: Type, b: Type) -> bool:
    """Whether values of ``a`` and ``b`` (compatible types) have identical slots."""
    if a == b:
        return True
    if isinstance(a, IntType) and isinstance(b, IntType):
        return True
    if is_scalar(a) or type(a) is not type(b):
        return a == b
    if isinstance(a, OptionType):
        return same_rep(a.elem, b.elem) and flatten(a.elem, default(a.elem)) == \
            flatten(b.elem, default(b.elem))
    if isinstance(a, (SetType, BagType)):
        if sparse(a) or sparse(b):
            return sparse(a) and sparse(b) and a.elem == b.elem and a.capacity == b.capacity
        return a.elem == b.elem
    if isinstance(a, MapType):
        return a.key == b.key and same_rep(a.value, b.value)
    if isinstance(a, SeqType):
        return (a.capacity == b.capacity and same_rep(a.elem, b.elem)
                and flatten(a.elem, default(a.elem)) == flatten(b.elem, default(b.elem)))
    if isinstance(a, (RecordType, TupleType)):
        fa, fb = field_types(a), field_types(b)
        return len(fa) == len(fb) and all(same_rep(x, y) for x, y in zip(fa, fb))
    return False


def needs_check(frm: Type, to: Type) -> bool:
    """Whether a value of ``frm`` may fall outside ``to`` (MC5001)."""
    if isinstance(frm, IntType) and isinstance(to, IntType):
        return frm.lo < to.lo or frm.hi > to.hi
    if is_scalar(frm):
        return False
    if isinstance(frm, OptionType):
        return needs_check(frm.elem, to.elem)
    if isinstance(frm, SetType):
        return over_capacity(frm, to) or needs_check(frm.elem, to.elem)
    if isinstance(frm, VariantType):
        return False        # variants join only when equal
    if isinstance(frm, BagType):
        return frm.capacity > to.capacity or needs_check(frm.elem, to.elem)
    if isinstance(frm, SeqType):
        return frm.capacity > to.capacity or needs_check(frm.elem, to.elem)
    if isinstance(frm, MapType):
        return needs_check(frm.value, to.value)
    if isinstance(frm, (RecordType, TupleType)):
        return any(needs_check(x, y) for x, y in zip(field_types(frm), field_types(to)))
    raise TypeError(frm)


def over_capacity(frm: SetType, to: SetType) -> bool:
    """Whether a set of ``frm`` may hold more elements than ``to`` allows."""
    if to.capacity is None or not capped(to):
        return False
    return frm.capacity is None or frm.capacity > to.capacity


class Consts:
    """Module-level constant arrays (``K<n>``), shared by every function."""

    def __init__(self) -> None:
        self._by_values: dict[tuple[int, ...], str] = {}
        self.defs: list[str] = []

    def array(self, values: list[int]) -> str:
        key = tuple(int(v) for v in values)
        name = self._by_values.get(key)
        if name is None:
            name = f"K{len(self._by_values)}"
            self._by_values[key] = name
            body = ", ".join(str(v) for v in key)
            self.defs.append(f"{name} = np.array([{body}], dtype=np.int64)")
        return name

    def region(self, t: Type, value: object) -> Region:
        return Region(self.array(flatten(t, value)), "0")


def _int_lit(v: int) -> str:
    return str(to_signed(v)) if v >= 1 << 63 else str(v)


class ValueGen(Elements):
    """Value plumbing over one ``Source`` and one ``Consts`` registry.
    ``overflow_code``: the statement a write past a sparse collection's
    capacity runs where no IR node is at hand (a conversion): the statement
    reporting MC5001, which the engine then replays under the reference."""

    def __init__(self, src: Source, consts: Consts, overflow_code: str = "pass"):
        self.src = src
        self.consts = consts
        self.overflow_code = overflow_code
        # local name -> (type, rank code) for scalars made by ``unrank``: their
        # rank is known without recomputing it
        self.known_ranks: dict[str, tuple[Type, str]] = {}

    # ------------------------------------------------------------ scalars

    @staticmethod
    def is_scalar_type(t: Type) -> bool:
        return is_scalar(t)

    def read(self, v: Val, t: Type) -> str:
        """A scalar value as code (bools as numba booleans)."""
        if isinstance(v, Scalar):
            return v.code
        if isinstance(t, BoolType):
            return self.src.let(f"{slot(v)} != 0", "b")
        return self.src.let(slot(v), "v")

    def as_slot(self, code: str, t: Type) -> str:
        """A scalar's slot value (bools as 0/1)."""
        if isinstance(t, BoolType):
            if code == "True":
                return "1"
            if code == "False":
                return "0"
            return f"(1 if {code} else 0)"
        return code

    # ------------------------------------------------------------ copies

    def copy(self, dst: Region, src_region: Region, n: int) -> None:
        if dst == src_region or n == 0:
            return
        if n == 1:
            self.src.line(f"{slot(dst)} = {slot(src_region)}")
            return
        self.src.line(f"copy_slots({dst.arr}, {dst.off}, {src_region.arr}, {src_region.off}, {n})")

    def fill_default(self, dst: Region, t: Type) -> None:
        values = flatten(t, default(t))
        if not any(values):
            self.zero(dst, len(values))
        elif len(values) == 1:
            self.src.line(f"{slot(dst)} = {values[0]}")
        else:
            self.copy(dst, Region(self.consts.array(values), "0"), len(values))

    def zero(self, dst: Region, n: int) -> None:
        if n == 1:
            self.src.line(f"{slot(dst)} = 0")
            return
        self.src.line(f"zero_slots({dst.arr}, {dst.off}, {n})")

    def materialize(self, v: Val, t: Type) -> Region:
        """A region holding ``v`` (scalars are written to scratch)."""
        if isinstance(v, Region):
            return v
        region = self.src.alloc(1)
        self.src.line(f"{slot(region)} = {self.as_slot(v.code, t)}")
        return region

    # ------------------------------------------------------------ store / convert

    def store(self, dst: Region, v: Val, frm: Type, to: Type) -> None:
        """Write ``v`` (a value of ``frm``) into ``dst`` as a value of ``to``."""
        if is_scalar(to):
            code = v.code if isinstance(v, Scalar) else slot(v)
            if isinstance(v, Region) and isinstance(to, BoolType):
                code = slot(v)
            elif isinstance(v, Scalar):
                code = self.as_slot(code, to)
            self.src.line(f"{slot(dst)} = {code}")
            return
        assert isinstance(v, Region)
        if same_rep(frm, to):
            self.copy(dst, v, width(to))
            return
        self._convert(dst, v, frm, to)

    def _convert(self, dst: Region, v: Region, frm: Type, to: Type) -> None:
        src = self.src
        if isinstance(to, OptionType):
            tag = src.let(slot(v), "tag")
            src.line(f"{slot(dst)} = {tag}")
            with src.block(f"if {tag} != 0:"):
                self.store(dst.at(1), self._part(v.at(1), frm.elem), frm.elem, to.elem)
            with src.block("else:"):
                self.fill_default(dst.at(1), to.elem)
        elif isinstance(to, (RecordType, TupleType)):
            fo = ft = 0
            for a, b in zip(field_types(frm), field_types(to)):
                self.store(dst.at(ft), self._part(v.at(fo), a), a, b)
                fo += width(a)
                ft += width(b)
        elif isinstance(to, SeqType):
            n = src.let(slot(v), "n")
            src.line(f"{slot(dst)} = {n}")
            we, wf = width(to.elem), width(frm.elem)
            q = src.fresh("q")
            with src.block(f"for {q} in range({to.capacity}):"):
                target = dst.at(f"1 + {q} * {we}")
                with src.block(f"if {q} < {n} and {q} < {frm.capacity}:"):
                    part = self._part(v.at(f"1 + {q} * {wf}"), frm.elem)
                    self.store(target, part, frm.elem, to.elem)
                with src.block("else:"):
                    self.fill_default(target, to.elem)
        elif isinstance(to, MapType):
            if not isinstance(to.key, IntType) and to.key != frm.key:
                raise Unsupported(f"map key conversion {frm} -> {to}")
            wv, wf = width(to.value), width(frm.value)
            for r in range(rank_size(to.key)):
                key = unrank(to.key, r)
                target = dst.at(r * wv)
                if isinstance(frm.key, IntType) and not frm.key.lo <= key <= frm.key.hi:
                    self.fill_default(target, to.value)
                    continue
                rf = rank(frm.key, key)
                self.store(target, self._part(v.at(rf * wf), frm.value), frm.value, to.value)
        elif isinstance(to, (SetType, BagType)):
            self._convert_elements(dst, v, frm, to)
        else:
            raise TypeError(to)

    def _convert_elements(self, dst: Region, v: Region, frm: Type, to: Type) -> None:
        src = self.src
        if sparse(frm) and sparse(to) and frm.elem == to.elem:
            # the same ranks in a longer or shorter run of slots
            keep = min(frm.capacity, to.capacity)
            if frm.capacity > to.capacity:
                with src.block(f"if {slot(v)} > {to.capacity}:"):
                    self.overflow()
            self.copy(dst, v, 1 + keep)
            if to.capacity > keep:
                self.zero(dst.at(1 + keep), to.capacity - keep)
            return
        self.zero(dst, width(to))
        with self.each_entry(v, frm) as (r, copies):
            rk, valid = self.rerank(r, frm.elem, to.elem)
            with src.block(f"if {valid or 'True'}:"):
                self.add_rank(dst, to, rk, copies)
        if sparse(to) and frm.elem != to.elem:
            # ranks of a different element type need not keep their order
            src.line(f"sp_sort({dst.arr}, {dst.off})")

    def overflow(self) -> None:
        self.src.line(self.overflow_code)

    def _part(self, region: Region, t: Type) -> Val:
        return Scalar(self.read(region, t)) if is_scalar(t) else region

    # ------------------------------------------------------------ MC5001 checks

    def check(self, v: Val, frm: Type, to: Type, fail: Fail) -> None:
        """Emit the checks that ``v`` (of ``frm``) is a value of ``to``."""
        if not needs_check(frm, to):
            return
        src = self.src
        if isinstance(to, IntType):
            x = self.read(v, frm) if isinstance(v, Region) else v.code
            with src.block(f"if {x} < {to.lo} or {x} > {to.hi}:"):
                fail("MC5001")
            return
        assert isinstance(v, Region)
        if isinstance(to, OptionType):
            with src.block(f"if {slot(v)} != 0:"):
                self.check(self._part(v.at(1), frm.elem), frm.elem, to.elem, fail)
        elif isinstance(to, (RecordType, TupleType)):
            off = 0
            for a, b in zip(field_types(frm), field_types(to)):
                self.check(self._part(v.at(off), a), a, b, fail)
                off += width(a)
        elif isinstance(to, MapType):
            wv = width(frm.value)
            q = src.fresh("q")
            with src.block(f"for {q} in range({rank_size(frm.key)}):"):
                self.check(self._part(v.at(f"{q} * {wv}"), frm.value), frm.value, to.value, fail)
        elif isinstance(to, SeqType):
            n = src.let(slot(v), "n")
            if frm.capacity > to.capacity:
                with src.block(f"if {n} > {to.capacity}:"):
                    fail("MC5001")
            if needs_check(frm.elem, to.elem):
                we = width(frm.elem)
                q = src.fresh("q")
                with src.block(f"for {q} in range({n}):"):
                    self.check(self._part(v.at(f"1 + {q} * {we}"), frm.elem), frm.elem, to.elem, fail)
        elif isinstance(to, (SetType, BagType)):
            if isinstance(to, BagType) and frm.capacity > to.capacity:
                total = self.size(v, frm)
                with src.block(f"if {total} > {to.capacity}:"):
                    fail("MC5001")
            if isinstance(to, SetType) and over_capacity(frm, to):
                with src.block(f"if {self.size(v, frm)} > {to.capacity}:"):
                    fail("MC5001")
            if needs_check(frm.elem, to.elem):
                with self.each_element(v, frm, canonical=False) as r:
                    elem = self.unrank(r, frm.elem)
                    _, valid = self.rank(elem, frm.elem, to.elem)
                    if valid is not None:
                        with src.block(f"if not ({valid}):"):
                            fail("MC5001")
                    self.check(elem, frm.elem, to.elem, fail)
        else:
            raise TypeError(to)

    # ------------------------------------------------------------ equality

    def equal(self, a: Val, ta: Type, b: Val, tb: Type, join: Type) -> str:
        """Code for ``a == b`` (a numba bool)."""
        if is_scalar(join):
            return f"({self.read(a, ta)} == {self.read(b, tb)})"
        ra, rb = self.as_rep(a, ta, join), self.as_rep(b, tb, join)
        n = width(join)
        if n == 1:
            return self.src.let(f"{slot(ra)} == {slot(rb)}", "e")
        return self.src.let(f"same_slots({ra.arr}, {ra.off}, {rb.arr}, {rb.off}, {n})", "e")

    def _scalar(self, v: Val, t: Type) -> str:
        if isinstance(v, Scalar):
            return v.code
        if isinstance(t, BoolType):
            return f"({slot(v)} != 0)"
        return slot(v)

    def as_rep(self, v: Val, frm: Type, to: Type) -> Region:
        """``v`` as a region in ``to``'s representation (converting if needed)."""
        assert isinstance(v, Region)
        if same_rep(frm, to):
            return v
        dst = self.src.alloc(width(to))
        self._convert(dst, v, frm, to)
        return dst

    # ------------------------------------------------------------ ranks

    def rank(self, v: Val, frm: Type, to: Type) -> tuple[str, str | None]:
        """(rank of ``v`` among the values of ``to``, validity or None if always valid)."""
        src = self.src
        if isinstance(to, BoolType):
            return src.let(f"(1 if {self._scalar(v, frm)} else 0)", "r"), None
        if isinstance(v, Scalar) and self.known_ranks.get(v.code, (None,))[0] == to:
            return self.known_ranks[v.code][1], None
        if isinstance(to, IntType):
            x = src.let(self._scalar(v, frm), "x")
            r = src.let(f"{x} - {to.lo}", "r") if to.lo else x
            lo, hi = (frm.lo, frm.hi) if isinstance(frm, IntType) else (to.lo, to.hi)
            valid = None if to.lo <= lo and hi <= to.hi else src.let(
                f"({x} >= {to.lo} and {x} <= {to.hi})", "ok")
            return r, valid
        if isinstance(to, (EnumType, ModelType)):
            return src.let(self._scalar(v, frm), "r"), None
        assert isinstance(v, Region)
        if isinstance(to, OptionType):
            tag = src.let(slot(v), "tag")
            rp, vp = self.rank(self._part(v.at(1), frm.elem), frm.elem, to.elem)
            r = src.let(f"(1 + {rp}) if {tag} != 0 else 0", "r")
            valid = None if vp is None else src.let(f"({tag} == 0 or {vp})", "ok")
            return r, valid
        if isinstance(to, (RecordType, TupleType)):
            parts = []
            off = 0
            valids = []
            for a, b in zip(field_types(frm), field_types(to)):
                rk, vk = self.rank(self._part(v.at(off), a), a, b)
                parts.append((rk, rank_size(b)))
                if vk is not None:
                    valids.append(vk)
                off += width(a)
            code = parts[0][0]
            for rk, size in parts[1:]:
                code = f"({code}) * {size} + {rk}"
            return src.let(code, "r"), (src.let(" and ".join(valids), "ok") if valids else None)
        if isinstance(to, VariantType):
            return self._variant_rank(v, to), None
        if isinstance(to, SetType):
            if capped(to):
                raise Unsupported(f"a set with a capacity ({to}) used as a set element or map key")
            if width(to) > 1 or rank_size(to.elem) > 62:
                raise Unsupported(f"a set over {rank_size(to.elem)} elements used as an element")
            region = self.as_rep(v, frm, to)
            return src.let(slot(region), "r"), None
        if isinstance(to, MapType):
            region = self.as_rep(v, frm, to)
            wv = width(to.value)
            code = "0"
            for k in range(rank_size(to.key)):
                rk, _ = self.rank(self._part(region.at(k * wv), to.value), to.value, to.value)
                code = src.let(f"{code} * {rank_size(to.value)} + {rk}", "r")
            return code, None
        if isinstance(to, SeqType):
            n = src.let(slot(v), "n")
            size = rank_size(to.elem)
            offsets = [sum(size ** j for j in range(k)) for k in range(to.capacity + 2)]
            table = self.consts.array(offsets)
            r, q, ok = src.fresh("r"), src.fresh("q"), src.fresh("ok")
            src.line(f"{r} = 0")
            src.line(f"{ok} = {n} <= {to.capacity}")
            we = width(frm.elem)
            with src.block(f"for {q} in range({n}):"):
                rk, vk = self.rank(self._part(v.at(f"1 + {q} * {we}"), frm.elem), frm.elem, to.elem)
                src.line(f"{r} = {r} * {size} + {rk}")
                if vk is not None:
                    src.line(f"{ok} = {ok} and {vk}")
            src.line(f"{r} = {r} + {table}[min({n}, {to.capacity + 1})]")
            return r, ok
        raise Unsupported(f"a {type(to).__name__} used as a set element or map key")

    def rerank(self, r: str, frm: Type, to: Type) -> tuple[str, str | None]:
        """The rank among ``to``'s values of the value ranked ``r`` among
        ``frm``'s (and its validity, as ``rank`` gives it)."""
        if frm == to:
            return r, None
        return self.rank(self.unrank(r, frm), frm, to)

    def _variant_rank(self, v: Region, t: VariantType) -> str:
        src = self.src
        tag, r = src.let(slot(v), "tag"), src.fresh("r")
        src.line(f"{r} = 0")
        for k, ((_, payload), (off, first)) in enumerate(zip(t.cases, case_offsets(t))):
            with src.block(f"{'if' if k == 0 else 'elif'} {tag} == {k}:"):
                if payload.fields:
                    rk, _ = self.rank(v.at(off), payload, payload)
                    src.line(f"{r} = {first} + {rk}")
                else:
                    src.line(f"{r} = {first}")
        return r

    def unrank(self, r: str, t: Type) -> Val:
        """The value of ``t`` whose rank is ``r`` (a scalar or a fresh region)."""
        src = self.src
        if isinstance(t, BoolType):
            return Scalar(src.let(f"{r} != 0", "b"))
        if isinstance(t, IntType):
            if not t.lo:
                return Scalar(r)
            # an expression, not a local: loop variables of unused values
            # would still cost numba compile time
            x = f"({r} + {t.lo})"
            self.known_ranks[x] = (t, r)
            return Scalar(x)
        if isinstance(t, (EnumType, ModelType)):
            return Scalar(r)
        dst = src.alloc(width(t))
        self.unrank_into(dst, r, t)
        return dst

    def unrank_into(self, dst: Region, r: str, t: Type) -> None:
        src = self.src
        if is_scalar(t):
            v = self.unrank(r, t)
            self.store(dst, v, t, t)
        elif isinstance(t, OptionType):
            src.line(f"{slot(dst)} = 1 if {r} != 0 else 0")
            with src.block(f"if {r} != 0:"):
                self.unrank_into(dst.at(1), src.let(f"{r} - 1", "r"), t.elem)
            with src.block("else:"):
                self.fill_default(dst.at(1), t.elem)
        elif isinstance(t, (RecordType, TupleType)):
            rest = src.let(r, "r")
            fields = field_types(t)
            offs = [sum(width(f) for f in fields[:k]) for k in range(len(fields))]
            for ft, off in reversed(list(zip(fields, offs))):
                size = rank_size(ft)
                digit = src.let(f"{rest} % {size}", "d")
                self.unrank_into(dst.at(off), digit, ft)
                rest = src.let(f"{rest} // {size}", "r")
        elif isinstance(t, VariantType):
            self.fill_default(dst, t)
            rest = src.let(r, "r")
            for k, ((_, payload), (off, first)) in enumerate(zip(t.cases, case_offsets(t))):
                end = first + rank_size(payload)
                with src.block(f"{'if' if k == 0 else 'elif'} {rest} < {end}:"):
                    src.line(f"{slot(dst)} = {k}")
                    if payload.fields:
                        self.unrank_into(dst.at(off), src.let(f"{rest} - {first}", "r"), payload)
        elif isinstance(t, SetType):
            if capped(t):
                raise Unsupported(f"a set with a capacity ({t}) used as a set element or map key")
            if rank_size(t.elem) > 62:
                raise Unsupported(f"a set over {rank_size(t.elem)} elements used as an element")
            src.line(f"{slot(dst)} = {r}")
        elif isinstance(t, MapType):
            rest = src.let(r, "r")
            wv = width(t.value)
            for k in reversed(range(rank_size(t.key))):
                digit = src.let(f"{rest} % {rank_size(t.value)}", "d")
                self.unrank_into(dst.at(k * wv), digit, t.value)
                rest = src.let(f"{rest} // {rank_size(t.value)}", "r")
        elif isinstance(t, SeqType):
            size = rank_size(t.elem)
            offsets = [sum(size ** j for j in range(k)) for k in range(t.capacity + 2)]
            table = self.consts.array(offsets)
            n, rest, q = src.fresh("n"), src.fresh("r"), src.fresh("q")
            src.line(f"{n} = 0")
            with src.block(f"while {n} < {t.capacity} and {r} >= {table}[{n} + 1]:"):
                src.line(f"{n} += 1")
            src.line(f"{rest} = {r} - {table}[{n}]")
            src.line(f"{slot(dst)} = {n}")
            we = width(t.elem)
            with src.block(f"for {q} in range({t.capacity} - 1, -1, -1):"):
                target = dst.at(f"1 + {q} * {we}")
                with src.block(f"if {q} < {n}:"):
                    digit = src.let(f"{rest} % {size}", "d")
                    self.unrank_into(target, digit, t.elem)
                    src.line(f"{rest} = {rest} // {size}")
                with src.block("else:"):
                    self.fill_default(target, t.elem)
        else:
            raise Unsupported(f"a {type(t).__name__} used as a set element or map key")

    # ------------------------------------------------------------ iteration

    @contextmanager
    def each_element(self, coll: Region, t: Type, canonical: bool = True) -> Iterator[str]:
        """Loop over the elements of a set (or the distinct elements of a bag);
        yields the name of the rank variable.  The body may ``break``."""
        if sparse(t):
            with self.sparse_elements(coll, t) as r:
                yield r
            return
        src = self.src
        ranks = rank_size(t.elem)
        r = src.fresh("r")
        if isinstance(t, BagType):
            order = self._order(t.elem) if canonical else None
            if order is None:
                with src.block(f"for {r} in range({ranks}):"):
                    with src.block(f"if {slot(coll, r)} != 0:"):
                        yield r
            else:
                j = src.fresh("j")
                with src.block(f"for {j} in range({ranks}):"):
                    src.line(f"{r} = {order}[{j}]")
                    with src.block(f"if {slot(coll, r)} != 0:"):
                        yield r
            return
        order = self._order(t.elem) if canonical else None
        if order is not None:
            j = src.fresh("j")
            with src.block(f"for {j} in range({ranks}):"):
                src.line(f"{r} = {order}[{j}]")
                with src.block(f"if bit({coll.arr}, {coll.off}, {r}):"):
                    yield r
        elif chunks(ranks) == 1:
            b, low = src.fresh("bits"), src.fresh("low")
            src.line(f"{b} = {slot(coll)}")
            with src.block(f"while {b} != 0:"):
                src.line(f"{low} = {b} & -{b}")
                src.line(f"{r} = popcount({low} - 1)")
                src.line(f"{b} ^= {low}")
                yield r
        else:
            with src.block(f"for {r} in range({ranks}):"):
                with src.block(f"if bit({coll.arr}, {coll.off}, {r}):"):
                    yield r

    def _order(self, elem: Type) -> str | None:
        """Name of the table of ranks in canonical order, or None when rank
        order already is canonical."""
        if rank_is_canonical(elem):
            return None
        from modelcheck.ir.values import domain
        return self.consts.array([rank(elem, v) for v in _sorted_domain(elem, domain)])


    def full_mask(self, ranks: int, k: int) -> str:
        """The bits of chunk ``k`` that are ranks of a ``ranks``-element domain."""
        bits = max(0, min(64, ranks - 64 * k))
        return _int_lit((1 << bits) - 1)


def _sorted_domain(t: Type, domain_fn) -> list:
    from modelcheck.ir.values import sort_values
    return sort_values(t, domain_fn(t))


def offset_code(base: str, k: int | str) -> str:
    return add_off(base, k)
