"""Checkpoints survive a SIGKILL while one is written (the previous one stays
usable and the stale temporary file goes away), and a truncated, bit-flipped
or foreign checkpoint, or a manifest nested too deep or too large to be
one, is refused with a one-line error, exit 2, no traceback."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from modelcheck.engines.compiled.search.checkpoint import FORMAT_NEWEST
from modelcheck.fsutil import is_temp_name

from .conftest import CHECK, GRID, counts, environment, run

pytest.importorskip("numba")

SIZE = "N=300"
MANIFEST = "compiled-checkpoint.json"

# Runs the search with a checkpoint at every safe point and SIGKILLs itself at
# the n-th fsync: each checkpoint fsyncs the data file, the folder, the
# manifest and the folder, so n = 5 dies inside the second data file's write
# and n = 7 inside the second manifest's write.
_KILLED_CHILD = textwrap.dedent("""
    import os, signal, sys
    from modelcheck import api
    from modelcheck.engines.base import CheckOptions
    n, calls, real = int(sys.argv[3]), [0], os.fsync
    def fsync(fd):
        calls[0] += 1
        if calls[0] == n:
            os.kill(os.getpid(), signal.SIGKILL)
        real(fd)
    os.fsync = fsync
    model = api.load(sys.argv[1], consts={"N": "300"})
    api.check(model, engine="compiled",
              options=CheckOptions(checkpoint_dir=sys.argv[2], checkpoint_every_s=0.0))
""")


@pytest.fixture(scope="module")
def full(kernel_cache, tmp_path_factory) -> tuple:
    out = tmp_path_factory.mktemp("out")
    done = run(kernel_cache, *CHECK, GRID, "-D", SIZE, "--json", "--out", str(out))
    assert done.rc == 0, done.stderr
    return counts(done.json())


def _resume(cache: Path, folder: Path, out: Path):
    return run(cache, *CHECK, GRID, "-D", SIZE, "--json", "--out", str(out),
               "--resume", str(folder))


@pytest.mark.slow
@pytest.mark.parametrize("nth_fsync", [5, 7])
def test_sigkill_while_writing_leaves_the_previous_checkpoint(kernel_cache, tmp_path, full,
                                                              nth_fsync):
    folder = tmp_path / "ckpt"
    child = subprocess.run([sys.executable, "-c", _KILLED_CHILD, GRID, str(folder),
                            str(nth_fsync)], capture_output=True, text=True, timeout=300,
                           env=environment(kernel_cache))
    assert child.returncode == -signal.SIGKILL, child.stderr
    left = sorted(os.listdir(folder))
    assert MANIFEST in left
    if nth_fsync == 5:
        assert any(is_temp_name(name) for name in left), left
    rest = _resume(kernel_cache, folder, tmp_path / "out")
    assert rest.rc == 0, rest.stderr
    assert counts(rest.json()) == full
    assert not [name for name in os.listdir(folder) if is_temp_name(name)]


def _written(cache: Path, folder: Path) -> Path:
    """A finished run's last checkpoint in ``folder``; its data file."""
    done = run(cache, *CHECK, GRID, "-D", SIZE, "--json", "--out", str(folder / "out"),
               "--checkpoint", str(folder), "--checkpoint-every", "0.001")
    assert done.rc == 0, done.stderr
    return folder / json.loads((folder / MANIFEST).read_text())["file"]


def _truncate(data: Path) -> None:
    with open(data, "r+b") as f:
        f.truncate(data.stat().st_size // 2)


def _flip_a_bit(data: Path) -> None:
    raw = bytearray(data.read_bytes())
    raw[len(raw) // 2] ^= 0x10
    data.write_bytes(bytes(raw))


def _newer_format(data: Path) -> None:
    manifest = data.parent / MANIFEST
    body = json.loads(manifest.read_text())
    body["format"] = FORMAT_NEWEST + 1          # one past the newest this version reads
    manifest.write_text(json.dumps(body))


def _older_format(data: Path) -> None:
    # Format 2 was one compiled-checkpoint.npz and no manifest.
    data.rename(data.parent / "compiled-checkpoint.npz")
    (data.parent / MANIFEST).unlink()


def _garbled_manifest(data: Path) -> None:
    (data.parent / MANIFEST).write_text('{"format": 3, "file": "../../etc/passwd"')


def _deep_manifest(data: Path) -> None:
    # Deeper than Python's recursion limit: json.loads would raise RecursionError.
    (data.parent / MANIFEST).write_text("[" * 100_000 + "]" * 100_000)


def _huge_manifest(data: Path) -> None:
    with open(data.parent / MANIFEST, "w") as f:
        f.write('{"format": 3, "pad": "')
        f.truncate(1 << 30)                  # sparse: a GiB of NULs, no disk


@pytest.mark.parametrize("damage,says", [
    (_truncate, "sha256 does not match"),
    (_flip_a_bit, "sha256 does not match"),
    (_newer_format, f"format {FORMAT_NEWEST + 1}"),
    (_older_format, "older modelcheck"),
    (_garbled_manifest, "manifest"),
    (_deep_manifest, "manifest"),
    (_huge_manifest, "manifest"),
    (lambda data: data.unlink(), "is missing"),
])
def test_a_damaged_checkpoint_is_refused(kernel_cache, tmp_path, damage, says):
    folder = tmp_path / "ckpt"
    damage(_written(kernel_cache, folder))
    refused = _resume(kernel_cache, folder, tmp_path / "out")
    assert refused.rc == 2, refused.stderr
    assert says in refused.stderr
    assert "Traceback" not in refused.stderr
    assert any(line.startswith("error") for line in refused.stderr.splitlines())
