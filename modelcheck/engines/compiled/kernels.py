"""``compile_model``: a model's compiled kernels behind a batch API.

This is the stable interface the compiled engine's search and the Spark
engine use (documented in docs/engines/compiled.md)::

    kernels = compile_model(model, options)        # -> CompiledModel
    kernels.layout.words                           # W
    kernels.initial_states()                       # (n, W) uint64
    succ, parent, aid, fault = kernels.expand(batch)
    kernels.fingerprint(batch)                     # (n,) uint64
    kernels.check_state_properties(batch)          # (n, len(state_columns)) bool
    kernels.check_steps(pre, post, aid)            # (n, len(step_columns)) bool
    kernels.in_model(batch)                        # (n,) bool: satisfies the constraints
    kernels.decode(words); kernels.action_label(aid); kernels.canonicalize(batch)

A ``CompiledModel`` pickles as its IR and options and recompiles (from the
disk cache) when unpickled, so Spark executors can rebuild it.  One instance
holds scratch buffers: use it from one thread at a time.
"""
from __future__ import annotations

import itertools
import os
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from modelcheck.engines.base import CheckOptions
from modelcheck.engines.compiled.codegen.module import ActionInfo, generate
from modelcheck.engines.compiled.cache.kcache import (compile_deadline, load_kernel_module,
                                                record_index, source_digest)
from modelcheck.engines.compiled.cache.plan_key import (KernelOptions, kernel_index_key,
                                                  kernel_known_warm)
from modelcheck.engines.compiled.codegen.fold import Folder
from modelcheck.engines.capacities import with_capacities
from modelcheck.engines.compiled.codegen.layout import Layout
from modelcheck.engines.compiled.codegen.ranges import check_int64
from modelcheck.engines.compiled.reps import Unsupported
from modelcheck.engines.symmetry import usable_symmetric_types
from modelcheck.fsutil import write_atomic
from modelcheck.ir import nodes as ir
from modelcheck.ir.values import domain

__all__ = ["MAX_KERNEL_WORDS", "CompiledModel", "KernelOptions", "KernelFault", "KernelFaultError",
           "compile_model", "kernel_file", "kernel_index_key", "kernel_known_warm", "kernel_looks_warm"]

#: The most packed words per state the kernels are generated for.  The code
#: is unrolled per word: a set over 65,536 values (1,025 words) took 4 minutes
#: to compile, while the reference explorer answers such specs in a second.
MAX_KERNEL_WORDS = 64

_ERR_CODE_NAMES = {5001 + i: f"MC{5001 + i}" for i in range(6)}


@dataclass(frozen=True)
class KernelFault:
    """A run-time error a kernel hit: the MC5xxx code, the IR node, where
    (``phase``: 1 successors, 2 terminal check, 3 step property, 4 state
    property, 5 state constraint), the batch row, and for properties the column."""
    code: str
    node: Any
    phase: int
    row: int
    column: int | None = None
    successor: int | None = None
    action_id: int | None = None


class KernelFaultError(Exception):
    def __init__(self, fault: KernelFault):
        super().__init__(f"{fault.code} in phase {fault.phase} at row {fault.row}")
        self.fault = fault


def _with_capacities(model: ir.Model, preds: tuple[ir.Expr, ...]) -> tuple[ir.Expr, ...]:
    """The predicates as the kernels see them: with the capacities the
    model's sets were given (``model`` is already the rewritten one)."""
    if not preds:
        return ()
    holder = replace(model, properties=tuple(
        ir.Property(f"live{i}", ir.PropertyKind.INVARIANT, e) for i, e in enumerate(preds)))
    return tuple(p.expr for p in with_capacities(holder).properties)


