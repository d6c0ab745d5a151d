"""``CompiledEngine``: the fast default engine (numba kernels, fingerprint table).

Falls back to the reference explorer, with a one-line note, when numba is
missing or the spec has a type the compiled layout cannot hold.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from modelcheck.engines.base import CheckOptions, CheckResult, NullReporter, Reporter, Stats
from modelcheck.errors import UsageError
from modelcheck.ir.nodes import Model

if TYPE_CHECKING:
    from modelcheck.engines.compiled.cache.kcache import CompileTimeout
    from modelcheck.engines.compiled.kernels import CompiledModel

__all__ = ["CompiledEngine", "RunPlan", "available", "plan_run"]


def _numba_missing() -> str | None:
    """Why numba cannot be used, or None."""
    try:
        import numba  # noqa: F401
    except ImportError as err:
        return str(err) or "numba is not installed"
    return None


def available() -> tuple[bool, str | None]:
    """Whether numba is installed, and if not why: found, not imported
    (importing numba takes about a second, which a run that ends on the
    reference explorer should not pay).  ``modelcheck.api.default_engine`` asks."""
    import importlib.util
    try:
        found = importlib.util.find_spec("numba") is not None
    except (ImportError, ValueError) as err:
        return False, str(err) or "numba cannot be imported"
    return (True, None) if found else (False, "numba is not installed")


def _fallback(model: Model, options: CheckOptions, reporter: Reporter, why: str) -> CheckResult:
    from modelcheck.engines.reference.engine import ReferenceEngine
    note = f"compiled engine unavailable ({why}); using the reference explorer"
    reporter.note(note)
    result = ReferenceEngine().check(model, options, reporter)
    result.notes.insert(0, note)
    return result


def _compile_timed_out(model: Model, options: CheckOptions,
                       timeout: "CompileTimeout") -> CheckResult:
    """Every verdict UNKNOWN: no state was explored."""
    from modelcheck.engines.reference.explorer import Verdicts, select_properties
    reason = str(timeout)
    verdicts = Verdicts(select_properties(model, options), options.deadlock)
    return CheckResult(model.name, "compiled", verdicts.results(False, reason),
                       Stats(extras={"compile_s": round(timeout.elapsed_s, 3)}),
                       reason=reason)


def _why(err: OSError) -> str:
    text = err.strerror or str(err)
    return f"{text}: {err.filename}" if err.filename else text


def _compile_somewhere(model: Model, kernel_options: Any) -> "CompiledModel":
    """``compile_model``, and where the kernel cache cannot be written (a
    full disk, a read-only home), the same in a folder of this process's
    own, with a note; an OSError there too is the caller's."""
    from modelcheck.engines.compiled.cache.kcache import kernel_path
    from modelcheck.engines.compiled.kernels import compile_model
    try:
        return compile_model(model, kernel_options)
    except OSError as err:
        failed = err
    where = kernel_path(kernel_options.cache_dir, "0").parent
    spare = _spare_cache()
    if kernel_options.cache_dir == spare:
        raise failed
    kernels = compile_model(model, replace(kernel_options, cache_dir=spare))
    # A new list: the one there may be the cached plan's, shared with later runs.
    kernels.notes = [f"kernel cache: {where} cannot be written ({_why(failed)}); the kernel "
                     f"was built in {spare}, which goes when this run ends", *kernels.notes]
    return kernels


_SPARE: list[str] = []


def _spare_cache() -> str:
    """A kernel cache folder of this process's own, removed at its exit."""
    if not _SPARE:
        import atexit
        import shutil
        import tempfile
        folder = tempfile.mkdtemp(prefix="modelcheck-kernels-")
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        _SPARE.append(folder)
    return _SPARE[0]


