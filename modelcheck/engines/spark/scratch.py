"""What a killed local run leaves in its scratch directory, and its removal.

In local mode the executor's scratch directory (SparkFiles' root,
``<tmp>/spark-<uuid>/userFiles-<uuid>``) holds the resident seen tables
(``resident.py``) and the exchange files (``exchange.py``): gigabytes on a
large search.  Spark removes the directory when its JVM stops cleanly; a
killed driver or JVM (the OOM killer, ``kill -9``) leaves it behind, and
nothing else ever removes it.  So the driver marks its scratch directory
as its own (``MARKER``: its pid and the start time of that process, which
tells a reused pid apart), and a driver that starts removes this engine's
folders from every marked scratch directory beside its own whose driver is
gone.  Spark's own files there are left to Spark.
"""
from __future__ import annotations

import glob
import json
import os
import shutil

from modelcheck.engines.spark import exchange, resident

__all__ = ["MARKER", "OWNED", "claim", "sweep"]

#: The file that names the driver of a scratch directory.
MARKER = "modelcheck-driver.json"
#: This engine's folders in a scratch directory.
OWNED = (resident.DIRNAME, exchange.DIRNAME)


def claim(root: str) -> None:
    """Mark the scratch directory ``root`` as this process's."""
    os.makedirs(root, exist_ok=True)
    marker = os.path.join(root, MARKER)
    tmp = f"{marker}.{os.getpid()}.tmp"
    with open(tmp, "w") as fh:
        json.dump({"pid": os.getpid(), "start": _start_time(os.getpid())}, fh)
    os.replace(tmp, marker)


def sweep(root: str) -> list[str]:
    """Remove this engine's folders from the marked scratch directories
    beside ``root`` (``<tmp>/*/*/MARKER``) whose driver is no longer
    running; returns the directories swept."""
    root = os.path.abspath(root)
    swept = []
    pattern = os.path.join(os.path.dirname(os.path.dirname(root)), "*", "*", MARKER)
    for marker in glob.glob(pattern):
        directory = os.path.dirname(marker)
        if directory == root:
            continue
        try:
            with open(marker) as fh:
                owner = json.load(fh)
            pid, start = int(owner["pid"]), owner.get("start")
        except (OSError, ValueError, KeyError, TypeError):
            continue            # being written, or not ours to judge
        # This process's own other directories are of contexts it stopped.
        if pid != os.getpid() and _alive(pid, start):
            continue
        for name in OWNED:
            shutil.rmtree(os.path.join(directory, name), ignore_errors=True)
        try:
            os.remove(marker)
        except OSError:
            pass
        swept.append(directory)
    return swept


def _alive(pid: int, start: str | None) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:         # another user's process: alive, not ours to judge
        return True
    return start is None or _start_time(pid) in (None, start)


def _start_time(pid: int) -> str | None:
    """The process's start time in clock ticks since boot (/proc), or None
    where there is no /proc."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None
