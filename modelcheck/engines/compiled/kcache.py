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
import sys
import tempfile
from pathlib import Path
from types import ModuleType

__all__ = ["default_cache_dir", "kernel_key", "load_kernel_module", "kernel_path"]

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


def load_kernel_module(source: str, cache_dir: str | os.PathLike | None) -> tuple[ModuleType, Path]:
    """Write (if new) and import the kernel module for ``source``."""
    key = kernel_key(source)
    name = f"modelcheck_kernels_{key}"
    path = kernel_path(cache_dir, key)
    loaded = sys.modules.get(name)
    if loaded is not None:
        return loaded, path
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".py")
        with os.fdopen(fd, "w") as f:
            f.write(source)
        os.replace(tmp, path)
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
    return module, path
