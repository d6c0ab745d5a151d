"""The kernels of the search on several cores (parallel.py), appended to each
generated module after DRIVER_SOURCE, whose helpers they share.

One chunk of a level goes through three phases:

* ``par_expand`` (every worker, a slice of rows each): successors, their
  canonical rows and keys, the step invariants of each step, and whether a
  state without successors is terminal;
* ``par_insert`` (every worker, a shard of the table each): the candidates
  whose key falls in the shard, in the serial order, are stored; each is
  marked new, outside the model, cut by the depth bound or known, and the
  invariants of new and outside states are evaluated;
* ``par_settle`` (one thread): the chunk replayed in the serial order over
  the marks alone, as ``explore_chunk`` would have met them: counters, the
  next level in order, the first violation of each property, the state bound.

The marks are computed ahead of the serial order, so a mark may be one the
serial search would not have made (an error in a property it had stopped
evaluating): ``par_settle`` re-evaluates every error mark with the current
wants and fills ``err`` exactly as ``explore_chunk`` does, so counts,
verdicts, traces and faults equal the one-core search's.
"""
from __future__ import annotations

from modelcheck.engines.compiled.kernel.source import template_text

__all__ = ["PAR_SOURCE", "O_EXACT", "MARK_KNOWN", "MARK_NEW", "MARK_OUTSIDE", "MARK_CUT",
           "MARK_CONSTRAINT_ERROR", "C_DISTINCT", "MAX_STEP_COLUMNS"]

# ostate[g] of a candidate after par_insert
MARK_KNOWN, MARK_NEW, MARK_OUTSIDE, MARK_CUT, MARK_CONSTRAINT_ERROR = 0, 1, 2, 3, 5
# opts[O_EXACT]: whole states are stored (--exact)
O_EXACT = 6
# ctr[C_DISTINCT]: states stored, in the serial order (the shards may hold
# more once a search stops inside a chunk)
C_DISTINCT = 3
# the failing step invariants of a step are a bit mask in one int64
MAX_STEP_COLUMNS = 62

PAR_SOURCE = template_text("par_driver")
