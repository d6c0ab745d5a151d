"""A level's fused task (rdd_tasks.fused_task: merge the candidates, expand
the new states at once), run directly without Spark: run twice on one
resident table it writes the same output; without a valid table it says so
and writes nothing, and the fallback from the cached runs writes what the
resident merge would have and leaves the table the next level expects."""
from __future__ import annotations

import pickle
import struct

import numpy as np
import pytest

from modelcheck.engines.spark import resident
from modelcheck.engines.spark.inprocess import InProcessLevels
from modelcheck.engines.spark.kernels import plan_properties
from modelcheck.engines.spark.partition import LevelReport, initial_candidates
from modelcheck.engines.spark.rdd_tasks import CANDIDATE_KEY, LEVEL_KEY, fused_task
from modelcheck.engines.spark.seen_table import SeenTable
from modelcheck.engines.spark.tasks import RUN, expand_block, split_part
from evaluator_kernels import EvaluatorKernels
from spark_specs import load_example

PARTS = 3


class _Box:
    def __init__(self, value):
        self.value = value


class _Reports:
    def __init__(self):
        self.value = {}

    def add(self, entry):
        self.value.update(entry)


def _decode(output: list[bytes]) -> list[tuple[int, list]]:
    """The task's output as (key, batch) pairs, in the order written."""
    assert len(output) % 2 == 0
    return [(struct.unpack(">q", k)[0], pickle.loads(v)) for k, v in zip(output[::2],
                                                                         output[1::2])]


@pytest.fixture()
def level(tmp_path, monkeypatch):
    """A search three levels deep: the kernels, the plan, partition 1's runs
    (as cached) and candidates of the next level (as shuffled to it)."""
    monkeypatch.setattr(resident, "resident_root", lambda: str(tmp_path))
    model = load_example("two_phase", N="3")
    plan = plan_properties(list(model.properties))
    kernels = EvaluatorKernels(model, plan)
    local = InProcessLevels(kernels, plan)
    local.seed(initial_candidates(kernels)[0])
    for _ in range(3):
        local.step(True, True)
    part = local.part
    pieces = list(split_part(part, PARTS))
    runs = [(p, payload) for p, payload in pieces if p == 1 and payload[0] == RUN]
    cands = []
    for p, payload in pieces:
        if payload[0] != RUN:
            cands += [e for e in expand_block(kernels, plan, True, PARTS, payload[1],
                                              payload[2], LevelReport()) if e[0] == 1]
    expected = [0] * PARTS
    expected[1] = int(sum(len(payload[1]) for _, payload in runs))
    return kernels, plan, runs, cands, expected


def _run(level_fixture, search, from_runs, expand=True, level=4):
    kernels, plan, runs, cands, expected = level_fixture
    reports = _Reports()
    elements = (runs if from_runs else []) + cands
    out = list(fused_task(_Box(kernels), plan, True, expand, True, PARTS, reports, level,
                          search, expected, from_runs, 1, iter(elements)))
    return out, reports.value


def _resident_table(level_fixture, search):
    _, _, runs, _, expected = level_fixture
    seen = np.concatenate([payload[1] for _, payload in runs])
    key = resident.ResidentKey(search, 1)
    resident.store(key, SeenTable.build(seen, None, 0, with_parents=False), 3, -1, expected[1])


def test_a_fused_task_run_twice_on_one_table_writes_the_same(level):
    _resident_table(level, "again")
    first, reports = _run(level, "again", False)
    second, again = _run(level, "again", False)     # the table now holds level 4
    assert first == second
    assert reports[("m", 4, 1)].new_states == again[("m", 4, 1)].new_states > 0
    pairs = _decode(first)
    # The level first, under its own key; then the candidates, each under
    # its owner's key, and their expansion reported as the next level's.
    assert pairs[0][0] == LEVEL_KEY + 1 and pairs[0][1][0][1][0] == "l"
    owners = [key - CANDIDATE_KEY for key, _ in pairs[1:]]
    assert owners and all(0 <= o < PARTS for o in owners)
    assert all(batch[0][0] == key - CANDIDATE_KEY for key, batch in pairs[1:])
    assert reports[("x", 5, 1)].generated > 0


def test_a_missed_table_falls_back_exactly(level):
    _resident_table(level, "kept")
    want, want_reports = _run(level, "kept", False)
    # No table: the task reads its input, writes nothing and says so.
    missed, reports = _run(level, "gone", False)
    assert missed == [] and reports == {("miss", 4, 1): True}
    # From the cached runs: the same output, and the table written afresh
    # is the one the next level expects.
    fallback, fb_reports = _run(level, "gone", True)
    assert fallback == want
    new = fb_reports[("m", 4, 1)].new_states
    assert new == want_reports[("m", 4, 1)].new_states
    assert resident.load(resident.ResidentKey("gone", 1), 5, level[4][1] + new) is not None


def test_past_the_depth_bound_a_level_is_not_expanded(level):
    _resident_table(level, "last")
    out, reports = _run(level, "last", False, expand=False)
    assert [key for key, _ in _decode(out)] == [LEVEL_KEY + 1]
    assert ("x", 5, 1) not in reports
