"""The words the CLI uses for verdicts, and error rendering."""
from __future__ import annotations

import pytest

from modelcheck.cli.render import render_error
from modelcheck.cli.render import figures_text, verdict_phrase
from modelcheck.diagnostics import Diagnostic, Span
from modelcheck.engines.base import CheckResult, Stats, Status
from modelcheck.errors import CompileError, EvalError, UsageError
from modelcheck.ir.nodes import PropertyKind

INV, SOMETIMES = PropertyKind.INVARIANT, PropertyKind.SOMETIMES


@pytest.mark.parametrize("kind, status, steps, reason, phrase", [
    (INV, Status.HOLDS, None, None, "holds"),
    (None, Status.HOLDS, None, None, "holds"),
    (INV, Status.VIOLATED, 6, None, "violated in 6 steps"),
    (None, Status.VIOLATED, 1, None, "violated in 1 step"),
    (INV, Status.VIOLATED, None, None, "violated"),
    (SOMETIMES, Status.HOLDS, 3, None, "reachable in 3 steps"),
    (SOMETIMES, Status.VIOLATED, None, None, "violated: never reachable"),
    (INV, Status.UNKNOWN, None, "state bound 10 reached", "unknown: state bound 10 reached"),
    (INV, Status.HOLDS_UP_TO_BOUND, None, "no violation in 5 steps",
     "holds up to bound: no violation in 5 steps"),
    (INV, Status.HOLDS_UP_TO_BOUND, None, "holds up to depth 7", "holds up to depth 7"),
])
def test_verdict_phrases(kind, status, steps, reason, phrase):
    assert verdict_phrase(kind, status, steps, reason) == phrase


def test_compile_error_renders_every_diagnostic_with_its_source_line(tmp_path):
    spec = tmp_path / "s.mc"
    spec.write_text("module s\nvar x: 0..3 = y\n")
    d1 = Diagnostic("MC2004", "unknown name 'y'", Span(str(spec), 2, 15, 2, 16), hint="did you mean 'x'?")
    d2 = Diagnostic("MC1001", "unexpected end", None)
    # the file text comes from the error when it carries it, else from disk
    text = render_error(CompileError([d1, d2]))
    assert text == (f"error[MC2004]: unknown name 'y'\n  --> {spec}:2:15\n  |\n"
                    "2 | var x: 0..3 = y\n  |               ^\n   = hint: did you mean 'x'?\n\n"
                    "error[MC1001]: unexpected end\n\n2 errors")
    other = render_error(CompileError([d1], sources={str(spec): "line one\nvar zz = y\n"}))
    assert "2 | var zz = y" in other


def test_usage_and_eval_errors_render_as_error_lines():
    assert render_error(UsageError("-D N=x: not a number", hint="N is 1..9")) == \
        "error: -D N=x: not a number\n   = hint: N is 1..9"
    diag = Diagnostic("MC5002", "division by zero", Span("/nonexistent/x.mc", 3, 1, 3, 2))
    assert render_error(EvalError(diag)) == \
        "error[MC5002]: division by zero\n  --> /nonexistent/x.mc:3:1"


def test_figures_of_explicit_and_symbolic_searches():
    explicit = CheckResult("m", "reference", [], Stats(16, 97, 8, 0.014))
    assert figures_text(explicit) == "16 distinct states, 97 generated, depth 8, 0.01 s"
    # bmc reaches a depth without enumerating states
    assert figures_text(CheckResult("m", "bmc", [], Stats(0, 0, 4, 0.2))) == "depth 4, 0.20 s"
    # a spec without initial states explores nothing, and says so
    assert figures_text(CheckResult("m", "reference", [], Stats())) == \
        "0 distinct states, 0 generated, depth 0, 0.00 s"
