"""Parents on disk (search/parents.py): a table of keys alone (8-byte slots)
and every level kept on disk, from which traces are rebuilt by
re-expansion.  Counts, verdicts and shortest traces are those of the table
that keeps the parent tags, on 1-3 workers, with symmetry, with levels read
back in pieces, and after a resume; a damaged file of kept levels is
refused with a clear error."""
from __future__ import annotations

import json

import numpy as np
import pytest

from modelcheck import api
from modelcheck.engines.base import CheckOptions, Status
from modelcheck.errors import UsageError

from interrupts import InterruptAt
from searches import SPILL, interrupted, outcome, resumed, run_search

pytest.importorskip("numba")

DISK = {"parents_on_disk": True}


@pytest.mark.parametrize("workers", [1, 2, 3])
def test_keys_alone_give_the_counts_of_the_tagged_table(workers, load, kernels):
    model = load("two_phase", N=5)
    kernels("two_phase", N=5)
    tagged = run_search(model, workers)
    keys = run_search(model, workers, **DISK)
    assert outcome(keys) == outcome(tagged)
    x = keys.stats.extras
    assert x["parents"] == "disk" and tagged.stats.extras["parents"] == "table"
    # 8 bytes a slot, not 12, at the same load
    assert x["bytes_per_state"] < tagged.stats.extras["bytes_per_state"] * 0.7
    assert x["parents_rows"] == 8832 and x["parents_disk_bytes"] > 0
    assert x["fp_collision_probability"] > 0


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("spill", [False, True])
def test_a_trace_from_the_levels_on_disk(workers, spill, load, kernels):
    """A violation at depth 31 of levels of 2,000 rows: the same shortest
    trace, step for step, as the parent tags give."""
    consts = {"L": 40, "M": 2000, "BAD": 30}
    model = load("deep", **consts)
    kernels("deep", **consts)
    tagged = run_search(model, workers)
    disk = run_search(model, workers, **DISK, **(SPILL if spill else {}))
    assert outcome(disk) == outcome(tagged)
    bad = next(p for p in disk.properties if p.name == "NotBad")
    assert bad.status is Status.VIOLATED and bad.steps == 30
    assert disk.stats.extras["parents_rows"] > 0


@pytest.mark.parametrize("workers", [1, 2])
def test_a_trace_with_symmetry(workers, load, kernels):
    model = load("sym_mutex", N=3)
    kernels("sym_mutex", symmetry=True, N=3)
    tagged = run_search(model, workers, symmetry=True)
    disk = run_search(model, workers, symmetry=True, **DISK, **SPILL)
    assert outcome(disk) == outcome(tagged)
    assert any(p.status is Status.VIOLATED and p.trace for p in disk.properties)


@pytest.mark.parametrize("workers", [2, 3])
def test_the_sharded_table_with_parents_on_disk(workers, load, kernels):
    """--exact on several workers: the shards keep their tags (they are
    rebuilt at the switch), the levels are kept all the same."""
    consts = {"L": 40, "M": 2000, "BAD": 30}
    model = load("deep", **consts)
    kernels("deep", **consts)
    runs = [api.check(model, engine="compiled",
                      options=CheckOptions(symmetry=False, exact=True, workers=workers,
                                           extra=dict(extra, parallel_after_s=0)))
            for extra in ({}, dict(DISK, **SPILL))]
    assert outcome(runs[1]) == outcome(runs[0])
    assert runs[1].stats.extras["table"] == "shards"
    assert runs[1].stats.extras["parents"] == "disk"


@pytest.mark.parametrize("workers", [1, 2])
def test_the_state_bound_with_parents_on_disk(workers, load, kernels):
    model = load("two_phase", N=5)
    kernels("two_phase", N=5)
    runs = [api.check(model, engine="compiled",
                      options=CheckOptions(symmetry=False, workers=workers, max_states=3000,
                                           extra=dict(extra, parallel_after_s=0)))
            for extra in ({}, dict(DISK, **SPILL))]
    assert outcome(runs[1]) == outcome(runs[0])
    assert runs[1].reason == runs[0].reason and "state bound" in runs[1].reason


def _interrupted(model, workers, folder, at, extra) -> bool:
    return interrupted(model, workers, folder, at, dict(extra, parallel_after_s=0))


