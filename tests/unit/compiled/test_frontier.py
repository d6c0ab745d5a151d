"""The search's memory at scale: levels that stream to disk (search/frontier.py,
forced here by a threshold of a few rows), a table sized once that fills up
(UNKNOWN with the reason, never a wrong HOLDS), and resuming with levels on
disk.  Counts, verdicts and traces are those of the search in memory, on
1-3 workers."""
from __future__ import annotations

import numpy as np
import pytest

from modelcheck import api
from modelcheck.engines.base import CheckOptions, Status

from interrupts import InterruptAt
from searches import SPILL, interrupted, outcome, resumed, run_search

pytest.importorskip("numba")


@pytest.mark.parametrize("workers", [1, 2, 3])
def test_levels_on_disk_give_the_counts_of_levels_in_memory(workers, load, kernels):
    model = load("two_phase", N=5)
    kernels("two_phase", N=5)
    memory = run_search(model, workers)
    disk = run_search(model, workers, **SPILL)
    assert outcome(disk) == outcome(memory)
    assert disk.stats.distinct_states == 8832
    x = disk.stats.extras
    assert x["frontier_spilled_rows"] > 0 and x["frontier_disk_bytes"] > 0
    assert memory.stats.extras["frontier_spilled_rows"] == 0
    if workers > 1:
        assert x["workers"] == workers


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("compress", [True, False])
def test_a_violation_and_its_trace_with_levels_on_disk(workers, compress, load, kernels):
    """A violation at depth 31 of levels of 2,000 rows: the same first
    violation and shortest trace, found in a level read back in pieces."""
    consts = {"L": 40, "M": 2000, "BAD": 30}
    model = load("deep", **consts)
    kernels("deep", **consts)
    memory = run_search(model, workers)
    disk = run_search(model, workers, frontier_compress=compress, **SPILL)
    assert outcome(disk) == outcome(memory)
    bad = next(p for p in disk.properties if p.name == "NotBad")
    assert bad.status is Status.VIOLATED and bad.steps == 30
    assert disk.stats.extras["frontier_spilled_rows"] > 0


def test_the_depth_bound_reads_every_piece_of_the_last_level(load, kernels):
    model = load("two_phase", N=5)
    kernels("two_phase", N=5)
    full = api.check(model, engine="compiled",
                     options=CheckOptions(symmetry=False, max_depth=12))
    disk = api.check(model, engine="compiled",
                     options=CheckOptions(symmetry=False, max_depth=12, extra=dict(SPILL)))
    assert outcome(disk) == outcome(full)
    assert disk.reason == full.reason and "depth bound" in disk.reason


@pytest.mark.parametrize("workers", [1, 2])
def test_a_preallocated_table_that_fills_gives_unknown_with_the_reason(workers, load, kernels):
    """--preallocate with a memory cap too small for the run: the table is
    sized once, never grows, and the search stops UNKNOWN when it is full."""
    model = load("two_phase", N=6)
    kernels("two_phase", N=6)
    # 1 GiB is set apart for the rest of the process (sizes.RESERVE_BYTES):
    # this leaves the table about 0.3 MiB, some 23,000 states
    got = run_search(model, workers, preallocate=True, max_memory_mib=1024.3, **SPILL)
    n = got.stats.distinct_states
    assert got.exit_code == 3 and "the state table, sized once for" in got.reason
    assert "--max-memory" in got.reason
    assert 0 < n < 50816
    assert all(p.status is Status.UNKNOWN for p in got.properties)
    assert got.stats.extras["table_preallocated"] is True


@pytest.mark.parametrize("workers", [1, 2])
def test_a_preallocated_table_with_room_gives_the_counts(workers, load, kernels):
    model = load("two_phase", N=6)
    kernels("two_phase", N=6)
    memory = run_search(model, workers)
    sized = run_search(model, workers, preallocate=True, max_memory_mib=1100, **SPILL)
    assert outcome(sized) == outcome(memory)
    assert sized.stats.extras["table_preallocated"] is True


