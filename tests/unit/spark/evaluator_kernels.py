"""Test-only SearchKernels over the reference evaluator.

Packs a state as one word per state variable, the index of its value in
``domain(var.type)``, and expands with the reference evaluator: slow, but
independent of the compiled engine, so the partitioned search can be tested
on its own against the reference explorer.  Picklable (Spark executors
rebuild the tables from the model).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from modelcheck.evaluate.evaluator import Evaluator
from modelcheck.engines.spark.kernels import Checked, Expansion, PropertyPlan
from modelcheck.errors import EvalError
from modelcheck.ir.nodes import Model
from modelcheck.ir.values import domain

__all__ = ["EvaluatorKernels", "mix64", "evaluator_factory"]


def mix64(words: np.ndarray) -> np.ndarray:
    """A splitmix64-style hash of every row of ``words``."""
    h = np.full(len(words), 0x9E3779B97F4A7C15, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for k in range(words.shape[1]):
            z = h ^ (words[:, k] + np.uint64(0x632BE59BD9B4E019) * np.uint64(k + 1))
            z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
            z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
            h = z ^ (z >> np.uint64(31))
    return h


class EvaluatorKernels:
    def __init__(self, model: Model, plan: PropertyPlan):
        self.model = model
        self.plan = plan
        self._build()

    def __getstate__(self) -> dict:
        return {"model": self.model, "plan": self.plan}

    def __setstate__(self, state: dict) -> None:
        self.model = state["model"]
        self.plan = state["plan"]
        self._build()

    def _build(self) -> None:
        self.ev = Evaluator(self.model)
        self.words = len(self.model.vars)
        self.domains = [domain(v.type) for v in self.model.vars]
        self.index = [{value: i for i, value in enumerate(d)} for d in self.domains]
        self.instances = [(a.name, params) for a in self.model.actions
                          for params in self.ev.action_bindings(a.name)]
        self.instance_id = {inst: i for i, inst in enumerate(self.instances)}
        self.n_action_instances = len(self.instances)

    def pack(self, state: tuple) -> np.ndarray:
        return np.array([self.index[i][v] for i, v in enumerate(state)], dtype=np.uint64)

    def decode(self, row: np.ndarray) -> tuple:
        return tuple(self.domains[i][int(w)] for i, w in enumerate(row))

    def _pack_all(self, states: list) -> np.ndarray:
        if not states:
            return np.empty((0, self.words), np.uint64)
        return np.stack([self.pack(s) for s in states])

    def initial_states(self) -> np.ndarray:
        return self._pack_all(self.ev.initial_states())

    def expand(self, batch: np.ndarray) -> Expansion:
        succ, parent, action, failed = [], [], [], []
        for i, row in enumerate(batch):
            state = self.decode(row)
            try:
                outs = [(self.instance_id[(t.action, t.params)], t.state)
                        for t in self.ev.successors(state)]
            except EvalError:
                failed.append(i)
                continue
            for aid, new in outs:
                succ.append(new)
                parent.append(i)
                action.append(aid)
        return Expansion(self._pack_all(succ), np.array(parent, dtype=np.int64),
                         np.array(action, dtype=np.int32), np.array(failed, dtype=np.int64))

    def canonicalize(self, batch: np.ndarray) -> np.ndarray:
        return batch

    def fingerprint(self, batch: np.ndarray) -> np.ndarray:
        return mix64(np.asarray(batch, dtype=np.uint64))

    def _checked(self, n: int, columns: int | None, value) -> Checked:
        out = np.zeros((n, columns) if columns is not None else n, dtype=bool)
        failed = []
        for i in range(n):
            try:
                out[i] = value(i)
            except EvalError:
                failed.append(i)
        return Checked(out, np.array(failed, dtype=np.int64))

    def state_props(self, batch: np.ndarray) -> Checked:
        return self._checked(len(batch), len(self.plan.state), lambda i: [
            self.ev.check_property(p.name, self.decode(batch[i])) for p in self.plan.state])

    def step_props(self, pre: np.ndarray, post: np.ndarray, action: np.ndarray) -> Checked:
        return self._checked(len(pre), len(self.plan.step), lambda i: [
            self.ev.check_property(p.name, self.decode(pre[i]), self.decode(post[i]))
            for p in self.plan.step])

    def terminal(self, batch: np.ndarray) -> Checked:
        return self._checked(len(batch), None,
                             lambda i: self.ev.is_terminal(self.decode(batch[i])))

    def action_label(self, action_id: int) -> tuple[str, Any]:
        return self.instances[action_id]


def evaluator_factory(model: Model, options: Any, plan: PropertyPlan) -> EvaluatorKernels:
    return EvaluatorKernels(model, plan)
