"""Differential testing on generated specs: every explicit engine must give the
reference explorer's exact figures and verdicts on small random specs."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from modelcheck import api
from modelcheck.engines.base import CheckOptions
from modelcheck.errors import CompileError

from .spec_gen import specs


def _figures(result):
    props = {p.name: (p.status, p.steps) for p in result.properties}
    error = result.error.diagnostic.code if result.error is not None else None
    return (result.stats.distinct_states, result.stats.generated_states, result.stats.depth,
            props, error)


def test_generated_specs_compile():
    """The generator itself must produce specs the front end accepts, or the
    differential test below would silently test nothing."""
    @given(specs())
    @settings(max_examples=30, deadline=None)
    def check(source):
        api.load_source(source, path="generated.mc")
    check()


@pytest.mark.parametrize("engine", ["compiled"])
@given(source=specs())
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
def test_engine_matches_reference_on_generated_specs(engine, source):
    try:
        model = api.load_source(source, path="generated.mc")
    except CompileError as e:   # pragma: no cover - the test above guards the generator
        pytest.fail(f"generator wrote a spec that does not compile:\n{source}\n{e}")
    ref = api.check(model, engine="reference", options=CheckOptions())
    got = api.check(model, engine=engine, options=CheckOptions(symmetry=False))
    assert _figures(got) == _figures(ref), source
