"""The executors' resident seen tables (resident.py, seen_table.py): a table
is used only when it is the generation and size the driver expects; a merge
run twice on one table (Spark re-running a task) sees the same states; the
table agrees with a set as it grows."""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

from modelcheck.engines.spark import resident
from modelcheck.engines.spark.seen_table import SeenTable


def _fps(rng, n):
    return np.unique(rng.integers(0, 2**64 - 1, size=n, dtype=np.uint64))


def _level(key, level, expected, cands):
    """What a resident merge does with the table: probe, insert the fresh
    ones stamped ``level``, write the head.  Returns the fresh ones."""
    with resident.locked(key):
        table = resident.load(key, level, expected)
        assert table is not None
        fresh = cands[table.fresh(cands, level)]
        table.add(fresh, None, level)
        resident.store(key, table, level, expected, expected + len(fresh))
    return fresh


def test_generations_chain_grow_and_stay_exact(tmp_path):
    rng = np.random.default_rng(1)
    key = resident.ResidentKey("s1", 3, root=str(tmp_path))
    whole = _fps(rng, 1000)
    resident.store(key, SeenTable.build(whole, None, 0, with_parents=False), 0, -1, len(whole))
    held = set(whole.tolist())
    for level in range(1, 12):
        # Candidates: some seen, some new, fingerprint 0 among them once.
        cands = np.unique(np.concatenate([_fps(rng, int(rng.integers(1, 5000))),
                                          whole[::7], np.zeros(int(level == 4), np.uint64)]))
        fresh = _level(key, level, len(held), cands)
        assert set(fresh.tolist()) == set(cands.tolist()) - held
        held |= set(fresh.tolist())
        whole = np.array(sorted(held), dtype=np.uint64)
    table = resident.load(key, 12, len(held))
    assert table is not None and len(table) == len(held)
    assert table.items()[0].tolist() == sorted(held)
    # One pair of files: the table grew in place, the old files were removed.
    assert len([n for n in os.listdir(key.dir) if n.endswith(".npy")]) == 2


def test_a_merge_run_again_emits_the_same_states(tmp_path):
    rng = np.random.default_rng(2)
    key = resident.ResidentKey("s3", 1, root=str(tmp_path))
    base = _fps(rng, 50)
    resident.store(key, SeenTable.build(base, None, 0, with_parents=False), 0, -1, len(base))
    cands = np.unique(np.concatenate([_fps(rng, 3000), base[:10]]))
    first = _level(key, 1, len(base), cands)
    # The same task again, after the first committed (a lost result, speculation).
    again = _level(key, 1, len(base), cands)
    assert again.tolist() == first.tolist()
    # An attempt that died halfway through its inserts (the head not yet written).
    with resident.locked(key):
        table = resident.load(key, 2, len(base) + len(first))
        more = _fps(rng, 4000)
        table.add(more[table.fresh(more, 2)][:1500], None, 2)
    redo = _level(key, 2, len(base) + len(first), more)
    assert set(redo.tolist()) == set(more.tolist()) - set(base.tolist()) - set(first.tolist())
    table = resident.load(key, 3, len(base) + len(first) + len(redo))
    assert table is not None and len(table.items()[0]) == len(base) + len(first) + len(redo)


def test_a_missing_stale_or_wrong_size_table_is_a_miss(tmp_path):
    key = resident.ResidentKey("s2", 0, root=str(tmp_path))
    fp = np.arange(10, 20, dtype=np.uint64)
    assert resident.load(key, 1, 10) is None                     # nothing there
    resident.store(key, SeenTable.build(fp, None, 0, with_parents=False), 0, -1, 10)
    assert resident.load(key, 1, 10) is not None
    assert resident.load(key, 2, 10) is None                     # another generation
    assert resident.load(key, 1, 11) is None                     # another size
    with open(key.head) as f:
        head = json.load(f)
    head["gen"] = 1000
    with open(key.head, "w") as f:
        json.dump(head, f)
    assert resident.load(key, 1, 10) is None                     # spoiled
    head["gen"] = 0
    with open(key.head, "w") as f:
        json.dump(head, f)
    for name in os.listdir(key.dir):
        if name.endswith(".npy"):
            os.unlink(os.path.join(key.dir, name))
    assert resident.load(key, 1, 10) is None                     # files cleared
    resident.clear("s2", root=str(tmp_path))
    assert not os.path.exists(key.dir)


def test_table_agrees_with_a_set_with_parents():
    rng = np.random.default_rng(7)
    table = SeenTable.empty()
    ref: dict[int, int] = {}
    for level in range(1, 8):
        fps = np.unique(np.concatenate([_fps(rng, int(rng.integers(0, 20000))),
                                        np.array(list(ref)[:100], dtype=np.uint64)]))
        fresh = table.fresh(fps, level)
        assert fresh.tolist() == [int(f) not in ref for f in fps]
        parents = rng.integers(0, 2**63, size=len(fps), dtype=np.uint64)
        table.add(fps[fresh], parents[fresh], level)
        ref.update(zip(fps[fresh].tolist(), parents[fresh].tolist()))
    fp, parent = table.items()
    assert fp.tolist() == sorted(ref) and len(table) == len(ref)
    assert dict(zip(fp.tolist(), parent.tolist())) == ref
    some = np.array(list(ref)[::50] + [12345], dtype=np.uint64)
    assert table.parents_of(some) == {f: ref[f] for f in some.tolist() if f in ref}


@pytest.mark.parametrize("with_parents", [True, False])
def test_large_inserts_in_home_order_agree_with_a_set(with_parents):
    # Inserts of 2**16 or more go in the order of their home slots
    # (seen_table._BY_HOME_ROWS): the parents must move with them, and an
    # entry added again is re-stamped, not added twice.
    rng = np.random.default_rng(11)
    table = SeenTable.empty(with_parents=with_parents)
    ref: dict[int, int] = {}
    for level in range(1, 4):
        fps = _fps(rng, 150_000)
        fps = fps[fps != 0]
        assert table.fresh(fps, level).tolist() == [int(f) not in ref for f in fps]
        parents = rng.integers(0, 2**63, size=len(fps), dtype=np.uint64)
        added = table.add(fps, parents if with_parents else None, level)
        assert added == sum(int(f) not in ref for f in fps)
        ref.update(zip(fps.tolist(), parents.tolist()))
    again = np.array(sorted(ref)[:70_000], dtype=np.uint64)
    assert table.add(again, np.zeros(len(again), np.uint64) if with_parents else None, 4) == 0
    assert not table.fresh(again, 5).any() and table.fresh(again, 4).all()
    fp, parent = table.items()
    assert fp.tolist() == sorted(ref) and len(table) == len(ref)
    if with_parents:
        ref.update((f, 0) for f in again.tolist())
        assert dict(zip(fp.tolist(), parent.tolist())) == ref


def test_a_full_damaged_table_fails_rather_than_loops():
    table = SeenTable.build(np.arange(1, 11, dtype=np.uint64), None, 0, with_parents=False)
    table.keys[:] = np.arange(1, len(table.keys) + 1, dtype=np.uint64)   # no empty slot
    probe = np.array([len(table.keys) + 5], dtype=np.uint64)
    assert table.fresh(probe, 1).tolist() == [True]
    with pytest.raises(RuntimeError):
        table.add(probe, None, 1)
