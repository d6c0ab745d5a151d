"""Worker for ``kcache.precompile``: compile some functions of a kernel
module into numba's disk cache.

    python -m modelcheck.engines.compiled.precompile KERNEL.py NAME=SIGNATURE...

It prints nothing; its exit status is 0 when every function compiled.
"""
from __future__ import annotations

import sys
from pathlib import Path

from modelcheck.engines.compiled.kcache import import_kernel_file

__all__ = ["main"]


def main(argv: list[str]) -> int:
    from numba.core.sigutils import normalize_signature
    module = import_kernel_file(Path(argv[0]))
    for job in argv[1:]:
        func, signature = job.split("=", 1)
        # A tuple of argument types, as a jitted caller asks for it: numba's
        # cache keys a string signature differently.
        args, _ = normalize_signature(signature)
        getattr(module, func).compile(tuple(args))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
