"""A search's statistics (``Stats``), from the search's own figures: the
counts and per-action steps, and what its table, frontier and parents took
(docs/engines/compiled.md, "Bytes per state")."""
from __future__ import annotations

from typing import Any

from modelcheck.engines.base import Stats
from modelcheck.engines.compiled.kernel.widths import collision_probability
from modelcheck.engines.compiled.search.parents import figures

__all__ = ["search_stats"]

#: The search: serial.py's CompiledSearch (or a subclass).  Named, not
#: imported: that module imports this one.
CompiledSearch = Any


def search_stats(search: CompiledSearch) -> Stats:
    """The statistics of a search that ended: counts, per-action steps, and
    the figures of its memory (table, frontier, parents) and fingerprints."""
    elapsed = search.elapsed()
    counts = {a.name: int(search.act_counts[i]) for i, a in enumerate(search.k.actions)}
    extras: dict[str, Any] = {
        "search_s": round(elapsed, 3),
        "compile_s": round(search.k.codegen_s + search.k.compile_s, 3),
        "kernel_backend": search.k.backend,
        "words_per_state": search.k.layout.words,
        "table_bytes": search.table.nbytes(),
        "bytes_per_state": round(search.table.bytes_per_state(), 2),
        "table_load": round(search.distinct / max(1, search.table.capacity), 3),
        # the states an earlier search's count sized the table for
        "table_sized_for": search.sized_for,
        "exact": search.table.exact,
        # the width states are told apart by (None: whole states, --exact)
        "fingerprint_bits": None if search.table.exact else search.table.bits,
        "symmetry": [t.name for t in search.k.symmetric],
        "symmetry_inexact": search.k.inexact_states - search.inexact_before,
    }
    if elapsed > 0:
        extras["states_per_s"] = round(search.distinct / elapsed)
    extras["table_preallocated"] = search.preallocate
    extras.update(figures(search.parents))
    extras.update(search.frontier.figures())
    if not search.table.exact:
        n, bits = search.distinct, search.table.bits
        extras["fp_collision_probability"] = collision_probability(n, bits)
        extras["fp_collision_probability_tlc"] = n * max(0, search.generated - n) / 2.0 ** bits
    return Stats(distinct_states=search.distinct, generated_states=search.generated,
                 depth=search.depth, elapsed_s=elapsed, action_counts=counts,
                 never_enabled=tuple(a for a, c in counts.items() if c == 0), extras=extras)
