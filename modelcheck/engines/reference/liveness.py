"""Liveness on the explicit state graph: the oracle the other engines follow.

Plain and direct, over Python sets, so that it can be read against
docs/design.md ("Liveness"): strongly connected components of the states a
counterexample may cycle through, Streett emptiness for weak and strong
fairness (every state may stutter, so one state alone is a cycle), then a
lasso: the shortest prefix to an accepted set and a cycle inside it through
every step the fairness conditions need.
"""
from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from modelcheck.evaluate.temporal import FairCondition, LivenessCheck
from modelcheck.ir.nodes import FairKind, TemporalKind

__all__ = ["Edge", "Graph", "Lasso", "find_lasso", "sccs"]


@dataclass(frozen=True)
class Edge:
    """A step between two different stored states; ``takes`` holds the
    indices of the fairness conditions it takes."""
    target: int
    label: tuple[str, tuple]
    takes: frozenset[int]


@dataclass
class Graph:
    """States are 0..n-1 in BFS order.  ``edges[u]`` are u's steps to other
    stored states; ``enabled[u]`` the conditions enabled in u (targets outside
    the constraints count); ``initial`` the stored initial states."""
    edges: list[list[Edge]]
    enabled: list[frozenset[int]]
    initial: list[int]

    def __len__(self) -> int:
        return len(self.edges)


@dataclass(frozen=True)
class Lasso:
    """State indices: ``prefix`` ends at the cycle's first state; ``cycle``
    lists the steps round it (empty: that state stutters forever)."""
    prefix: list[tuple[int, tuple[str, tuple] | None]]   # (state, label of the step into it)
    cycle: list[tuple[int, tuple[str, tuple]]]           # (state, label); the last returns home


def sccs(graph: Graph, nodes: set[int]) -> list[set[int]]:
    """The strongly connected components of the subgraph on ``nodes``
    (iterative Tarjan: specs have long paths)."""
    index: dict[int, int] = {}
    low: dict[int, int] = {}
    on_stack: set[int] = set()
    stack: list[int] = []
    out: list[set[int]] = []
    counter = 0
    for root in sorted(nodes):
        if root in index:
            continue
        work = [(root, 0)]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            u, i = work[-1]
            succ = graph.edges[u]
            while i < len(succ) and succ[i].target not in nodes:
                i += 1
            if i < len(succ):
                work[-1] = (u, i + 1)
                v = succ[i].target
                if v not in index:
                    index[v] = low[v] = counter
                    counter += 1
                    stack.append(v)
                    on_stack.add(v)
                    work.append((v, 0))
                elif v in on_stack:
                    low[u] = min(low[u], index[v])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[u])
            if low[u] == index[u]:
                comp = set()
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.add(w)
                    if w == u:
                        break
                out.append(comp)
    return out


def _taken_inside(graph: Graph, nodes: set[int], f: int) -> bool:
    return any(f in e.takes and e.target in nodes for u in nodes for e in graph.edges[u])


def _accepted(graph: Graph, nodes: set[int], conditions: Sequence[FairCondition],
              need: set[int] | None) -> list[set[int]]:
    """The subsets of the strongly connected ``nodes`` that hold a fair cycle
    (and meet ``need``, the not-Q states for ``eventually always``)."""
    if need is not None and not nodes & need:
        return []
    for f, cond in enumerate(conditions):
        if _taken_inside(graph, nodes, f):
            continue
        enabled = {u for u in nodes if f in graph.enabled[u]}
        if cond.kind is FairKind.WEAK:
            if enabled == nodes:
                return []     # enabled all along the cycle, never taken: unfair
            continue
        if not enabled:
            continue
        # Strong: the cycle must avoid the states where it is enabled.
        out: list[set[int]] = []
        for part in sccs(graph, nodes - enabled):
            out.extend(_accepted(graph, part, conditions, need))
        return out
    return [nodes]


def find_lasso(graph: Graph, check: LivenessCheck, conditions: Sequence[FairCondition],
               holds: Callable[[object, int], bool]) -> Lasso | None:
    """A fair lasso violating ``check``, or None if it holds on the graph.
    ``holds(expr, u)`` evaluates a state predicate in state u."""
    n = len(graph)
    not_q = {u for u in range(n) if not holds(check.q, u)}
    if check.kind is TemporalKind.EVENTUALLY_ALWAYS:
        region, need = set(range(n)), not_q
    else:
        region, need = not_q, None
    accepted: list[set[int]] = []
    for comp in sccs(graph, region):
        accepted.extend(_accepted(graph, comp, conditions, need))
    if not accepted:
        return None
    home = {u: i for i, part in enumerate(accepted) for u in part}
    prefix = _prefix(graph, check, not_q, holds, home)
    if prefix is None:
        return None
    entry = prefix[-1][0]
    part = accepted[home[entry]]
    return Lasso(prefix, _cycle(graph, part, entry, conditions, need))


