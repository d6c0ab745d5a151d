"""The reference liveness search (modelcheck/engines/reference/liveness.py)
against an independent oracle on small random state graphs.

The oracle is the textbook characterisation, by brute force over every set of
states: a fair behaviour violating the property exists iff some non-empty set
S, strongly connected in its induced subgraph (every state may stutter, so
one state alone is), meets every fairness condition F (some step inside S
takes F, or WEAK: some state of S has F disabled, or STRONG: no state of S
has F enabled) and the form's restriction (docs/design.md, "Liveness").  It
shares no code with the search: graphs, conditions and predicates are drawn
here and handed to ``find_lasso`` as they are, and every lasso it returns is
checked step by step, its prefix the shortest way to a fair violating set.
"""
from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from modelcheck.engines.reference.liveness import Edge, Graph, find_lasso
from modelcheck.evaluate.temporal import ANY, FairCondition, LivenessCheck
from modelcheck.ir.nodes import FairKind, TemporalKind

ACTIONS = ("A", "B", "C")
VALUES = (0, 1)


@dataclass
class Case:
    """A drawn graph: ``steps`` are (u, v, action, value) with v None for a
    step to a state outside the constraints (it enables, it cannot be taken)
    and v == u for a step that changes nothing (a stutter)."""
    n: int
    initial: list[int]
    steps: list[tuple[int, int | None, str, int]]
    conditions: list[FairCondition]
    q: frozenset[int]
    p: frozenset[int]
    kind: TemporalKind

    def graph(self) -> Graph:
        """The graph as the explorer builds it: edges only between different
        stored states, one per (target, action, arguments); enabledness from
        every step that changes the state, targets outside included."""
        edges: list[dict] = [{} for _ in range(self.n)]
        enabled: list[set[int]] = [set() for _ in range(self.n)]
        for u, v, action, value in self.steps:
            if v == u:
                continue
            params = (("p", value),)
            takes = frozenset(f for f, c in enumerate(self.conditions) if c.matches(action, params))
            enabled[u] |= takes
            if v is not None:
                edges[u].setdefault((v, action, params), Edge(v, (action, params), takes))
        return Graph([list(e.values()) for e in edges], [frozenset(e) for e in enabled],
                     list(self.initial))

    def check(self) -> LivenessCheck:
        p = "P" if self.kind is TemporalKind.LEADS_TO else None
        return LivenessCheck("L", self.kind, (), p, "Q", "L")

    def holds(self, expr: object, u: int) -> bool:
        return u in (self.q if expr == "Q" else self.p)


@st.composite
def cases(draw) -> Case:
    n = draw(st.integers(1, 7))
    state = st.integers(0, n - 1)
    initial = sorted(draw(st.sets(state, min_size=1, max_size=2)))
    target = st.one_of(state, st.none()) if draw(st.booleans()) else state
    steps = draw(st.lists(st.tuples(state, target, st.sampled_from(ACTIONS),
                                    st.sampled_from(VALUES)), max_size=20))
    conditions = []
    if n > 1 and draw(st.booleans()):
        # A ring of A steps, mostly under WF(A): standing still is then
        # unfair, so the lasso must go round (most random graphs let it
        # stutter, and have few components of more than one state).
        ring = draw(st.permutations(range(n)))[:draw(st.integers(2, n))]
        steps += [(u, v, "A", draw(st.sampled_from(VALUES)))
                  for u, v in zip(ring, ring[1:] + ring[:1])]
        if draw(st.integers(0, 3)):
            conditions.append(FairCondition(FairKind.WEAK, "A", (ANY,), "weak A"))
        if draw(st.booleans()):
            # B steps leaving some ring states under a fairness condition on
            # B: the ring is then fair or not depending on its kind (strong
            # conditions split the ring's component, Streett style).
            kind = draw(st.sampled_from([FairKind.WEAK, FairKind.STRONG]))
            conditions.append(FairCondition(kind, "B", (ANY,), f"{kind.value} B"))
            for u in draw(st.sets(st.sampled_from(ring), min_size=1)):
                steps.append((u, draw(st.one_of(st.none(), state)), "B", 0))
    for _ in range(draw(st.integers(0, 3))):
        kind = draw(st.sampled_from([FairKind.WEAK, FairKind.STRONG]))
        action = draw(st.sampled_from(ACTIONS))
        value = draw(st.sampled_from([ANY, ANY, *VALUES]))
        conditions.append(FairCondition(kind, action, (value,), f"{kind.value} {action}({value})"))
    q = frozenset(draw(st.sets(state)))
    p = frozenset(draw(st.sets(state)))
    kind = draw(st.sampled_from(list(TemporalKind)))
    return Case(n, initial, steps, conditions, q, p, kind)


