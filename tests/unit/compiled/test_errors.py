"""Run-time errors: the compiled engine stops where the reference explorer
stops, with the reference's own EvalError (code, message, span) and trace."""
from __future__ import annotations

import pytest

from modelcheck import api
from modelcheck.engines.base import CheckOptions

pytest.importorskip("numba")


@pytest.mark.parametrize("name", ["errors", "error_invariant", "error_init"])
def test_error_and_trace_match_the_reference(name, load, kernels):
    kernels(name)
    model = load(name)
    ref = api.check(model, engine="reference")
    got = api.check(model, engine="compiled", options=CheckOptions(symmetry=False))
    assert got.error is not None and ref.error is not None
    assert got.error.diagnostic == ref.error.diagnostic
    steps = lambda e: None if e.trace is None else [(s.action, s.params, s.state)  # noqa: E731
                                                     for s in e.trace.steps]
    assert steps(got.error) == steps(ref.error)
    assert got.exit_code == 2
    assert got.stats.distinct_states == ref.stats.distinct_states
    assert [p.status for p in got.properties] == [p.status for p in ref.properties]
