"""SparkEngine: the level-synchronous, hash-partitioned search, on Spark when it pays.

The search starts in this process and moves to Spark when a level's frontier
reaches ``options.spark_threshold`` states (default 200,000); a spec whose
levels stay narrow never starts Spark.  ``spark_threshold=0`` runs every
level on Spark.  Results follow docs/design.md exactly like the reference
explorer's (the counts, verdicts and shortest trace lengths agree), with
64-bit fingerprints: the probability of a collision is reported.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from modelcheck.engines.base import (DEADLOCK, CheckOptions, CheckResult, NullReporter, settled_note,
                                     PropertyResult, Reporter, Stats, Status)
from modelcheck.evaluate.evaluator import Evaluator
from modelcheck.engines.reference.explorer import TRACE_CUT, Verdicts, select_properties
from modelcheck.engines.spark.checkpoint import (Hit, SearchState, model_digest, read_manifest,
                                                 read_parts)
from modelcheck.engines.spark.inprocess import InProcessLevels
from modelcheck.engines.spark.kernels import PropertyPlan, SearchKernels, plan_properties
from modelcheck.engines.spark.levels import LevelBackend, LevelSearch
from modelcheck.engines.spark.partition import Part, initial_candidates
from modelcheck.engines.spark.summary import level_notes, stats_extras
from modelcheck.engines.spark.walkback import (WalkBackError, replay_forward, successor_with,
                                               to_trace, walk_back)
from modelcheck.errors import EvalError, UsageError
from modelcheck.ir.nodes import Model, PropertyKind
from modelcheck.trace.trace import Trace

__all__ = ["SparkEngine", "KernelsFactory", "BackendFactory", "KernelsUnavailable"]

#: Builds the batch kernels of a model (the compiled engine's, by default).
KernelsFactory = Callable[[Model, CheckOptions, PropertyPlan], SearchKernels]
#: Takes over the search from the driver's parts once levels are wide
#: (Spark, by default; tests plug in an in-process stand-in).
BackendFactory = Callable[[SearchKernels, PropertyPlan, list[Part], CheckOptions], LevelBackend]


class KernelsUnavailable(Exception):
    """The model cannot be compiled to batch kernels (the message says why)."""


def _compiled_kernels(model: Model, options: CheckOptions, plan: PropertyPlan) -> SearchKernels:
    try:
        from modelcheck.engines.compiled.reps import Unsupported
        from modelcheck.engines.spark.compiled_adapter import compiled_kernels
    except ImportError as err:
        raise KernelsUnavailable(str(err) or "numba is not installed") from err
    try:
        return compiled_kernels(model, options, plan)
    except (Unsupported, ImportError) as err:
        raise KernelsUnavailable(str(err)) from err


class SparkEngine:
    """``modelcheck check SPEC --engine spark [--master URL] [--partitions N]``."""

    name = "spark"

    def __init__(self, kernels_factory: KernelsFactory | None = None,
                 backend_factory: BackendFactory | None = None):
        self.kernels_factory = kernels_factory or _compiled_kernels
        self.spark_backend_factory = backend_factory

    def check(self, model: Model, options: CheckOptions,
              reporter: Reporter | None = None) -> CheckResult:
        reporter = reporter if reporter is not None else NullReporter()
        _validate(options)
        props = select_properties(model, options)
        plan = plan_properties(props, constrained=bool(model.constraints))
        try:
            kernels = self.kernels_factory(model, options, plan)
        except KernelsUnavailable as err:
            return _fallback(model, options, reporter, str(err))
        digest = model_digest(model, options, kernels.words)
        run = _Run(model, options, reporter, kernels, plan, self.spark_backend_factory)
        try:
            return run.check(props, digest)
        finally:
            run.close()


def _fallback(model: Model, options: CheckOptions, reporter: Reporter, why: str) -> CheckResult:
    """The reference explorer's result, for a model the kernels cannot hold."""
    from modelcheck.engines.reference.engine import ReferenceEngine
    note = f"spark engine unavailable ({why}); using the reference explorer"
    reporter.note(note)
    result = ReferenceEngine().check(model, options, reporter)
    result.notes.insert(0, note)
    return result


