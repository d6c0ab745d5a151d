"""Generated code for symmetry reduction: ``canon(U, S, out)`` packs into
``out`` a representative of the state's orbit under the permutations of the
symmetric model types.

For each symmetric type in turn: every member gets a *signature*, a hash of
how the state involves it that no permutation changes (a map keyed by the
type hashes its entries as an unordered sum; a member's own id only appears
as "is it this member").  Members are sorted by signature; members with equal
signatures are tried in every order while that is at most ``TIE_LIMIT``
candidates, and the candidate whose packed words are smallest wins.  Past
the limit the sorted order (ties by index) is used as it is.

The representative is always a permutation of the state, so the reduction is
sound for symmetric specs whatever the signatures; the enumeration of ties is
what makes it canonical in the common case where tied members are
interchangeable anyway.  (Engines de-canonicalise counterexamples by
re-executing from concrete states, so traces are real behaviours.)
"""
from __future__ import annotations

from modelcheck.engines.compiled.gen_source import Region, Scalar, Source, slot
from modelcheck.engines.compiled.gen_values import ValueGen, is_scalar
from modelcheck.engines.compiled.layout import Layout
from modelcheck.engines.compiled.reps import case_offsets, field_types, rank_size, sparse, width
from modelcheck.ir.types import (BagType, MapType, ModelType, OptionType, RecordType, SeqType,
                                 SetType, TupleType, Type, VariantType)

__all__ = ["involves", "SymmetryGen", "TIE_LIMIT"]

#: The most orderings of tied members tried per symmetric type and state.
TIE_LIMIT = 720

_HIT, _MISS = 0x5BD1E995, 0x27D4EB2F


def involves(t: Type, sym: ModelType) -> bool:
    if t == sym:
        return True
    if is_scalar(t):
        return False
    if isinstance(t, (OptionType, SetType, BagType, SeqType)):
        return involves(t.elem, sym)
    if isinstance(t, MapType):
        return involves(t.key, sym) or involves(t.value, sym)
    if isinstance(t, (RecordType, TupleType)):
        return any(involves(f, sym) for f in field_types(t))
    if isinstance(t, VariantType):
        return any(involves(p, sym) for _, p in t.cases)
    return False


