"""The compiled engine's kernels seen through the ``SearchKernels`` interface.

``CompiledModel`` (modelcheck.engines.compiled.kernels) does the work: packed
states, numba successors, fingerprints, property columns.  This adapter only
fits its conventions to the partitioned search's:

* the property columns are those of the ``PropertyPlan`` (the selected
  properties), picked by name among the kernels' columns;
* with symmetry, the search stores and expands the kernels' representative
  of each state, as the compiled engine does (so both count the same
  states);
* the kernels stop a batch at the first run-time error; the adapter goes on
  past the failing row, so that every other row still gets its successors
  and values (otherwise they would look deadlocked).

It pickles as the compiled model (which recompiles from the disk cache when
unpickled) and the plan, so Spark executors rebuild it once per worker.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from modelcheck.engines.base import CheckOptions
from modelcheck.engines.spark.kernels import Checked, Expansion, PropertyPlan
from modelcheck.ir.nodes import Model

__all__ = ["CompiledKernels", "compiled_kernels"]


def compiled_kernels(model: Model, options: CheckOptions, plan: PropertyPlan) -> "CompiledKernels":
    """Compile ``model`` (or load it from the kernel cache).  Raises
    ``reps.Unsupported`` for a model the packed layout cannot hold."""
    from modelcheck.engines.compiled.kernels import compile_model
    return CompiledKernels(compile_model(model, options), plan,
                           bool(options.extra.get("spark_fused_expand", True)))


class CompiledKernels:
    def __init__(self, compiled: Any, plan: PropertyPlan, fused_expand: bool = True):
        self.compiled = compiled
        self.plan = plan
        #: Whether the tasks expand with the kernels' fused loop
        #: (``owned_expand.py``; ``extra["spark_fused_expand"]``, on by
        #: default) rather than the batch API and ``split_by_owner``.
        self.fused_expand = fused_expand
        self.model = compiled.model
        self.words = compiled.layout.words
        self.n_action_instances = compiled.instances
        self.notes: list[str] = list(compiled.notes)
        self.symmetric = bool(compiled.symmetric)
        state_names = [p.name for p in compiled.state_columns]
        step_names = [p.name for p in compiled.step_columns]
        self._state_cols = np.array([state_names.index(p.name) for p in plan.state], dtype=np.int64)
        self._step_cols = np.array([step_names.index(p.name) for p in plan.step], dtype=np.int64)

    def __reduce__(self) -> Any:
        return (CompiledKernels, (self.compiled, self.plan, self.fused_expand))

    def initial_states(self) -> np.ndarray:
        return self.compiled.initial_states()

    def expand(self, batch: np.ndarray) -> Expansion:
        succ, parent, action, failed = [], [], [], []
        start, n = 0, len(batch)
        while True:
            s, p, a, fault = self.compiled.expand(batch[start:])
            if fault is not None:
                # Keep only the rows before the failing one, whatever the kernels left.
                keep = p < fault.row
                s, p, a = s[keep], p[keep], a[keep]
            succ.append(s)
            parent.append(p + start)
            action.append(a)
            if fault is None:
                break
            failed.append(start + fault.row)
            start += fault.row + 1
            if start >= n:
                break
        return Expansion(np.concatenate(succ) if len(succ) > 1 else succ[0],
                         np.concatenate(parent) if len(parent) > 1 else parent[0],
                         np.concatenate(action) if len(action) > 1 else action[0],
                         np.array(failed, dtype=np.int64))

    def expand_owned(self, batch: np.ndarray, batch_fp: np.ndarray, start: int,
                     work: tuple[np.ndarray, ...]) -> tuple[int, int, Any]:
        """The kernels' fused expand (``owned_expand.py``), representatives
        stored under symmetry as ``expand`` and ``canonicalize`` give them."""
        return self.compiled.expand_owned(batch, batch_fp, start, work, self.symmetric)

    def canonicalize(self, batch: np.ndarray) -> np.ndarray:
        return self.compiled.canonicalize(batch) if self.symmetric else batch

    def fingerprint(self, batch: np.ndarray) -> np.ndarray:
        return self.compiled.fingerprint(batch)

    def state_props(self, batch: np.ndarray) -> Checked:
        cols = self._state_cols
        return _checked(lambda lo, hi: self.compiled.check_state_properties(batch[lo:hi])[:, cols],
                        len(batch), (len(cols),))

    def step_props(self, pre: np.ndarray, post: np.ndarray, action: np.ndarray) -> Checked:
        cols = self._step_cols
        return _checked(lambda lo, hi: self.compiled.check_steps(pre[lo:hi], post[lo:hi],
                                                                 action[lo:hi])[:, cols],
                        len(pre), (len(cols),))

    def terminal(self, batch: np.ndarray) -> Checked:
        return _checked(lambda lo, hi: self.compiled.terminal(batch[lo:hi]), len(batch), ())

    def in_model(self, batch: np.ndarray) -> Checked:
        return _checked(lambda lo, hi: self.compiled.in_model(batch[lo:hi]), len(batch), ())

    def decode(self, row: np.ndarray) -> tuple:
        return self.compiled.decode(row)

    def action_label(self, action_id: int) -> tuple[str, tuple[tuple[str, Any], ...]]:
        return self.compiled.action_label(action_id)


def _checked(run: Callable[[int, int], np.ndarray], n: int, shape: tuple[int, ...]) -> Checked:
    """Values of rows 0..n, skipping (and listing) the rows that fault: the
    kernels raise at the first one, so evaluate around it and go on."""
    from modelcheck.engines.compiled.kernels import KernelFaultError
    values = np.zeros((n,) + shape, dtype=bool)
    failed: list[int] = []
    start = 0
    while start < n:
        try:
            values[start:] = run(start, n)
            break
        except KernelFaultError as err:
            bad = start + err.fault.row
            if bad > start:
                values[start:bad] = run(start, bad)
            failed.append(bad)
            start = bad + 1
    return Checked(values, np.array(failed, dtype=np.int64))
