"""The on-disk kernel cache.

A kernel module is keyed by a hash of its generated source (which is a pure
function of the IR, the options that shape it and ``CODEGEN_VERSION``), the
source of the runtime modules it imports, and the numba and Python versions.
It is written once to ``<cache>/kernels/mc_<key>.py`` (atomically, so
concurrent processes agree) and never rewritten, so numba's own cache
(``cache=True``, in ``__pycache__`` beside it, keyed by the file's timestamp)
stays valid: a second run of the same spec loads machine code instead of
compiling it.
"""
from __future__ import annotations

import hashlib
import importlib.util
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType

__all__ = ["default_cache_dir", "kernel_key", "load_kernel_module", "kernel_path", "is_warm",
           "mark_warm", "precompile", "import_kernel_file", "module_name"]

_RUNTIME_FILES = ("runtime.py", "table.py", "driver.py")


def default_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/modelcheck`` or ``~/.cache/modelcheck``."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "modelcheck"


def kernel_key(source: str) -> str:
    import numba
    h = hashlib.sha256()
    h.update(source.encode())
    here = Path(__file__).parent
    for name in _RUNTIME_FILES:
        h.update((here / name).read_bytes())
    h.update(f"numba {numba.__version__} python {sys.version_info[:3]}".encode())
    return h.hexdigest()[:32]


def kernel_path(cache_dir: str | os.PathLike | None, key: str) -> Path:
    root = Path(cache_dir) if cache_dir else default_cache_dir()
    return root / "kernels" / f"mc_{key}.py"


def module_name(path: Path) -> str:
    return f"modelcheck_kernels_{path.stem[len('mc_'):]}"


def import_kernel_file(path: Path) -> ModuleType:
    """Import the kernel module file at ``path`` (once per process)."""
    name = module_name(path)
    module = sys.modules.get(name)
    if module is not None:
        return module
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    # Registered before running so numba can find the module of its functions.
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def load_kernel_module(source: str, cache_dir: str | os.PathLike | None) -> tuple[ModuleType, Path]:
    """Write (if new) and import the kernel module for ``source``."""
    key = kernel_key(source)
    path = kernel_path(cache_dir, key)
    name = module_name(path)
    loaded = sys.modules.get(name)
    if loaded is not None:
        return loaded, path
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".py")
        with os.fdopen(fd, "w") as f:
            f.write(source)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    return import_kernel_file(path), path


def _warm_marker(path: Path) -> Path:
    return path.with_suffix(".warm")


def is_warm(path: Path) -> bool:
    """Whether every entry point of the module at ``path`` was compiled (and
    so is in numba's cache) by an earlier run."""
    return _warm_marker(path).exists()


def mark_warm(path: Path) -> None:
    _warm_marker(path).touch()


def precompile(path: Path, jobs: list[tuple[str, str]], workers: int) -> None:
    """Compile the functions ``jobs`` ((name, numba signature), largest first)
    of the kernel module at ``path`` in ``workers`` processes; each fills
    numba's disk cache, from which this process then loads them.  numba
    compiles one function on one core, so a kernel with many actions compiles
    several times faster this way.  The workers are plain ``python -m``
    processes (not multiprocessing), so a caller's own script is never
    re-imported.  A worker that fails only costs time: whatever it did not
    compile is compiled here afterwards."""
    shares: list[list[str]] = [[] for _ in range(workers)]
    for i, (func, signature) in enumerate(jobs):
        shares[i % workers].append(f"{func}={signature}")
    procs = [subprocess.Popen([sys.executable, "-m", "modelcheck.engines.compiled.precompile",
                               str(path), *share],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
             for share in shares if share]
    try:
        for proc in procs:
            proc.wait()
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
