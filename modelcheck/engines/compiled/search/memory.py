"""The seen-state table of a search, as its memory allows: sized from the
last complete search of the configuration (cache/sizes.py) and grown as it
fills, or, with ``--preallocate``, sized once for the whole run from
``--max-memory`` (else the memory at hand) and never grown, since a growth
holds the old and the new arrays at once (at a billion states, 14 GB and
16 more).  A preallocated table that fills ends the search UNKNOWN
(table.TableFull), never with a verdict it has not earned."""
from __future__ import annotations

from typing import Any

import numpy as np

from modelcheck.engines.base import CheckOptions
from modelcheck.engines.compiled.cache.sizes import preallocated_capacity, start_capacity
from modelcheck.engines.compiled.kernel.table import FingerprintTable, slot_bytes
from modelcheck.engines.compiled.search.frontier import Frontier
from modelcheck.engines.compiled.search.shards import table_from_entries

__all__ = ["new_table", "refilled", "FixedTable", "TableFull"]

#: The search refilled: serial.py's CompiledSearch.  Named, not imported:
#: that module imports this one.
CompiledSearch = Any


class TableFull(MemoryError):
    """A table sized once that has no room left: the search ends UNKNOWN
    with this reason, never with a verdict it has not earned."""


class FixedTable(FingerprintTable):
    """A table sized once for the whole run (``--preallocate``): it never
    grows, since a growth holds the old and the new arrays at once.  Apart
    from kernel/table.py, whose bytes key every kernel (kcache.kernel_key):
    the kernels see the same arrays either way."""

    fixed = True

    def grow(self, max_bytes: int | None = None, homes: bool = False,
             each: Any = None, steps: int = 1) -> None:
        why = ("its load limit" if self.needs_growth() or homes
               else "the end of its spare slots")
        raise TableFull(f"the state table, sized once for {self.grow_at():,} states "
                        f"({self.nbytes():,} bytes), reached {why} at {self.count:,} states")


def new_table(options: CheckOptions, words: int, expected: int | None, least: int,
              frontier: Frontier, max_bytes: int | None,
              parents: bool = True) -> tuple[FingerprintTable, int | None]:
    """The search's table and the count it was sized for (None: the usual
    start, or preallocated).  ``expected``: the last complete search's count;
    ``least``: the home slots of a table with none; ``parents``: False for
    slots without the parent tag (search/parents.py)."""
    bits = options.fingerprint_bits
    slot = slot_bytes(words, options.exact, parents, bits)
    if options.extra.get("preallocate"):
        # the frontier's arrays in memory: the next level, the piece of the
        # current one being expanded, and the tail after the pieces on disk
        held = 3 * 8 * words * frontier.policy.spill_rows
        cap = preallocated_capacity(slot, max_bytes, held, least)
        return FixedTable(words, options.exact, capacity=cap, parents=parents, bits=bits), None
    start = start_capacity(expected, slot, max_bytes, least)
    try:
        return (FingerprintTable(words, options.exact, capacity=start, parents=parents,
                                 bits=bits),
                None if start == least else expected)
    except (MemoryError, OverflowError, ValueError):
        if start == least:
            raise
        # The hint fit the memory that was free a moment ago; no longer.
        return (FingerprintTable(words, options.exact, capacity=least, parents=parents,
                                 bits=bits), None)


def refilled(search: CompiledSearch, entries: dict) -> Any:
    """A table holding a checkpoint's entries: the preallocated one (made at
    the start and still empty: a second one would double the memory), or
    one sized for them."""
    w = search.k.layout.words
    t = search.table
    if getattr(t, "fixed", False) and search.shard_count() == 1 and t.count == 0:
        t.fill_from(np.ascontiguousarray(entries["keys"], dtype=np.int64),
                    np.ascontiguousarray(entries["tags"], dtype=np.uint32),
                    np.ascontiguousarray(entries["states"], dtype=np.int64).reshape(-1, t.side)
                    if t.side else np.zeros((1, w), dtype=np.int64))
        return t
    return table_from_entries(w, entries, search.shard_count(), parents=t.parents)
