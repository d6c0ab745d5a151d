"""What the partitioned search needs from a model: batch kernels over packed states.

The Spark engine never looks inside a state.  It moves packed states
(``uint64`` rows of ``words`` words) between partitions and asks a
``SearchKernels`` object to expand them, fingerprint them and evaluate the
properties on whole batches.  The shipped implementation wraps the compiled
engine's kernels (``modelcheck.engines.spark.compiled_adapter``); tests may
plug in anything with the same shape.

Property columns are fixed by a ``PropertyPlan`` built once on the driver:
``state_props`` evaluates the selected invariants and ``sometimes`` properties
(in that plan's order), ``step_props`` the selected step invariants.  A column
holds the truth value of the property's expression, not "violated".
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from modelcheck.ir.nodes import Property, PropertyKind

__all__ = ["Expansion", "Checked", "PropertyPlan", "SearchKernels", "plan_properties", "keys"]


@dataclass(frozen=True)
class Expansion:
    """The successors of a batch of ``n`` states.

    ``succ[i]`` is a successor of ``batch[parent[i]]`` reached by the action
    instance ``action[i]``; rows of one parent are consecutive and in the
    canonical successor order.  ``failed`` lists the rows of the batch whose
    expansion hit a run-time error (MC5xxx); their successors are not in
    ``succ``.
    """
    succ: np.ndarray      # (m, words) uint64
    parent: np.ndarray    # (m,) int64, row in the batch
    action: np.ndarray    # (m,) int32, action instance id
    failed: np.ndarray    # (k,) int64, rows of the batch


@dataclass(frozen=True)
class Checked:
    """Property values of a batch; ``failed`` lists the rows whose evaluation
    hit a run-time error (their values are meaningless)."""
    values: np.ndarray    # (n, columns) or (n,) bool
    failed: np.ndarray    # (k,) int64


@dataclass(frozen=True)
class PropertyPlan:
    """Which property each kernel column is, for the properties selected by
    the options (``select_properties``), in declaration order."""
    state: tuple[Property, ...]      # invariants and sometimes, columns of state_props
    step: tuple[Property, ...]       # step invariants, columns of step_props
    constrained: bool = False        # the model has state constraints (kernels.in_model)

    def state_index(self, name: str) -> int:
        return [p.name for p in self.state].index(name)

    def step_index(self, name: str) -> int:
        return [p.name for p in self.step].index(name)

    @property
    def state_hit_wanted(self) -> np.ndarray:
        """Per state column, the value that settles it: False for an invariant
        (violated), True for ``sometimes`` (witnessed)."""
        return np.array([p.kind is PropertyKind.SOMETIMES for p in self.state], dtype=bool)


def plan_properties(selected: list[Property], constrained: bool = False) -> PropertyPlan:
    state = tuple(p for p in selected
                  if p.kind in (PropertyKind.INVARIANT, PropertyKind.SOMETIMES))
    step = tuple(p for p in selected if p.kind is PropertyKind.STEP)
    return PropertyPlan(state, step, constrained)


class SearchKernels(Protocol):
    """Batch operations on packed states.  Implementations must be picklable:
    Spark ships them to executors (once per worker process, by broadcast)."""

    words: int
    n_action_instances: int

    def initial_states(self) -> np.ndarray:
        """(n, words) uint64; raises EvalError if an initial value is out of type."""
        ...

    def expand(self, batch: np.ndarray) -> Expansion: ...

    def canonicalize(self, batch: np.ndarray) -> np.ndarray:
        """Each row's representative under symmetry (the rows themselves
        without): the search stores and expands representatives only."""
        ...

    def fingerprint(self, batch: np.ndarray) -> np.ndarray:
        """(n,) uint64 hashes of the rows as they are."""
        ...

    def state_props(self, batch: np.ndarray) -> Checked:
        """values (n, len(plan.state)) bool."""
        ...

    def step_props(self, pre: np.ndarray, post: np.ndarray, action: np.ndarray) -> Checked:
        """values (m, len(plan.step)) bool for the steps pre[i] -> post[i]."""
        ...

    def terminal(self, batch: np.ndarray) -> Checked:
        """values (n,) bool: the state satisfies some ``terminal`` declaration."""
        ...

    def in_model(self, batch: np.ndarray) -> Checked:
        """values (n,) bool: the state satisfies every state constraint
        (asked only when the plan is ``constrained``)."""
        ...

    def decode(self, row: np.ndarray) -> tuple:
        """One packed state -> the reference evaluator's state tuple."""
        ...

    def action_label(self, action_id: int) -> tuple[str, tuple[tuple[str, Any], ...]]:
        """(action name, parameters) of an action instance."""
        ...


def keys(kernels: SearchKernels, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The representatives of ``rows`` and their fingerprints: what the seen
    set stores.  Representatives are a function of the state, so the set of
    states reached does not depend on the order the search finds them in."""
    if len(rows) == 0:
        return rows, np.empty(0, np.uint64)
    canon = np.ascontiguousarray(kernels.canonicalize(rows), dtype=np.uint64)
    return canon, kernels.fingerprint(canon)
