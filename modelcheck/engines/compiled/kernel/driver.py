"""The model-independent part of every kernel module: batch entry points and
the breadth-first search over one chunk of a level.

It is source text, appended to each generated module after the
model-specific functions it calls (``unpack``, ``unpack_row``, ``successors``,
``state_props``, ``step_props``, ``is_terminal``, ``canon``), so that numba
compiles and caches it with them: a jitted function cannot take another as an
argument and still be cached.

Statuses returned by ``explore_chunk`` and ``admit``, with the row reached
(every row before it is fully done, its successors counted once):
"""
from __future__ import annotations

from modelcheck.engines.compiled.kernel.source import template_text

__all__ = ["DRIVER_SOURCE", "DONE", "GROW_TABLE", "GROW_NEXT", "GROW_SUCC", "FAULT", "STOPPED",
           "AT_BOUND", "PHASE_SUCCESSORS", "PHASE_TERMINAL", "PHASE_STEP", "PHASE_STATE",
           "PHASE_CONSTRAINT", "FOUND_STORED", "FOUND_OUTSIDE", "FOUND_OUTSIDE_INITIAL",
           "C_GENERATED", "C_NEXT", "C_CUT", "O_DEADLOCK", "O_STORE", "O_SYMMETRY", "O_STOP_FIRST",
           "O_MAX_STATES", "O_GROW_AT", "O_LEVELS", "O_WIDE", "O_FOUND", "O_ROWS", "O_CROSSED",
           "O_FRONT", "OPTS_SIZE"]

DONE, GROW_TABLE, GROW_NEXT, GROW_SUCC, FAULT, STOPPED, AT_BOUND = 0, 1, 2, 3, 4, 5, 6
# err[3]: where a run-time error happened
PHASE_SUCCESSORS, PHASE_TERMINAL, PHASE_STEP, PHASE_STATE, PHASE_CONSTRAINT = 1, 2, 3, 4, 5
# found[q] of a state property: where the state that settled it is
FOUND_STORED, FOUND_OUTSIDE, FOUND_OUTSIDE_INITIAL = 1, 2, 3
# ctr[]: counters kept across calls
C_GENERATED, C_NEXT, C_CUT = 0, 1, 2
# opts[]: settings of one call
O_DEADLOCK, O_STORE, O_SYMMETRY, O_STOP_FIRST, O_MAX_STATES, O_GROW_AT = 0, 1, 2, 3, 4, 5
# opts[] of explore_chunk across levels (6 and 7 are par_driver's): the
# levels it may cross (0: none, the classic call), the rows of a level it
# stops before (0: any), the finds when the level began, the rows it may
# expand in the call; then what it returns: the levels crossed and the rows
# of the level it ended in
O_LEVELS, O_WIDE, O_FOUND, O_ROWS, O_CROSSED, O_FRONT = 8, 9, 10, 11, 12, 13
OPTS_SIZE = 16

DRIVER_SOURCE = template_text("driver")
