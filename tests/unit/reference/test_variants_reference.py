"""The reference explorer on variants and capped sets: counts worked out by
hand, match and ``is`` semantics, and a set written past its capacity (MC5001)."""
from __future__ import annotations

from modelcheck.engines.base import CheckOptions, Status
from modelcheck.engines.reference import ReferenceEngine
from modelcheck.evaluate.evaluator import Evaluator
from modelcheck.ir.values import FrozenDict, Variant
from modelcheck.pipeline import load_source
from modelcheck.trace.replay import replay

TINY = """module tiny
type M = variant {{ Ping(n: 0..1), Stop }}
var inbox: set[M, {cap}] = {{}}
action Send(k: 0..1) {{ inbox := inbox | {{Ping(n=k)}} }}
action Halt() {{ require not any(m is Stop for m in inbox)  inbox := inbox | {{Stop}} }}
def pings(s: set[M, {cap}]) -> 0..2 = sum((match m {{ Ping => 1, Stop => 0 }}) for m in s)
invariant FewPings: pings(inbox) <= 2
invariant NoStop: all(not (m is Stop) for m in inbox)
"""


def run(source: str, **options):
    m = load_source(source, "t.mc")
    return m, ReferenceEngine().check(m, CheckOptions(**options))


def test_counts_over_every_subset_of_three_messages():
    # Every subset of {Ping(0), Ping(1), Stop} is reachable: 8 states.  From
    # each, both Sends are enabled, and Halt from the 4 without Stop: 20
    # successors, plus the initial state.
    m, result = run(TINY.format(cap=3), deadlock=False)
    assert result.error is None
    assert (result.stats.distinct_states, result.stats.generated_states) == (8, 21)
    assert result.stats.depth == 4
    assert result.get_property("FewPings").status is Status.HOLDS
    stop = result.get_property("NoStop")
    assert stop.status is Status.VIOLATED
    assert len(stop.trace.steps) == 2          # the initial state, then Halt
    assert stop.trace.steps[-1].state["inbox"] == frozenset({Variant("Stop", FrozenDict())})
    assert replay(m, stop.trace).ok


def test_a_set_written_past_its_capacity_is_mc5001():
    m, result = run(TINY.format(cap=2), deadlock=False)
    assert result.error is not None
    diag = result.error.diagnostic
    assert diag.code == "MC5001"
    assert "outside its declared type set[M, 2]" in diag.message
    assert len(result.error.trace.steps[-1].state["inbox"]) == 2


def test_match_and_case_payloads_evaluate_per_case():
    m = load_source(
        "module m\ntype M = variant { A(t: 0..3), B(t: 0..3, u: bool), C }\n"
        "var v: M = B(t=2, u=true)\nvar w: M = C\n"
        "def f(x: M) -> 0..9 = match x { A as a => a.t, B as b => b.t + 5, C => 9 }\n"
        "invariant P: f(v) == 7 and f(w) == 9 and v is B and not (w is A)\n",
        "t.mc")
    ev = Evaluator(m)
    (state,) = ev.initial_states()
    assert state == (Variant("B", FrozenDict({"t": 2, "u": True})), Variant("C", FrozenDict()))
    assert ev.check_property("P", state)


def test_a_match_statement_takes_one_arm_per_case():
    m, result = run(
        "module m\ntype M = variant { Inc(by: 1..2), Reset }\n"
        "var x: 0..4 = 0\nvar last: option[M] = none\n"
        "action Do(msg: M) {\n  match msg {\n    Inc as i { require x + i.by <= 4  x := x + i.by }\n"
        "    Reset { x := 0 }\n  }\n  last := some(msg)\n}\n", deadlock=False)
    assert result.error is None
    # x in 0..4 with last = none only initially: last is the message of the
    # step that led to the state, and each x is reachable by Inc(1), Inc(2)
    # or Reset (x = 0 only), as far as x - by >= 0 allows.
    # x=0: none, Reset; x=1: Inc(1); x=2..4: Inc(1), Inc(2)  ->  2 + 1 + 6 = 9
    assert result.stats.distinct_states == 9
