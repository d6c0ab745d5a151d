"""Replay a counterexample on the real system (docs/conformance.md).

Each step of the trace is done on the system when the driver drives its
action, and waited for otherwise; after each, the system is observed and the
observation set beside the trace's state (its projection).  A system that
runs ahead of the trace (it confirmed as it accepted) or lags behind it is
noted, not fatal: what counts is the end, where the real system shows the
trace's violation or does not.
"""
from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from modelcheck.conform.belief import Canon
from modelcheck.conform.driver import ConformError, Driver, DriverFailure
from modelcheck.conform.report import ReplayReport, StepLog
from modelcheck.errors import UsageError
from modelcheck.ir import nodes as ir
from modelcheck.trace.itf import open_itf, read_itf
from modelcheck.trace.replay import replay as replay_model
from modelcheck.trace.trace import Trace

__all__ = ["replay_trace", "load_for_trace", "recorded_consts"]


def recorded_consts(path: str | Path) -> dict[str, str]:
    """The consts a trace file records (``#meta.consts``), as ``-D`` text."""
    head, _states, _text = open_itf(path)
    meta = head.get("#meta") if isinstance(head, dict) else None
    consts = meta.get("consts") if isinstance(meta, dict) else None
    out: dict[str, str] = {}
    for name, value in (consts or {}).items():
        if isinstance(value, bool):
            out[name] = "true" if value else "false"
        elif isinstance(value, (int, str)):
            out[name] = str(value)
    return out


def load_for_trace(spec: str | Path, trace_path: str | Path,
                   defines: Mapping[str, str] | None = None) -> tuple[ir.Model, Trace]:
    """The spec with the consts the trace was found under (``defines`` take
    precedence), and the trace read with its types; raises UsageError when
    the trace is not a behaviour of that spec."""
    from modelcheck.api import load
    model = load(spec, {**recorded_consts(trace_path), **dict(defines or {})})
    trace = read_itf(trace_path, model)
    result = replay_model(model, trace)
    if not result.ok:
        raise UsageError(f"{trace_path} is not a behaviour of {model.name}: {result.reason}")
    return model, result.trace or trace


def replay_trace(model: ir.Model, trace: Trace, driver: Driver, *,
                 started: bool = False) -> ReplayReport:
    """Do ``trace`` on the real system; the driver is started (unless
    ``started``) and always stopped."""
    canon = Canon(model)
    raw: Mapping[str, Any] = {}
    log: list[StepLog] = []
    if not started:
        _call(driver.start, "start the system", model)
    try:
        projected = [canon.of(driver.project(step.state)) for step in trace.steps]
        for i, step in enumerate(trace.steps):
            expected = projected[i]
            driven = _driven(driver, step)
            if driven:
                _call(driver.perform, f"perform {step.label()}", step.action, dict(step.params))
            # The system's own steps up to the next driven one: a system
            # that already shows one of their states ran ahead of the trace
            # (it confirmed as it accepted), and is not waited for.
            ahead = []
            for j in range(i + 1, len(trace.steps)):
                if _driven(driver, trace.steps[j]):
                    break
                ahead.append(projected[j])
            raw, observed = _await(driver, canon, expected, ahead)
            agrees = observed == expected
            note = None if agrees else _difference(expected, observed)
            if not agrees and observed in ahead:
                note = f"the system ran ahead of the trace: {note}"
            elif not agrees and step.action is not None and not driven:
                note = f"waited {driver.settle_timeout_s:g} s for the system: {note}"
            log.append(StepLog(i, step.label(), driven, observed, expected, agrees, note))
    finally:
        driver.stop()
    return _verdict(model, trace, driver, log, raw)


def _driven(driver: Driver, step) -> bool:
    return step.action is not None and driver.drives(step.action) \
        and not driver.waits_for(step.action, dict(step.params))


def _call(fn, what: str, *args: Any) -> Any:
    try:
        return fn(*args)
    except DriverFailure as err:
        raise ConformError("MC7002", f"the driver could not {what}: {err}") from None


def _await(driver: Driver, canon: Canon, expected: dict[str, Any],
           ahead: list[dict[str, Any]] = ()) -> tuple[dict[str, Any], dict[str, Any]]:
    """Observe until the system shows ``expected`` (or one of the states
    ``ahead`` of it, seen twice in a row), bounded by the driver's settle
    timeout: the observation as the driver gave it, and as JSON."""
    deadline = time.monotonic() + driver.settle_timeout_s
    raw = _call(driver.observe, "observe the system")
    observed = canon.of(raw)
    previous = None
    while observed != expected and time.monotonic() < deadline:
        if observed in ahead and observed == previous:
            break
        previous = observed
        time.sleep(driver.settle_poll_s)
        raw = _call(driver.observe, "observe the system")
        observed = canon.of(raw)
    return raw, observed


def _difference(expected: Mapping[str, Any], observed: Mapping[str, Any]) -> str:
    parts = [f"{k}: trace {expected.get(k)!r}, real {observed.get(k)!r}"
             for k in sorted(set(expected) | set(observed)) if expected.get(k) != observed.get(k)]
    return "; ".join(parts)


def _verdict(model: ir.Model, trace: Trace, driver: Driver, log: list[StepLog],
             raw: Mapping[str, Any]) -> ReplayReport:
    prop = trace.property_name
    last = log[-1]
    judged = driver.holds(prop, raw) if prop is not None else None
    kind = next((p.kind for p in model.properties if p.name == prop), None)
    if kind is ir.PropertyKind.SOMETIMES and judged is not None:
        # A witness: the trace shows the predicate becoming true.
        if judged:
            return ReplayReport(model.name, prop, log, True,
                                f"the real system reaches {prop} at the end, as the witness does",
                                judged)
        return ReplayReport(model.name, prop, log, False,
                            f"the real system does not reach {prop} at the end", judged)
    if judged is False:
        return ReplayReport(model.name, prop, log, True,
                            f"the real system violates {prop} at the end, as the trace does",
                            judged)
    if judged is True:
        return ReplayReport(model.name, prop, log, False,
                            f"{prop} holds on the real system at the end", judged)
    if last.agrees:
        return ReplayReport(model.name, prop, log, True,
                            "the real system shows the trace's last state (as far as the driver "
                            "observes it); the driver cannot judge the property itself")
    return ReplayReport(model.name, prop, log, None,
                        "the real system does not show the trace's last state, and the driver "
                        "cannot judge the property itself")
