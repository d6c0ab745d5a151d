"""Liveness conformance: the compiled engine gives the reference explorer's
verdict on every liveness property (and, for a property with parameters, the
same first binding violated) with a lasso of the same shape (the same
prefix length and cycle length), and every lasso either engine returns is a
fair behaviour violating its property (docs/design.md, "Liveness").

``api.check`` already replays every lasso (modelcheck/trace/lasso.py); the
test asks the verifier again itself, so that a check that silently stopped
verifying would show here.

CI time: a compiled kernel takes 10-60 s to build, and its liveness
predicates are part of it but its fairness conditions are not.  So the
random part varies the fairness of a few fixed specs (one written here, one
drawn by spec_gen and fixed by a derandomized search): each spec costs one
compile, each further example only a cached run.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st

from modelcheck import api
from modelcheck.engines.base import CheckOptions, Status
from modelcheck.engines.liveness_scope import SYMMETRY_OFF_NOTE
from modelcheck.ir.nodes import PropertyKind
from modelcheck.trace.lasso import lasso_problem

from .spec_gen import fair_decls, specs

ROOT = Path(__file__).resolve().parents[2]

#: The pitfalls of tests/unit/reference/test_liveness.py in one spec: a
#: property with a parameter served per binding or as a whole, an action
#: enabled and disabled in turn, and a form of each kind.  Node is
#: symmetric: a liveness run must drop the reduction (and say so).
MIXED = """module mixed
symmetric type Node = model(2)
var pending: set[Node] = {}
var x: 0..1 = 0
var done: bool = false
action Request(n: Node) {
    require n not in pending
    pending := pending | {n}
}
action Serve(n: Node) {
    require n in pending
    pending := pending - {n}
}
action Flip() {
    require not done
    x := 1 - x
}
action Go() {
    require x == 1
    done := true
}
liveness Served(n: Node): n in pending leads to n not in pending
liveness Done: eventually done
liveness Often: always eventually x == 0
liveness Settles: eventually always pending == {}
"""

#: Fairness blocks for MIXED, with the reference's verdict on Served: the
#: rows differ, so agreeing on them compares something.
MIXED_FAIRNESS = [
    ("", Status.VIOLATED),
    ("fair weak Serve\nfair weak Flip\nfair weak Go\n", Status.VIOLATED),
    ("fair weak Serve(*)\nfair weak Flip\nfair strong Go\n", Status.HOLDS),
    ("fair strong Serve(n) for n in Node if n != node1\nfair weak Request(_)\nfair weak Flip\n",
     Status.VIOLATED),
    # groups of actions, one condition each (TLA+ WF_vars(A \/ B))
    ("fair weak Serve(n) | Flip for n in Node\nfair strong Go\n", Status.HOLDS),
    ("fair strong Serve | Go\nfair weak Flip\n", Status.VIOLATED),
    ("fair weak Serve(*)\nfair strong Flip | Go\n", Status.HOLDS),
]


@st.composite
def mixed_fairness(draw) -> str:
    """Up to four fairness declarations on MIXED's actions, of every form."""
    out = []
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["weak", "strong"]))
        decl = draw(st.sampled_from([
            "Serve", "Serve(*)", "Serve(_)", "Serve(node1)", "Serve(n) for n in Node if n != node2",
            "Request", "Request(*)", "Request(node2)", "Flip", "Go", "Serve | Go",
            "Flip | Serve(node1)", "Serve(n) | Request(n) for n in Node"]))
        out.append(f"fair {kind} {decl}\n")
    return "".join(out)


def _liveness(result) -> dict:
    """name -> (status, the binding a lasso is about, its prefix, its states,
    whether it stutters)"""
    return {p.name: (p.status,) + (() if p.trace is None else (
                p.trace.meta.get("instance"), p.trace.loop, len(p.trace.states),
                p.trace.loop_back is None))
            for p in result.properties if p.kind is PropertyKind.LIVENESS}


def _lassos_prove_themselves(model, result) -> None:
    for p in result.properties:
        if p.kind is PropertyKind.LIVENESS and p.status is Status.VIOLATED:
            assert p.trace is not None and p.trace.loop is not None, p
            assert p.trace.property_name == p.name
            problem = lasso_problem(model, p.trace)
            assert problem is None, f"{result.engine}: {p.name}: {problem}"


def _skip_if_compiled_does_not_check_liveness(got) -> None:
    live = [p for p in got.properties if p.kind is PropertyKind.LIVENESS]
    if live and all(p.status is Status.UNKNOWN and "does not check liveness" in (p.reason or "")
                    for p in live):
        pytest.skip("the compiled engine does not check liveness properties yet "
                    f"({live[0].reason})")


