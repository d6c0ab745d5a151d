"""Random walks of a spec on the real system (docs/conformance.md).

Each walk starts the system, then repeatedly picks, with a seeded random
choice, a driven action instance enabled in every state the system may be in,
performs it, waits for the system to settle and observes it.  The system
conforms at that step when some state the model allows there (the action,
then any number of the system's own actions) projects onto the observation,
and every property the driver can judge holds.  The first step that does not
ends the walk and is written as a pair of trace files.
"""
from __future__ import annotations

import random
import time
from collections.abc import Sequence
from pathlib import Path

from modelcheck.conform.belief import Belief
from modelcheck.conform.driver import ConformError, Driver, DriverFailure
from modelcheck.conform.report import StepLog, WalkReport, WalkRun, write_mismatch
from modelcheck.ir import nodes as ir
from modelcheck.trace.trace import Step

__all__ = ["random_walks", "judged_properties"]


def judged_properties(model: ir.Model, driver: Driver, observation: dict,
                      names: Sequence[str] | None = None) -> list[str]:
    """The invariants the driver judges false on ``observation``."""
    out = []
    for p in model.properties:
        if p.kind is not ir.PropertyKind.INVARIANT or (names is not None and p.name not in names):
            continue
        if driver.holds(p.name, observation) is False:
            out.append(p.name)
    return out


def random_walks(model: ir.Model, driver: Driver, *, runs: int = 10, depth: int = 10,
                 seed: int = 0, out_dir: str | Path | None = None,
                 max_closure: int = 20_000, started: bool = False,
                 budget_s: float | None = None) -> WalkReport:
    """``runs`` walks of at most ``depth`` driven steps; walk ``i`` uses the
    seed ``seed + i``.  Stops at the first walk that does not conform; its
    trace files go to ``out_dir`` when given.  With ``budget_s``, no walk
    begins once that many seconds have passed since the start (the walk under
    way ends as usual).  The driver is started (unless ``started``), reset
    between walks, and always stopped."""
    report = WalkReport(model.name, [])
    t0 = time.monotonic()
    if not started:
        _call(driver.start, "start the system", model)
    try:
        for i in range(runs):
            if i > 0 and budget_s is not None and time.monotonic() - t0 >= budget_s:
                report.notes.append(f"the budget of {budget_s:g} s was spent after {i} walks")
                break
            if i > 0:
                _call(driver.reset, "reset the system", model)
            run = _walk(model, driver, depth, seed + i, out_dir, max_closure, report.notes)
            report.runs.append(run)
            if run.problem is not None:
                break
    finally:
        driver.stop()
    return report


def _call(fn, what: str, *args):
    try:
        return fn(*args)
    except DriverFailure as err:
        raise ConformError("MC7002", f"the driver could not {what}: {err}") from None


def _walk(model: ir.Model, driver: Driver, depth: int, seed: int, out_dir: str | Path | None,
          max_closure: int, notes: list[str]) -> WalkRun:
    rng = random.Random(seed)
    belief = Belief(model, driver, max_closure)
    run = WalkRun(seed, [])
    raw = _call(driver.wait_settled, "observe the system")
    observed = belief.canon.of(raw)
    candidates = belief.initial()
    label = "Init"
    for step in range(depth + 1):
        past = driver.past_bounds(raw)
        if past is not None:
            run.stopped = f"step {step} ({label}): {past}"
            notes.append(f"walk {seed}: stopped at {run.stopped}: past the model's bounds, "
                         f"nothing to compare with")
            break
        belief.nodes = belief.matching(candidates, observed)
        # A property the system breaks is a mismatch only where the model
        # keeps it in every state it allows here: a row that claims
        # NoLostConfirmed may still show duplicates its spec allows too.
        bad = [p for p in judged_properties(model, driver, raw)
               if all(belief.ev.check_property(p, n.state) for n in belief.nodes.values())] \
            if belief.nodes else []
        agrees = bool(belief.nodes) and not bad
        note = None
        if not belief.nodes:
            note = "no state the model allows here shows this observation"
        elif bad:
            note = f"the real system violates {', '.join(bad)}"
        run.log.append(StepLog(step, label, step > 0, observed, None, agrees, note))
        if not agrees:
            run.problem = f"step {step} ({run.log[-1].label}): {note}"
            node = belief.closest(candidates, observed) if not belief.nodes else \
                next(iter(belief.nodes.values()))
            if out_dir is not None and node is not None:
                trace = belief.trace(node, {"conform": _meta(run, driver)})
                run.files = write_mismatch(model, trace, run.log, out_dir,
                                           f"{model.name}-conform-seed{seed}")
            break
        if step == depth:
            break
        choices = belief.driveable()
        if not choices:
            if not belief.any_driveable():
                break           # the walk has done all the spec lets a user do
            notes.append(f"walk {seed}: no driven action is enabled in every state the system "
                         f"may be in after {step} steps")
            break
        action, params = rng.choice(choices)
        label = Step(action, params, {}).label()
        _call(driver.perform, f"perform {label}", action, dict(params))
        raw = _call(driver.wait_settled, "observe the system")
        observed = belief.canon.of(raw)
        candidates = belief.after(action, params)
    if belief.truncated:
        notes.append(f"walk {seed}: a set of possible states was cut at {max_closure} states "
                     f"(max_closure): a mismatch may be a false alarm")
    return run


def _meta(run: WalkRun, driver: Driver) -> dict:
    return {"driver": f"{type(driver).__module__}:{type(driver).__qualname__}",
            "seed": run.seed, "problem": run.problem, "stopped": run.stopped,
            "observations": [{"step": e.label, "observed": e.observed, "agrees": e.agrees}
                             for e in run.log]}
