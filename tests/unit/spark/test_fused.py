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

from modelcheck.engines.spark import exchange, resident
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


# ------------------------------------------------------------------ the file exchange

def _run_exchange(level_fixture, search, root, level=4, elements=None):
    """Partition 1's task of ``level`` reading its candidates from ``root``
    (nothing from the JVM) and writing the next level's there."""
    kernels, plan, runs, cands, expected = level_fixture
    reports = _Reports()
    out = list(fused_task(_Box(kernels), plan, True, True, True, PARTS, reports, level,
                          search, expected, False, 1, iter(elements or []),
                          exchange_in=root, exchange_out=root))
    return out, reports.value


def _exchange_files(root, level):
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted((root / str(level)).rglob("*")) if p.is_file()}


def _hand_over(level_fixture, root, level=4):
    """The candidates of partition 1 as the tasks of the level before would
    have written them: partition 1 and 2's blocks under their writers'
    names, and an empty file from writer 0."""
    _, _, _, cands, _ = level_fixture
    assert exchange.write_blocks(str(root), level, 1, PARTS, cands[:1]) > 0
    exchange.write_blocks(str(root), level, 2, PARTS, cands[1:])
    exchange.write_blocks(str(root), level, 0, PARTS, [])


def test_an_exchange_task_run_twice_writes_identical_files(level, tmp_path):
    _resident_table(level, "xchg")
    want, want_reports = _run(level, "xchg", False)      # the JVM shuffle's task
    _resident_table(level, "xchg2")
    root = tmp_path / "exchange"
    _hand_over(level, root)
    first, reports = _run_exchange(level, "xchg2", str(root))
    files = _exchange_files(root, 5)
    second, again = _run_exchange(level, "xchg2", str(root))    # a retried task
    assert first == second and _exchange_files(root, 5) == files
    # Every owner gets a file from writer 1, and no candidate goes to the JVM:
    # the output is the level's element alone, as the shuffle's task writes it.
    assert sorted(files) == [f"5/{o}/from-1.npy" for o in range(PARTS)]
    assert [key for key, _ in _decode(first)] == [LEVEL_KEY + 1]
    assert first == want[:2]
    assert reports[("m", 4, 1)].new_states == want_reports[("m", 4, 1)].new_states
    # The files hold exactly the blocks the shuffle would have carried.
    shuffled = {key - CANDIDATE_KEY: batch[0][1][1] for key, batch in _decode(want)[1:]}
    for o in range(PARTS):
        got = exchange.read_blocks(str(root), 5, o, PARTS)
        # Only writer 1 wrote level 5: the others' files are missing.
        assert got is None
        blocks = [b for _, (_, b) in _read_one(root / "5" / str(o) / "from-1.npy")]
        if o in shuffled:
            assert len(blocks) == 1 and np.array_equal(blocks[0], shuffled[o])
        else:
            assert blocks == []
    x = reports[("x", 5, 1)]
    assert x.exchanged == sum(b.nbytes for b in shuffled.values()) and x.from_python == 0
    assert x.generated == want_reports[("x", 5, 1)].generated


def _read_one(path):
    import os
    out = []
    with open(path, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        while fh.tell() < size:
            out.append((0, ("c", np.load(fh))))
    return out


def test_a_missing_exchange_file_merges_nothing(level, tmp_path):
    _resident_table(level, "lost")
    root = tmp_path / "exchange"
    _hand_over(level, root)
    (root / "4" / "1" / "from-2.npy").unlink()
    out, reports = _run_exchange(level, "lost", str(root))
    # Nothing written, the table untouched (the level runs again with the
    # shuffle, exactly: the table still expects level 4).
    assert out == [] and reports == {("xmiss", 4, 1): True}
    assert not (root / "5").exists()
    assert resident.load(resident.ResidentKey("lost", 1), 4, level[4][1]) is not None


def test_clear_level_removes_only_that_level(tmp_path):
    root = str(tmp_path / "x")
    block = np.arange(6, dtype=np.uint64).reshape(2, 3)
    for lvl in (4, 5):
        exchange.write_blocks(root, lvl, 0, 2, [(1, ("c", block))])
        exchange.write_blocks(root, lvl, 1, 2, [])
    assert len(exchange.read_blocks(root, 4, 1, 2)) == 1
    assert exchange.read_blocks(root, 4, 0, 2) == []
    exchange.clear_level(root, 4)
    assert not (tmp_path / "x" / "4").exists() and exchange.read_blocks(root, 4, 1, 2) is None
    assert np.array_equal(exchange.read_blocks(root, 5, 1, 2)[0][1][1], block)
    exchange.clear(root)
    assert not (tmp_path / "x").exists()


def test_a_task_that_cannot_write_leaves_no_file(tmp_path, monkeypatch):
    # A full disk: nothing renamed into place, so the owners miss (and the
    # driver runs the next level with the shuffle) rather than read a part.
    root = str(tmp_path / "x")
    block = np.arange(6, dtype=np.uint64).reshape(2, 3)

    def full(*args, **kwargs):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(exchange.np, "save", full)
    assert exchange.write_blocks(root, 4, 0, 2, [(1, ("c", block))]) == 0
    assert [p for p in (tmp_path / "x").rglob("*") if p.is_file()] == []
    assert exchange.read_blocks(root, 4, 1, 2) is None


def test_sweep_removes_what_dead_drivers_left(tmp_path):
    import os
    import subprocess
    import sys
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()
    ours = exchange.exchange_root(str(tmp_path), "abc")
    for d in (ours, str(tmp_path / f"{dead}-old"), str(tmp_path / "1-init")):
        os.makedirs(os.path.join(d, "4"))
    exchange.sweep(str(tmp_path))
    assert sorted(os.listdir(tmp_path)) == sorted([os.path.basename(ours), "1-init"])
