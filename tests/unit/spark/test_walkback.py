"""Traces from fingerprints: walking parents back, re-executing forward."""
from __future__ import annotations

import pytest

from modelcheck.engines.spark.kernels import keys, plan_properties
from modelcheck.engines.spark.walkback import (WalkBackError, replay_forward, successor_with,
                                               to_trace, walk_back)
from modelcheck.evaluate.evaluator import Evaluator
from evaluator_kernels import EvaluatorKernels
from spark_specs import load_example


def test_walk_back_many_targets_one_lookup_per_step():
    parents = {1: 1, 2: 1, 3: 2, 4: 3, 9: 9, 8: 9}
    calls = []

    def lookup(fps):
        calls.append(fps)
        return {f: parents[f] for f in fps}

    paths = walk_back(lookup, [4, 8, 1], max_steps=5)
    assert paths == {4: [1, 2, 3, 4], 8: [9, 8], 1: [1]}
    assert len(calls) == 4                   # the longest path has three steps, plus its root


def test_walk_back_reports_missing_and_loops():
    with pytest.raises(WalkBackError, match="not in the seen set"):
        walk_back(lambda fps: {}, [5], max_steps=3)
    with pytest.raises(WalkBackError, match="loops"):
        walk_back(lambda fps: {f: 7 if f == 6 else 6 for f in fps}, [6], max_steps=3)


def _die_hard_kernels():
    model = load_example("die_hard")
    return model, EvaluatorKernels(model, plan_properties(list(model.properties)))


def test_replay_forward_recovers_states_and_actions():
    model, kernels = _die_hard_kernels()
    init = kernels.initial_states()
    fill = successor_with(kernels, init[0], int(keys(kernels, kernels.pack((0, 5))[None])[1][0]))
    assert kernels.action_label(fill[0])[0] == "FillBig"
    target = kernels.pack((3, 2))
    path = [int(keys(kernels, r[None])[1][0]) for r in
            (init[0], kernels.pack((0, 5)), target)]
    steps = replay_forward(kernels, path)
    trace = to_trace(kernels, Evaluator(model), steps, "counterexample", "NotFour")
    assert [s.label() for s in trace.steps] == ["Init", "FillBig", "BigToSmall"]
    assert trace.steps[-1].state == {"small": 3, "big": 2}


def test_replay_forward_rejects_a_path_that_is_not_one():
    _, kernels = _die_hard_kernels()
    init_fp = int(keys(kernels, kernels.initial_states())[1][0])
    far = int(keys(kernels, kernels.pack((3, 4))[None])[1][0])
    with pytest.raises(WalkBackError, match="no successor"):
        replay_forward(kernels, [init_fp, far])
    with pytest.raises(WalkBackError, match="no initial state"):
        replay_forward(kernels, [far])