@pytest.mark.parametrize("workers", [1, 2])
def test_a_resumed_search_rebuilds_the_trace(workers, load, kernels, tmp_path, monkeypatch):
    """Ctrl-C mid-search: the checkpoint keeps the levels (format 5), and
    the resumed search, asked with or without parents on disk, gives the
    trace through levels found before the interruption."""
    import modelcheck.engines.compiled.search.serial as search
    monkeypatch.setattr(search, "PROGRESS_EVERY_S", 0.0)
    consts = {"L": 40, "M": 2000, "BAD": 30}
    model = load("deep", **consts)
    kernels("deep", **consts)
    full = run_search(model)
    times_resumed = 0
    for at in (8, 20):
        folder = tmp_path / f"at{at}"
        if not _interrupted(model, workers, folder, at, dict(DISK, **SPILL)):
            continue
        manifest = json.loads((folder / "compiled-checkpoint.json").read_text())
        assert manifest["format"] == 5
        assert any(p.suffix == ".parents" for p in folder.iterdir())
        for extra in (dict(DISK, **SPILL), {}):
            rest = resumed(model, workers, folder, extra)
            assert outcome(rest) == outcome(full)
            assert rest.stats.extras["parents"] == "disk"
        times_resumed += 1
    assert times_resumed >= 1


def test_a_damaged_file_of_kept_levels_is_refused(load, kernels, tmp_path, monkeypatch):
    import modelcheck.engines.compiled.search.serial as search
    monkeypatch.setattr(search, "PROGRESS_EVERY_S", 0.0)
    consts = {"L": 40, "M": 2000, "BAD": 30}
    model = load("deep", **consts)
    kernels("deep", **consts)
    folder = tmp_path / "ck"
    assert _interrupted(model, 1, folder, 12, dict(DISK, **SPILL))
    kept = next(p for p in folder.iterdir() if p.suffix == ".parents")
    data = bytearray(kept.read_bytes())
    data[len(data) // 2] ^= 0xFF
    kept.write_bytes(bytes(data))
    with pytest.raises(UsageError, match="levels kept for traces.*damaged"):
        resumed(model, 1, folder, dict(DISK))
    kept.unlink()
    with pytest.raises(UsageError, match="incomplete"):
        resumed(model, 1, folder, dict(DISK))


def test_a_tagged_checkpoint_is_not_resumed_with_parents_on_disk(load, kernels, tmp_path,
                                                                  monkeypatch):
    import modelcheck.engines.compiled.search.serial as search
    monkeypatch.setattr(search, "PROGRESS_EVERY_S", 0.0)
    model = load("two_phase", N=5)
    kernels("two_phase", N=5)
    folder = tmp_path / "ck"
    assert _interrupted(model, 1, folder, 6, dict(SPILL))
    with pytest.raises(UsageError, match="parents of its states in its table"):
        resumed(model, 1, folder, dict(DISK))


def test_the_kept_levels_read_back_and_refuse_damage(tmp_path):
    from modelcheck.engines.compiled.search import frontier
    from modelcheck.engines.compiled.search.parents import LevelArchive, ParentsError
    rng = np.random.default_rng(2)
    levels = [rng.integers(0, 4, size=(n, 2)).astype(np.int64) for n in (3, 700, 50)]
    archive = LevelArchive(2, str(tmp_path))
    spilled = frontier.open_level(2, str(tmp_path))
    spilled.append(levels[1][:400])
    archive.add_level(None, levels[0])
    archive.add_level(spilled, levels[1][400:])
    archive.add_level(None, levels[2])
    for n, rows in enumerate(levels, 1):
        assert np.array_equal(np.concatenate(list(archive.level(n))), rows)
    record = archive.save(tmp_path / "x.parents")
    again = LevelArchive(2, str(tmp_path))
    again.load(tmp_path / "x.parents", record)
    assert np.array_equal(np.concatenate(list(again.level(2))), levels[1])
    with pytest.raises(ValueError, match="levels its checkpoint names"):
        LevelArchive(2, str(tmp_path)).load(tmp_path / "x.parents",
                                            dict(record, level_rows=[3, 699, 51]))
    # a block damaged while the search runs: a clear error, not wrong rows
    offset, _, nbytes, _ = archive.file.blocks[-1]
    import os
    os.pwrite(archive.file.f.fileno(), b"\xff" * nbytes, offset)
    with pytest.raises(ParentsError, match="damaged"):
        list(archive.level(3))
