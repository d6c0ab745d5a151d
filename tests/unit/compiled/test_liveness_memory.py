"""The compiled liveness run's memory layout (docs/engines/liveness.md,
"Memory"): the coded edges read back as recorded, the one-array Streett
check against a plain one on random graphs, and a run whose edges go
through the files (a tiny buffer) giving what the in-memory run gives."""
from __future__ import annotations

import random

import numpy as np
import pytest

from modelcheck import api
from modelcheck.engines.base import CheckOptions, Status
from modelcheck.ir.nodes import PropertyKind

pytest.importorskip("numba")

from modelcheck.engines.compiled.liveness import graph as live_graph  # noqa: E402
from modelcheck.engines.compiled.liveness.edges import next_edge  # noqa: E402
from modelcheck.engines.compiled.liveness.scc import (lasso_prefix, path_to_set,  # noqa: E402
                                                      streett)


def _graph(n: int, edges: list[list[tuple[int, int]]], nb: int, block: int,
           monkeypatch: pytest.MonkeyPatch) -> live_graph.LiveGraph:
    """A LiveGraph recorded as the kernel records it, with a buffer of
    ``block`` edges (spilled to the files past that)."""
    monkeypatch.setattr(live_graph, "EDGE_BLOCK", block)
    monkeypatch.setattr(live_graph, "READ_BLOCK", max(1, block - 1))
    g = live_graph.LiveGraph(1, np.zeros((1, nb), dtype=np.uint8), n)
    for v, out in enumerate(edges):
        while g.gmeta[0] + len(out) > g.dst.shape[0]:
            g.grow_edges()
        for w, m in out:
            e = int(g.gmeta[0])
            g.dst[e] = w
            g.emask[e, :] = [(m >> (8 * j)) & 0xFF for j in range(nb)]
            g.gmeta[0] += 1
        g.deg[v] = len(out)
    return g


def _read(g: live_graph.LiveGraph, n: int) -> list[list[tuple[int, int]]]:
    out = []
    for v in range(n):
        pos, end, prev, row = int(g.off[v]), int(g.off[v + 1]), v, []
        while pos < end:
            w, pos = next_edge(g.eb, pos, prev)
            prev = int(w)
            m = sum(int(g.eb[pos + j]) << (8 * j) for j in range(g.nb))
            row.append((int(w), m))
            pos += g.nb
        out.append(row)
    return out


def _random_edges(rng: random.Random, n: int, nc: int, most: int = 6) -> list:
    out = []
    for v in range(n):
        ws = rng.sample(range(n), rng.randint(0, min(most, n)))
        out.append([(w, rng.getrandbits(nc)) for w in ws if w != v])
    return out


@pytest.mark.parametrize("block", [1, 3, 64, 1 << 16])
@pytest.mark.parametrize("final", [False, True])
def test_the_coded_edges_read_back_as_recorded(block, final, monkeypatch):
    rng = random.Random(block)
    n = 300
    edges = _random_edges(rng, n, 12)
    for v in rng.sample(range(n), 20):      # far targets: several bytes each
        edges[v].append((rng.choice([0, n - 1]), 0))
    g = _graph(n, edges, 2, block, monkeypatch)
    assert (g.spilled > 0) == (block < 1000)
    g.close(n, final=final)
    assert _read(g, n) == edges
    assert g.off.dtype == np.int32


def _sccs(nodes: set[int], succ: dict[int, list[int]]) -> list[set[int]]:
    index: dict[int, int] = {}
    low: dict[int, int] = {}
    stack: list[int] = []
    on: set[int] = set()
    out: list[set[int]] = []

    def visit(v: int) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in succ[v]:
            if w not in nodes:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            out.append(comp)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def _plain_streett(n, edges, ena, weak, allowed, need) -> list[frozenset[int]]:
    """docs/design.md's fair-cycle test, over Python sets."""
    succ = {v: [w for w, _ in edges[v]] for v in range(n)}
    nc = len(weak)
    found = []
    work = [{v for v in range(n) if allowed[v]}]
    while work:
        part = work.pop()
        for comp in _sccs(part, succ):
            if not any(need[v] for v in comp):
                continue
            taken = 0
            for u in comp:
                for w, m in edges[u]:
                    if w in comp:
                        taken |= m
            eall, eany = (1 << nc) - 1, 0
            for u in comp:
                eall &= ena[u]
                eany |= ena[u]
            untaken = ~taken
            if any(weak[f] and (untaken & eall) >> f & 1 for f in range(nc)):
                continue
            remove = sum(1 << f for f in range(nc) if not weak[f] and (untaken & eany) >> f & 1)
            if not remove:
                found.append(frozenset(comp))
            else:
                kept = {u for u in comp if not ena[u] & remove}
                if kept:
                    work.append(kept)
    return found


