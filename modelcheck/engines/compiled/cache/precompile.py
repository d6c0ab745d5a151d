"""Worker for ``kcache.precompile``: compile some functions of a kernel
module into numba's disk cache.

    python -m modelcheck.engines.compiled.cache.precompile KERNEL.py SHA256 PARENT_PID NAME=SIGNATURE...

It prints nothing; its exit status is 0 when every function compiled.
"""
from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

from modelcheck.engines.compiled.cache.kcache import import_kernel_file

__all__ = ["main", "end_with_parent", "death_signal"]

_PR_SET_PDEATHSIG = 1


def death_signal(signum: int) -> bool:
    """Ask Linux to send ``signum`` to this process when the thread that
    started it ends (0: no longer); whether it was done (not elsewhere).
    Linux keeps the request per thread of this process: only the thread
    that made it can take it back."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes
    try:
        return int(ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signum)) == 0
    except (OSError, AttributeError):
        return False


def end_with_parent(parent: int) -> None:
    """Have Linux kill this worker when the checker that started it dies, even
    by SIGKILL, where its own clean-up never runs (elsewhere: no-op)."""
    # The parent may have died before the request was made.
    if death_signal(signal.SIGKILL) and os.getppid() != parent:
        os._exit(1)


def main(argv: list[str]) -> int:
    path, digest, parent = Path(argv[0]), argv[1], int(argv[2])
    end_with_parent(parent)
    from numba.core.sigutils import normalize_signature
    module = import_kernel_file(path, digest)
    for job in argv[3:]:
        func, signature = job.split("=", 1)
        # A tuple of argument types, as a jitted caller asks for it: numba's
        # cache keys a string signature differently.
        args, _ = normalize_signature(signature)
        getattr(module, func).compile(tuple(args))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
