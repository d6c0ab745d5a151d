"""The executors' Python daemon (``spark.python.daemon.module``): PySpark's
own daemon, started after loading what every task of the engine needs.

PySpark's daemon forks one Python worker per concurrent task, and each
worker imported ``pyspark.worker``, numpy, numba, the engine's tasks and
the compiled engine's runtime (73 numba functions loaded from numba's
cache) on its first task: about 1 s of CPU a worker, before any state was
expanded, and most of the first Spark level's time on a narrow search
(docs/engines/spark.md, "The first level").  Loaded here, once, before the
daemon forks, every worker starts with them.

A pip-installed PySpark also puts its ``pyspark.zip`` first on the workers'
path; Python compiles a zip's modules from source on every import (it
cannot write their bytecode back), which cost the daemon and each worker
another 0.5 s.  When the same PySpark is installed on the rest of the path
(the same ``version.py``), the zips are dropped from ``sys.path`` and the
installed copy, with its cached bytecode, is imported instead.

Nothing here is required: a module that fails to load is left to the task
that needs it, where Spark reports the error as before.
"""
from __future__ import annotations

import gc
import importlib
import importlib.machinery
import os
import sys
import zipfile

__all__ = ["PRELOAD", "drop_shadowing_zips", "preload", "warm", "main"]

#: The modules every task of the engine imports, in the order they load.
PRELOAD = (
    "pyspark.worker",
    "numpy",
    "numba",
    "modelcheck.engines.spark.rdd_tasks",
    "modelcheck.engines.spark.compiled_adapter",
    "modelcheck.engines.compiled.kernels",
    "modelcheck.engines.compiled.kernel.runtime",
)


def _version_file(location: str, package: str) -> bytes | None:
    """The bytes of ``package/version.py`` under a path entry (a folder or a zip)."""
    try:
        if location.endswith(".zip"):
            with zipfile.ZipFile(location) as zf:
                return zf.read(f"{package}/version.py")
        with open(os.path.join(location, package, "version.py"), "rb") as f:
            return f.read()
    except (OSError, KeyError, zipfile.BadZipFile):
        return None


def drop_shadowing_zips(path: list[str],
                        packages: tuple[str, ...] = ("pyspark", "py4j")) -> list[str]:
    """``path`` without the zips whose package is installed, at the same
    version, on the rest of ``path``."""
    kept = list(path)
    for entry in path:
        if not entry.endswith(".zip"):
            continue
        for package in packages:
            inside = _version_file(entry, package)
            if inside is None:
                continue
            rest = [p for p in kept if p != entry]
            spec = importlib.machinery.PathFinder.find_spec(package, rest)
            if spec is None or not spec.submodule_search_locations:
                continue
            installed = os.path.dirname(list(spec.submodule_search_locations)[0])
            if _version_file(installed, package) == inside:
                kept = rest
    return kept


def preload(modules: tuple[str, ...] = PRELOAD) -> list[str]:
    """Import ``modules``; returns those that failed."""
    failed = []
    for name in modules:
        try:
            importlib.import_module(name)
        except Exception:          # left to the task that needs it (see the module's doc)
            failed.append(name)
    return failed


def warm(rows: object) -> None:
    """The task of the session's warm-up job (session.py): its worker, forked
    from the daemon, has loaded everything already."""


def main() -> None:
    sys.path[:] = drop_shadowing_zips(sys.path)
    preload()
    # What is loaded now lives as long as the daemon: out of the collector's
    # reach, a worker's collections neither walk it nor unshare its pages.
    gc.freeze()
    from pyspark.daemon import manager
    manager()


if __name__ == "__main__":
    main()