def agree(source: str, options: CheckOptions | None = None) -> tuple:
    """Check ``source`` with both engines; assert they agree and every lasso
    is valid.  Returns (reference result, compiled result)."""
    options = options if options is not None else CheckOptions()
    model = api.load_source(source, path="live.mc")
    ref = api.check(model, engine="reference", options=options)
    got = api.check(model, engine="compiled", options=options)
    _skip_if_compiled_does_not_check_liveness(got)
    _lassos_prove_themselves(model, ref)
    _lassos_prove_themselves(model, got)
    if model.symmetric_types and model.temporals:
        assert SYMMETRY_OFF_NOTE in got.notes
    if ref.complete and got.complete:
        assert _liveness(got) == _liveness(ref), source
        # Symmetry is off, so the counts are those of the full graph.
        assert got.stats.distinct_states == ref.stats.distinct_states, source
    else:
        # A bound: neither may claim HOLDS on a graph it did not finish.
        for result in (ref, got):
            if not result.complete:
                assert all(v[0] is not Status.HOLDS for v in _liveness(result).values()), source
    return ref, got


def _example_specs_with_liveness() -> list:
    out = []
    for path in sorted((ROOT / "specs" / "examples").glob("*.mc")):
        if any(line.startswith("liveness ") for line in path.read_text().splitlines()):
            out.append(pytest.param(path, id=path.stem))
    return out


@pytest.mark.slow   # a large example's kernel alone takes a minute to build
@pytest.mark.parametrize("path", _example_specs_with_liveness())
def test_example_specs_agree_on_liveness(path):
    agree(path.read_text())


@pytest.mark.parametrize("fairness, served", MIXED_FAIRNESS, ids=range(len(MIXED_FAIRNESS)))
def test_mixed_spec_agrees_on_liveness(fairness, served):
    ref, _ = agree(MIXED + fairness)
    assert _liveness(ref)["Served"][0] is served


@pytest.mark.parametrize("bound", [{"max_states": 5}, {"max_depth": 2}, {"max_depth": 3}])
def test_bounds_never_give_holds(bound):
    ref, got = agree(MIXED + MIXED_FAIRNESS[2][0], CheckOptions(**bound))
    assert not ref.complete and not got.complete


@pytest.mark.parametrize("engine", [
    "reference",
    "compiled"])
def test_every_depth_bound_gives_unknown_or_the_full_verdict(engine):
    """A bound that stores every state (max_depth = the full depth) must not
    lose the steps of the last level: a verdict under any depth bound is
    UNKNOWN, a VIOLATED with a valid lasso, or the unbounded one."""
    model = api.load_source(MIXED + MIXED_FAIRNESS[2][0], path="live.mc")
    full = api.check(model, engine="reference", options=CheckOptions())
    expected = _liveness(full)
    for depth in range(1, full.stats.depth + 2):
        got = api.check(model, engine=engine, options=CheckOptions(max_depth=depth))
        _skip_if_compiled_does_not_check_liveness(got)
        _lassos_prove_themselves(model, got)
        for name, (status, *_) in _liveness(got).items():
            assert status in (Status.UNKNOWN, Status.VIOLATED, expected[name][0]), (depth, name)
            if status is Status.HOLDS or got.complete:
                assert status is expected[name][0], (depth, name)


@given(data=st.data())
@settings(max_examples=15, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
def test_random_fairness_on_the_mixed_spec(data):
    agree(MIXED + data.draw(mixed_fairness()))


def _generated_base() -> tuple[str, int]:
    """A spec drawn by spec_gen with liveness properties, its fairness taken
    out: the first one (derandomized, so the same in every run; not shrunk,
    which would cost a minute and leave a trivial spec) whose reference
    verdicts under no fairness include a violation and a property that
    holds, over 6 to 60 states."""
    def interesting(source: str) -> bool:
        model = api.load_source(source, path="generated.mc")
        result = api.check(model, engine="reference", options=CheckOptions())
        verdicts = {v[0] for v in _liveness(result).values()}
        return result.complete and 6 <= result.stats.distinct_states <= 60 \
            and verdicts >= {Status.VIOLATED, Status.HOLDS}

    def unfair(source: str) -> str:
        return "".join(line + "\n" for line in source.splitlines() if not line.startswith("fair "))

    found = find(specs(liveness=True).map(unfair), interesting,
                 settings=settings(database=None, derandomize=True, max_examples=300,
                                   deadline=None, phases=[Phase.generate],
                                   suppress_health_check=list(HealthCheck)))
    return found, found.count("\naction A")


@pytest.fixture(scope="module")
def generated_base():
    return _generated_base()


@given(data=st.data())
@settings(max_examples=15, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
def test_random_fairness_on_a_generated_spec(generated_base, data):
    base, actions = generated_base
    agree(base + data.draw(fair_decls(actions)))
