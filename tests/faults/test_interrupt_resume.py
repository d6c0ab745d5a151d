"""Ctrl-C (SIGINT) stops a ``modelcheck check --checkpoint`` run at several
points; ``--resume`` then ends with exactly the uninterrupted run's counts,
and no point ends in a traceback."""
from __future__ import annotations

import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from .conftest import CHECK, GRID, command, counts, environment, run

pytest.importorskip("numba")

SIZE = "N=4000"                      # 16 million states: about 5 s of search on one core
EVERY_S = 1.0                        # --checkpoint-every


def _manifest_appears(folder: Path, proc: subprocess.Popen, limit_s: float = 120) -> bool:
    """Wait until the run wrote its first checkpoint (so the search is running)."""
    end = time.monotonic() + limit_s
    while time.monotonic() < end and proc.poll() is None:
        if (folder / "compiled-checkpoint.json").exists():
            return True
        time.sleep(0.02)
    return False


def _interrupted_run(cache: Path, folder: Path, out: Path, after_first_checkpoint_s: float | None,
                     at_start_s: float = 0.0) -> tuple[int, str, str]:
    proc = subprocess.Popen(command(*CHECK, GRID, "-D", SIZE, "--json", "--out", str(out),
                                    "--checkpoint", str(folder), "--checkpoint-every", str(EVERY_S)),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=environment(cache))
    try:
        if after_first_checkpoint_s is None:
            time.sleep(at_start_s)
        elif _manifest_appears(folder, proc):
            time.sleep(after_first_checkpoint_s)
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return proc.returncode, stdout, stderr


@pytest.mark.slow
def test_ctrl_c_at_several_points_then_resume(kernel_cache, tmp_path):
    full = run(kernel_cache, *CHECK, GRID, "-D", SIZE, "--json", "--out", str(tmp_path / "o"))
    assert full.rc == 0, full.stderr
    expected = counts(full.json())
    sizes = kernel_cache / "modelcheck" / "kernels" / "sizes"
    assert sizes.is_dir()               # the count that the loop below removes
    # (seconds after start, None) stops it while starting up; (None, s) stops
    # the search s seconds after its first checkpoint.  The later points are
    # fractions of the time the full run had left after its first checkpoint:
    # fixed delays stopped nothing once the kernel got faster.
    spare = max(full.json()["elapsed_s"] - EVERY_S, 0.5)
    points = [(0.3, None), (None, 0.0), (None, 0.3 * spare), (None, 0.6 * spare)]
    resumed = 0
    for i, (at_start, after_checkpoint) in enumerate(points):
        folder = tmp_path / f"ckpt{i}"
        # Each run starts with a table that grows, as the full run's did: sized
        # from the count of a complete run (compiled/sizes.py) it would end
        # sooner than the points above.
        shutil.rmtree(sizes, ignore_errors=True)
        rc, stdout, stderr = _interrupted_run(kernel_cache, folder, tmp_path / "o", after_checkpoint,
                                              at_start or 0.0)
        assert "Traceback" not in stderr, stderr
        if rc == 0:
            continue                     # finished before the signal: nothing to resume
        if rc == -signal.SIGINT:
            # Killed by the signal before Python installed its handler: the
            # interpreter was still starting, nothing was written.
            assert after_checkpoint is None and not folder.exists()
            continue
        assert rc == 3, (rc, stderr)
        if not (folder / "compiled-checkpoint.json").exists():
            assert after_checkpoint is None         # only a stop while starting up has none
            continue
        if stdout.strip():
            assert stdout.count('"interrupted"') >= 1
        rest = run(kernel_cache, *CHECK, GRID, "-D", SIZE, "--json", "--out", str(tmp_path / "o"),
                   "--resume", str(folder))
        assert rest.rc == 0, rest.stderr
        assert counts(rest.json()) == expected
        resumed += 1
    assert resumed >= 2