class _Liveness:
    """How a run with liveness checks goes: the graph-recording search
    (liveness/graph.py), or, when checkpoints are asked for, the safety
    search with every liveness property UNKNOWN."""

    #: The most fairness conditions a graph holds (a byte per 8 per edge).
    MAX_CONDITIONS = 1024
    #: Up to this many property bindings in the spec, the kernel evaluates
    #: the predicates of all of them (a bit a state each), checked or not.
    SHARED_CHECKS = 64

    def __init__(self, model: Model, options: CheckOptions, checks: list) -> None:
        from modelcheck.evaluate.evaluator import Evaluator
        from modelcheck.evaluate.temporal import fair_conditions, liveness_checks, predicate_columns
        self.checks = checks
        self.search = not (options.checkpoint_dir or options.resume_dir)
        evaluator = Evaluator(model)
        self.conditions = fair_conditions(model, lambda e, env: evaluator.eval(e, (), env))
        # Every liveness property's predicates, up to a point: the rows that
        # check different liveness properties of one spec share a kernel.
        universe = liveness_checks(model.temporals)
        preds, self.columns = predicate_columns(
            checks, universe if len(universe) <= self.SHARED_CHECKS else [])
        self.preds = tuple(preds)
        self.wanted = tuple(sorted({c for pair in self.columns for c in pair if c >= 0}))
        self.unsupported = None
        if len(self.conditions) > self.MAX_CONDITIONS:
            self.unsupported = (f"{len(self.conditions):,} fairness conditions (the liveness "
                                f"graph holds at most {self.MAX_CONDITIONS:,})")

    def run(self, kernels: "CompiledModel", options: CheckOptions,
            reporter: Reporter) -> CheckResult:
        from modelcheck.engines.compiled.liveness.graph import LivenessSearch, unknown_results
        from modelcheck.engines.compiled.search.parallel import make_search
        from modelcheck.engines.liveness_scope import SYMMETRY_OFF_NOTE
        if not self.search:
            result = make_search(kernels, options, reporter).run()
            result.properties.extend(unknown_results(
                self.checks, "checkpoint and resume are not supported for liveness properties "
                             "(run without --checkpoint/--resume to check them)"))
            return result
        result = LivenessSearch(kernels, options, reporter, self.checks, self.conditions,
                                self.columns).run()
        if kernels.model.symmetric_types:
            reporter.note(SYMMETRY_OFF_NOTE)
            result.notes.append(SYMMETRY_OFF_NOTE)
        return result


@dataclass
class RunPlan:
    """How the compiled engine would run ``model``: the kernel it needs
    (``kernel_options``), the options its search takes, the liveness run, or
    why it hands the spec to the reference explorer (``fallback``).  The
    default engine (engines/auto.py) builds the same kernel in the background."""
    options: CheckOptions
    kernel_options: Any = None
    live: _Liveness | None = None
    fallback: str | None = None


def plan_run(model: Model, options: CheckOptions) -> RunPlan:
    """The compiled engine's plan for ``model`` (nothing is compiled)."""
    if options.simulate:
        return RunPlan(options, fallback="random simulation is the reference engine's")
    from modelcheck.engines.compiled.cache.plan_key import KernelOptions
    from modelcheck.engines.liveness_scope import selected_temporals
    from modelcheck.evaluate.temporal import liveness_checks
    checks = liveness_checks(selected_temporals(model, options))
    live = _Liveness(model, options, checks) if checks else None
    if live is not None and live.unsupported:
        return RunPlan(options, fallback=live.unsupported)
    # The compile counts against --timeout here only: the Spark engine
    # builds the same kernels under its own limits.
    kernel_options = replace(KernelOptions.from_check_options(options),
                             timeout_s=options.timeout_s)
    if live is not None and live.search:
        options = replace(options, symmetry=False)
        kernel_options = replace(kernel_options, symmetry=False, live_preds=live.preds,
                                 live_wanted=live.wanted)
    return RunPlan(options, kernel_options, live)


def _check_width(options: CheckOptions) -> None:
    """A width the table does not offer is the caller's mistake, said before
    anything is compiled (the CLI says it the same way: cli/options.py)."""
    from modelcheck.engines.compiled.kernel.widths import bits_error
    if bits_error(options.fingerprint_bits):
        raise UsageError(f"fingerprint_bits {options.fingerprint_bits!r}: not a fingerprint "
                         f"width", hint="use 64, 96 or 128")


class CompiledEngine:
    """Breadth-first search over packed states with numba-compiled actions."""

    name = "compiled"

    def check(self, model: Model, options: CheckOptions | None = None,
              reporter: Reporter | None = None) -> CheckResult:
        options = options if options is not None else CheckOptions()
        reporter = reporter if reporter is not None else NullReporter()
        _check_width(options)
        missing = _numba_missing()
        if missing is not None:
            return _fallback(model, options, reporter, missing)
        plan = plan_run(model, options)
        if plan.fallback is not None:
            return _fallback(model, options, reporter, plan.fallback)
        # Imported here (numpy, numba): the default engine imports this
        # module for a search that may end on the reference explorer.
        from modelcheck.engines.compiled.cache.kcache import CompileTimeout
        from modelcheck.engines.compiled.reps import Unsupported
        from modelcheck.engines.compiled.search.parallel import make_search
        options, live = plan.options, plan.live
        try:
            kernels = _compile_somewhere(model, plan.kernel_options)
        except Unsupported as err:
            return _fallback(model, options, reporter, str(err))
        except CompileTimeout as timeout:
            return _compile_timed_out(model, options, timeout)
        except OSError as err:
            return _fallback(model, options, reporter,
                             f"the kernel could not be built: {_why(err)}")
        for note in kernels.notes:
            reporter.note(note)
        if live is None:
            return make_search(kernels, options, reporter).run()
        return live.run(kernels, options, reporter)
