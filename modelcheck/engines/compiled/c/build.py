"""The C backend: a kernel module translated to C (c/program.py), built by
the system's C compiler into a shared library, and called through ctypes.

numba spends most of a cold compile in its own passes over the code (typing,
SSA, liveness: about 80% of the 19 s it takes on Raft's Receive action), so
a spec with a large action waits tens of seconds before its first state.
The same code as C builds in 2-3 s with gcc.  The library answers the same
calls as the numba module (``CKernelModule``): the engine's search code does
not know which one it holds.

The library is cached beside the kernel module (``mc_KEY.c-TAG.so``, TAG a
digest of the translator's own source, the compiler's version and flags), so
a second run loads it in moments.  ctypes releases the GIL for each call, so
the workers of the parallel search run side by side as with numba's nogil.
"""
from __future__ import annotations

import ctypes
import os
import subprocess
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

import numpy as np

from modelcheck.engines.compiled.c.program import Program
from modelcheck.fsutil import sha256_file, write_atomic
from modelcheck.engines.compiled.c.cache import CFLAGS, c_compiler, c_library_built, c_library_path
from modelcheck.engines.compiled.c.types import (BOOL, ENTRY_SIGNATURES, Array, CType,
                                                 TupleType, parse_signature)

__all__ = ["CKernelModule", "CBuildError", "load_c_kernel", "build_library"]

_NP_TYPES = {"i64": np.int64, "i32": np.int32, "i8": np.int8, "u8": np.uint8,
             "u32": np.uint32, "u64": np.uint64, "bool": np.bool_}


class CBuildError(Exception):
    """The C compiler is missing or failed; the message says which."""


def load_c_kernel(module: ModuleType, kernel_path: Path,
                  notes: list[str] | None = None) -> tuple["CKernelModule", float]:
    """The C library of the kernel module ``module`` (its file at
    ``kernel_path``), built now unless cached; with the seconds the build
    took (0 for a load).  Raises NotTranslatable or CBuildError."""
    lib_path = c_library_path(kernel_path)
    if lib_path is None:
        raise CBuildError("no C compiler (gcc or cc) on the PATH")
    signatures = {name: sig for name, sig in ENTRY_SIGNATURES.items() if hasattr(module, name)}
    return build_library(module, signatures, lib_path,
                         rebuild=not c_library_built(kernel_path), notes=notes)


def build_library(module: Any, signatures: dict[str, str], lib_path: Path,
                  rebuild: bool = True,
                  notes: list[str] | None = None) -> tuple["CKernelModule", float]:
    """The jitted functions of ``module`` named in ``signatures`` (name ->
    argument types, c_types.parse_signature) as one C library at
    ``lib_path``: translated and built when ``rebuild``, else loaded.  A
    library whose bytes are not those its record names (cut short, changed)
    is built again, with a note appended to ``notes``."""
    compiler = c_compiler()
    if compiler is None:
        raise CBuildError("no C compiler (gcc or cc) on the PATH")
    entries = {name: parse_signature(sig) for name, sig in signatures.items()}
    built = _build(compiler, module, signatures, lib_path) if rebuild else 0.0
    try:
        rets, lib = _read_record(lib_path), _load(lib_path)
    except CBuildError as why:
        if rebuild:
            raise
        if notes is not None:
            notes.append(f"kernel cache: {why}; rebuilding")
        built = _build(compiler, module, signatures, lib_path)
        rets, lib = _read_record(lib_path), _load(lib_path)
    return CKernelModule(module, lib, entries, rets), built


def _load(lib_path: Path) -> ctypes.CDLL:
    try:
        return ctypes.CDLL(str(lib_path))
    except OSError as why:
        raise CBuildError(f"{lib_path.name} does not load ({why})") from None


def _build(compiler: str, module: Any, signatures: dict[str, str], lib_path: Path) -> float:
    start = time.perf_counter()
    program = Program()
    for name, sig in signatures.items():
        program.add_entry(name, module, sig)
    rets = {e.name: e.instance.ret for e in program.entries}
    _compile(compiler, program.source(), lib_path, rets)
    return time.perf_counter() - start