def test_preallocated_capacity_leaves_the_frontier_and_the_reserve():
    from modelcheck.engines.compiled.cache import sizes
    gib = 1 << 30
    plenty = 100 * gib
    cap = sizes.preallocated_capacity(12, 20 * gib, gib, 1 << 14, at_hand=plenty)
    assert 12 * cap * (1 + 1 / 4096) <= 18 * gib < 12 * (cap + 1000) * (1 + 1 / 4096) + 12 * 64
    assert sizes.preallocated_capacity(12, gib // 2, gib, 1 << 14, at_hand=plenty) == 1 << 14
    share = int(10 * gib * sizes.AT_HAND_SHARE)
    at_hand = sizes.preallocated_capacity(12, None, 0, 1 << 14, at_hand=10 * gib)
    assert at_hand == sizes.preallocated_capacity(12, share, 0, 1 << 14, at_hand=plenty)
    # a --max-memory past what the machine has: what it has
    assert sizes.preallocated_capacity(12, 20 * gib, 0, 1 << 14, at_hand=10 * gib) == at_hand



@pytest.mark.parametrize("workers", [1, 2])
def test_resume_with_levels_on_disk(workers, load, kernels, tmp_path, monkeypatch):
    """Ctrl-C while levels are on disk: the checkpoint keeps them as files
    of their own (format 4), and the resumed search, on disk or in memory,
    ends with the uninterrupted counts."""
    import json

    import modelcheck.engines.compiled.search.serial as search
    monkeypatch.setattr(search, "PROGRESS_EVERY_S", 0.0)
    model = load("two_phase", N=5)
    kernels("two_phase", N=5)
    full = run_search(model)
    on_disk = 0
    for at in (6, 10, 14):
        folder = tmp_path / f"at{at}"
        if not _interrupted(model, workers, folder, at, SPILL):
            continue
        manifest = json.loads((folder / "compiled-checkpoint.json").read_text())
        if manifest["format"] == 4:
            on_disk += 1
            assert any(p.suffix == ".front" for p in folder.iterdir())
        for extra in (dict(SPILL), {}):
            assert outcome(resumed(model, workers, folder, extra)) == outcome(full)
    assert on_disk >= 1


def _interrupted(model, workers, folder, at, extra) -> bool:
    return interrupted(model, workers, folder, at, dict(extra, cross_levels=False))


def test_a_level_file_keeps_rows_and_order(tmp_path):
    from modelcheck.engines.compiled.search import frontier
    rng = np.random.default_rng(1)
    rows = rng.integers(0, 5, size=(1000, 3)).astype(np.int64)
    noise = rng.integers(-2**62, 2**62, size=(700, 3)).astype(np.int64)   # does not compress
    level = frontier.open_level(3, str(tmp_path))
    level.append(rows)
    level.append(noise)
    assert level.rows == 1700 and level.rows_left == 1700
    assert [b[3] for b in level.blocks] == [1, 0]       # zlib where it pays, raw where not
    assert list(tmp_path.iterdir()) == []               # unlinked at once
    got = [level.read(500), level.read(500), level.read(500)]
    assert np.array_equal(np.concatenate(got), np.concatenate([rows, noise]))
    assert len(level.read(500)) == 0
    n, digest = frontier.copy_level(iter([rows, noise]), str(tmp_path / "x.front"), 3)
    again = frontier.load_level(str(tmp_path / "x.front"), 3, str(tmp_path))
    assert n == 1700 and len(digest) == 64
    assert np.array_equal(again.read(10**6), np.concatenate([rows, noise]))


def test_the_cli_flags(tmp_path, kernels):
    from pathlib import Path

    from click.testing import CliRunner

    from modelcheck.cli.main import cli
    kernels("two_phase", N=4)
    spec = str(Path(__file__).resolve().parents[3] / "specs" / "examples" / "two_phase.mc")
    run = CliRunner().invoke(cli, ["check", spec, "-D", "N=4", "--no-symmetry", "--json",
                                   "--frontier-memory", "0.01", "--frontier-dir",
                                   str(tmp_path / "f"), "--preallocate", "--max-memory", "1100",
                                   "--out", str(tmp_path)])
    assert run.exit_code == 0, run.output
    assert '"distinct_states": 1568' in run.output


@pytest.mark.parametrize("workers", [1, 2])
def test_resume_a_preallocated_table(workers, load, kernels, tmp_path, monkeypatch):
    """A preallocated table's checkpoint holds its slots (streamed, no
    entries list); it resumes into a preallocated table (read back a few
    slots at a time) or into a growing one, with the uninterrupted counts."""
    import modelcheck.engines.compiled.search.checkpoint as checkpoint
    import modelcheck.engines.compiled.search.serial as search
    monkeypatch.setattr(search, "PROGRESS_EVERY_S", 0.0)
    monkeypatch.setattr(checkpoint, "STREAM_SLOTS", 1000)
    model = load("two_phase", N=5)
    kernels("two_phase", N=5)
    full = run_search(model)
    sized = dict(SPILL, preallocate=True, max_memory_mib=1025)
    times_resumed = 0
    for at in (5, 9):
        folder = tmp_path / f"at{at}"
        if not _interrupted(model, workers, folder, at, sized):
            continue
        for extra in (sized, {}):
            rest = resumed(model, workers, folder, extra)
            assert outcome(rest) == outcome(full)
            assert rest.stats.extras["table_preallocated"] is bool(extra)
        times_resumed += 1
    assert times_resumed >= 1


def test_a_level_that_cannot_go_to_disk_gives_unknown(load, kernels, tmp_path):
    """A frontier folder that cannot be written (here a file): UNKNOWN with
    the reason, not a traceback."""
    model = load("two_phase", N=5)
    kernels("two_phase", N=5)
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    got = run_search(model, frontier_dir=str(blocker), **SPILL)
    assert got.exit_code == 3 and "a level could not be written to" in got.reason
    assert all(p.status is Status.UNKNOWN for p in got.properties)


@pytest.mark.parametrize("workers", [2, 3])
def test_levels_on_disk_with_the_sharded_table(workers, load, kernels):
    """--exact on several workers: the shards' phases (par_driver.py) fill
    the next level, and it goes to disk as the shared table's does."""
    model = load("two_phase", N=5)
    kernels("two_phase", N=5)
    runs = [api.check(model, engine="compiled",
                      options=CheckOptions(symmetry=False, exact=True, workers=workers,
                                           extra=dict(extra, parallel_after_s=0)))
            for extra in ({}, SPILL)]
    assert outcome(runs[1]) == outcome(runs[0])
    assert runs[1].stats.extras["table"] == "shards"
    assert runs[1].stats.extras["frontier_spilled_rows"] > 0


@pytest.mark.parametrize("workers", [1, 2])
def test_the_state_bound_with_levels_on_disk(workers, load, kernels):
    """--max-states stops at the same row of the same piece as in memory."""
    model = load("two_phase", N=5)
    kernels("two_phase", N=5)
    runs = []
    for extra in ({}, SPILL):
        extra = dict(extra, parallel_after_s=0) if workers > 1 else dict(extra)
        runs.append(api.check(model, engine="compiled",
                              options=CheckOptions(symmetry=False, workers=workers,
                                                   max_states=5000, extra=extra)))
    assert outcome(runs[1]) == outcome(runs[0])
    assert runs[1].reason == runs[0].reason and "state bound" in runs[1].reason
    assert runs[1].stats.extras["frontier_spilled_rows"] > 0
