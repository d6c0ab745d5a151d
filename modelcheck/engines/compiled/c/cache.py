"""Where the C backend's libraries live, and whether one is built: light
(no numpy, no numba), for the default engine's look before a run and the
kernel cache's "is this kernel warm"."""
from __future__ import annotations

import functools
import hashlib
import os
import platform
import shutil
from pathlib import Path

__all__ = ["CFLAGS", "c_compiler", "c_library_path", "c_library_built"]

#: -fwrapv: int64 wraps as in numba; -fno-strict-aliasing: arrays of several
#: types alias as numba lets them; -march=native: the host's instructions,
#: as numba compiles for the host CPU.  -O3 rather than -O2: it inlines the
#: packing of a successor and the invariants into the search loop and peels
#: the short copies of a variable's slots (TwoPhase-9 about 15% faster a
#: state), for a cold build about 10-20% longer than -O2's on Raft
#: (docs/engines/compiled.md, "Where a state's time goes").
CFLAGS = ("-O3", "-fwrapv", "-fno-strict-aliasing", "-march=native", "-shared", "-fPIC", "-w")
#: The translator's own files: a change in any of them is a new library.
_TRANSLATOR = ("types.py", "infer.py", "translate.py", "program.py", "build.py", "cache.py")


def c_compiler() -> str | None:
    """The C compiler the C backend runs: $CC, else gcc or cc on the PATH."""
    for name in (os.environ.get("CC"), "gcc", "cc"):
        found = shutil.which(name) if name else None
        if found:
            return found
    return None


@functools.lru_cache(maxsize=None)
def _build_tag(compiler: str) -> str:
    h = hashlib.sha256()
    here = Path(__file__).resolve().parent
    for name in _TRANSLATOR:
        h.update((here / name).read_bytes())
    h.update(compiler.encode())
    h.update(_compiler_identity(compiler).encode())
    h.update(" ".join(CFLAGS).encode())
    h.update(_cpu_id().encode())
    return h.hexdigest()[:16]


def _compiler_identity(compiler: str) -> str:
    """The compiler's executable as installed (its real path, size and
    modification time): a new compiler is a new library.  Not its
    ``--version``: a process at niceness 19 on a busy machine once waited past
    the call's timeout, got another tag than its parent, and built a library
    the parent did not find."""
    try:
        real = os.path.realpath(shutil.which(compiler) or compiler)
        st = os.stat(real)
    except OSError:
        return ""
    return f"{real} {st.st_size} {st.st_mtime_ns}"


def _cpu_id() -> str:
    """The host CPU as -march=native sees it: a cache folder shared by
    machines of different CPUs must not hand one's library to another."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            lines = [ln for ln in f if ln.startswith(("model name", "flags", "Features"))]
        return "".join(dict.fromkeys(lines))
    except OSError:
        return f"{platform.machine()} {platform.processor()}"


def c_library_path(kernel_path: Path) -> Path | None:
    """Where the library of the kernel module at ``kernel_path`` is cached
    (``mc_KEY.c-TAG.so`` beside it; None without a C compiler).  KEY covers
    the module's source and the runtime it imports (kcache.kernel_key), TAG
    the translator, the compiler and its flags."""
    compiler = c_compiler()
    if compiler is None:
        return None
    return kernel_path.with_name(f"{kernel_path.stem}.c-{_build_tag(compiler)}.so")


def c_library_built(kernel_path: Path) -> bool:
    """Whether the library of that kernel module is built, with the record of
    its entries' result types that a load reads."""
    lib = c_library_path(kernel_path)
    return lib is not None and lib.exists() and lib.with_suffix(".results").exists()