# ------------------------------------------------------------------ the oracle

def _reach(graph: Graph, starts: set[int], within: set[int]) -> set[int]:
    seen = {u for u in starts if u in within}
    todo = list(seen)
    while todo:
        u = todo.pop()
        for e in graph.edges[u]:
            if e.target in within and e.target not in seen:
                seen.add(e.target)
                todo.append(e.target)
    return seen


def _strongly_connected(graph: Graph, s: set[int]) -> bool:
    root = min(s)
    if _reach(graph, {root}, s) != s:
        return False
    back = {u for u in s if root in _reach(graph, {u}, s)}
    return back == s


def _fair(graph: Graph, s: set[int], conditions: list[FairCondition]) -> bool:
    for f, cond in enumerate(conditions):
        if any(f in e.takes and e.target in s for u in s for e in graph.edges[u]):
            continue
        enabled = [u for u in s if f in graph.enabled[u]]
        if cond.kind is FairKind.WEAK and len(enabled) < len(s):
            continue
        if cond.kind is FairKind.STRONG and not enabled:
            continue
        return False
    return True


def oracle_violated(case: Case) -> bool:
    return oracle_prefix_steps(case) is not None


def oracle_prefix_steps(case: Case) -> int | None:
    """The fewest steps from an initial state to a state of a fair set
    violating the property (under the form's restriction), or None when no
    such set exists."""
    graph = case.graph()
    everything = set(range(case.n))
    not_q = everything - case.q
    reach = _reach(graph, set(case.initial), everything)
    if case.kind is TemporalKind.EVENTUALLY:
        region, entry = not_q, _reach(graph, set(case.initial), not_q)
    elif case.kind is TemporalKind.LEADS_TO:
        region, entry = not_q, _reach(graph, reach & case.p & not_q, not_q)
    elif case.kind is TemporalKind.ALWAYS_EVENTUALLY:
        region, entry = not_q, reach
    else:
        region, entry = everything, reach
    goal: set[int] = set()
    for mask in range(1, 1 << case.n):
        s = {u for u in range(case.n) if mask >> u & 1}
        if not s <= region or not s & entry:
            continue
        if case.kind is TemporalKind.EVENTUALLY_ALWAYS and not s & not_q:
            continue
        if _strongly_connected(graph, s) and _fair(graph, s, case.conditions):
            goal |= s
    if not goal:
        return None
    if case.kind is TemporalKind.EVENTUALLY:
        return _distance(graph, set(case.initial) & not_q, not_q, goal)
    if case.kind is TemporalKind.LEADS_TO:
        # up to a trigger freely, then through not-Q states only
        return min(_distance(graph, set(case.initial), everything, {t})
                   + _distance(graph, {t}, not_q, goal)
                   for t in reach & case.p & not_q
                   if _distance(graph, {t}, not_q, goal) is not None)
    return _distance(graph, set(case.initial), everything, goal)


def _distance(graph: Graph, starts: set[int], within: set[int], goal: set[int]) -> int | None:
    frontier, seen, d = set(starts), set(starts), 0
    while frontier:
        if frontier & goal:
            return d
        frontier = {e.target for u in frontier for e in graph.edges[u]
                    if e.target in within and e.target not in seen}
        seen |= frontier
        d += 1
    return None


