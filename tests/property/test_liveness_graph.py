"""The reference explorer builds the state graph liveness is decided on:
rebuilt here independently, straight from the evaluator's successors, on
generated specs with liveness and fairness (tests/conformance/spec_gen.py),
it must give the same verdicts.

``find_lasso`` itself is checked against a brute-force oracle
(test_liveness_oracle.py); this checks what the explorer hands it: only
states inside the constraints, a step that changes nothing taking no
condition, targets outside the constraints still enabling one, the
expansion of ``fair`` and ``liveness`` declarations per binding.
"""
from __future__ import annotations

import sys
from pathlib import Path

from hypothesis import HealthCheck, given, settings

from modelcheck import api
from modelcheck.engines.base import CheckOptions, Status
from modelcheck.evaluate.evaluator import Evaluator
from modelcheck.engines.reference.liveness import Edge, Graph, find_lasso
from modelcheck.evaluate.temporal import fair_conditions, liveness_checks
from modelcheck.ir.nodes import PropertyKind

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "conformance"))
from spec_gen import specs  # noqa: E402


def rebuilt_verdicts(model) -> dict[str, Status]:
    """Each liveness property's verdict on a graph built here: breadth-first
    from the initial states inside the constraints, every step to a
    different state, the constraints deciding which targets are stored."""
    ev = Evaluator(model)
    conditions = fair_conditions(model, lambda e, env: ev.eval(e, (), env))
    states, index = [], {}

    def store(state) -> int | None:
        if state in index:
            return index[state]
        if not ev.in_model(state):
            return None
        index[state] = len(states)
        states.append(state)
        return index[state]

    initial = sorted({i for i in (store(s) for s in ev.initial_states()) if i is not None})
    edges, enabled = [], []
    i = 0
    while i < len(states):
        here = states[i]
        out, on = {}, set()
        for action, params, new in ev.successors(here):
            if new == here:
                continue
            takes = frozenset(f for f, c in enumerate(conditions) if c.matches(action, params))
            on |= takes
            j = store(new)
            if j is not None:
                out.setdefault((j, action, params), Edge(j, (action, params), takes))
        edges.append(list(out.values()))
        enabled.append(frozenset(on))
        i += 1
    graph = Graph(edges, enabled, initial)
    verdicts: dict[str, Status] = {}
    for check in liveness_checks(model.temporals):
        lasso = find_lasso(graph, check, conditions, lambda e, u: bool(ev.eval(e, states[u])))
        if verdicts.get(check.name) is not Status.VIOLATED:
            verdicts[check.name] = Status.HOLDS if lasso is None else Status.VIOLATED
    return verdicts


@given(source=specs(liveness=True))
@settings(max_examples=100, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
def test_the_explorer_graph_gives_the_verdicts_of_a_rebuilt_one(source):
    model = api.load_source(source, path="generated.mc")
    # api.check replays every lasso: each VIOLATED comes with a fair
    # behaviour that violates its property.
    result = api.check(model, engine="reference", options=CheckOptions(deadlock=False))
    if result.error is not None:
        return
    got = {p.name: p.status for p in result.properties if p.kind is PropertyKind.LIVENESS}
    assert got == rebuilt_verdicts(model), source
