"""A full file system never costs the verdict: a trace that cannot be
written is an error that names its file beside the verdict (exit code of the
verdict), a kernel cache that cannot be written is built elsewhere with a
note, and a checkpoint that cannot be written is a note while the search
goes on.  Each test points one path at a real full file system (a small
tmpfs, ``full_disk``; skipped where it cannot be mounted)."""
from __future__ import annotations

import os

from modelcheck.fsutil import is_temp_name

from .conftest import CHECK, GRID, counts, run

DIE_HARD = "specs/examples/die_hard.mc"


def _no_internal_error(stderr: str) -> None:
    assert "internal error" not in stderr, stderr
    assert "Traceback" not in stderr, stderr


def _leftovers(folder) -> list[str]:
    return [name for _, _, names in os.walk(folder) for name in names if is_temp_name(name)]


def test_a_trace_on_a_full_disk_keeps_the_verdict_in_json(repo_root, tmp_path, full_disk):
    out = full_disk / "out"
    done = run(tmp_path / "cache", "check", str(repo_root / DIE_HARD), "--engine", "reference",
               "--json", "--out", str(out))
    _no_internal_error(done.stderr)
    assert done.rc == 1, done.stderr
    answer = done.json()
    assert answer["properties"]["NotFour"]["status"] == "violated"
    assert answer["properties"]["NotFour"]["trace_file"] is None
    (error,) = answer["write_errors"]
    assert error["code"] == "MC6001"
    assert error["file"].startswith(str(out)) and error["file"].endswith(".itf.json")
    assert "No space left on device" in error["message"]
    assert error["file"] in done.stderr
    assert _leftovers(full_disk) == []


def test_a_trace_on_a_full_disk_keeps_the_verdict_on_screen(repo_root, tmp_path, full_disk):
    out = full_disk / "out"
    done = run(tmp_path / "cache", "check", str(repo_root / DIE_HARD), "--engine", "reference",
               "--out", str(out))
    _no_internal_error(done.stderr)
    assert done.rc == 1, done.stderr
    assert "NotFour" in done.stdout and "violated" in done.stdout
    assert "Step 6" in done.stdout                   # the trace is still shown
    errors = [line for line in done.stderr.splitlines() if line.startswith("error[MC6001]")]
    assert len(errors) == 1 and str(out) in errors[0], done.stderr


def test_a_kernel_cache_on_a_full_disk_builds_elsewhere(repo_root, tmp_path, full_disk):
    done = run(full_disk, *CHECK, str(repo_root / DIE_HARD), "--json",
               "--out", str(tmp_path / "out"))
    _no_internal_error(done.stderr)
    assert done.rc == 1, done.stderr
    answer = done.json()
    assert (answer["distinct_states"], answer["properties"]["NotFour"]["status"]) == \
        (16, "violated")
    assert "kernel cache" in done.stderr and "No space left on device" in done.stderr
    assert _leftovers(full_disk) == []


def test_a_checkpoint_on_a_full_disk_is_a_note_and_the_search_goes_on(kernel_cache, tmp_path,
                                                                      full_disk):
    whole = run(kernel_cache, *CHECK, GRID, "-D", "N=300", "--json",
                "--out", str(tmp_path / "out"))
    assert whole.rc == 0, whole.stderr
    folder = full_disk / "ckpt"
    done = run(kernel_cache, *CHECK, GRID, "-D", "N=300", "--json", "--out", str(tmp_path / "out"),
               "--checkpoint", str(folder), "--checkpoint-every", "0.001")
    _no_internal_error(done.stderr)
    assert done.rc == 0, done.stderr
    assert counts(done.json()) == counts(whole.json())
    notes = [line for line in done.stderr.splitlines() if "checkpoint" in line]
    assert notes and all(str(folder) in line for line in notes), done.stderr
    # Said once, not at every safe point.
    assert len(notes) == 1, done.stderr
    assert _leftovers(full_disk) == []
