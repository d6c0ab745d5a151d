"""``trace diff`` across specs and consts, and ``trace explain`` with the
trace's own property and the spec's own names."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import modelcheck
from modelcheck.cli.main import cli
from modelcheck.ir.values import FrozenDict, Variant
from modelcheck.trace.diff import diff_traces
from modelcheck.trace.explain import explain
from modelcheck.trace.trace import Step, Trace

ENV = {"COLUMNS": "100", "NO_COLOR": "1", "FORCE_COLOR": None, "TTY_COMPATIBLE": None,
       "TTY_INTERACTIVE": None}

SPEC = """\
module sig

const Limit: 1..3 = 2

type Signal = variant { Ping(n: 0..3), Quiet }

var last: Signal = Quiet
var sent: 0..3 = 0

action Send() {
    require sent < 3
    sent := sent + 1
    last := Ping(n=sent + 1)
}

action Hush() {
    last := Quiet
}

invariant Below: sent < Limit
"""


def invoke(*args: str):
    result = CliRunner().invoke(cli, list(args), env=ENV)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


@pytest.fixture
def folder(tmp_path: Path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sig.mc").write_text(SPEC)
    return tmp_path


def _check(*defines: str) -> Path:
    out = Path("out-" + "-".join(defines or ("default",)))
    result = invoke("check", "sig.mc", "--engine", "reference", "--no-deadlock", "--out", str(out),
                    *[a for d in defines for a in ("-D", d)])
    assert result.exit_code == 1, result.output
    (trace,) = out.glob("sig-Below-*.itf.json")
    return trace


def test_diff_with_a_foreign_copy_shows_no_change(folder):
    # B is the same trace as another tool writes it (no spec): read by its
    # shape, a case without fields is a bare name, as A's spec prints it.
    a = _check()
    data = json.loads(a.read_text())
    data["#meta"] = {"format": "ITF"}
    b = folder / "foreign.itf.json"
    b.write_text(json.dumps(data))
    assert data["states"][0]["last"] == {"tag": "Quiet", "value": {"#tup": []}}
    result = invoke("trace", "diff", str(a), str(b))
    assert result.exit_code == 0, result.output
    assert "The traces are the same" in result.output


def test_diff_names_the_consts_that_differ(folder):
    a, b = _check(), _check("Limit=3")
    result = invoke("trace", "diff", str(a), str(b))
    assert result.exit_code == 1
    assert "other consts" in result.output
    assert "Limit" in result.output and "2 → 3" in result.output
    same = invoke("trace", "diff", str(a), str(a))
    assert same.exit_code == 0 and "The traces are the same" in same.output


def test_diff_across_specs_uses_each_specs_types():
    model_a = modelcheck.load_source(SPEC, "a.mc")
    model_b = modelcheck.load_source(SPEC.replace("Ping(n: 0..3)", "Ping(n: 0..3, urgent: bool)")
                                     .replace("Ping(n=sent + 1)", "Ping(n=sent + 1, urgent=false)"),
                                     "b.mc")
    quiet = Variant("Quiet", FrozenDict())
    typed = Trace("sig", [Step(None, (), {"last": quiet, "sent": 0})])
    # B read by its shape: the case without fields is its bare name.
    d = diff_traces(typed, Trace("sig", [Step(None, (), {"last": "Quiet", "sent": 0})]), model_a, None)
    assert d.same, d
    d = diff_traces(typed, Trace("sig", [Step(None, (), {"last": quiet, "sent": 0})]), model_a, model_b)
    assert d.same, d
    # A change across specs is still a change, each side in its own spec's words.
    pinged = Variant("Ping", FrozenDict({"n": 1, "urgent": False}))
    d = diff_traces(typed, Trace("sig", [Step(None, (), {"last": pinged, "sent": 0})]), model_a, model_b)
    assert [(c.where, c.old, c.new) for c in d.changes] == [("last", "Quiet", "Ping(n=1, urgent=false)")]


RENAMED = """\
module ren

type Node = model(2)

var x: map[Node, 0..3] = {n: 0 for n in Node}

action Inc(n: Node) {
    require x[n] < 3
    x[n] := x[n] + 1
}

invariant Busy: all(x[i] < 9 for i in Node) and not all(x[i] == 0 for i in Node)
"""


def _names(finding) -> list[str]:
    out = [n for n, _ in finding.bindings] + [finding.reason]
    for child in finding.children:
        out += _names(child)
    return out


def test_explain_shows_the_names_the_spec_writes():
    # The second `i` is renamed apart by the front end (i_2); the explanation
    # must say `i`, as the spec does.
    model = modelcheck.load_source(RENAMED, "ren.mc")
    trace = Trace("ren", [Step(None, (), {"x": _zeros(model)})])
    e = explain(trace, model, "Busy")
    assert e.step == 0
    texts = _names(e.root)
    assert any("every i in" in t for t in texts), texts
    assert not any("i_" in t for t in texts), texts


def _zeros(model):
    return FrozenDict((n, 0) for n in model.types[0][1].members)


def test_explain_without_property_explains_the_deadlock_action_by_action(folder):
    (folder / "stuck.mc").write_text("module stuck\nvar x: 0..1 = 0\n"
                                     "action A() { require x == 0\n x := 1 }\n"
                                     "invariant Ok: x <= 1\n")
    invoke("check", "stuck.mc", "--engine", "reference", "--out", "cex")
    (trace,) = Path("cex").glob("stuck-deadlock-*.itf.json")
    result = invoke("trace", "explain", str(trace))
    assert result.exit_code == 0
    assert "deadlock in state 1, reached by step 1: A: no action can take a step there" in result.output
    assert "✗ A: require x == 0 is false" in result.output and "terminal NAME" in result.output
    assert "Traceback" not in result.output


def test_explain_without_property_names_the_run_time_error_trace_has_none(folder):
    (folder / "over.mc").write_text("module over\nvar x: 0..2 = 0\naction A() { x := x + 1 }\n"
                                    "invariant Ok: x <= 2\n")
    invoke("check", "over.mc", "--engine", "reference", "--out", "cex")
    (trace,) = Path("cex").glob("over-error-*.itf.json")
    result = invoke("trace", "explain", str(trace))
    assert result.exit_code == 2
    assert "run-time error" in result.output and "--property NAME" in result.output
