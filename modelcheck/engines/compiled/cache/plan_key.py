"""What a kernel is built from, and the kernel index's key of it: the
options that shape a kernel module, and the key the default engine reads
before any kernel is generated.  Light on purpose: the default engine asks
in every run that lasts past its probe (0.2 s), and importing the kernels'
module (numpy, the code generator) took longer than the answer."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from modelcheck.engines.base import CheckOptions
from modelcheck.engines.compiled.c.cache import c_compiler
from modelcheck.engines.compiled.cache.kcache import index_key
from modelcheck.ir import nodes as ir
from modelcheck.ir.digest import model_digest

__all__ = ["KernelOptions", "kernel_index_key", "kernel_indexed", "kernel_known_warm",
           "resolve_backend", "BACKEND_ENV", "BACKENDS"]


@dataclass(frozen=True)
class KernelOptions:
    """How to build and use a kernel module (``symmetry`` is applied at run time:
    the module is the same either way)."""
    symmetry: bool = True
    cache_dir: str | None = None
    dump_kernel: str | None = None
    jobs: int | None = None        # processes compiling a new kernel (None: one per core)
    timeout_s: float | None = None  # bounds a cold compile (the compiled engine passes --timeout)
    # Liveness predicates (closed state predicates): they add live_props and
    # the liveness search to the module (kernel/templates/live_driver.py).
    live_preds: tuple[ir.Expr, ...] = ()
    # The columns of live_preds a run checks (None: all).  Set at run time:
    # the others are not evaluated, as the reference never evaluates them.
    live_wanted: tuple[int, ...] | None = None
    # What turns the module into machine code: "numba", or "c" (the module
    # translated to C and built by the system's compiler: c/build.py).
    backend: str = field(default_factory=lambda: resolve_backend())

    @classmethod
    def from_check_options(cls, options: CheckOptions | None) -> "KernelOptions":
        if options is None:
            return cls()
        jobs = options.extra.get("compile_jobs")
        return cls(options.symmetry, options.cache_dir, options.dump_kernel,
                   None if jobs is None else int(jobs),
                   backend=resolve_backend(options.extra.get("kernel_backend")))


#: Chooses the kernels' backend where no option does: auto, c or numba.
BACKEND_ENV = "MODELCHECK_KERNEL_BACKEND"
BACKENDS = ("auto", "c", "numba")


def resolve_backend(requested: str | None = None) -> str:
    """"c" or "numba": the one asked for (the option, else $MODELCHECK_KERNEL_BACKEND),
    where "auto" (the default) is C when a C compiler is on the PATH: a
    Raft-sized kernel builds in 3 s with gcc, against 40-50 s with numba,
    and searches faster (docs/engines/compiled.md, "The C backend")."""
    choice = (requested or os.environ.get(BACKEND_ENV) or "auto").strip().lower()
    if choice not in BACKENDS:
        raise ValueError(f"unknown kernel backend {choice!r} (one of {', '.join(BACKENDS)})")
    if choice == "auto":
        return "c" if c_compiler() else "numba"
    return choice


class _Same:
    """Objects as a cache key by identity: a model compares by value, and
    hashing it would walk the whole IR.  The cache holds them, so their
    ids are not reused while they are in it."""
    __slots__ = ("objects",)

    def __init__(self, *objects: Any) -> None:
        self.objects = objects

    def __hash__(self) -> int:
        return hash(tuple(map(id, self.objects)))

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, _Same) and len(other.objects) == len(self.objects)
                and all(a is b for a, b in zip(self.objects, other.objects)))


@lru_cache(maxsize=8)
def _index_key_of(same: _Same) -> str:
    model, *preds = same.objects
    return index_key(model_digest(model, tuple(preds)))


def kernel_index_key(model: ir.Model, options: KernelOptions) -> str:
    """The kernel index's key of ``model`` (kcache.py, "the index"): what
    ``_KernelPlan.of`` reads, digested (once per model object: the default
    engine asks, then the compiled engine writes the entry)."""
    return _index_key_of(_Same(model, *options.live_preds))


def kernel_known_warm(model: ir.Model, options: KernelOptions) -> bool:
    """Whether an earlier run compiled and cached the kernel of ``model`` and
    noted it in the index: a look of milliseconds, which generates nothing
    (False where ``kernel_looks_warm`` would need the source to tell)."""
    from modelcheck.engines.compiled.cache.kcache import indexed_warm
    return indexed_warm(options.cache_dir, kernel_index_key(model, options), options.backend)


def kernel_indexed(model: ir.Model, options: KernelOptions) -> bool:
    """Whether the kernel index has an entry for ``model``, warm or not: its
    kernel was generated once, and the index now answers for it."""
    from modelcheck.engines.compiled.cache.kcache import indexed
    return indexed(options.cache_dir, kernel_index_key(model, options))
