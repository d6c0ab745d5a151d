"""The kernels of the search on several cores with one shared table
(search/claims.py), appended to each generated module after DRIVER_SOURCE,
whose helpers they share.

A chunk of a level goes through three phases:

* ``claim_expand`` (every worker, a slice of rows each): the one-core loop
  (explore_chunk) with the table shared.  A successor not in the table is
  stored with an atomic compare-and-swap, its key marked FRESH and its slot's
  tag holding the position of the row that stored it (row + 1).  A worker
  that meets a FRESH key stored by a row after its own takes the slot over
  (another compare-and-swap on the tag): so when the phase ends, the tag of
  every FRESH slot is the first row of the serial order that reaches the
  state, the row under which the one-core search finds it new.  Each store
  or take-over is a *claim*, written down with the state's row.  A table
  without tags (parents on disk, search/parents.py) keeps the positions in
  the chunk's side table instead (search/claims.py, ``Claims.side``),
  under the key: 16 bytes a state stored in the chunk, not 4 a slot;
* ``claim_fix`` (every worker, its own claims): a claim whose slot still
  holds its row is the valid one; it clears FRESH and puts the parent's tag
  in the slot.  The others were taken over;
* ``claim_settle`` (one thread): the chunk replayed in the serial order over
  the rows and their valid claims, as ``explore_chunk`` would have met them:
  counters, the next level in order, the first violation of each property,
  the state bound.

Known successors (most of them) leave nothing behind; the settling pass
reads one entry per row and one per new state.  Only searches without step
invariants or --exact take this way (parallel.py).
"""
from __future__ import annotations

from modelcheck.engines.compiled.kernel.source import template_text

__all__ = ["CLAIM_SOURCE", "CLAIM_DONE", "CLAIM_FULL", "CLAIM_BUFFER", "CLAIM_BUDGET",
           "CLAIM_FAULT", "CLAIM_TAIL"]

# the status of claim_expand
CLAIM_DONE, CLAIM_FULL, CLAIM_BUFFER, CLAIM_BUDGET, CLAIM_FAULT, CLAIM_TAIL = 0, 2, 3, 4, 5, 6

CLAIM_SOURCE = template_text("claim_driver")
