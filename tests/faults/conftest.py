"""Fault tests: runs of the real ``modelcheck`` command in subprocesses,
stopped by signals, sharing caches, reading damaged files.

Every subprocess gets its own kernel cache (``XDG_CACHE_HOME``) under the
session's temporary folder, so no test reads or writes the user's cache."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

FAULTS = Path(__file__).parent
GRID = str(FAULTS / "grid.mc")


@dataclass(frozen=True)
class Run:
    rc: int
    stdout: str
    stderr: str

    def json(self) -> dict:
        return json.loads(self.stdout)


#: ``check`` on the compiled engine: these tests are about its compile and
#: its checkpoints, and the default engine answers small specs on the
#: reference explorer.
CHECK = ("check", "--engine", "compiled")


def command(*args: str) -> list[str]:
    """The console script as a user runs it."""
    return [sys.executable, "-m", "modelcheck.cli.launch", *args]


def environment(cache: Path) -> dict[str, str]:
    env = dict(os.environ, XDG_CACHE_HOME=str(cache), COLUMNS="200")
    env.pop("NUMBA_DISABLE_JIT", None)
    return env


def run(cache: Path, *args: str, timeout: float = 300) -> Run:
    done = subprocess.run(command(*args), capture_output=True, text=True, timeout=timeout,
                          env=environment(cache))
    return Run(done.returncode, done.stdout, done.stderr)


def counts(result: dict) -> tuple:
    """What a resumed run must reproduce exactly."""
    return (result["distinct_states"], result["generated_states"], result["depth"],
            {name: p["status"] for name, p in result["properties"].items()})


@pytest.fixture(scope="session")
def kernel_cache(tmp_path_factory) -> Path:
    """One kernel cache for the fault tests that do not test the cache."""
    return tmp_path_factory.mktemp("kernel-cache")


def _fill(folder: Path) -> None:
    """Write zeros into ``folder`` until its file system refuses more."""
    block = b"\0" * 4096
    with open(folder / "filler", "wb", buffering=0) as f:
        try:
            while True:
                f.write(block)
        except OSError:
            pass


@pytest.fixture
def full_disk(tmp_path) -> Iterator[Path]:
    """An empty folder on a file system with no space left: a 64 KiB tmpfs
    mounted for the test and filled up.  Mounting needs root (the tests run
    as root in CI); elsewhere the test is skipped, saying so."""
    mount_point = tmp_path / "full"
    mount_point.mkdir()
    try:
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k,mode=1777", "tmpfs",
                               str(mount_point)], capture_output=True, text=True, timeout=30)
    except OSError as err:
        pytest.skip(f"cannot mount a small tmpfs here: {err}")
    if done.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {done.stderr.strip() or done.returncode}")
    try:
        _fill(mount_point)
        yield mount_point
    finally:
        # Lazily: a process a failed test left behind may still hold a file there.
        subprocess.run(["umount", "-l", str(mount_point)], capture_output=True)
