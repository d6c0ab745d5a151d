"""The executors' resident copies of the seen set (resident.py): a copy is
used only when it is the generation and size the driver expects; the
log-structured runs stay sorted and disjoint; the galloping lookup agrees
with a set."""
from __future__ import annotations

import os

import numpy as np

from modelcheck.engines.spark import resident


def _sorted(rng, n):
    return np.unique(rng.integers(0, 2**63, size=n, dtype=np.uint64))


def test_generations_chain_and_stay_exact(tmp_path):
    rng = np.random.default_rng(1)
    key = resident.ResidentKey("s1", 3, root=str(tmp_path))
    whole = np.empty(0, np.uint64)
    base = _sorted(rng, 1000)
    resident.store(key, 0, [base], np.empty(0, np.uint64), fresh=True)
    whole = base
    for gen in range(1, 12):
        runs = resident.load(key, gen - 1, len(whole))
        assert runs is not None
        assert np.array_equal(np.sort(np.concatenate(runs)), whole)
        new = np.setdiff1d(_sorted(rng, int(rng.integers(1, 3000))), whole)
        resident.store(key, gen, runs, new)
        whole = np.union1d(whole, new)
    runs = resident.load(key, 11, len(whole))
    assert np.array_equal(np.sort(np.concatenate(runs)), whole)
    for r in runs:
        assert np.all(np.diff(r.astype(np.float64)) > 0) or len(r) < 2
    assert len(runs) <= 2 * int(np.log2(len(whole))) + 1       # log-structured
    # Only generations 10 and 11 are kept on disk.
    names = sorted(n for n in os.listdir(key.dir) if n.endswith(".json"))
    assert names == ["gen-10.json", "gen-11.json"]


def test_a_missing_stale_or_wrong_size_copy_is_a_miss(tmp_path):
    key = resident.ResidentKey("s2", 0, root=str(tmp_path))
    fp = np.arange(10, 20, dtype=np.uint64)
    assert resident.load(key, 0, 10) is None                    # nothing there
    resident.store(key, 0, [fp], np.empty(0, np.uint64), fresh=True)
    assert resident.load(key, 0, 10) is not None
    assert resident.load(key, 1, 10) is None                    # another generation
    assert resident.load(key, 0, 11) is None                    # another size
    for name in os.listdir(key.dir):
        if name.endswith(".npy"):
            os.unlink(os.path.join(key.dir, name))
    assert resident.load(key, 0, 10) is None                    # files cleared
    resident.clear("s2", root=str(tmp_path))
    assert not os.path.exists(key.dir)


def test_a_task_run_again_finds_the_generation_before(tmp_path):
    key = resident.ResidentKey("s3", 1, root=str(tmp_path))
    resident.store(key, 0, [np.arange(5, dtype=np.uint64)], np.empty(0, np.uint64), fresh=True)
    runs = resident.load(key, 0, 5)
    resident.store(key, 1, runs, np.arange(100, 103, dtype=np.uint64))
    again = resident.load(key, 0, 5)          # the level's task runs a second time
    assert again is not None
    resident.store(key, 1, again, np.arange(100, 103, dtype=np.uint64))
    assert sorted(np.concatenate(resident.load(key, 1, 8)).tolist()) == \
        [0, 1, 2, 3, 4, 100, 101, 102]


def test_galloping_membership_and_merge_agree_with_numpy():
    rng = np.random.default_rng(7)
    for n, m in [(0, 10), (10, 0), (5, 1000), (100_000, 70), (3000, 3000), (200, 100_000)]:
        run = _sorted(rng, n)
        probe = np.unique(np.concatenate([_sorted(rng, m), run[::3]]))
        got = resident.member_sorted(run, probe)
        assert np.array_equal(got, np.isin(probe, run))
        other = np.setdiff1d(_sorted(rng, m), run)
        assert np.array_equal(resident.merge_sorted_fp(run, other), np.union1d(run, other))