def lasso_problem(case: Case, lasso) -> str | None:
    """Why the lasso is not a fair behaviour of the graph violating the
    property, or None."""
    graph = case.graph()

    def edge(u: int, v: int, label) -> Edge | None:
        return next((e for e in graph.edges[u] if e.target == v and e.label == label), None)

    if not lasso.prefix or lasso.prefix[0][0] not in case.initial or lasso.prefix[0][1] is not None:
        return f"the prefix does not start in an initial state: {lasso.prefix}"
    for (u, _), (v, label) in zip(lasso.prefix, lasso.prefix[1:]):
        if label is None or edge(u, v, label) is None:
            return f"the prefix step {u} -> {v} by {label} is not an edge"
    home = lasso.prefix[-1][0]
    here, taken_edges = home, []
    for v, label in lasso.cycle:
        e = edge(here, v, label)
        if e is None:
            return f"the cycle step {here} -> {v} by {label} is not an edge"
        taken_edges.append(e)
        here = v
    if here != home:
        return f"the cycle ends in {here}, not back at {home}"
    cycle = [home] + [v for v, _ in lasso.cycle[:-1]]
    for f, cond in enumerate(case.conditions):
        if any(f in e.takes for e in taken_edges):
            continue
        enabled = [u for u in cycle if f in graph.enabled[u]]
        if cond.kind is FairKind.WEAK and set(enabled) == set(cycle):
            return f"unfair: {cond.label} enabled all round the cycle {cycle}, never taken"
        if cond.kind is FairKind.STRONG and enabled:
            return f"unfair: {cond.label} enabled in {enabled[0]} of the cycle, never taken"
    seq = [u for u, _ in lasso.prefix] + cycle[1:]
    loop = len(lasso.prefix) - 1
    nq = [u not in case.q for u in seq]
    if case.kind is TemporalKind.EVENTUALLY:
        ok = all(nq)
    elif case.kind is TemporalKind.ALWAYS_EVENTUALLY:
        ok = all(nq[loop:])
    elif case.kind is TemporalKind.EVENTUALLY_ALWAYS:
        ok = any(nq[loop:])
    else:
        ok = any(seq[i] in case.p and all(nq[min(i, loop):]) for i in range(len(seq)))
    return None if ok else f"does not violate {case.kind.value}: states {seq}, loop {loop}"


@given(cases())
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_find_lasso_agrees_with_the_brute_force_oracle(case):
    lasso = find_lasso(case.graph(), case.check(), case.conditions, case.holds)
    steps = oracle_prefix_steps(case)
    assert (lasso is not None) == (steps is not None), (case, lasso)
    if lasso is not None:
        problem = lasso_problem(case, lasso)
        assert problem is None, (problem, case, lasso)
        # The reference promises the shortest prefix to a fair violating cycle.
        assert len(lasso.prefix) - 1 == steps, (case, lasso)


def _case(n, initial, steps, conditions=(), q=(), p=(), kind=TemporalKind.EVENTUALLY) -> Case:
    return Case(n, list(initial), list(steps), list(conditions), frozenset(q), frozenset(p), kind)


def test_the_oracle_sees_weak_fairness_broken_by_a_disabled_state():
    """A check on the oracle itself, so that agreement above means something:
    0 <-> 1 by A, B only enabled in 0.  WF(A): no stutter anywhere, but the
    cycle 0 <-> 1 takes A, so ``eventually 2`` fails; WF(B) on top: B is
    disabled in 1, so the cycle is still fair."""
    weak_a = FairCondition(FairKind.WEAK, "A", (ANY,), "weak A")
    weak_b = FairCondition(FairKind.WEAK, "B", (ANY,), "weak B")
    steps = [(0, 1, "A", 0), (1, 0, "A", 0), (0, 2, "B", 0)]
    assert oracle_violated(_case(3, [0], steps, [weak_a], q=[2]))
    assert oracle_violated(_case(3, [0], steps, [weak_a, weak_b], q=[2]))
    strong_b = FairCondition(FairKind.STRONG, "B", (ANY,), "strong B")
    assert not oracle_violated(_case(3, [0], steps, [weak_a, strong_b], q=[2]))


