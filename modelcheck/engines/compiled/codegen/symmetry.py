"""Generated code for symmetry reduction: ``canon(U, S, out)`` packs into
``out`` the canonical representative of the state's orbit under the
permutations of the symmetric model types (all of them together).

Every member of every symmetric type gets a *signature*, a hash of how the
state involves it that no permutation of any symmetric type changes: a map
keyed by the type hashes its entries as an unordered sum, a member's own id
only appears as "is it this member", and members of the other symmetric
types appear as one constant.  Members are sorted by signature; the
orderings of tied members are tried in every combination over the types,
and the candidate whose packed words are smallest wins.  Because the
signatures are invariant, the candidates of two states of one orbit are the
same set, so the winner is a function of the orbit: one state per orbit, the
count TLC's SYMMETRY gives.  A state whose tied orderings number more than
``TIE_LIMIT`` (the product over the types) takes the sorted order as it is
and is counted (``S[INEXACT_OFF]``): the reduction stays sound (the
representative is a permutation of the state) but may keep more than one
state of that orbit, and the search says so.  (Engines de-canonicalise
counterexamples by re-executing from concrete states, so traces are real
behaviours.)
"""
from __future__ import annotations

from modelcheck.engines.compiled.codegen.action import pack_expr
from modelcheck.engines.compiled.codegen.source import Region, Scalar, Source, slot
from modelcheck.engines.compiled.codegen.values import ValueGen, is_scalar
from modelcheck.engines.compiled.codegen.layout import Layout
from modelcheck.engines.compiled.reps import case_offsets, field_types, rank_size, sparse, width
from modelcheck.engines.symmetry import involves
from modelcheck.ir.types import (BagType, MapType, ModelType, OptionType, RecordType, SeqType,
                                 SetType, TupleType, Type, VariantType)

__all__ = ["involves", "SymmetryGen", "TIE_LIMIT"]

#: The most orderings of tied members tried for a state (8!: all orderings
#: of eight interchangeable members, as TLC would try for every state).
TIE_LIMIT = 40_320
#: Stands for a member of another symmetric type in a signature.
_OTHER = 0x3C6EF372

_HIT, _MISS = 0x5BD1E995, 0x27D4EB2F


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
        if t in self.types:
            return str(_OTHER)
        if not any(involves(t, other) for other in self.types):
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
        self._canon()
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

    def _canon(self) -> None:
        src, n, w = self.src, self.layout.slots, self.layout.words
        src.start_function()
        src.line("@jit")
        with src.block("def canon(U, S, out):"):
            # Scratch for canon itself lives past what perm/sig use.
            for name, at, size in (("X", 0, n), ("Y", n, n), ("Z", 2 * n, n),
                                   ("cand", 3 * n, w), ("best", 3 * n + w, w)):
                src.line(f"{name} = S[NSCRATCH + {at}:NSCRATCH + {at + size}]")
            src.line(f"copy_slots(X, 0, U, 0, {n})")
            at = 3 * n + 2 * w
            for k, sym in enumerate(self.types):
                m = len(sym.members)
                for name in ("sg", "od", "pi", "bp"):
                    src.line(f"{name}{k} = S[NSCRATCH + {at}:NSCRATCH + {at + m}]")
                    at += m
                # signatures of the state as it is: they do not change under renaming
                src.line(f"sig_{k}(X, sg{k}, S)")
                src.line(f"sort_members(sg{k}, od{k})")
            src.line("tries = 1")
            for k in range(len(self.types)):
                src.line(f"tries = min(tries * tie_count(sg{k}, od{k}, {TIE_LIMIT}), "
                         f"{TIE_LIMIT + 1})")
            with src.block(f"if tries > {TIE_LIMIT}:"):
                src.line("S[INEXACT_OFF] += 1")
                src.line("tries = 1")
            with src.block("if tries == 1:"):
                for k in range(len(self.types)):
                    src.line(f"invert(od{k}, bp{k})")
            with src.block("else:"):
                src.line("first = True")
                with src.block("while True:"):
                    for k in range(len(self.types)):
                        src.line(f"invert(od{k}, pi{k})")
                    self._apply("pi")
                    with src.block("if first or less(cand, best):"):
                        src.line("copy_ints(cand, best)")
                        for k in range(len(self.types)):
                            src.line(f"copy_ints(pi{k}, bp{k})")
                        src.line("first = False")
                    # an odometer over the types' tie orderings
                    cond = "if"
                    for k in reversed(range(len(self.types))):
                        with src.block(f"{cond} next_tie_order(sg{k}, od{k}):"):
                            src.line("pass")
                        cond = "elif"
                    with src.block("else:"):
                        src.line("break")
            self._apply("bp")
            for k, sym in enumerate(self.types):
                src.line(f"copy_slots(S, PERM_OFF + {self.perm_offsets[k]}, bp{k}, 0, "
                         f"{len(sym.members)})")
            src.line("copy_ints(cand, out)")
        src.blank()

    def _apply(self, pis: str) -> None:
        """cand := pack(X with type k renamed by ``<pis><k>``, for every k)."""
        cur = "X"
        for k in range(len(self.types)):
            dst = "Y" if cur != "Y" else "Z"
            self.src.line(f"perm_{k}({cur}, {pis}{k}, {dst}, S)")
            cur = dst
        self.src.line(f"pack({cur}, cand)")

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
        return 3 * n + 2 * w + 4 * self.perm_slots

    def scratch_needed(self) -> int:
        """canon's scratch, the permutation it chose, and the count of
        states past ``TIE_LIMIT`` (``INEXACT_OFF``)."""
        return self.canon_scratch() + self.perm_slots + 1