class SymmetryGen:
    """Generates ``perm_<k>``, the signature code and ``canon`` for a model."""

    def __init__(self, src: Source, vals: ValueGen, layout: Layout, symmetric: list[ModelType]):
        self.src = src
        self.v = vals
        self.layout = layout
        self.types = [t for t in symmetric
                      if any(involves(var.type, t) for var in layout.vars)]

    # ------------------------------------------------------------ signatures

    def _mix(self, h: str, x: str) -> str:
        return self.src.let(f"hmix({h}, {x})", "h")

    def sig(self, v, t: Type, sym: ModelType, member: str) -> str:
        """Code for the signature of value ``v`` (of ``t``) relative to ``member``."""
        src = self.src
        if t == sym:
            return src.let(f"{_HIT} if {self._atom(v)} == {member} else {_MISS}", "h")
        if not involves(t, sym):
            return self._plain(v, t)
        if isinstance(t, OptionType):
            # a none's payload is filler, not a member: it must not count
            h = src.fresh("h")
            src.line(f"{h} = 0")
            with src.block(f"if {slot(v)} != 0:"):
                inner = self.sig(self._part(v.at(1), t.elem), t.elem, sym, member)
                src.line(f"{h} = hmix(1, {inner})")
            return h
        if isinstance(t, (RecordType, TupleType)):
            h, off = "0", 0
            for ft in field_types(t):
                h = self._mix(h, self.sig(self._part(v.at(off), ft), ft, sym, member))
                off += width(ft)
            return h
        if isinstance(t, SeqType):
            h = src.fresh("h")
            q = src.fresh("q")
            src.line(f"{h} = hmix(0, {slot(v)})")
            we = width(t.elem)
            with src.block(f"for {q} in range({slot(v)}):"):
                inner = self.sig(self._part(v.at(f"1 + {q} * {we}"), t.elem), t.elem, sym, member)
                src.line(f"{h} = hmix({h}, {inner})")
            return h
        if isinstance(t, MapType):
            h, r = src.fresh("h"), src.fresh("r")
            src.line(f"{h} = 0")
            wv = width(t.value)
            with src.block(f"for {r} in range({rank_size(t.key)}):"):
                key = self.sig(self.v.unrank(r, t.key), t.key, sym, member)
                val = self.sig(self._part(v.at(f"{r} * {wv}"), t.value), t.value, sym, member)
                src.line(f"{h} += hmix(hmix(0, {key}), {val})")
            return h
        if isinstance(t, VariantType):
            # the cases not taken hold defaults, not members: only the taken one counts
            h = src.fresh("h")
            src.line(f"{h} = hmix(0, {slot(v)})")
            for k, ((_, payload), (off, _)) in enumerate(zip(t.cases, case_offsets(t))):
                if involves(payload, sym):
                    with src.block(f"if {slot(v)} == {k}:"):
                        inner = self.sig(v.at(off), payload, sym, member)
                        src.line(f"{h} = hmix({h}, {inner})")
            return h
        if isinstance(t, (SetType, BagType)):
            h = src.fresh("h")
            src.line(f"{h} = 0")
            with self.v.each_entry(v, t) as (r, count):
                elem = self.sig(self.v.unrank(r, t.elem), t.elem, sym, member)
                src.line(f"{h} += hmix(hmix(0, {elem}), {count})")
            return h
        raise TypeError(t)

    def _plain(self, v, t: Type) -> str:
        if isinstance(v, Scalar):
            return v.code
        if is_scalar(t):
            return slot(v)
        h, q = self.src.fresh("h"), self.src.fresh("q")
        self.src.line(f"{h} = 0")
        with self.src.block(f"for {q} in range({width(t)}):"):
            self.src.line(f"{h} = hmix({h}, {slot(v, q)})")
        return h

    def _atom(self, v) -> str:
        return v.code if isinstance(v, Scalar) else slot(v)

    def _part(self, region: Region, t: Type):
        return Scalar(slot(region)) if is_scalar(t) else region

    # ------------------------------------------------------------ permutations

    def perm(self, src_r: Region, t: Type, dst: Region, sym: ModelType, pi: str) -> None:
        """dst := src_r with every member of ``sym`` renamed by ``pi``."""
        src, v = self.src, self.v
        if not involves(t, sym):
            v.copy(dst, src_r, width(t))
        elif t == sym:
            src.line(f"{slot(dst)} = {pi}[{slot(src_r)}]")
        elif isinstance(t, OptionType):
            src.line(f"{slot(dst)} = {slot(src_r)}")
            with src.block(f"if {slot(src_r)} != 0:"):
                self.perm(src_r.at(1), t.elem, dst.at(1), sym, pi)
            with src.block("else:"):
                v.copy(dst.at(1), src_r.at(1), width(t.elem))
        elif isinstance(t, (RecordType, TupleType)):
            off = 0
            for ft in field_types(t):
                self.perm(src_r.at(off), ft, dst.at(off), sym, pi)
                off += width(ft)
        elif isinstance(t, VariantType):
            v.copy(dst, src_r, width(t))
            for k, ((_, payload), (off, _)) in enumerate(zip(t.cases, case_offsets(t))):
                if involves(payload, sym):
                    with src.block(f"if {slot(src_r)} == {k}:"):
                        self.perm(src_r.at(off), payload, dst.at(off), sym, pi)
        elif isinstance(t, SeqType):
            we = width(t.elem)
            q = src.fresh("q")
            src.line(f"{slot(dst)} = {slot(src_r)}")
            with src.block(f"for {q} in range({t.capacity}):"):
                a, b = src_r.at(f"1 + {q} * {we}"), dst.at(f"1 + {q} * {we}")
                with src.block(f"if {q} < {slot(src_r)}:"):
                    self.perm(a, t.elem, b, sym, pi)
                with src.block("else:"):
                    v.copy(b, a, we)
        elif isinstance(t, MapType):
            wv = width(t.value)
            r = src.fresh("r")
            with src.block(f"for {r} in range({rank_size(t.key)}):"):
                r2 = self.perm_rank(r, t.key, sym, pi)
                self.perm(src_r.at(f"{r} * {wv}"), t.value, dst.at(f"{r2} * {wv}"), sym, pi)
        elif sparse(t):
            # rename every entry, then restore the ascending order
            v.zero(dst, width(t))
            k = src.fresh("k")
            src.line(f"{slot(dst)} = {slot(src_r)}")
            with src.block(f"for {k} in range({slot(src_r)}):"):
                r = src.let(slot(src_r, f"1 + {k}"), "r")
                r2 = self.perm_rank(r, t.elem, sym, pi)
                src.line(f"{slot(dst, f'1 + {k}')} = {r2}")
            src.line(f"sp_sort({dst.arr}, {dst.off})")
        elif isinstance(t, SetType):
            v.zero(dst, width(t))
            with v.each_element(src_r, t, canonical=False) as r:
                r2 = self.perm_rank(r, t.elem, sym, pi)
                src.line(f"setbit({dst.arr}, {dst.off}, {r2})")
        elif isinstance(t, BagType):
            v.zero(dst, width(t))
            r = src.fresh("r")
            with src.block(f"for {r} in range({rank_size(t.elem)}):"):
                r2 = self.perm_rank(r, t.elem, sym, pi)
                src.line(f"{slot(dst, r2)} = {slot(src_r, r)}")
        else:
            raise TypeError(t)

    def perm_rank(self, r: str, t: Type, sym: ModelType, pi: str) -> str:
        if not involves(t, sym):
            return r
        if t == sym:
            return self.src.let(f"{pi}[{r}]", "r")
        value = self.v.unrank(r, t)
        moved = self.src.alloc(width(t))
        self.perm(value, t, moved, sym, pi)
        rk, _ = self.v.rank(moved, t, t)
        return rk

    # ------------------------------------------------------------ functions

    def functions(self) -> None:
        """``pack``, ``perm_<k>``, ``sig_<k>`` and ``canon``."""
        src, layout = self.src, self.layout
        from modelcheck.engines.compiled.gen_module import pack_expr
        src.line("@jit")
        with src.block("def pack(X, out):"):
            for w in range(layout.words):
                src.line(f"out[{w}] = {pack_expr(layout, w)}")
        src.blank()
        n = layout.slots
        for k, sym in enumerate(self.types):
            src.start_function()
            src.line("@jit")
            with src.block(f"def perm_{k}(X, pi, Y, S):"):
                for var in layout.vars:
                    base = Region("X", str(var.first))
                    self.perm(base, var.type, Region("Y", str(var.first)), sym, "pi")
            src.blank()
            src.start_function()
            src.line("@jit")
            with src.block(f"def sig_{k}(X, sig, S):"):
                with src.block(f"for i in range({len(sym.members)}):"):
                    h = "0"
                    for var in layout.vars:
                        if involves(var.type, sym):
                            base = Region("X", str(var.first))
                            part = self._part(base, var.type)
                            h = self._mix(h, self.sig(part, var.type, sym, "i"))
                    src.line(f"sig[i] = {h}")
            src.blank()
        src.start_function()
        src.line("@jit")
        with src.block("def canon(U, S, out):"):
            # Scratch for canon itself lives past what perm/sig use.
            src.line(f"X = S[NSCRATCH:NSCRATCH + {n}]")
            src.line(f"Y = S[NSCRATCH + {n}:NSCRATCH + {2 * n}]")
            src.line(f"cand = S[NSCRATCH + {2 * n}:NSCRATCH + {2 * n + layout.words}]")
            src.line(f"best = S[NSCRATCH + {2 * n + layout.words}:NSCRATCH + {2 * n + 2 * layout.words}]")
            base = 2 * n + 2 * layout.words
            src.line(f"for q in range({n}):")
            src.line("    X[q] = U[q]")
            for k, sym in enumerate(self.types):
                m = len(sym.members)
                src.line(f"sig = S[NSCRATCH + {base}:NSCRATCH + {base + m}]")
                src.line(f"order = S[NSCRATCH + {base + m}:NSCRATCH + {base + 2 * m}]")
                src.line(f"pi = S[NSCRATCH + {base + 2 * m}:NSCRATCH + {base + 3 * m}]")
                src.line(f"bestpi = S[NSCRATCH + {base + 3 * m}:NSCRATCH + {base + 4 * m}]")
                src.line(f"sig_{k}(X, sig, S)")
                src.line("sort_members(sig, order)")
                src.line(f"tries = tie_candidates(sig, order, {TIE_LIMIT})")
                src.line("first = True")
                with src.block("while True:"):
                    src.line("invert(order, pi)")
                    with src.block("if tries == 1:"):
                        src.line("copy_ints(pi, bestpi)")
                        src.line("break")
                    src.line(f"perm_{k}(X, pi, Y, S)")
                    src.line("pack(Y, cand)")
                    with src.block("if first or less(cand, best):"):
                        src.line("copy_ints(cand, best)")
                        src.line("copy_ints(pi, bestpi)")
                        src.line("first = False")
                    with src.block("if not next_tie_order(sig, order):"):
                        src.line("break")
                src.line(f"perm_{k}(X, bestpi, Y, S)")
                src.line(f"copy_slots(X, 0, Y, 0, {n})")
                src.line(f"copy_slots(S, PERM_OFF + {self.perm_offsets[k]}, bestpi, 0, {m})")
            src.line("pack(X, out)")
        src.blank()
        src.start_function()
        src.line("@jit")
        with src.block("def permute(U, S, out):"):
            src.line('"""pack(U with each symmetric type renamed by the permutation at '
                     'S[PERM_OFF:])"""')
            src.line(f"X = S[NSCRATCH:NSCRATCH + {n}]")
            src.line(f"Y = S[NSCRATCH + {n}:NSCRATCH + {2 * n}]")
            src.line(f"copy_slots(X, 0, U, 0, {n})")
            for k, sym in enumerate(self.types):
                m = len(sym.members)
                off = self.perm_offsets[k]
                src.line(f"perm_{k}(X, S[PERM_OFF + {off}:PERM_OFF + {off + m}], Y, S)")
                src.line(f"copy_slots(X, 0, Y, 0, {n})")
            src.line("pack(X, out)")
        src.blank()

    @property
    def perm_offsets(self) -> list[int]:
        """Where each type's chosen permutation sits from ``PERM_OFF``."""
        out, total = [], 0
        for t in self.types:
            out.append(total)
            total += len(t.members)
        return out

    @property
    def perm_slots(self) -> int:
        return sum(len(t.members) for t in self.types)

    def canon_scratch(self) -> int:
        """Slots of S past NSCRATCH that canon uses before the permutations."""
        n, w = self.layout.slots, self.layout.words
        most = max((len(t.members) for t in self.types), default=0)
        return 2 * n + 2 * w + 4 * most

    def scratch_needed(self) -> int:
        return self.canon_scratch() + self.perm_slots
