"""Run-time errors found by a kernel, re-run under the reference evaluator.

A kernel only reports an error code and the IR node; the exact EvalError
(message, span, notes) comes from replaying the failing step with the
reference semantics, on the concrete state a rebuilt trace ends at.  If the
reference does not fail there, the kernel and the reference disagree: that is
an internal error, never a spec error.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from modelcheck.engines.compiled.kernel.driver import (PHASE_CONSTRAINT, PHASE_STATE, PHASE_STEP,
                                                PHASE_SUCCESSORS, PHASE_TERMINAL)
from modelcheck.engines.compiled.kernel.live_driver import PHASE_LIVE
from modelcheck.engines.compiled.search.rebuild import Path, step_after, trace_of
from modelcheck.evaluate.evaluator import Evaluator
from modelcheck.errors import EvalError

__all__ = ["fault_error"]

#: The search whose kernel failed: search/serial.py's CompiledSearch (or a
#: subclass).  Named, not imported: that module imports this one.
CompiledSearch = Any


def _raised(call: Callable[[], Any]) -> EvalError | None:
    try:
        call()
    except EvalError as err:
        return err
    return None


def _live_predicates(search: CompiledSearch, ev: Evaluator, state: Any) -> None:
    """Evaluate the liveness predicates (as declared) on ``state``."""
    for expr in search.k.options.live_preds:
        ev.eval(expr, state)


def fault_error(search: CompiledSearch, row: np.ndarray, level: int | None,
                initial: bool = False) -> Exception:
    """The EvalError (with its trace) for the error the kernel reported in
    ``err``; ``row`` is the state being expanded (or the initial state)."""
    k = search.k
    err = k.err
    phase, column = int(err[3]), int(err[2])
    w = k.layout.words
    ev = Evaluator(search.model)
    if initial:
        path: Path = [(None, np.asarray(row).view(np.uint64).copy())]
        pi = np.zeros(0, dtype=np.int64)
    else:
        assert level is not None
        path, pi = search._path_to(row, level, search.initial_rows())
    state = k.decode(path[-1][1])
    error: EvalError | None = None
    if phase == PHASE_SUCCESSORS:
        error = _raised(lambda: list(ev.successors(state)))
    elif phase == PHASE_TERMINAL:
        error = _raised(lambda: ev.is_terminal(state))
    elif phase == PHASE_CONSTRAINT and initial:
        error = _raised(lambda: ev.in_model(state))
    elif phase == PHASE_LIVE and initial:
        error = _raised(lambda: _live_predicates(search, ev, state))
    elif phase in (PHASE_STEP, PHASE_STATE) and initial:
        name = k.state_columns[column].name
        error = _raised(lambda: ev.check_property(name, state))
    elif phase in (PHASE_STEP, PHASE_STATE, PHASE_CONSTRAINT, PHASE_LIVE):
        # err[8:] holds the successor of the expanded representative (phase 3)
        # or the new state's representative (phases 4 and 5): find the
        # successor of the representative it stands for, then its concrete
        # counterpart.
        rep = np.asarray(row).view(np.int64)
        succ, _, _, _ = k.expand(rep)
        target = err[8:8 + w].copy()
        mine = succ.view(np.int64) if phase == PHASE_STEP else k.canonicalize(succ).view(np.int64)
        for j in range(len(succ)):
            if not np.array_equal(mine[j], target):
                continue
            step = step_after(k, path[-1][1], pi, succ[j])
            if step is None:
                continue
            post = k.decode(step[1])
            if phase == PHASE_STEP:
                name = k.step_columns[column].name
                error = _raised(lambda: ev.check_property(name, state, post))
            elif phase == PHASE_CONSTRAINT:
                error = _raised(lambda: ev.in_model(post))
            elif phase == PHASE_LIVE:
                error = _raised(lambda: _live_predicates(search, ev, post))
            else:
                name = k.state_columns[column].name
                error = _raised(lambda: ev.check_property(name, post))
            if error is not None:
                path.append(step)
                break
    if error is None:
        code = int(err[0])
        return RuntimeError(f"internal error: the compiled kernel reported MC{code} (phase "
                            f"{phase}) but the reference evaluator does not fail there")
    error.trace = trace_of(k, path, "error", None)
    return error