def test_the_oracle_ignores_steps_that_change_nothing_and_steps_outside():
    """A step to the same state is a stutter: it takes nothing, so WF(A)
    enabled only by it does not force a move; a step outside the
    constraints enables A, which the behaviour then cannot take."""
    weak_a = FairCondition(FairKind.WEAK, "A", (ANY,), "weak A")
    assert oracle_violated(_case(1, [0], [(0, 0, "A", 0)], [weak_a], q=[]))
    assert not oracle_violated(_case(1, [0], [(0, None, "A", 0)], [weak_a], q=[]))


WEAK_A = FairCondition(FairKind.WEAK, "A", (ANY,), "weak A")
STRONG_B = FairCondition(FairKind.STRONG, "B", (ANY,), "strong B")
WEAK_B = FairCondition(FairKind.WEAK, "B", (ANY,), "weak B")
RING = [(0, 1, "A", 0), (1, 2, "A", 0), (2, 0, "A", 0)]

#: Shapes random graphs reach rarely, each with the oracle's verdict.
SHAPES = {
    # the cycle must come back to the not-Q state 1 though it enters at Q state 0
    "eventually-always-enters-at-q": (_case(3, [0], RING, [], q=[0, 2],
                                            kind=TemporalKind.EVENTUALLY_ALWAYS), True),
    # B (strong) enabled in 1 only, never taken: the ring is unfair, and
    # without state 1 nothing is left that WF(A) lets stand still
    "strong-splits-the-ring": (_case(3, [0], RING + [(1, None, "B", 0)], [WEAK_A, STRONG_B],
                                     kind=TemporalKind.ALWAYS_EVENTUALLY), False),
    # the same with B weak: disabled in 0 and 2, so the ring is fair
    "weak-disabled-somewhere": (_case(3, [0], RING + [(1, None, "B", 0)], [WEAK_A, WEAK_B],
                                      kind=TemporalKind.ALWAYS_EVENTUALLY), True),
    # strong B taken inside the ring (1 -> 2 by B): fair
    "strong-taken-inside": (_case(3, [0], RING + [(1, 2, "B", 0)], [WEAK_A, STRONG_B],
                                  kind=TemporalKind.ALWAYS_EVENTUALLY), True),
    # B splits off 1; WF(A) is not enabled in 3, where the behaviour may rest
    "strong-split-leaves-a-resting-state": (
        _case(4, [0], RING + [(1, None, "B", 0), (2, 3, "C", 0), (3, 2, "C", 0)],
              [WEAK_A, STRONG_B], kind=TemporalKind.ALWAYS_EVENTUALLY), True),
    # the trigger (P, not Q) sits after a Q state; from it Q is never reached
    "leads-to-trigger-after-q": (_case(3, [0], [(0, 1, "A", 0), (1, 2, "A", 0)], [WEAK_A],
                                       q=[0], p=[1], kind=TemporalKind.LEADS_TO), True),
    # every path from the trigger passes Q under WF(A)
    "leads-to-answered": (_case(3, [0], [(0, 1, "A", 0), (1, 2, "A", 0)], [WEAK_A],
                                q=[2], p=[0], kind=TemporalKind.LEADS_TO), False),
}


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_find_lasso_on_rare_shapes(name):
    case, violated = SHAPES[name]
    assert oracle_violated(case) is violated
    lasso = find_lasso(case.graph(), case.check(), case.conditions, case.holds)
    assert (lasso is not None) is violated, lasso
    if lasso is not None:
        assert lasso_problem(case, lasso) is None