def _prefix(graph: Graph, check: LivenessCheck, not_q: set[int],
            holds: Callable[[object, int], bool], home: dict[int, int]
            ) -> list[tuple[int, tuple[str, tuple] | None]] | None:
    """The shortest path from an initial state to an accepted state, under
    the form's restriction: ``eventually`` through not-Q states only;
    ``leads to`` free until a P-and-not-Q state, then through not-Q states
    (a mode bit: 0 before the trigger, 1 after)."""
    kind = check.kind
    if kind is TemporalKind.EVENTUALLY:
        starts = [(u, 1) for u in graph.initial if u in not_q]
    elif kind is TemporalKind.LEADS_TO:
        starts = [(u, 0) for u in graph.initial]
    else:
        starts = [(u, 1) for u in graph.initial]
    # 0-1 breadth-first search: the mode switch costs no step.
    parent: dict[tuple[int, int], tuple[tuple[int, int], tuple | None] | None] = {}
    dist: dict[tuple[int, int], int] = {}
    queue: deque[tuple[int, int]] = deque()
    for s in starts:
        if s not in dist:
            parent[s] = None
            dist[s] = 0
            queue.append(s)
    done: set[tuple[int, int]] = set()
    while queue:
        node = queue.popleft()
        if node in done:
            continue
        done.add(node)
        u, mode = node
        d = dist[node]
        if mode == 1 and u in home:
            return _unwind(parent, node)
        if mode == 0 and u in not_q and holds(check.p, u):
            switched = (u, 1)
            if dist.get(switched, d + 1) > d:
                parent[switched] = (node, None)
                dist[switched] = d
                queue.appendleft(switched)
        for e in graph.edges[u]:
            nxt = (e.target, mode)
            if mode == 1 and kind in (TemporalKind.EVENTUALLY, TemporalKind.LEADS_TO) \
                    and e.target not in not_q:
                continue
            if dist.get(nxt, d + 2) > d + 1:
                parent[nxt] = (node, e.label)
                dist[nxt] = d + 1
                queue.append(nxt)
    return None


def _unwind(parent: dict, node: tuple[int, int]) -> list[tuple[int, tuple[str, tuple] | None]]:
    out: list[tuple[int, tuple[str, tuple] | None]] = []
    cur: tuple[int, int] | None = node
    while cur is not None:
        link = parent[cur]
        if link is None:
            out.append((cur[0], None))
            break
        prev, label = link
        if label is not None:      # a mode switch is not a step
            out.append((cur[0], label))
        cur = prev
    out.reverse()
    return out


def _cycle(graph: Graph, part: set[int], entry: int, conditions: Sequence[FairCondition],
           need: set[int] | None) -> list[tuple[int, tuple[str, tuple]]]:
    """A closed walk from ``entry`` inside ``part`` through a taking step for
    every condition some step inside takes, a disabled state for every weak
    one not taken, and a ``need`` state; empty when standing still will do.
    A waypoint the walk already met is skipped."""
    walk: list[tuple[int, Edge]] = []
    taken: set[int] = set()
    visited = {entry}
    here = entry

    def go(path: list[tuple[int, Edge]]) -> None:
        nonlocal here
        for v, e in path:
            walk.append((v, e))
            taken.update(e.takes)
            visited.add(v)
            here = v

    for f, cond in enumerate(conditions):
        if f in taken:
            continue
        step = _taking_step(graph, part, f)
        if step is not None:
            u, e = step
            go(_path_inside(graph, part, here, {u}) + [(e.target, e)])
        elif cond.kind is FairKind.WEAK:
            disabled = {u for u in part if f not in graph.enabled[u]}
            if not visited & disabled:
                go(_path_inside(graph, part, here, disabled))
    if need is not None and not visited & need:
        go(_path_inside(graph, part, here, part & need))
    if walk:
        go(_path_inside(graph, part, here, {entry}))
    return [(v, e.label) for v, e in walk]


def _taking_step(graph: Graph, part: set[int], f: int) -> tuple[int, Edge] | None:
    """The first step inside ``part`` that takes condition ``f``: states in
    order, a state's targets in the order its steps first reach them, and of
    the steps to that target the first that takes ``f``.  Ordered by target
    rather than by step because the compiled engine records one edge per
    target; both engines then walk the same cycle."""
    for u in sorted(part):
        takers = [e for e in graph.edges[u] if f in e.takes and e.target in part]
        if takers:
            rank: dict[int, int] = {}
            for e in graph.edges[u]:
                rank.setdefault(e.target, len(rank))
            return u, min(takers, key=lambda e: rank[e.target])
    return None


def _path_inside(graph: Graph, part: set[int], start: int, goal: set[int]
                 ) -> list[tuple[int, Edge]]:
    """The shortest walk from ``start`` to a state of ``goal`` within
    ``part`` (empty if ``start`` is in ``goal``)."""
    if start in goal:
        return []
    parent: dict[int, tuple[int, Edge]] = {}
    queue = deque([start])
    seen = {start}
    while queue:
        u = queue.popleft()
        for e in graph.edges[u]:
            v = e.target
            if v in part and v not in seen:
                seen.add(v)
                parent[v] = (u, e)
                if v in goal:
                    out = []
                    while v != start:
                        p, edge = parent[v]
                        out.append((v, edge))
                        v = p
                    out.reverse()
                    return out
                queue.append(v)
    raise AssertionError("a strongly connected set is missing a path")
