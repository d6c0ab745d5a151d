"""The kernels' fused expand (owned_expand.py, the template's ``expand_owned``):
its blocks are the batch API's (``split_by_owner``) less the successors equal to
their own pre-state, and the Spark data flow on the compiled kernels (ManyParts,
every level past the threshold, flushes of a few rows) counts and finds what
the reference explorer does."""
from __future__ import annotations

import numpy as np
import pytest

from many_parts import ManyParts
from modelcheck import api
from modelcheck.engines.base import CheckOptions
from modelcheck.engines.spark import tasks
from modelcheck.engines.spark.compiled_adapter import compiled_kernels
from modelcheck.engines.spark.engine import SparkEngine
from modelcheck.engines.spark.kernels import plan_properties
from modelcheck.engines.spark.owned_expand import expand_owned_part, owned_expand
from modelcheck.engines.spark.owner_split import Scratch, split_by_owner
from modelcheck.engines.spark.partition import LevelReport
from modelcheck.engines.reference.explorer import select_properties
from spark_helpers import summary
from spark_specs import load_example, load_spec

U64 = np.uint64


def _kernels(model, symmetry: bool):
    options = CheckOptions(symmetry=symmetry)
    plan = plan_properties(select_properties(model, options), constrained=bool(model.constraints))
    return compiled_kernels(model, options, plan), plan


def _level(kernels, depth: int) -> tuple[np.ndarray, np.ndarray]:
    """A frontier ``depth`` levels in, sorted by fingerprint (as a merge leaves it)."""
    states = kernels.canonicalize(kernels.initial_states())
    seen = set()
    for _ in range(depth):
        exp = kernels.expand(states)
        succ = kernels.canonicalize(exp.succ)
        fp = kernels.fingerprint(succ)
        keep = {}
        for i, f in enumerate(fp.tolist()):
            if f not in seen and f not in keep:
                keep[f] = i
        seen |= set(keep)
        states = succ[list(keep.values())]
    fp = kernels.fingerprint(states)
    order = np.argsort(fp)
    return fp[order], np.ascontiguousarray(states[order])


def _batch_api_blocks(kernels, fp, states, partitions):
    exp = kernels.expand(states)
    succ = kernels.canonicalize(exp.succ)
    return split_by_owner([(kernels.fingerprint(succ), fp[exp.parent], succ)], partitions,
                          states.shape[1], Scratch())


def _rows(blocks, drop: set[int]) -> list[tuple[int, ...]]:
    return [(owner,) + tuple(row.tolist()) for owner, block in blocks for row in block
            if int(row[0]) not in drop]


@pytest.mark.parametrize("symmetry", [False, True])
@pytest.mark.parametrize("partitions", [1, 3])
def test_blocks_are_the_batch_apis_without_self_loops(symmetry, partitions):
    kernels, plan = _kernels(load_example("two_phase", N="4"), symmetry)
    assert owned_expand(kernels, plan)
    fp, states = _level(kernels, 5)
    report = LevelReport()
    flushes = list(expand_owned_part(kernels, fp, states, True, report, partitions))
    assert len(flushes) == 1
    # Successors that are frontier states are the only difference: a
    # self-loop is left out, and such a state's smallest parent may differ.
    drop = set(fp.tolist())
    assert _rows(flushes[0], drop) == _rows(_batch_api_blocks(kernels, fp, states, partitions),
                                            drop)
    exp = kernels.expand(states)
    assert report.generated == len(exp.succ)
    assert report.expanded == len(states)
    assert report.action_counts.tolist() == np.bincount(
        exp.action, minlength=kernels.n_action_instances).tolist()


def test_small_flushes_and_growth_keep_every_candidate():
    kernels, _ = _kernels(load_example("two_phase", N="4"), False)
    fp, states = _level(kernels, 6)
    whole = list(expand_owned_part(kernels, fp, states, False, LevelReport(), 2))
    # Two rows a flush: many flushes, and the arrays grow for a state with
    # more distinct successors than that.
    report = LevelReport()
    small = list(expand_owned_part(kernels, fp, states, False, report, 2, rows=2))
    assert len(small) > 10
    distinct = {(int(r[0]), tuple(r[2:].tolist())) for blocks in small for _, b in blocks
                for r in b}
    assert distinct == {(int(r[0]), tuple(r[2:].tolist())) for blocks in whole
                        for _, b in blocks for r in b}
    # Each flush keeps the smallest parent of its own rows: across flushes
    # the owner's merge takes the smallest of them.
    best: dict[int, int] = {}
    for blocks in small:
        for _, b in blocks:
            for f, p in b[:, :2].tolist():
                best[f] = min(p, best.get(f, p))
    assert best == {int(f): int(p) for blocks in whole for _, b in blocks
                    for f, p in b[:, :2].tolist()}
    assert report.generated == len(kernels.expand(states).succ)


def _engine(partitions: int) -> SparkEngine:
    return SparkEngine(None, lambda kernels, plan, parts, options:
                       ManyParts(kernels, plan, parts, partitions))


@pytest.fixture
def owned_calls(monkeypatch):
    """How many frontiers went the fused way."""
    calls = []

    def spy(*args, **kwargs):
        calls.append(1)
        return expand_owned_part(*args, **kwargs)

    monkeypatch.setattr(tasks, "expand_owned_part", spy)
    return calls


@pytest.mark.parametrize("name,fused", [("grid", False), ("stuck", True),
                                        ("stuck_terminal", True), ("overflow", True),
                                        ("tokens", True)])
def test_the_data_flow_on_compiled_kernels_agrees_with_reference(name, fused, owned_calls):
    model = load_spec(name)
    options = CheckOptions(spark_threshold=0, symmetry=False)
    reference = api.check(model, "reference", options)
    result = _engine(3).check(model, options)
    assert summary(result) == summary(reference)
    assert result.stats.extras["levels_on_spark"]
    # grid has step invariants: the batch API's way
    assert bool(owned_calls) == fused
    for prop in result.properties:
        if prop.trace is not None:
            from modelcheck.trace.replay import check_replays
            check_replays(model, prop.trace, f"spark trace for {prop.name}")


@pytest.mark.parametrize("symmetry", [False, True])
def test_two_phase_with_and_without_symmetry(symmetry):
    model = load_example("two_phase", N="4")
    options = CheckOptions(spark_threshold=0, symmetry=symmetry)
    reference = api.check(model, "reference", options)
    result = _engine(2).check(model, options)
    assert summary(result) == summary(reference)
    assert result.stats.extras["levels_on_spark"]


def test_the_batch_api_on_request(owned_calls):
    model = load_spec("tokens")
    options = CheckOptions(spark_threshold=0, symmetry=False,
                           extra={"spark_fused_expand": False})
    reference = api.check(model, "reference", options)
    result = _engine(3).check(model, options)
    assert summary(result) == summary(reference)
    assert not owned_calls


def test_the_choice_travels_with_the_kernels():
    import pickle
    model = load_example("two_phase", N="3")
    for fused in (True, False):
        options = CheckOptions(extra={"spark_fused_expand": fused})
        plan = plan_properties(select_properties(model, options), constrained=False)
        kernels = pickle.loads(pickle.dumps(compiled_kernels(model, options, plan)))
        assert owned_expand(kernels, plan) is fused