@dataclass(frozen=True)
class _KernelPlan:
    """The generated kernel module of a model, before it is loaded."""
    layout: Layout
    live_preds: tuple[ir.Expr, ...]
    generated: Any
    notes: list[str]

    @classmethod
    def cached(cls, model: ir.Model, options: KernelOptions) -> "_KernelPlan":
        """``of``, loaded from the kernel cache when an earlier run made it
        for the same model (source positions included) and code (cache/kcache.py,
        "the index"); made and stored otherwise.  Loading takes a tenth of
        generating (0.3-0.8 s for the quorum queue).  Either way the index
        names the plan's kernel, so that a later run knows from the model
        alone whether that kernel is compiled."""
        from modelcheck.engines.compiled.cache.kcache import load_plan, store_plan
        key = kernel_index_key(model, options)
        plan = load_plan(options.cache_dir, key)
        if not isinstance(plan, cls):
            plan = cls.of(model, options)
            store_plan(options.cache_dir, key, plan)
        record_index(options.cache_dir, key, plan.generated.source)
        return plan

    @classmethod
    def of(cls, model: ir.Model, options: KernelOptions) -> "_KernelPlan":
        # The kernels are generated from the model with a static capacity on
        # every set over a large type (sparse layouts need one); the original
        # stays the model that traces and errors are replayed under.
        model = with_capacities(model)
        folder = Folder(model)
        check_int64(model, folder)
        layout = Layout.from_model(model)
        if layout.words > MAX_KERNEL_WORDS:
            raise Unsupported(f"states of {layout.words:,} words (at most "
                              f"{MAX_KERNEL_WORDS}): the kernel would take minutes to compile")
        # The symmetry code is generated whenever the spec allows it and
        # switched off at run time, so both settings share one cached module.
        symmetric, notes = usable_symmetric_types(model)
        live_preds = _with_capacities(model, options.live_preds)
        generated = generate(model, layout, symmetric, folder, live_preds)
        return cls(layout, live_preds, generated, notes)


def kernel_looks_warm(model: ir.Model, options: KernelOptions) -> bool:
    """Whether the kernel of ``model`` was compiled and cached by an earlier
    run (``kcache.looks_warm``): it generates the source but neither imports
    numba nor loads anything.  Raises ``reps.Unsupported`` as ``compile_model``
    would."""
    from modelcheck.engines.compiled.cache.kcache import looks_warm
    return looks_warm(_KernelPlan.cached(model, options).generated.source, options.cache_dir,
                      options.backend)


def kernel_file(model: ir.Model, options: KernelOptions) -> Path:
    """Where the kernel module of ``model`` is (or will be) cached; its
    ``.lock`` beside it is held while a process builds it.  Generates the
    source (or reads the plan) as ``kernel_looks_warm`` does."""
    from modelcheck.engines.compiled.cache.kcache import kernel_key, kernel_path
    return kernel_path(options.cache_dir, kernel_key(_KernelPlan.cached(model, options).generated.source))


def compile_model(model: ir.Model, options: CheckOptions | KernelOptions | None = None) -> "CompiledModel":
    """Generate, cache and load the kernels of ``model``.  Raises
    ``reps.Unsupported`` for a model the compiled engine cannot lay out and
    ImportError when numba is missing."""
    if not isinstance(options, KernelOptions):
        options = KernelOptions.from_check_options(options)
    return CompiledModel(model, options)