@pytest.mark.parametrize("seed", range(40))
def test_streett_finds_the_plain_algorithms_fair_sets(seed, monkeypatch):
    rng = random.Random(seed)
    n = rng.randint(1, 60)
    nc = rng.randint(1, 10)
    edges = _random_edges(rng, n, nc, most=rng.randint(1, 4))
    ena = [rng.getrandbits(nc) for _ in range(n)]
    for v in range(n):      # a step's condition is enabled where it is taken
        for _, m in edges[v]:
            ena[v] |= m
    weak = np.array([rng.randint(0, 1) for _ in range(nc)], dtype=np.uint8)
    allowed = np.array([rng.random() < 0.9 for _ in range(n)], dtype=np.uint8)
    need = np.array([rng.random() < 0.5 for _ in range(n)], dtype=np.uint8)
    g = _graph(n, edges, 2, rng.choice([2, 1 << 16]), monkeypatch)
    g.close(n, final=True)
    ena_rows = np.array([[(e >> (8 * j)) & 0xFF for j in range(2)] for e in ena],
                        dtype=np.uint8)
    label = np.zeros(n, dtype=np.int32)
    acc = np.zeros(n, dtype=np.uint8)
    count = streett(g.off, g.eb, ena_rows, weak, allowed, need, label, acc)
    want = _plain_streett(n, edges, ena, weak, allowed, need)
    sets: dict[int, set[int]] = {}
    for v in range(n):
        assert (label[v] >= 0) == bool(acc[v])
        if acc[v]:
            sets.setdefault(int(label[v]), set()).add(v)
    assert count == len(want)
    assert sorted(map(sorted, sets.values())) == sorted(map(sorted, want))
    if want:        # the prefix search and the path inside a set read the same edges
        initial = np.arange(1, dtype=np.int64)
        ones = np.ones(n, dtype=np.uint8)
        x, par = lasso_prefix(g.off, g.eb, g.nb, initial, 1, ones, ones, acc)
        if x >= 0:
            assert acc[x >> 1]
            v = int(x) >> 1
            lab = int(label[v])
            goal = np.zeros(n, dtype=np.uint8)
            for u in sets[lab]:
                goal[u] = 1
            goal[v] = 0
            path = path_to_set(g.off, g.eb, g.nb, label, lab, v, goal)
            assert len(path) > 0 or len(sets[lab]) == 1


SERVED = """
module served
type Id = 0..2
var want: map[Id, bool] = {i: false for i in Id}
action Ask(i: Id) {
    require not want[i]
    want[i] := true
}
action Serve(i: Id) {
    require want[i]
    want[i] := false
}
liveness Served(i: Id): want[i] leads to not want[i]
liveness Often: always eventually not want[0]
invariant NotAll: not all(want[i] for i in Id)
"""


def _summary(result) -> dict:
    out = {}
    for p in result.properties:
        t = p.trace
        out[p.name] = (p.status, None if t is None else
                       (t.loop, [(s.label(), repr(s.state)) for s in t.steps],
                        None if t.loop_back is None else t.loop_back.label()))
    return out


@pytest.mark.parametrize("fair", ["", "fair weak Serve\n", "fair weak Serve(*)\n"])
def test_edges_through_the_files_give_the_same_run(fair, monkeypatch):
    model = api.load_source(SERVED + fair)
    options = CheckOptions(stop_when_settled=False)
    plain = api.check(model, engine="compiled", options=options)
    monkeypatch.setattr(live_graph, "EDGE_BLOCK", 2)
    monkeypatch.setattr(live_graph, "READ_BLOCK", 3)
    spilled = api.check(model, engine="compiled", options=options)
    assert spilled.stats.extras["liveness_edges_spilled"] > 0
    assert plain.stats.extras["liveness_edges_spilled"] == 0
    assert spilled.stats.distinct_states == plain.stats.distinct_states
    assert spilled.stats.extras["liveness_edges"] == plain.stats.extras["liveness_edges"]
    assert _summary(spilled) == _summary(plain)
    assert any(p.kind is PropertyKind.LIVENESS and p.status is Status.VIOLATED
               for p in plain.properties) == (fair != "fair weak Serve(*)\n")


def test_the_table_moved_to_a_file_still_finds_states_exactly():
    """--exact: the moved table holds the packed states too; the lasso's
    replay looks states up in it."""
    model = api.load_source(SERVED)
    fuzzy = api.check(model, engine="compiled", options=CheckOptions())
    exact = api.check(model, engine="compiled", options=CheckOptions(exact=True))
    assert _summary(exact) == _summary(fuzzy)
    assert exact.get_property("Served").status is Status.VIOLATED
