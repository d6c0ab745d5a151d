"""Assertions on a check's result, for a spec's own tests (after stateright's
``assert_properties`` and ``assert_discovery``)::

    from modelcheck import assert_holds, assert_violated, check, load

    def test_die_hard():
        result = check(load("die_hard.mc"), engine="reference")
        assert_violated(result, "NotFour", steps=6)
        assert_holds(result, "deadlock")

Each raises AssertionError with what was expected and what the engine found:
the property's verdict, the reason when it is unknown, the trace's length,
its steps (``Init → Write(p=node1) → Crash(n=node1)``) and where its file is.
Each sets ``__tracebackhide__``, so that pytest points at the test's line,
not at the helper's ``raise``.  Each returns the PropertyResult it looked at
(``assert_holds`` with no name: None), so that a test can go on with its trace.
"""
from __future__ import annotations

from modelcheck.engines.base import CheckResult, PropertyResult, Status
from modelcheck.ir.nodes import PropertyKind
from modelcheck.trace.trace import Trace

__all__ = ["assert_holds", "assert_violated", "assert_reachable", "MAX_LABELS"]

#: A trace of more steps than this shows its first and last ones only: a
#: failure message is read in a terminal, not scrolled.
MAX_LABELS = 20


def assert_holds(result: CheckResult, name: str | None = None) -> PropertyResult | None:
    """The property ``name`` holds (a ``sometimes`` property: it is reachable);
    with no name, every property checked holds and the spec raised no
    run-time error (``result.ok``)."""
    __tracebackhide__ = True
    if name is None:
        if not result.ok:
            failing = [p for p in result.properties if p.status is not Status.HOLDS]
            lines = [f"{result.model_name}: expected every property to hold"]
            lines += [_found(p) for p in failing]
            lines += _error_lines(result) + _context(result, failing)
            raise AssertionError("\n".join(lines))
        return None
    prop = _property(result, name)
    if prop.status is not Status.HOLDS or result.error is not None:
        _fail(result, prop, "holds")
    return prop


def assert_violated(result: CheckResult, name: str, steps: int | None = None) -> PropertyResult:
    """The property ``name`` is violated, by a shortest counterexample of
    ``steps`` steps when ``steps`` is given (a ``sometimes`` property: the
    search finished and it is never reachable)."""
    __tracebackhide__ = True
    prop = _property(result, name)
    if prop.status is not Status.VIOLATED or (steps is not None and prop.steps != steps):
        _fail(result, prop, "violated" if steps is None else f"violated in {_steps(steps)}")
    return prop


def assert_reachable(result: CheckResult, name: str, steps: int | None = None) -> PropertyResult:
    """The ``sometimes`` property ``name`` has a witness: a trace to a state
    where it is true (of ``steps`` steps when given, the shortest there is)."""
    __tracebackhide__ = True
    prop = _property(result, name)
    if prop.kind is not PropertyKind.SOMETIMES:
        kind = prop.kind.value if prop.kind is not None else "the deadlock check"
        raise AssertionError(f"{result.model_name}: {name!r} is {_article(kind)}, not a "
                             f"'sometimes' property: use assert_holds or assert_violated")
    reached = prop.status is Status.HOLDS and prop.trace is not None
    if not reached or (steps is not None and prop.steps != steps):
        _fail(result, prop, "reachable" if steps is None else f"reachable in {_steps(steps)}")
    return prop


def _property(result: CheckResult, name: str) -> PropertyResult:
    __tracebackhide__ = True
    try:
        return result.get_property(name)
    except KeyError:
        from modelcheck.diagnostics import did_you_mean
        names = [p.name for p in result.properties]
        hint = did_you_mean(name, names)
        raise AssertionError(
            f"{result.model_name}: no property {name!r} was checked"
            + (f" ({hint})" if hint else "")
            + f"; checked: {', '.join(names) or 'none'}") from None


def _fail(result: CheckResult, prop: PropertyResult, expected: str) -> None:
    __tracebackhide__ = True
    lines = [f"{result.model_name}: property {prop.name!r}: expected {expected}, "
             f"found {_phrase(prop)}"]
    lines += _details(prop) + _error_lines(result) + _context(result, [prop])
    raise AssertionError("\n".join(lines))


def _found(prop: PropertyResult) -> str:
    return "\n".join([f"  {prop.name}: {_phrase(prop)}"] + ["  " + d for d in _details(prop)])


def _details(prop: PropertyResult) -> list[str]:
    lines = [f"  status: {prop.status.value}"]
    if prop.reason and prop.reason not in _phrase(prop):
        lines.append(f"  reason: {prop.reason}")
    if prop.trace is not None:
        where = (f"in {prop.trace_file}" if prop.trace_file else
                 "not written to a file (trace.save(path, model) writes one)")
        lines.append(f"  trace: {prop.trace.kind} of {_steps(len(prop.trace))}, {where}")
        lines.append(f"  steps: {_path_text(prop.trace)}")
    return lines


def _path_text(trace: Trace) -> str:
    """The trace's step labels joined by arrows, ``Init → Write(p=node1) →
    Crash(n=node1)``; a lasso ends with the step back into its cycle.  A
    trace longer than ``MAX_LABELS`` steps shows its first and last ones."""
    labels = [step.label() for step in trace.steps]
    if len(labels) > MAX_LABELS + 1:
        half = MAX_LABELS // 2
        labels = labels[:half] + [f"... ({len(labels) - 2 * half} more steps)"] + labels[-half:]
    if trace.loop is not None and trace.loop_back is not None:
        labels.append(f"{trace.loop_back.label()} ↻ back to state {trace.loop}")
    elif trace.loop is not None:
        labels.append(f"(state {trace.loop} stutters forever)")
    return " → ".join(labels)


def _error_lines(result: CheckResult) -> list[str]:
    if result.error is None:
        return []
    lines = [f"  run-time error: {result.error}"]
    trace = getattr(result.error, "trace", None)
    if trace is not None and trace.steps:
        lines.append(f"  steps to it: {_path_text(trace)}")
    return lines


def _context(result: CheckResult, shown: list[PropertyResult]) -> list[str]:
    lines = [f"  engine: {result.engine}"]
    if result.reason is not None and all(result.reason != p.reason for p in shown):
        lines.append(f"  search incomplete: {result.reason}")
    return lines


# The command line's words for a verdict, so that a failing test reads as
# `modelcheck check` prints.  Imported on use: importing modelcheck must not
# pay for the command line's rendering.
def _phrase(prop: PropertyResult) -> str:
    from modelcheck.cli.render import status_phrase
    return status_phrase(prop)


def _steps(n: int) -> str:
    from modelcheck.cli.render import steps_text
    return steps_text(n)


def _article(kind: str) -> str:
    if kind.startswith("the "):
        return kind
    return f"an {kind}" if kind[0] in "aeiou" else f"a {kind}"