class CompiledModel:
    """A model's kernels; see the module docstring for the API."""

    def __init__(self, model: ir.Model, options: KernelOptions):
        start = time.perf_counter()
        self.deadline = None if options.timeout_s is None else time.monotonic() + options.timeout_s
        self.model = model
        self.options = options
        plan = _KernelPlan.cached(model, options)
        self.layout, self.live_preds, self.generated = plan.layout, plan.live_preds, plan.generated
        notes = plan.notes
        self.perm_types = list(self.generated.symmetric)
        self.symmetric = self.perm_types if options.symmetry else []
        self.notes: list[str] = notes if options.symmetry else []
        if options.dump_kernel:
            write_atomic(options.dump_kernel, self.generated.source)
        self.module, self.path = load_kernel_module(self.generated.source, options.cache_dir,
                                                    self.notes)
        self.py_module = self.module
        self.backend = "numba"
        self.codegen_s = time.perf_counter() - start
        self.actions: list[ActionInfo] = self.generated.actions
        self.state_columns: list[ir.Property] = self.generated.state_cols
        self.step_columns: list[ir.Property] = self.generated.step_cols
        self._bases = [a.base for a in self.actions]
        self._bindings = [list(itertools.product(*(domain(p.type) for p in a.params)))
                          for a in self.actions]
        # action instance id -> action index, for per-action counts
        self.action_of = np.zeros(max(1, self.generated.instances), dtype=np.int64)
        for k, a in enumerate(self.actions):
            self.action_of[a.base:a.base + a.count] = k
        w, n = self.layout.words, self.layout.slots
        self.U = np.zeros(max(1, n), dtype=np.int64)
        self.P = np.zeros(max(1, n), dtype=np.int64)
        self.V = np.zeros(max(1, n), dtype=np.int64)
        self.S = np.zeros(max(1, self.generated.scratch), dtype=np.int64)
        # The spec's flags: the source, and so the cached kernel, is the same
        # for every value; this run's values go in here (codegen/params.py).
        for at, value in self.generated.params:
            self.S[self.module.PARAM_OFF + at] = value
        wanted = options.live_wanted
        for q in range(len(self.live_preds)):
            self.S[self.module.LIVE_OFF + q] = int(wanted is None or q in wanted)
        self.err = np.zeros(8 + w, dtype=np.int64)
        self.buf = np.zeros((64, w), dtype=np.int64)
        self.bufaid = np.zeros(64, dtype=np.int32)
        self.cbuf = np.zeros((64, w), dtype=np.int64)     # canonical successors
        self.ckeys = np.zeros(64, dtype=np.int64)          # their table keys
        self.compile_s = 0.0
        self.warm_up()

    def __reduce__(self) -> Any:
        # An executor's rebuild is not bounded by the driver's --timeout.
        return (compile_model, (self.model, replace(self.options, timeout_s=None)))

    # ------------------------------------------------------------ compilation

    def _precompile(self) -> None:
        """On a first run, compile the actions and property checks (most of
        the code) in parallel processes."""
        from modelcheck.engines.compiled.cache.kcache import precompile
        workers = min(self.options.jobs or (os.cpu_count() or 1), len(self.actions) + 2)
        if workers < 2:
            return
        a1, a2 = "int64[::1]", "int64[:,::1]"
        act = f"({a2}, int64, {a1}, {a1}, {a1}, {a2}, int32[::1], int64, {a1})"
        lines = self.generated.lines_per_function
        jobs = [(f, act) for f in self.generated.action_functions]
        jobs.append(("state_props", f"({a1}, {a1}, {a1}, {a1}, {a1})"))
        jobs.append(("step_props", f"({a1}, {a1}, {a1}, {a1}, {a1}, {a1})"))
        jobs.sort(key=lambda job: -lines.get(job[0], 0))
        precompile(self.path, source_digest(self.generated.source), jobs, workers)

    def warm_up(self) -> None:
        """Compile (or load from the cache) every entry point now, so that
        compile time is measured apart from search time: the C library
        (options.backend "c", c/build.py), else numba's code.  Raises
        kcache.CompileTimeout when the time left runs out during a cold
        compile (a load from the cache takes moments; the search counts it)."""
        from modelcheck.engines.compiled.cache.kcache import compile_lock, is_warm, note_spec_warm
        # One process at a time looks at and compiles a kernel: another's
        # compile of it (a background one, say) is waited for, then loaded.
        with compile_lock(self.path, self.deadline):
            loaded = False
            if self.options.backend == "c":
                from modelcheck.engines.compiled.c.cache import c_library_built
                cold = not c_library_built(self.path)
                with compile_deadline(self.deadline if cold else None):
                    loaded = self._load_c()
            if not loaded:
                cold = not is_warm(self.path, self.notes)
                with compile_deadline(self.deadline if cold else None):
                    self._warm_up(cold)
        note_spec_warm(self.options.cache_dir, self.model.name)

    def _load_c(self) -> bool:
        """Build (or load) the module's C library (c/build.py) and call every
        entry point once; False, with a note, when the module cannot be
        translated or built, and numba compiles it instead."""
        from modelcheck.engines.compiled.c.build import CBuildError, load_c_kernel
        from modelcheck.engines.compiled.c.types import NotTranslatable
        start = time.perf_counter()
        try:
            self.module, _ = load_c_kernel(self.py_module, self.path, self.notes)
        except (NotTranslatable, CBuildError) as why:
            self.notes.append(f"C backend not used ({why}); compiling with numba")
            return False
        self.backend = "c"
        self._call_every_entry()
        self.compile_s = time.perf_counter() - start
        return True

    def _warm_up(self, cold: bool) -> None:
        from modelcheck.engines.compiled.cache.kcache import mark_warm
        start = time.perf_counter()
        if cold:
            self._precompile()
        self._call_every_entry()
        if cold:
            mark_warm(self.path)
        self.compile_s = time.perf_counter() - start

    def _call_every_entry(self) -> None:
        """Each entry point on empty input: numba compiles (or loads) them."""
        w = self.layout.words
        rows = np.zeros((0, w), dtype=np.int64)
        self.expand(rows)
        z = np.zeros(0, dtype=np.int64)
        self.expand_owned(rows, z, 0, (np.zeros(2, dtype=np.int64), z, rows, z, z,
                                       np.zeros(1, dtype=np.int64), np.zeros(2, dtype=np.int64)),
                          False)
        self.fingerprint(rows)
        self.check_state_properties(rows)
        self.check_steps(rows, rows, np.zeros(0, dtype=np.int32))
        self.canonicalize(rows)
        self.permute(rows, np.zeros((0, self.perm_slots), dtype=np.int64))
        self.terminal(rows)
        self.in_model(rows)
        self._warm_search(rows)

    def _warm_search(self, rows: np.ndarray) -> None:
        """Compile ``admit`` and ``explore_chunk`` with the argument types the
        search passes (an empty frontier does no work)."""
        from modelcheck.engines.compiled.kernel.table import FingerprintTable
        w = self.layout.words
        t = FingerprintTable(w, exact=False, capacity=64)
        i64 = np.zeros(max(1, len(self.state_columns) + len(self.step_columns) + 1),
                       dtype=np.int64)
        frows = np.zeros((len(i64), w), dtype=np.int64)
        crow = np.zeros(w, dtype=np.int64)
        opts = np.zeros(8, dtype=np.int64)
        self.module.admit(rows, 0, t.keys, t.tags, t.states, t.meta, rows, i64, i64,
                          i64, opts, i64, frows, self.U, self.S, self.V, crow, self.err, i64,
                          frows, i64)
        self.module.explore_chunk(rows, 0, 0, t.keys, t.tags, t.states, t.meta, rows, i64,
                                  i64, self.action_of, i64, i64, i64, opts, i64, frows, frows,
                                  i64, self.U, self.P, self.S, self.V, self.buf, self.bufaid,
                                  self.cbuf, self.ckeys, self.err, i64, i64, t.keys[:1].copy(),
                                  frows)
        if self.live_preds:
            self._warm_live(rows, t, i64, frows, crow, opts)
        # growing the table compiles the rebuild; finding parents, the tag scan
        t.grow()
        t.find_tag(1)

    def _warm_live(self, rows: np.ndarray, t: Any, i64: np.ndarray, frows: np.ndarray,
                   crow: np.ndarray, opts: np.ndarray) -> None:
        """Compile the liveness search's entry points (kernel/templates/live_driver.py)."""
        deg = np.zeros(1, dtype=np.uint32)
        lp = np.zeros((1, 1), dtype=np.uint8)
        masks = np.zeros((1, 1), dtype=np.uint8)
        dst = np.zeros(1, dtype=np.int32)
        self.module.live_admit(rows, 0, t.keys, t.tags, t.states, t.meta, rows, i64, i64, i64,
                               opts, i64, frows, self.U, self.S, self.V, crow, self.err, i64,
                               frows, i64, deg, lp)
        self.module.live_chunk(rows, 0, 0, 0, t.keys, t.tags, t.states, t.meta, rows, i64, i64,
                               self.action_of, i64, i64, i64, opts, i64, frows, frows, i64,
                               self.U, self.P, self.S, self.V, self.buf, self.bufaid, self.err,
                               i64, i64, deg, masks, lp, dst, masks, masks, i64)

    def grow_buffer(self) -> None:
        """Double the per-state successor buffers (a state had more successors)."""
        n = self.buf.shape[0] * 2
        self.buf = np.zeros((n, self.layout.words), dtype=np.int64)
        self.bufaid = np.zeros(n, dtype=np.int32)
        self.cbuf = np.zeros((n, self.layout.words), dtype=np.int64)
        self.ckeys = np.zeros(n, dtype=np.int64)

    # ------------------------------------------------------------ batch API

    def _rows(self, batch: np.ndarray) -> np.ndarray:
        rows = np.ascontiguousarray(batch)
        if rows.ndim == 1:
            rows = rows.reshape(1, -1)
        return rows.view(np.int64)

    def initial_states(self) -> np.ndarray:
        """The initial states, packed, in the reference order (a run-time error
        in an initial value raises the reference evaluator's EvalError)."""
        from modelcheck.evaluate.evaluator import Evaluator
        states = Evaluator(self.model).initial_states()
        out = np.zeros((len(states), self.layout.words), dtype=np.uint64)
        for i, s in enumerate(states):
            out[i] = self.layout.pack(s)
        return out

    def fault(self, phase: int, row: int) -> KernelFault:
        code = _ERR_CODE_NAMES.get(int(self.err[0]), f"MC{int(self.err[0])}")
        node = self.generated.nodes.nodes[int(self.err[1])]
        column = int(self.err[2]) if phase in (3, 4) else None
        return KernelFault(code, node, phase, row, column)

    def expand(self, batch: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, KernelFault | None]:
        """Every successor of every row: (succ (m, W) uint64, parent (m,) int64
        row in batch, action_id (m,) int32, fault).  On a run-time error the
        arrays hold the successors of the rows before the faulting one."""
        rows = self._rows(batch)
        cap = max(16, rows.shape[0] * 8)
        succ = np.zeros((cap, self.layout.words), dtype=np.int64)
        parent = np.zeros(cap, dtype=np.int64)
        aid = np.zeros(cap, dtype=np.int32)
        start, m = 0, 0
        while True:
            status, start, m = self.module.expand_batch(
                rows, start, succ, parent, aid, self.U, self.P, self.S, self.buf, self.bufaid,
                self.err, m)
            if status == 0:
                return succ[:m].view(np.uint64), parent[:m], aid[:m], None
            if status == 2:
                cap *= 2
                succ = np.resize(succ, (cap, self.layout.words))
                parent, aid = np.resize(parent, cap), np.resize(aid, cap)
            elif status == 3:
                self.grow_buffer()
            else:
                fault = self.fault(1, int(start))
                return succ[:m].view(np.uint64), parent[:m], aid[:m], fault

    def expand_owned(self, rows: np.ndarray, rows_fp: np.ndarray, start: int,
                     work: tuple[np.ndarray, ...], symmetric: bool
                     ) -> tuple[int, int, KernelFault | None]:
        """One call of the kernels' ``expand_owned`` (kernel/templates/driver.py:
        the successors of ``rows[start:]`` without duplicates) over ``work``
        (table, slots, out, out_fp, nsucc, acts, ctr: int64 arrays the caller
        keeps across calls), the successor buffers grown as needed.  (status,
        row reached, fault): 0 done, 2 ``out`` is full, 4 a fault at the row
        reached."""
        r = self._rows(rows)
        fp = np.ascontiguousarray(rows_fp).view(np.int64)
        opts = np.array([int(symmetric)], dtype=np.int64)
        while True:
            status, reached = self.module.expand_owned(
                r, fp, start, *work, opts, self.U, self.P, self.S, self.V, self.buf,
                self.bufaid, self.cbuf, self.ckeys, self.err)
            if status != 3:
                return status, reached, (self.fault(1, reached) if status == 4 else None)
            self.grow_buffer()
            start = reached

    def fingerprint(self, batch: np.ndarray) -> np.ndarray:
        rows = self._rows(batch)
        out = np.zeros(rows.shape[0], dtype=np.int64)
        from modelcheck.engines.compiled.kernel.runtime import fingerprint_rows
        fingerprint_rows(rows, out)
        return out.view(np.uint64)

    def check_state_properties(self, batch: np.ndarray, want: np.ndarray | None = None) -> np.ndarray:
        """(n, len(state_columns)) booleans: invariants, then sometimes, then
        terminals (``state_columns`` names them).  Raises KernelFaultError."""
        rows = self._rows(batch)
        ncol = len(self.state_columns)
        flags = np.zeros((rows.shape[0], max(1, ncol)), dtype=np.int64)
        want = np.ones(max(1, ncol), dtype=np.int64) if want is None else want
        if ncol == 0:
            return np.zeros((rows.shape[0], 0), dtype=bool)
        r = self.module.props_batch(rows, self.U, self.S, self.err, want, flags)
        if r < 0:
            raise KernelFaultError(self.fault(4, -1 - int(r)))
        return flags[:, :ncol] != 0

    def terminal(self, batch: np.ndarray) -> np.ndarray:
        """Whether each row satisfies some terminal declaration."""
        rows = self._rows(batch)
        out = np.zeros(rows.shape[0], dtype=np.int64)
        r = self.module.terminal_batch(rows, self.U, self.S, self.err, out)
        if r < 0:
            raise KernelFaultError(self.fault(2, -1 - int(r)))
        return out != 0

    def in_model(self, batch: np.ndarray) -> np.ndarray:
        """Whether each row satisfies every state constraint (TLC's
        isInModel).  Raises KernelFaultError (phase 5)."""
        rows = self._rows(batch)
        out = np.zeros(rows.shape[0], dtype=np.int64)
        r = self.module.constraints_batch(rows, self.U, self.S, self.err, out)
        if r < 0:
            raise KernelFaultError(self.fault(5, -1 - int(r)))
        return out != 0

    def check_steps(self, pre: np.ndarray, post: np.ndarray, action_id: np.ndarray) -> np.ndarray:
        """(n, len(step_columns)) booleans for the steps pre[i] -> post[i]
        (``action_id`` is accepted for symmetry with ``expand``; step
        invariants read only the two states).  Raises KernelFaultError."""
        a, b = self._rows(pre), self._rows(post)
        ncol = len(self.step_columns)
        flags = np.zeros((a.shape[0], max(1, ncol)), dtype=np.int64)
        if ncol == 0:
            return np.zeros((a.shape[0], 0), dtype=bool)
        want = np.ones(ncol, dtype=np.int64)
        r = self.module.steps_batch(a, b, self.U, self.V, self.S, self.err, want, flags)
        if r < 0:
            raise KernelFaultError(self.fault(3, -1 - int(r)))
        return flags[:, :ncol] != 0

    def canonicalize(self, batch: np.ndarray) -> np.ndarray:
        """Each row's symmetry representative (the row itself without symmetry)."""
        return self.canonicalize_with_perms(batch)[0]

    @property
    def inexact_states(self) -> int:
        """How many canonicalisations so far had more tied orderings than
        the generated code tries (gen_symmetry.TIE_LIMIT): their states may
        share an orbit with another stored state."""
        return int(self.S[self.module.INEXACT_OFF]) if self.perm_types else 0

    @property
    def perm_slots(self) -> int:
        """Length of a permutation record: each symmetric type's members, in turn."""
        return int(self.module.NPERM)

    def canonicalize_with_perms(self, batch: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(representatives, permutations): ``permute(row, perm) == representative``.
        A permutation maps each member's index to its new index, one run of
        indices per symmetric type (``perm_slots`` in all)."""
        rows = self._rows(batch)
        out = np.zeros_like(rows)
        perms = np.zeros((rows.shape[0], self.perm_slots), dtype=np.int64)
        self.module.canon_batch(rows, out, perms, self.U, self.S, bool(self.symmetric))
        return out.view(np.uint64), perms

    def permute(self, batch: np.ndarray, perms: np.ndarray) -> np.ndarray:
        """Each row with the members of each symmetric type renamed."""
        rows = self._rows(batch)
        out = np.zeros_like(rows)
        p = np.ascontiguousarray(perms, dtype=np.int64).reshape(rows.shape[0], self.perm_slots)
        self.module.permute_batch(rows, p, out, self.U, self.S)
        return out.view(np.uint64)

    def compose(self, outer: np.ndarray, inner: np.ndarray) -> np.ndarray:
        """The permutation ``outer`` after ``inner``, type by type."""
        out = np.empty_like(inner)
        start = 0
        for t in self.perm_types:
            m = len(t.members)
            out[start:start + m] = outer[start:start + m][inner[start:start + m]]
            start += m
        return out

    def invert(self, perm: np.ndarray) -> np.ndarray:
        out = np.empty_like(perm)
        start = 0
        for t in self.perm_types:
            m = len(t.members)
            out[start + perm[start:start + m]] = np.arange(m)
            start += m
        return out

    def decode(self, words: np.ndarray) -> tuple[Any, ...]:
        return self.layout.unpack(words)

    def decode_dict(self, words: np.ndarray) -> dict[str, Any]:
        return self.layout.to_dict(self.layout.unpack(words))

    def action_label(self, action_id: int) -> tuple[str, tuple[tuple[str, Any], ...]]:
        """(action name, ((parameter, value), ...)) of an action instance id."""
        import bisect
        k = bisect.bisect_right(self._bases, int(action_id)) - 1
        a = self.actions[k]
        binding = self._bindings[k][int(action_id) - a.base]
        return a.name, tuple((p.name, v) for p, v in zip(a.params, binding))

    @property
    def instances(self) -> int:
        return self.generated.instances
