"""A load generator for the benches: ``with busy(n):`` keeps n processes
spinning on the CPU (at the usual priority, as a user's other work would)
until the block ends.  issue 39 measures the first verdict and ``make
check`` on a machine loaded so."""
from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import Iterator

__all__ = ["busy"]

_SPIN = "while True:\n    pass\n"


@contextlib.contextmanager
def busy(n: int) -> Iterator[None]:
    procs = [subprocess.Popen([sys.executable, "-c", _SPIN]) for _ in range(max(0, n))]
    try:
        yield
    finally:
        for p in procs:
            p.kill()
        for p in procs:
            p.wait()
