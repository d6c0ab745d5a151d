"""``check`` on a violated liveness property: the verdict line gives the
lasso's shape, the trace view marks its cycle, and the actions that stay
enabled round it without firing are named with the declaration that would
rule the cycle out."""
from __future__ import annotations

from modelcheck.api import load
from modelcheck.trace.itf import read_itf
from modelcheck.trace.lasso import lasso_problem

SPEC = "tests/cli/specs/blink_live.mc"


def test_a_violated_liveness_property_shows_its_lasso(mc, golden):
    run = mc("check", SPEC, "--engine", "reference", "--out", "OUT")
    assert run.exit_code == 1
    golden.check("cli/check_liveness.txt", run.transcript())
    assert "Returns   liveness  violated: a lasso of 2 steps, then state 2 stutters forever" \
        in run.stdout
    path, = mc.out_dir.glob("blink_live-Returns-*.itf.json")
    model = load(SPEC)
    trace = read_itf(path, model)
    assert trace.loop == 2 and trace.loop_back is None
    assert lasso_problem(model, trace) is None
