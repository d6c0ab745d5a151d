"""Limits that apply while the compiled engine compiles a kernel: ``--timeout``
bounds the compile, SIGTERM (and SIGKILL) of the checker ends its compile
workers, and numba cache files damaged on disk lead to a recompile, not a
crash.  Each run gets its own (cold) kernel cache."""
from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from modelcheck.engines.compiled.c.cache import c_compiler

from .conftest import CHECK, command, environment, run

pytest.importorskip("numba")

TINY = """module tiny

var x: 0..3 = 0

action Step() { require x < 3
  x := x + 1 }

invariant Small: x <= 3
"""


@pytest.fixture
def tiny(tmp_path) -> str:
    spec = tmp_path / "tiny.mc"
    spec.write_text(TINY)
    return str(spec)


def _processes_naming(folder: Path) -> list[int]:
    """Live processes whose command line names ``folder`` (the compile
    workers are given the kernel file's path, which is inside it)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().decode(errors="replace")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if str(folder) in cmdline and state != "Z":
            pids.append(int(entry.name))
    return pids


def _workers_gone(folder: Path, within_s: float = 10) -> bool:
    end = time.monotonic() + within_s
    while _processes_naming(folder):
        if time.monotonic() > end:
            return False
        time.sleep(0.05)
    return True


def _cold_compile_with_workers(tiny: str, cache: Path) -> subprocess.Popen:
    """A checker in the middle of a cold compile, its workers started (one
    per core: a single core compiles in the checker itself)."""
    if (os.cpu_count() or 1) < 2:
        pytest.skip("compile workers start only on two or more cores")
    # numba's: its precompile workers are what these tests end
    proc = subprocess.Popen(command(*CHECK, tiny, "--no-deadlock", "--json"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(environment(cache), MODELCHECK_KERNEL_BACKEND="numba"),
                            # as from a terminal, even when the tests run in the background
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    end = time.monotonic() + 60
    while not _processes_naming(cache / "modelcheck"):
        if proc.poll() is not None or time.monotonic() > end:
            proc.kill()
            pytest.fail(f"no compile worker started: {proc.communicate()[1]}")
        time.sleep(0.05)
    return proc


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="scans /proc for the workers")
@pytest.mark.parametrize("backend,limit", [("numba", "1"), ("c", "0.2")])
def test_timeout_bounds_a_cold_compile(tiny, tmp_path, monkeypatch, backend, limit):
    """numba's compile, or the C compiler (a tiny spec builds in about a
    second, so the limit is shorter), is stopped where --timeout runs out."""
    if backend == "c" and c_compiler() is None:
        pytest.skip("no C compiler on the PATH")
    monkeypatch.setenv("MODELCHECK_KERNEL_BACKEND", backend)
    cache = tmp_path / "cache"
    done = run(cache, *CHECK, tiny, "--no-deadlock", "--json", "--timeout", limit)
    assert done.rc == 3, done.stderr
    assert "Traceback" not in done.stderr
    answer = done.json()
    assert answer["reason"].startswith("timed out while compiling the kernel (after ")
    assert answer["properties"]["Small"]["status"] == "unknown"
    assert _workers_gone(cache)


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="scans /proc for the workers")
def test_sigterm_during_a_cold_compile_ends_the_workers(tiny, tmp_path):
    cache = tmp_path / "cache"
    proc = _cold_compile_with_workers(tiny, cache)
    proc.send_signal(signal.SIGTERM)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 3, stderr
    assert "interrupted" in stderr and "Traceback" not in stderr
    assert _workers_gone(cache)


@pytest.mark.skipif(not os.path.exists("/proc/self/cmdline"), reason="Linux only")
def test_sigkill_of_the_checker_ends_the_workers_too(tiny, tmp_path):
    cache = tmp_path / "cache"
    proc = _cold_compile_with_workers(tiny, cache)
    proc.kill()
    proc.communicate(timeout=60)
    # The kernel signals the workers as the checker dies; a worker left
    # running would still be compiling for seconds.
    assert _workers_gone(cache, within_s=2)


def test_a_truncated_numba_index_leads_to_a_recompile(tiny, tmp_path, monkeypatch):
    monkeypatch.setenv("MODELCHECK_KERNEL_BACKEND", "numba")
    cache = tmp_path / "cache"
    first = run(cache, *CHECK, tiny, "--no-deadlock", "--json")
    assert first.rc == 0, first.stderr
    index = sorted((cache / "modelcheck" / "kernels" / "__pycache__").glob("*expand_batch*.nbi"))
    assert index, "numba wrote no index for the kernel"
    index[0].write_bytes(index[0].read_bytes()[:40])
    again = run(cache, *CHECK, tiny, "--no-deadlock", "--json")
    assert again.rc == 0, again.stderr
    assert "Traceback" not in again.stderr
    assert "numba's compiled code" in again.stderr and "recompiling" in again.stderr
    assert again.json()["distinct_states"] == first.json()["distinct_states"] == 4


def test_a_truncated_c_library_leads_to_a_rebuild(tiny, tmp_path, monkeypatch):
    if c_compiler() is None:
        pytest.skip("no C compiler on the PATH")
    monkeypatch.setenv("MODELCHECK_KERNEL_BACKEND", "c")
    cache = tmp_path / "cache"
    first = run(cache, *CHECK, tiny, "--no-deadlock", "--json")
    assert first.rc == 0, first.stderr
    (lib,) = (cache / "modelcheck" / "kernels").glob("*.so")
    lib.write_bytes(lib.read_bytes()[:4000])
    again = run(cache, *CHECK, tiny, "--no-deadlock", "--json")
    assert again.rc == 0, again.stderr
    assert "Traceback" not in again.stderr
    assert "is not the library its record names; rebuilding" in again.stderr
    assert again.json()["distinct_states"] == first.json()["distinct_states"] == 4
