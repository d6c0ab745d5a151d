"""The --json object: its members and how spec values become JSON."""
from __future__ import annotations

import json

from modelcheck.cli.json_out import failure_json, outcome_json, plain_value
from modelcheck.diagnostics import Diagnostic, Span
from modelcheck.engines.base import CheckResult, PropertyResult, Stats, Status
from modelcheck.errors import CompileError, EvalError
from modelcheck.ir import nodes as ir
from modelcheck.ir.types import BOOL, IntType
from modelcheck.ir.values import FrozenDict

KEYS = ["schema_version", "spec", "model", "engine", "requested_engine", "consts", "properties",
        "distinct_states", "generated_states", "depth", "elapsed_s", "complete", "reason", "error",
        "notes", "write_errors"]


def _model() -> ir.Model:
    return ir.Model("m", (("N", IntType(1, 9), 3), ("fast", BOOL, True)), (), (), (), (), ())


def test_values_become_plain_json_deterministically():
    value = FrozenDict({"n1": frozenset({3, 1}), "n2": (None, "a")})
    assert plain_value(value) == {"n1": [1, 3], "n2": [None, "a"]}
    assert plain_value(frozenset({FrozenDict({"k": 2}), FrozenDict({"k": 1})})) == [{"k": 1}, {"k": 2}]


def test_outcome_object_has_every_member_of_the_contract():
    props = [PropertyResult("Safe", ir.PropertyKind.INVARIANT, Status.UNKNOWN, reason="bound"),
             PropertyResult("deadlock", None, Status.HOLDS)]
    result = CheckResult("m", "reference", props, Stats(5, 9, 3, 0.12345), reason="bound")
    obj = outcome_json("s.mc", _model(), "reference", result)
    assert list(obj) == KEYS
    assert obj["consts"] == {"N": 3, "fast": True}
    assert obj["properties"] == {
        "Safe": {"kind": "invariant", "status": "unknown", "steps": None, "trace_file": None,
                 "reason": "bound"},
        "deadlock": {"kind": "deadlock", "status": "holds", "steps": None, "trace_file": None,
                     "reason": None}}
    assert (obj["distinct_states"], obj["generated_states"], obj["depth"], obj["elapsed_s"]) == \
        (5, 9, 3, 0.123)
    assert obj["complete"] is False and obj["reason"] == "bound" and obj["error"] is None
    assert obj["requested_engine"] == "reference" and obj["notes"] == []
    json.dumps(obj)


def test_the_engine_asked_for_and_the_notes_of_a_hand_over():
    note = "compiled engine unavailable (x is beyond 64-bit integers); using the reference explorer"
    result = CheckResult("m", "reference", [], Stats(), notes=[note], requested_engine="compiled")
    obj = outcome_json("s.mc", _model(), "reference", result)
    assert (obj["engine"], obj["requested_engine"], obj["notes"]) == ("reference", "compiled", [note])


def test_run_time_error_is_reported_with_its_location_and_trace_file():
    diag = Diagnostic("MC5002", "division by zero", Span("s.mc", 4, 9, 4, 14))
    result = CheckResult("m", "reference", [], Stats(), error=EvalError(diag))
    obj = outcome_json("s.mc", _model(), "reference", result, "out/m-error.itf.json")
    assert obj["error"] == {"code": "MC5002", "message": "division by zero", "file": "s.mc",
                            "line": 4, "col": 9, "hint": None,
                            "trace_file": "out/m-error.itf.json"}
    assert obj["complete"] is False


def test_a_spec_that_does_not_load_still_gives_every_member():
    err = CompileError([Diagnostic("MC2004", "unknown name 'y'", Span("s.mc", 2, 3, 2, 4))])
    obj = failure_json("s.mc", "reference", {"N": "3"}, err)
    assert list(obj) == KEYS
    assert obj["model"] is None and obj["properties"] == {} and obj["complete"] is False
    assert obj["requested_engine"] == "reference" and obj["notes"] == []
    assert obj["error"]["code"] == "MC2004" and obj["error"]["line"] == 2
