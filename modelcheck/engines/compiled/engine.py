"""``CompiledEngine``: the fast default engine (numba kernels, fingerprint table).

Falls back to the reference explorer, with a one-line note, when numba is
missing or the spec has a type the compiled layout cannot hold.
"""
from __future__ import annotations

from dataclasses import replace

from modelcheck.engines.base import CheckOptions, CheckResult, NullReporter, Reporter, Stats
from modelcheck.engines.compiled.kcache import CompileTimeout
from modelcheck.engines.compiled.reps import Unsupported
from modelcheck.ir.nodes import Model

__all__ = ["CompiledEngine"]


def _numba_missing() -> str | None:
    """Why numba cannot be used, or None."""
    try:
        import numba  # noqa: F401
    except ImportError as err:
        return str(err) or "numba is not installed"
    return None


def _fallback(model: Model, options: CheckOptions, reporter: Reporter, why: str) -> CheckResult:
    from modelcheck.engines.reference.engine import ReferenceEngine
    note = f"compiled engine unavailable ({why}); using the reference explorer"
    reporter.note(note)
    result = ReferenceEngine().check(model, options, reporter)
    result.notes.insert(0, note)
    return result


def _compile_timed_out(model: Model, options: CheckOptions, timeout: CompileTimeout) -> CheckResult:
    """Every verdict UNKNOWN: no state was explored."""
    from modelcheck.engines.reference.explorer import Verdicts, select_properties
    reason = str(timeout)
    verdicts = Verdicts(select_properties(model, options), options.deadlock)
    return CheckResult(model.name, "compiled", verdicts.results(False, reason),
                       Stats(extras={"compile_s": round(timeout.elapsed_s, 3)}),
                       reason=reason)


class CompiledEngine:
    """Breadth-first search over packed states with numba-compiled actions."""

    name = "compiled"

    def check(self, model: Model, options: CheckOptions | None = None,
              reporter: Reporter | None = None) -> CheckResult:
        options = options if options is not None else CheckOptions()
        reporter = reporter if reporter is not None else NullReporter()
        if options.simulate:
            return _fallback(model, options, reporter, "random simulation is the reference "
                                                       "engine's")
        missing = _numba_missing()
        if missing is not None:
            return _fallback(model, options, reporter, missing)
        from modelcheck.engines.compiled.kernels import KernelOptions, compile_model
        from modelcheck.engines.compiled.search import CompiledSearch
        # The compile counts against --timeout here only: the Spark engine
        # builds the same kernels under its own limits.
        kernel_options = replace(KernelOptions.from_check_options(options),
                                 timeout_s=options.timeout_s)
        try:
            kernels = compile_model(model, kernel_options)
        except Unsupported as err:
            return _fallback(model, options, reporter, str(err))
        except CompileTimeout as timeout:
            return _compile_timed_out(model, options, timeout)
        for note in kernels.notes:
            reporter.note(note)
        return CompiledSearch(kernels, options, reporter).run()
