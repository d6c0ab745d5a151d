"""A killed local run's scratch folders are removed by the next driver."""
import json
import os
import subprocess
import sys

from modelcheck.engines.spark import scratch


def _scratch_dir(tmp, name, owner=None):
    # <tmp>/spark-<name>/userFiles-<name>, as SparkFiles lays it out, with
    # this engine's folders and one of Spark's own.
    root = tmp / f"spark-{name}" / f"userFiles-{name}"
    for sub in (*scratch.OWNED, "spark-own"):
        (root / sub).mkdir(parents=True)
        (root / sub / "f").write_bytes(b"x")
    if owner is not None:
        (root / scratch.MARKER).write_text(json.dumps(owner))
    return root


def _dead_pid():
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    return int(done.stdout)


def test_a_dead_drivers_folders_go_and_a_live_ones_stay(tmp_path):
    mine = _scratch_dir(tmp_path, "mine")
    scratch.claim(str(mine))
    parent = os.getppid()
    dead = _scratch_dir(tmp_path, "dead", {"pid": _dead_pid(), "start": "1"})
    live = _scratch_dir(tmp_path, "live", {"pid": parent,
                                           "start": scratch._start_time(parent)})
    # A pid now used by another process: its start time differs.
    reused = _scratch_dir(tmp_path, "reused", {"pid": parent, "start": "-1"})
    unmarked = _scratch_dir(tmp_path, "unmarked")
    swept = scratch.sweep(str(mine))
    assert sorted(swept) == sorted([str(dead), str(reused)])
    for gone in (dead, reused):
        assert not any((gone / name).exists() for name in scratch.OWNED)
        assert (gone / "spark-own" / "f").exists()      # Spark's files are Spark's
        assert not (gone / scratch.MARKER).exists()
    for kept in (mine, live, unmarked):
        assert all((kept / name / "f").exists() for name in scratch.OWNED)
    assert json.loads((mine / scratch.MARKER).read_text())["pid"] == os.getpid()


def test_this_processs_other_directories_are_of_stopped_contexts(tmp_path):
    # One context at a time in a process: a directory it marked before the
    # current one is a stopped (or killed) context's.
    old = _scratch_dir(tmp_path, "old")
    scratch.claim(str(old))
    new = _scratch_dir(tmp_path, "new")
    scratch.claim(str(new))
    assert scratch.sweep(str(new)) == [str(old)]
    assert not (old / scratch.OWNED[0]).exists()
    assert (new / scratch.OWNED[0] / "f").exists()
