"""What a conformance run found, and the trace files of a mismatch.

A mismatch is written as two ITF files that ``modelcheck trace show`` and
``trace html`` open: the model's side (a behaviour of the spec, ending in the
model state closest to what the system showed; ``#meta.conform`` holds every
observation) and the real side (``.real.itf.json``: the same steps, each state
the observation of the real system, read without the spec's types).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from modelcheck.fsutil import write_atomic
from modelcheck.ir import nodes as ir
from modelcheck.trace.itf import ITF_FORMAT_DESCRIPTION
from modelcheck.trace.store import write_trace
from modelcheck.trace.trace import Trace

__all__ = ["StepLog", "ReplayReport", "WalkRun", "WalkReport", "write_mismatch"]


@dataclass(frozen=True)
class StepLog:
    """One step of a run: what was done (``driven``) or waited for, what the
    model says the system shows after it (``expected``, None in a walk, where
    many states may be allowed), what it showed (``observed``), and whether
    the two agree.  Values are ITF JSON."""
    index: int
    label: str
    driven: bool
    observed: dict[str, Any]
    expected: dict[str, Any] | None
    agrees: bool
    note: str | None = None


@dataclass
class ReplayReport:
    """``reproduced``: the real system shows the trace's violation at the end
    (None when the driver cannot judge the property and the last observation
    is not the trace's last state's)."""
    spec: str
    property_name: str | None
    log: list[StepLog]
    reproduced: bool | None
    reason: str
    real_holds: bool | None = None


@dataclass
class WalkRun:
    """One random walk: its seed, the steps taken, and ``problem`` (None: the
    system agreed with the model all the way)."""
    seed: int
    log: list[StepLog]
    problem: str | None = None
    files: list[Path] = field(default_factory=list)
    #: Where the walk stopped because the system went past the model's
    #: bounds (``Driver.past_bounds``): not a mismatch.
    stopped: str | None = None


@dataclass
class WalkReport:
    spec: str
    runs: list[WalkRun]
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(r.problem is None for r in self.runs)

    @property
    def failed(self) -> WalkRun | None:
        return next((r for r in self.runs if r.problem is not None), None)


def write_mismatch(model: ir.Model, trace: Trace, log: list[StepLog], folder: str | Path,
                   name: str) -> list[Path]:
    """Write the model's side ``name.itf.json`` and the real side
    ``name.real.itf.json`` into ``folder``.  The model's trace also holds the
    system's own actions between the driven ones, which nobody saw happen:
    the real side has one state per observation (per entry of ``log``)."""
    folder = Path(folder)
    model_file = write_trace(trace, model, folder, f"{name}.itf.json")
    real = _real_side(model, trace, log)
    real_file = folder / f"{name}.real.itf.json"
    write_atomic(real_file, json.dumps(real, indent=2, ensure_ascii=False) + "\n", durable=True)
    return [model_file, real_file]


def _real_side(model: ir.Model, trace: Trace, log: list[StepLog]) -> dict[str, Any]:
    keys: list[str] = []
    for entry in log:
        keys.extend(k for k in entry.observed if k not in keys)
    states = []
    for i, entry in enumerate(log):
        meta: dict[str, Any] = {"index": i, "agrees": entry.agrees}
        if i > 0:
            meta["action"] = entry.label
        if entry.note:
            meta["note"] = entry.note
        states.append({"#meta": meta, **{k: entry.observed.get(k) for k in keys}})
    return {
        "#meta": {
            "format": "ITF",
            "format-description": ITF_FORMAT_DESCRIPTION,
            "description": f"what the real system showed, step by step, beside the "
                           f"model's trace {trace.model_name}",
            "generated-by": "modelcheck conform",
            "kind": "observation",
        },
        "vars": keys,
        "states": states,
    }