def _evaluate_everything(evaluator: Evaluator, plan: PropertyPlan, state: tuple) -> None:
    """Everything the search evaluates at a state, in the reference's order:
    its constraints, its state properties, its successors, whether it is
    terminal, the step invariants on its steps.  Raises the first EvalError."""
    if plan.constrained and not evaluator.in_model(state):
        # checked, never expanded
        for prop in plan.state:
            evaluator.check_property(prop.name, state)
        return
    for prop in plan.state:
        evaluator.check_property(prop.name, state)
    transitions = list(evaluator.successors(state))
    if not transitions:
        evaluator.is_terminal(state)
    for t in transitions:
        for prop in plan.step:
            evaluator.check_property(prop.name, state, t.state)


def _initial_outside(hit: Hit) -> bool:
    """An initial state outside the model: its own parent (a 0-step trace)."""
    return hit.what == "outside" and hit.fps[0] == hit.fps[1]


def _validate(options: CheckOptions) -> None:
    if options.partitions is not None and options.partitions < 1:
        raise UsageError(f"--partitions must be at least 1, not {options.partitions}")
    if options.spark_threshold is not None and options.spark_threshold < 0:
        raise UsageError(f"the Spark threshold must be 0 or more, not {options.spark_threshold}")


class _Run:
    """One check: the search, then the traces, then the result."""

    def __init__(self, model: Model, options: CheckOptions, reporter: Reporter,
                 kernels: SearchKernels, plan: PropertyPlan,
                 backend_factory: BackendFactory | None):
        self.backend_factory = backend_factory
        self.model = model
        self.options = options
        self.reporter = reporter
        self.kernels = kernels
        self.plan = plan
        self.started = time.monotonic()
        self.backend: LevelBackend | None = None
        self.search: LevelSearch | None = None
        self.spark_info: dict[str, Any] = {}

    # ------------------------------------------------------------ Spark

    def to_spark(self, parts: list[Part]) -> LevelBackend:
        """The Spark backend (or the test stand-in) taking over ``parts``."""
        if self.backend_factory is not None:
            return self.backend_factory(self.kernels, self.plan, parts, self.options)
        from modelcheck.engines.spark.rdds import SparkPartitions
        sc, partitions = self._spark()
        return SparkPartitions.from_parts(sc, self.kernels, self.plan, parts, partitions,
                                          resident=self._resident(),
                                          exchange_to=self._exchange(),
                                          batching=self._batching())

    def _resident(self) -> bool | None:
        """Whether the executors keep resident copies of the seen set
        (``extra["spark_resident"]``; by default on with a local master
        only; off, every level's merge reads the cached runs)."""
        value = self.options.extra.get("spark_resident")
        return None if value is None else bool(value)

    def _batching(self) -> bool:
        """Whether levels may run in batches, one job each
        (``extra["spark_batch"]``, on by default; batch.py)."""
        return bool(self.options.extra.get("spark_batch", True))

    def _exchange(self) -> str | bool | None:
        """How a level hands its candidates to the next (``exchange.py``):
        ``extra["spark_exchange_dir"]``, a directory every executor and the
        driver can read (a shared filesystem: the opt-in on a cluster);
        ``extra["spark_exchange"]``, "files" or "shuffle" (the JVM's); by
        default the files in local mode, the shuffle on a cluster."""
        extra = self.options.extra
        directory = extra.get("spark_exchange_dir")
        mode = extra.get("spark_exchange")
        if mode not in (None, "files", "shuffle"):
            raise UsageError(f"spark_exchange must be 'files' or 'shuffle', not {mode!r}")
        if mode == "shuffle":
            return False
        if directory:
            return str(directory)
        return None if mode is None else True

    def _spark(self) -> tuple[Any, int]:
        """The process's SparkContext and the partition count."""
        from modelcheck.engines.spark.session import (conf_from_options, default_partitions,
                                                      java_version, spark_context)
        from pyspark import SparkContext
        if SparkContext._active_spark_context is None and java_version() is None:
            raise UsageError("the spark engine needs a Java runtime (17 or later): "
                             "`java` was not found",
                             hint="install a JDK 17+ and put `java` on PATH (or set JAVA_HOME), "
                                  "or use --engine compiled")
        sc, info = spark_context(self.options.master, self.options.verbose,
                                 conf_from_options(self.options.extra))
        partitions = self.options.partitions or default_partitions(info.default_parallelism,
                                                                   self.options.max_states)
        self.spark_info = {"master": info.master, "partitions": partitions}
        if info.log_file:
            self.spark_info["spark_log"] = info.log_file
        return sc, partitions

    # ------------------------------------------------------------ the check

    def check(self, props: list, digest: str) -> CheckResult:
        open_names = {p.name for p in props} | ({DEADLOCK} if self.options.deadlock else set())
        if self.options.resume_dir:
            state, self.backend = self._resume(digest)
            for name in state.hits:
                open_names.discard(name)
            search = self._search(state, digest, open_names)
        else:
            try:
                initial, generated = initial_candidates(self.kernels)
            except EvalError as err:
                return self._result(props, None, reason=None, error=err)
            self.backend = InProcessLevels(self.kernels, self.plan)
            search = self._search(SearchState(), digest, open_names)
            search.seed(self.backend.seed(initial), generated)
        if search.reason is None and search.failed is None:
            search.run()
        self.backend = search.backend
        if search.failed is not None:
            return self._result(props, search, reason=None, error=self._error(search))
        return self._result(props, search, reason=search.reason, error=None)

    def _search(self, state: SearchState, digest: str, open_names: set[str]) -> LevelSearch:
        assert self.backend is not None
        self.search = LevelSearch(self.backend, self.plan, self.options, self.reporter, state,
                                  digest, self.kernels.words, self.to_spark, open_names)
        return self.search

    def _resume(self, digest: str) -> tuple[SearchState, LevelBackend]:
        directory = self.options.resume_dir
        assert directory is not None
        manifest = read_manifest(directory, digest)
        if manifest.words != self.kernels.words:
            raise UsageError(f"the checkpoint in {directory!r} was written with another "
                             f"state layout ({manifest.words} words, now {self.kernels.words})")
        state = manifest.state
        on_spark = bool(state.levels) and state.levels[-1].where == "spark"
        threshold = self.options.spark_threshold
        backend: LevelBackend
        if (on_spark or threshold == 0) and self.backend_factory is None:
            # Read back by Spark's executors, under any partition count.
            from modelcheck.engines.spark.rdds import SparkPartitions
            sc, partitions = self._spark()
            backend = SparkPartitions.from_files(sc, self.kernels, self.plan, directory,
                                                 manifest.folder, list(manifest.files),
                                                 partitions, resident=self._resident(),
                                                 exchange_to=self._exchange(),
                                                 batching=self._batching())
        else:
            parts = read_parts(directory, manifest)
            if on_spark or threshold == 0:
                backend = self.to_spark(parts)
            else:
                backend = InProcessLevels.from_parts(self.kernels, self.plan, parts)
        self.reporter.note(f"resumed from the checkpoint at depth {state.depth} "
                           f"({state.distinct:,} distinct states) in {directory}")
        return state, backend

    # ------------------------------------------------------------ traces

    def _paths(self, search: LevelSearch, fps: list[int]) -> dict[int, list[int]]:
        return walk_back(search.backend.parents, sorted(set(fps)), search.state.depth + 1)

    def _traces(self, search: LevelSearch) -> dict[str, Trace]:
        hits = list(search.state.hits.values())
        if not hits:
            return {}
        paths = self._paths(search, [h.fps[0] for h in hits if not _initial_outside(h)])
        evaluator = Evaluator(self.model)
        return {h.name: self._trace(h, [h.fps[0]] if _initial_outside(h) else paths[h.fps[0]],
                                    evaluator) for h in hits}

    def _trace(self, hit: Hit, path: list[int], evaluator: Evaluator) -> Trace:
        steps = replay_forward(self.kernels, path)
        if hit.what == "step":
            column = hit.column
            kernels = self.kernels

            def violates(pre: Any, post: Any, action: int) -> bool:
                checked = kernels.step_props(pre[None, :], post[None, :],
                                             np.array([action], dtype=np.int32))
                return not len(checked.failed) and not bool(checked.values[0, column])

            steps.append(successor_with(self.kernels, steps[-1][1], hit.fps[1], violates))
        elif hit.what == "outside" and not _initial_outside(hit):
            # a state outside the model is not stored: the step from its parent
            steps.append(successor_with(self.kernels, steps[-1][1], hit.fps[1]))
        kind = "counterexample"
        if hit.what in ("state", "outside") and self.plan.state[hit.column].kind is PropertyKind.SOMETIMES:
            kind = "witness"
        return to_trace(self.kernels, evaluator, steps, kind, hit.name)

    def _error(self, search: LevelSearch) -> EvalError:
        """The run-time error at the failing state, as the reference evaluator
        raises it, with the trace to that state."""
        assert search.failed is not None
        fp, _ = search.failed
        steps = replay_forward(self.kernels, self._paths(search, [fp])[fp])
        evaluator = Evaluator(self.model)
        try:
            _evaluate_everything(evaluator, self.plan, self.kernels.decode(steps[-1][1]))
        except EvalError as err:
            err.trace = to_trace(self.kernels, evaluator, steps, "error", None)
            return err
        raise WalkBackError("the kernels report a run-time error in a state where the "
                            "reference evaluator finds none")

    # ------------------------------------------------------------ result

    def _result(self, props: list, search: LevelSearch | None, reason: str | None,
                error: EvalError | None) -> CheckResult:
        verdicts = Verdicts(props, self.options.deadlock)
        cut = False
        try:
            traces = self._traces(search) if search is not None else {}
        except KeyboardInterrupt:
            # Ctrl-C or SIGTERM while the traces were rebuilt: the finds
            # are not shown, so UNKNOWN, never the finished search's HOLDS
            traces, cut = {}, True
        for name, hit in (search.state.hits.items() if search is not None else ()):
            kind, status = self._verdict(hit)
            if name in traces:
                verdicts.settle(name, kind, status, traces[name])
            else:
                verdicts.leave_unknown(name, kind, TRACE_CUT)
        finished = search is not None and search.finished and error is None
        stop_reason = reason
        if error is not None:
            stop_reason = f"stopped by a run-time error ({error.diagnostic.code})"
        results: list[PropertyResult] = verdicts.results(finished, stop_reason)
        stats = self._stats(search)
        notes = list(getattr(self.kernels, "notes", []))
        if search is not None:
            notes += level_notes(search.state, self.spark_info, self.options,
                                 bool(getattr(self.kernels, "symmetric", False)))
            if search.settled_early and reason is None and error is None:
                notes.insert(0, settled_note(search.state.depth, search.state.distinct))
        if cut:
            notes.append("interrupted while traces were rebuilt: the properties found without "
                         "a trace are UNKNOWN")
        return CheckResult(self.model.name, "spark", results, stats, reason=reason,
                           error=error, notes=notes)

    def _verdict(self, hit: Hit) -> tuple[PropertyKind | None, Status]:
        if hit.what == "deadlock":
            return None, Status.VIOLATED
        if hit.what == "step":
            return PropertyKind.STEP, Status.VIOLATED
        kind = self.plan.state[hit.column].kind
        return kind, Status.HOLDS if kind is PropertyKind.SOMETIMES else Status.VIOLATED

    def _stats(self, search: LevelSearch | None) -> Stats:
        elapsed = time.monotonic() - self.started
        if search is None:
            return Stats(elapsed_s=elapsed)
        st = search.state
        counts = {a.name: 0 for a in self.model.actions}
        for action_id, n in enumerate(st.action_counts):
            counts[self.kernels.action_label(action_id)[0]] += n
        never = tuple(name for name, n in counts.items() if n == 0)
        extras = stats_extras(st, elapsed, self.spark_info)
        stats = getattr(search.backend, "resident_stats", None)
        if stats is not None:
            extras.update(stats())
        return Stats(distinct_states=st.distinct, generated_states=st.generated, depth=st.depth,
                     elapsed_s=elapsed, action_counts=counts, never_enabled=never, extras=extras)

    def close(self) -> None:
        """Release the parts (on Spark: unpersist the level), however the check ended."""
        backend = self.search.backend if self.search is not None else self.backend
        if backend is not None:
            backend.close()
        self.backend = self.search = None

