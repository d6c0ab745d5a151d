"""Assertions on a check's result, for a spec's own tests (after stateright's
``assert_properties`` and ``assert_discovery``)::

    from modelcheck import assert_holds, assert_violated, check, load

    def test_die_hard():
        result = check(load("die_hard.mc"), engine="reference")
        assert_violated(result, "NotFour", steps=6)
        assert_holds(result, "deadlock")

Each raises AssertionError with what was expected and what the engine found:
the property's verdict, the reason when it is unknown, the trace's length and
where its file is.  Each returns the PropertyResult it looked at (``assert_holds``
with no name: None), so that a test can go on with its trace.
"""
from __future__ import annotations

from modelcheck.engines.base import CheckResult, PropertyResult, Status
from modelcheck.ir.nodes import PropertyKind

__all__ = ["assert_holds", "assert_violated", "assert_reachable"]


def assert_holds(result: CheckResult, name: str | None = None) -> PropertyResult | None:
    """The property ``name`` holds (a ``sometimes`` property: it is reachable);
    with no name, every property checked holds and the spec raised no
    run-time error (``result.ok``)."""
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
    prop = _property(result, name)
    if prop.status is not Status.VIOLATED or (steps is not None and prop.steps != steps):
        _fail(result, prop, "violated" if steps is None else f"violated in {_steps(steps)}")
    return prop


def assert_reachable(result: CheckResult, name: str, steps: int | None = None) -> PropertyResult:
    """The ``sometimes`` property ``name`` has a witness: a trace to a state
    where it is true (of ``steps`` steps when given, the shortest there is)."""
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
    return lines


def _error_lines(result: CheckResult) -> list[str]:
    if result.error is None:
        return []
    return [f"  run-time error: {result.error}"]


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
