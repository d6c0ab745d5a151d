"""One queue of kernel builds per kernel cache (in practice, per machine).

A cold ``make check`` wants a kernel for every layout its rows use, and
each row whose reference search outlives the grace period starts a
background build: dozens of compilers at once on a two-core machine, each
at a lower priority, none finishing while the rows run (issue 39).  So a
background build first takes one of a few *build slots*, advisory locks in
the cache folder that the system releases when their holder dies, however
it dies; the others wait, idle, for a slot.  A kernel that another process
is already building is not built again: its waiter holds no slot and
loads the kernel once that build ends (``kcache.compile_lock``).

And a build need not starve: the reference explorer that waits for it
gives it a fair share of the machine once the search has run longer than
a build usually takes (``expected_build_s``, from the builds this cache
has seen), by lifting the build's lower priority (``BackgroundCompile.boost``).
"""
from __future__ import annotations

import contextlib
import json
import os
import statistics
import time
from collections.abc import Callable, Iterator
from pathlib import Path

__all__ = ["SLOTS_ENV", "DEFAULT_BUILD_S", "build_slot", "build_slots", "expected_build_s",
           "kernel_busy", "record_build_time", "slot_dir"]

#: How many background builds may run at once (0: no queue, every build at
#: once, as before the queue; the benches compare the two).
SLOTS_ENV = "MODELCHECK_BUILD_SLOTS"
#: A build's time before this cache has seen one (seconds, by backend):
#: a C library of a large spec builds in 2-4 s, numba's code in 20-50 s.
DEFAULT_BUILD_S = {"c": 4.0, "numba": 40.0}
#: How many recent build times are kept.
_KEPT = 20
_POLL_S = 0.1


def build_slots() -> int:
    """How many background builds run at once: ``$MODELCHECK_BUILD_SLOTS``,
    else one per two cores, at least one and at most two (a build uses a
    core; the search it races against, another)."""
    text = os.environ.get(SLOTS_ENV, "").strip()
    if text:
        with contextlib.suppress(ValueError):
            return max(0, int(text))
    return max(1, min(2, (os.cpu_count() or 1) // 2))


def slot_dir(kernels_dir: Path) -> Path:
    return kernels_dir / "build-slots"


@contextlib.contextmanager
def build_slot(kernels_dir: Path, stop: Callable[[], bool] | None = None,
               slots: int | None = None) -> Iterator[int | None]:
    """Hold one of the build slots of the cache folder ``kernels_dir``
    while the body runs; yields the slot's number, or None when there is no
    queue (0 slots, or no ``fcntl``).  Waits for a slot, polling, until
    ``stop()`` says to give up: then yields None without one, and the
    caller decides (a build told to stop does not build)."""
    count = build_slots() if slots is None else slots
    try:
        import fcntl
    except ImportError:          # pragma: no cover - not Linux or macOS
        count = 0
    if count == 0:
        yield None
        return
    folder = slot_dir(kernels_dir)
    folder.mkdir(parents=True, exist_ok=True)
    files = [open(folder / f"slot-{i}.lock", "a") for i in range(count)]
    held = None
    try:
        while held is None:
            for i, f in enumerate(files):
                try:
                    fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                    held = i
                    break
                except BlockingIOError:
                    continue
            if held is None:
                if stop is not None and stop():
                    break
                time.sleep(_POLL_S)
        yield held
    finally:
        if held is not None:
            fcntl.flock(files[held].fileno(), fcntl.LOCK_UN)
        for f in files:
            f.close()


def kernel_busy(lock_path: Path) -> bool:
    """Whether another process holds the compile lock ``lock_path`` (a
    kernel's ``.lock`` file, ``kcache.compile_lock``): it is building or
    loading that kernel now.  A moment's answer: it may change at once."""
    try:
        import fcntl
    except ImportError:          # pragma: no cover
        return False
    try:
        with open(lock_path, "a") as f:
            try:
                fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
            fcntl.flock(f.fileno(), fcntl.LOCK_UN)
            return False
    except OSError:
        return False


def _times_path(kernels_dir: Path) -> Path:
    return kernels_dir / "build-times.json"


def record_build_time(kernels_dir: Path, backend: str, seconds: float) -> None:
    """Remember how long a cold build took (best effort: a lost record
    only makes the next estimate the default)."""
    path = _times_path(kernels_dir)
    with contextlib.suppress(OSError, ValueError, TypeError):
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            data = {}
        kept = [float(s) for s in data.get(backend, []) if isinstance(s, (int, float))]
        data[backend] = (kept + [round(float(seconds), 3)])[-_KEPT:]
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data))
        os.replace(tmp, path)


def expected_build_s(kernels_dir: Path, backend: str) -> float:
    """How long a cold build of ``backend`` usually takes here: the median
    of the builds this cache has recorded, else ``DEFAULT_BUILD_S``."""
    with contextlib.suppress(OSError, ValueError, TypeError, AttributeError):
        kept = [float(s) for s in json.loads(_times_path(kernels_dir).read_text()).get(backend, [])]
        if kept:
            return statistics.median(kept)
    return DEFAULT_BUILD_S.get(backend, DEFAULT_BUILD_S["numba"])
