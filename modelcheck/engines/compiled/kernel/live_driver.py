"""The search loop of a liveness run: the safety search of ``driver.py`` that
also records the state graph (docs/design.md, "Liveness").

It is source text appended to a kernel module whose model has temporal
properties (after ``live_props``, which evaluates the liveness predicates).
A liveness run turns symmetry off, and the table's 32-bit tag of each entry
holds the state's *id* (its position in breadth-first order) instead of its
parent's tag: the successor's id is what the graph needs, and traces are
rebuilt by a search of the graph instead of the tags.  Per expanded state
the kernel writes:

* ``deg[id]``: how many successors it has; they follow those of the state
  before it in ``dst`` (rows are expanded in id order, so the offsets of a
  CSR graph are the running sums); every target differs from the state, and
  each appears once;
* ``emask[e]``: the fairness conditions the steps of edge ``e`` take (a bit
  per condition, ``amask`` per action instance);
* ``ena[id]``: the conditions enabled in the state, from every step to a
  different state, including targets outside the constraints;
* ``lp[id]``: the liveness predicates' values (bits), for each new state.

Statuses are those of ``driver.py`` and two more: the edge arrays or the
per-state arrays are full.
"""
from __future__ import annotations

from modelcheck.engines.compiled.kernel.source import template_text

__all__ = ["LIVE_DRIVER_SOURCE", "GROW_EDGES", "GROW_STATES", "PHASE_LIVE"]

GROW_EDGES, GROW_STATES = 7, 8
# err[3]: a run-time error in a liveness predicate (after driver.py's phases)
PHASE_LIVE = 6

LIVE_DRIVER_SOURCE = template_text("live_driver")
