"""The machine's queue of background kernel builds (cache/build_queue.py,
issue 39): a few slots, a kernel built once, build times remembered, and a
build's priority lifted once the search it races has run longer than one."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from modelcheck.engines.compiled.cache.build_queue import (DEFAULT_BUILD_S, SLOTS_ENV, build_slot,
                                                           build_slots, expected_build_s,
                                                           kernel_busy, record_build_time)


def test_slots_default_to_one_per_two_cores_and_follow_the_environment(monkeypatch):
    monkeypatch.delenv(SLOTS_ENV, raising=False)
    assert build_slots() == max(1, min(2, (os.cpu_count() or 1) // 2))
    monkeypatch.setenv(SLOTS_ENV, "3")
    assert build_slots() == 3
    monkeypatch.setenv(SLOTS_ENV, "0")
    assert build_slots() == 0
    monkeypatch.setenv(SLOTS_ENV, "many")      # not a number: the default
    assert build_slots() == max(1, min(2, (os.cpu_count() or 1) // 2))


def test_one_slot_lets_one_build_run_and_the_next_waits(tmp_path):
    order: list[str] = []
    first_in = threading.Event()
    release = threading.Event()

    def first() -> None:
        with build_slot(tmp_path, slots=1) as slot:
            order.append(f"first {slot}")
            first_in.set()
            release.wait(10)
            order.append("first out")

    t = threading.Thread(target=first)
    t.start()
    assert first_in.wait(10)
    done = threading.Event()

    def second() -> None:
        with build_slot(tmp_path, slots=1) as slot:
            order.append(f"second {slot}")
        done.set()

    u = threading.Thread(target=second)
    u.start()
    time.sleep(0.3)
    assert not done.is_set()                 # waiting for the slot
    release.set()
    t.join(10)
    u.join(10)
    assert order == ["first 0", "first out", "second 0"]


def test_two_slots_let_two_builds_run_at_once(tmp_path):
    with build_slot(tmp_path, slots=2) as a:
        with build_slot(tmp_path, slots=2) as b:
            assert {a, b} == {0, 1}


def test_a_waiter_told_to_stop_gives_up_without_a_slot(tmp_path):
    with build_slot(tmp_path, slots=1):
        start = time.monotonic()
        with build_slot(tmp_path, slots=1, stop=lambda: time.monotonic() - start > 0.2) as slot:
            assert slot is None
    with build_slot(tmp_path, slots=0) as none:  # no queue: nobody waits
        assert none is None


def test_a_slot_of_a_killed_holder_is_free_again(tmp_path):
    # The lock is the system's: a build killed half-way leaves no slot taken.
    code = ("import sys, time\n"
            "from pathlib import Path\n"
            "from modelcheck.engines.compiled.cache.build_queue import build_slot\n"
            "with build_slot(Path(sys.argv[1]), slots=1):\n"
            "    print('in', flush=True)\n"
            "    time.sleep(60)\n")
    proc = subprocess.Popen([sys.executable, "-c", code, str(tmp_path)], stdout=subprocess.PIPE,
                            text=True)
    try:
        assert proc.stdout.readline().strip() == "in"
        start = time.monotonic()
        with build_slot(tmp_path, slots=1, stop=lambda: time.monotonic() - start > 0.3) as slot:
            assert slot is None               # held by the child
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        with build_slot(tmp_path, slots=1, stop=lambda: True) as slot:
            assert slot == 0
    finally:
        proc.kill()
        proc.wait()


def test_a_kernel_being_built_is_seen_busy(tmp_path):
    import fcntl
    lock = tmp_path / "mc_k.lock"
    assert not kernel_busy(lock)
    with open(lock, "a") as f:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX)
        assert kernel_busy(lock)
        fcntl.flock(f.fileno(), fcntl.LOCK_UN)
    assert not kernel_busy(lock)


def test_build_times_are_remembered_as_a_median(tmp_path):
    assert expected_build_s(tmp_path, "c") == DEFAULT_BUILD_S["c"]
    for s in (2.0, 9.0, 3.0):
        record_build_time(tmp_path, "c", s)
    assert expected_build_s(tmp_path, "c") == 3.0
    assert expected_build_s(tmp_path, "numba") == DEFAULT_BUILD_S["numba"]
    for _ in range(30):
        record_build_time(tmp_path, "c", 1.0)
    assert expected_build_s(tmp_path, "c") == 1.0            # only the recent ones count
    (tmp_path / "build-times.json").write_text("{damaged")
    assert expected_build_s(tmp_path, "c") == DEFAULT_BUILD_S["c"]
    record_build_time(tmp_path, "c", 5.0)                     # and it starts again
    assert expected_build_s(tmp_path, "c") == 5.0


@pytest.mark.skipif(not hasattr(os, "setpriority"), reason="no setpriority here")
def test_boost_lifts_the_lower_priority_of_the_build_and_its_workers():
    from modelcheck.engines.compiled.cache.background import BackgroundCompile
    job = BackgroundCompile.__new__(BackgroundCompile)
    job._lock = threading.Lock()
    job.boosted = None
    # A stand-in for the child and a worker of its: one process group at niceness 10.
    code = ("import os, subprocess, sys, time\n"
            "os.nice(10)\n"
            "w = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
            "print(w.pid, flush=True)\n"
            "time.sleep(60)\n")
    job._proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                                 process_group=0)
    try:
        worker = int(job._proc.stdout.readline())
        assert os.getpriority(os.PRIO_PROCESS, worker) == 10
        may_raise = os.geteuid() == 0
        assert job.boost() is may_raise and job.boosted is may_raise
        if may_raise:
            assert os.getpriority(os.PRIO_PROCESS, job._proc.pid) == 0
            assert os.getpriority(os.PRIO_PROCESS, worker) == 0
    finally:
        os.killpg(job._proc.pid, signal.SIGKILL)
        job._proc.wait()


class _Built:
    backend = "c"


def _fake_kernels(monkeypatch, tmp_path, warm_after_wait: bool = False):
    """``_queued_build`` over a fake kernel at tmp_path/mc_k.py: records
    the builds it makes."""
    from modelcheck.engines.compiled import kernels
    builds: list[str] = []
    looks = iter([warm_after_wait])
    monkeypatch.setattr(kernels, "kernel_file", lambda m, o: tmp_path / "mc_k.py")
    monkeypatch.setattr(kernels, "kernel_looks_warm", lambda m, o: next(looks, False))
    monkeypatch.setattr(kernels, "compile_model", lambda m, o: builds.append(m) or _Built())
    return builds


def test_a_queued_build_builds_and_remembers_its_time(monkeypatch, tmp_path):
    from modelcheck.engines.compiled.cache.background import _queued_build
    builds = _fake_kernels(monkeypatch, tmp_path)
    _queued_build("model", None, None)
    assert builds == ["model"]
    assert expected_build_s(tmp_path, "c") < 1.0       # this build's time, not the default


def test_a_kernel_built_while_waiting_is_not_built_again(monkeypatch, tmp_path):
    from modelcheck.engines.compiled.cache.background import _queued_build
    builds = _fake_kernels(monkeypatch, tmp_path, warm_after_wait=True)
    _queued_build("model", None, None)
    assert builds == []


def test_a_build_waits_without_a_slot_while_another_process_builds_its_kernel(monkeypatch,
                                                                                tmp_path):
    import fcntl
    from modelcheck.engines.compiled.cache.background import _queued_build
    builds = _fake_kernels(monkeypatch, tmp_path, warm_after_wait=True)
    look = threading.Event()
    with open(tmp_path / "mc_k.lock", "a") as f:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX)    # "another process" builds mc_k
        t = threading.Thread(target=_queued_build, args=("model", None, look))
        t.start()
        time.sleep(0.3)
        # Meanwhile the only slot is free for other kernels' builds.
        with build_slot(tmp_path, slots=1, stop=lambda: True) as slot:
            assert slot == 0
        look.set()                                # the parent ended: no build
        t.join(10)
    assert not t.is_alive() and builds == []
