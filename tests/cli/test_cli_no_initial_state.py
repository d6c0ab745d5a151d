"""A spec whose initial values admit no state gets no verdict: every property
would hold over nothing.  Each way a spec can have no initial state, through
every door (``api.check`` for the checking engines, ``prove`` for both proof
engines, the CLI's exit code)."""
from __future__ import annotations

import pytest

from modelcheck import api
from modelcheck.engines.base import Status
from modelcheck.engines.initial import NO_INITIAL_STATE, has_initial_state

_EMPTY_RANGE = """module e
var x: 0..3 in 3..2
action A() { x := 0 }
invariant Bad: false
sometimes Three: x == 3
"""
_EMPTY_COMPREHENSION = """module e
var x: 0..3 in {i for i in 0..3 if i > 5}
var y: bool = true
action A() { x := 0 }
invariant Bad: false
"""
_EMPTY_BY_CONST = """module e
const N: 0..5 = 3
var y: bool in {true, false}
var x: 0..3 in 1..N
action A() { x := 0 }
invariant Bad: false
"""
_WAYS = {"empty range": (_EMPTY_RANGE, {}), "empty comprehension": (_EMPTY_COMPREHENSION, {}),
         "range emptied by -D": (_EMPTY_BY_CONST, {"N": "0"})}


@pytest.mark.parametrize("way", sorted(_WAYS))
@pytest.mark.parametrize("engine", ["reference", "bmc"])
def test_no_initial_state_is_unknown_with_the_reason_never_holds(way, engine):
    source, consts = _WAYS[way]
    model = api.load_source(source, consts=consts)
    result = api.check(model, engine)
    assert {p.status for p in result.properties} == {Status.UNKNOWN}
    assert NO_INITIAL_STATE in [p.reason for p in result.properties]
    assert result.reason == NO_INITIAL_STATE
    assert result.exit_code == 3


def test_a_spec_with_initial_states_keeps_its_verdict():
    model = api.load_source(_EMPTY_BY_CONST, consts={"N": "1"})
    assert has_initial_state(model)
    result = api.check(model, "reference")
    assert result.get_property("Bad").status is Status.VIOLATED
    assert result.reason is None


@pytest.mark.parametrize("invariant", ["Ok: true", "Bad: false"])
@pytest.mark.parametrize("engine", ["induction", "pdr"])
def test_prove_gives_no_verdict_over_no_initial_state(engine, invariant):
    from modelcheck.engines.z3.proofs import ProofStatus
    model = api.load_source(_EMPTY_RANGE.replace("invariant Bad: false", "invariant " + invariant))
    name = invariant.split(":")[0]
    if engine == "induction":
        from modelcheck.engines.z3.induction import prove
        result = prove(model, [name])
    else:
        from modelcheck.engines.z3.pdr import pdr
        result = pdr(model, [name], timeout=30)
    proof = result.invariants[0]
    # Bad: false is not inductive (a CTI: no verdict) under k-induction; PDR
    # once called it violated with no counterexample.
    assert proof.status in (ProofStatus.UNKNOWN, ProofStatus.CTI)
    assert proof.status is ProofStatus.CTI or proof.reason == NO_INITIAL_STATE


def test_check_exits_3_and_says_why(mc, tmp_path):
    spec = tmp_path / "e.mc"
    spec.write_text(_EMPTY_RANGE)
    run = mc("check", str(spec), "--engine", "reference", "--out", "OUT")
    assert run.exit_code == 3
    assert "no initial state" in run.stdout
    assert "holds" not in run.stdout
