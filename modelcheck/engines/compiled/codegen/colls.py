"""Generated code for the elements of sets and bags, dense or sparse.

A dense set is a bitset over element ranks and a dense bag a count per rank;
a sparse one (``reps.sparse``) is its entries' ranks in ascending order after
a count slot.  Everything that touches elements goes through these methods,
so the operations (``in``, union, ``put``, loops, conversions, symmetry) are
written once for both forms.  A write that would pass a sparse collection's
capacity runs ``overflow``: the value does not fit its type (MC5001).
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Callable, Iterator

from modelcheck.engines.compiled.codegen.source import Region, Source, slot
from modelcheck.engines.compiled.reps import chunks, rank_size, sparse
from modelcheck.ir.types import BagType, SetType, Type

__all__ = ["Elements"]

Fail = Callable[[str], None]


class Elements:
    """Element-level operations; mixed into ``ValueGen`` (which provides
    ``src``, ``each_element`` and ``overflow``)."""

    src: Source

    # ------------------------------------------------------------ queries

    def contains(self, coll: Region, t: Type, r: str) -> str:
        """Code for: rank ``r`` is an element of ``coll``."""
        if sparse(t):
            return f"sp_count({coll.arr}, {coll.off}, {r}) > 0"
        if isinstance(t, SetType):
            return f"bit({coll.arr}, {coll.off}, {r})"
        return f"{slot(coll, r)} != 0"

    def count_of(self, coll: Region, t: BagType, r: str) -> str:
        """Code for the number of copies of rank ``r`` in a bag."""
        if sparse(t):
            return f"sp_count({coll.arr}, {coll.off}, {r})"
        return slot(coll, r)

    def size(self, coll: Region, t: Type) -> str:
        """The number of elements of a set, or of copies in a bag."""
        if sparse(t):
            return self.src.let(slot(coll), "n")
        if isinstance(t, SetType):
            n = chunks(rank_size(t.elem))
            return self.src.let(" + ".join(f"popcount({slot(coll, k)})" for k in range(n)), "n")
        n = rank_size(t.elem)
        if n <= 4:
            return self.src.let(" + ".join(slot(coll, k) for k in range(n)) or "0", "n")
        total, q = self.src.fresh("n"), self.src.fresh("q")
        self.src.line(f"{total} = 0")
        with self.src.block(f"for {q} in range({n}):"):
            self.src.line(f"{total} += {slot(coll, q)}")
        return total

    # ------------------------------------------------------------ updates

    def add_rank(self, dst: Region, t: Type, r: str, copies: str = "1",
                 fail: Fail | None = None) -> None:
        """Add ``copies`` copies of rank ``r`` (a set: the element)."""
        src = self.src
        if sparse(t):
            multi = 1 if isinstance(t, BagType) else 0
            call = f"sp_add({dst.arr}, {dst.off}, {t.capacity}, {r}, {multi})"
            if copies == "1":
                with src.block(f"if {call}:"):
                    self._overflow(fail)
            else:
                q = src.fresh("q")
                with src.block(f"for {q} in range({copies}):"):
                    with src.block(f"if {call}:"):
                        self._overflow(fail)
        elif isinstance(t, SetType):
            src.line(f"setbit({dst.arr}, {dst.off}, {r})")
        else:
            src.line(f"{slot(dst, r)} += {copies}")

    def remove_rank(self, dst: Region, t: Type, r: str) -> str | None:
        """Remove rank ``r`` (a bag: one copy).  For a bag, returns the code of
        a flag that is False when there was no copy to remove."""
        src = self.src
        if sparse(t):
            if isinstance(t, BagType):
                return src.let(f"sp_remove({dst.arr}, {dst.off}, {r})", "ok")
            src.line(f"sp_remove({dst.arr}, {dst.off}, {r})")
            return None
        if isinstance(t, SetType):
            src.line(f"clearbit({dst.arr}, {dst.off}, {r})")
            return None
        ok = src.let(f"{slot(dst, r)} != 0", "ok")
        with src.block(f"if {ok}:"):
            src.line(f"{slot(dst, r)} -= 1")
        return ok

    def _overflow(self, fail: Fail | None) -> None:
        if fail is not None:
            fail("MC5001")
        else:
            self.overflow()

    def overflow(self) -> None:                      # pragma: no cover - overridden
        raise NotImplementedError

    # ------------------------------------------------------------ iteration

    @contextmanager
    def each_entry(self, coll: Region, t: Type) -> Iterator[tuple[str, str]]:
        """Loop over the distinct elements: yields (rank, copies) names (a
        set's copies are 1).  Order: ascending rank."""
        src = self.src
        if not sparse(t):
            with self.each_element(coll, t, canonical=False) as r:
                yield r, (slot(coll, r) if isinstance(t, BagType) else "1")
            return
        k, r = src.fresh("k"), src.fresh("r")
        with src.block(f"for {k} in range({slot(coll)}):"):
            src.line(f"{r} = {slot(coll, f'1 + {k}')}")
            if isinstance(t, SetType):
                yield r, "1"
            else:
                c = src.fresh("c")
                with src.block(f"if {k} == 0 or {r} != {slot(coll, k)}:"):
                    src.line(f"{c} = sp_count({coll.arr}, {coll.off}, {r})")
                    yield r, c

    @contextmanager
    def sparse_elements(self, coll: Region, t: Type) -> Iterator[str]:
        """``each_element`` for a sparse collection: its distinct elements in
        ascending rank.  That is the canonical order wherever a dense loop
        would need no table either; where it is not (elements holding sets),
        a table over the whole element type is exactly what a sparse layout
        avoids, and no result depends on the order: a loop's value does not,
        and successors are the same set whatever order makes them."""
        src = self.src
        k, r = src.fresh("k"), src.fresh("r")
        with src.block(f"for {k} in range({slot(coll)}):"):
            src.line(f"{r} = {slot(coll, f'1 + {k}')}")
            if isinstance(t, SetType):
                yield r
            else:
                with src.block(f"if {k} == 0 or {r} != {slot(coll, k)}:"):
                    yield r

    def each_element(self, coll: Region, t: Type, canonical: bool = True):  # pragma: no cover
        raise NotImplementedError