def _compile(compiler: str, source: str, lib_path: Path, rets: dict[str, CType | None]) -> None:
    lib_path.parent.mkdir(parents=True, exist_ok=True)
    c_path = lib_path.with_suffix(".c")
    write_atomic(c_path, source)
    fd, tmp = tempfile.mkstemp(suffix=".so.tmp", dir=lib_path.parent)
    os.close(fd)
    try:
        done = subprocess.run([compiler, *CFLAGS, str(c_path), "-o", tmp], capture_output=True,
                              text=True)
        if done.returncode != 0:
            raise CBuildError(f"{Path(compiler).name} failed on {c_path.name}: "
                              f"{done.stderr.strip()[-2000:]}")
        # The record first: a library is used only with it (c_library_built),
        # and only when its bytes hash to what the record names.
        _write_record(lib_path, sha256_file(tmp), rets)
        os.replace(tmp, lib_path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _record_path(lib_path: Path) -> Path:
    return lib_path.with_suffix(".results")


def _write_record(lib_path: Path, digest: str, rets: dict[str, CType | None]) -> None:
    """The library's sha256 and its entries' result types, beside it (a load
    reads them, so it needs no translation)."""
    lines = [f"sha256 {digest}"] + [f"{name} {_ret_text(t)}" for name, t in rets.items()]
    write_atomic(_record_path(lib_path), "\n".join(lines) + "\n")


def _read_record(lib_path: Path) -> dict[str, tuple[str, ...]]:
    """The entries' result types; CBuildError when the record cannot be read
    or the library's bytes are not those it names."""
    try:
        lines = _record_path(lib_path).read_text().splitlines()
        digest = sha256_file(lib_path)
    except (OSError, UnicodeDecodeError) as why:
        raise CBuildError(f"{lib_path.name} cannot be read ({why})") from None
    if not lines or lines[0] != f"sha256 {digest}":
        raise CBuildError(f"{lib_path.name} is not the library its record names")
    out = {}
    for line in lines[1:]:
        name, _, kinds = line.partition(" ")
        out[name] = tuple(kinds.split(",")) if kinds else ()
    return out


def _ret_text(t: CType | None) -> str:
    if t is None:
        return ""
    items = t.items if isinstance(t, TupleType) else (t,)
    return ",".join("bool" if it == BOOL else "int" for it in items)


class CKernelModule:
    """The kernel module with its entry points answered by the C library;
    every other name (constants such as PARAM_OFF) is the module's."""

    def __init__(self, module: ModuleType, lib: ctypes.CDLL, entries: dict[str, tuple],
                 rets: dict[str, tuple[str, ...]]):
        self._module = module
        self._lib = lib
        for name, types in entries.items():
            if name not in rets:
                raise CBuildError(f"the library has no entry {name}")
            setattr(self, name, _entry(getattr(lib, f"mcx_{name}"), name, types, rets[name]))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._module, name)


def _entry(fn: Any, name: str, types: tuple[CType, ...], kinds: tuple[str, ...]) -> Callable:
    argtypes: list[Any] = [ctypes.c_void_p]
    for t in types:
        argtypes.append(ctypes.c_void_p if isinstance(t, Array) else ctypes.c_int64)
        if isinstance(t, Array):
            argtypes.extend([ctypes.c_int64] * t.ndim)
    fn.argtypes = argtypes
    fn.restype = None
    checks = [(k, _NP_TYPES[t.elem.name], t.ndim) if isinstance(t, Array) else (k, None, 0)
              for k, t in enumerate(types)]
    nret = len(kinds)
    Ret = ctypes.c_int64 * max(1, nret)

    def call(*args: Any) -> Any:
        if len(args) != len(checks):
            raise TypeError(f"{name}: {len(args)} arguments, {len(checks)} expected")
        cargs: list[Any] = []
        for k, dtype, ndim in checks:
            a = args[k]
            if dtype is None:
                cargs.append(int(a))
                continue
            if not isinstance(a, np.ndarray) or a.dtype != dtype or a.ndim != ndim \
                    or not a.flags.c_contiguous:
                raise TypeError(f"{name}: argument {k} is {_describe(a)}, not a contiguous "
                                f"{np.dtype(dtype).name} array of rank {ndim}")
            cargs.append(a.ctypes.data)
            cargs.extend(a.shape)
        out = Ret()
        fn(out, *cargs)
        if nret == 0:
            return None
        vals = [bool(out[i]) if kinds[i] == "bool" else int(out[i]) for i in range(nret)]
        return vals[0] if nret == 1 else tuple(vals)

    return call


def _describe(a: Any) -> str:
    if isinstance(a, np.ndarray):
        layout = "contiguous" if a.flags.c_contiguous else "strided"
        return f"a {layout} {a.dtype.name} array of rank {a.ndim}"
    return type(a).__name__
