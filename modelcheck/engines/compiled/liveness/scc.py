"""Fair cycles and lassos on the recorded state graph, in numba.

The graph (liveness/graph.py) is CSR: the successors of state ``v`` are
``dst[off[v]:off[v + 1]]``, each edge with the bits of the fairness
conditions it takes (``emask``, a byte per 8 conditions), each state with
the bits of those enabled in it (``ena``).  Every state also has a stutter
self-loop, which is not stored.

``streett`` finds the fair strongly connected sets of a sub-graph
(docs/design.md, "Liveness", the fair-cycle test): an iterative Tarjan over
a segment of states sharing a label, each component tested, a component that
needs it split again without the states where an untaken strong condition is
enabled.  No recursion: a stack of segments.
"""
from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["streett", "lasso_prefix", "path_to_set", "taking_edges"]


@njit(cache=True, nogil=True)
def _tarjan(lo, hi, lab, off, dst, label, order, tmp, idx, low, onst, stk, cnode, cedge,
            bounds):
    """The components of ``order[lo:hi]`` (all labelled ``lab``; edges to
    other labels ignored), written contiguously into ``order[lo:hi]``; their
    bounds in ``bounds``; returns how many."""
    for p in range(lo, hi):
        idx[order[p]] = -1
    cnt = 0
    sp = 0
    out = lo
    nscc = 0
    for p in range(lo, hi):
        root = order[p]
        if idx[root] != -1:
            continue
        idx[root] = cnt
        low[root] = cnt
        cnt += 1
        stk[sp] = root
        sp += 1
        onst[root] = 1
        cnode[0] = root
        cedge[0] = off[root]
        cs = 1
        while cs > 0:
            v = cnode[cs - 1]
            e = cedge[cs - 1]
            if e < off[v + 1]:
                cedge[cs - 1] = e + 1
                w = dst[e]
                if label[w] != lab:
                    continue
                if idx[w] == -1:
                    idx[w] = cnt
                    low[w] = cnt
                    cnt += 1
                    stk[sp] = w
                    sp += 1
                    onst[w] = 1
                    cnode[cs] = w
                    cedge[cs] = off[w]
                    cs += 1
                elif onst[w] != 0 and idx[w] < low[v]:
                    low[v] = idx[w]
            else:
                cs -= 1
                if cs > 0:
                    u = cnode[cs - 1]
                    if low[v] < low[u]:
                        low[u] = low[v]
                if low[v] == idx[v]:
                    start = out
                    while True:
                        sp -= 1
                        w = stk[sp]
                        onst[w] = 0
                        tmp[out] = w
                        out += 1
                        if w == v:
                            break
                    bounds[2 * nscc] = start
                    bounds[2 * nscc + 1] = out
                    nscc += 1
    for p in range(lo, hi):
        order[p] = tmp[p]
    return nscc


@njit(cache=True, nogil=True)
def streett(off, dst, emask, ena, weak, allowed, need, label, acc):
    """Mark (``acc``) the states of every fair set among the ``allowed``
    states that holds a ``need`` state; ``label`` tells the sets apart
    (states outside every set: -1).  Returns how many sets there are."""
    n = allowed.shape[0]
    nb = ena.shape[1]
    nc = weak.shape[0]
    order = np.empty(n, dtype=np.int32)
    tmp = np.empty(n, dtype=np.int32)
    idx = np.empty(n, dtype=np.int32)
    low = np.empty(n, dtype=np.int32)
    onst = np.zeros(n, dtype=np.uint8)
    stk = np.empty(n, dtype=np.int32)
    cnode = np.empty(n, dtype=np.int32)
    cedge = np.empty(n, dtype=np.int64)
    bounds = np.empty(2 * n + 2, dtype=np.int32)
    segs = np.empty(3 * n + 3, dtype=np.int32)
    taken = np.zeros(max(nb, 1), dtype=np.uint8)
    eall = np.zeros(max(nb, 1), dtype=np.uint8)
    eany = np.zeros(max(nb, 1), dtype=np.uint8)
    remove = np.zeros(max(nb, 1), dtype=np.uint8)
    m = 0
    for v in range(n):
        acc[v] = 0
        if allowed[v] != 0:
            label[v] = 0
            order[m] = v
            m += 1
        else:
            label[v] = -1
    nseg = 0
    if m > 0:
        segs[0] = 0
        segs[1] = m
        segs[2] = 0
        nseg = 1
    next_label = 1
    accepted = 0
    while nseg > 0:
        nseg -= 1
        lo = segs[3 * nseg]
        hi = segs[3 * nseg + 1]
        lab = segs[3 * nseg + 2]
        nscc = _tarjan(lo, hi, lab, off, dst, label, order, tmp, idx, low, onst, stk, cnode,
                       cedge, bounds)
        for c in range(nscc):
            a = bounds[2 * c]
            b = bounds[2 * c + 1]
            lc = next_label
            next_label += 1
            has_need = False
            for p in range(a, b):
                label[order[p]] = lc
                if need[order[p]] != 0:
                    has_need = True
            if not has_need:
                for p in range(a, b):
                    label[order[p]] = -1
                continue
            for q in range(nb):
                taken[q] = 0
                eall[q] = 0xFF
                eany[q] = 0
                remove[q] = 0
            for p in range(a, b):
                u = order[p]
                for q in range(nb):
                    eall[q] &= ena[u, q]
                    eany[q] |= ena[u, q]
                for e in range(off[u], off[u + 1]):
                    if label[dst[e]] == lc:
                        for q in range(nb):
                            taken[q] |= emask[e, q]
            reject = False
            removing = False
            for f in range(nc):
                q = f >> 3
                bit = np.uint8(1 << (f & 7))
                if taken[q] & bit:
                    continue
                if weak[f] != 0:
                    if eall[q] & bit:
                        reject = True
                elif eany[q] & bit:
                    remove[q] |= bit
                    removing = True
            if reject:
                for p in range(a, b):
                    label[order[p]] = -1
            elif not removing:
                for p in range(a, b):
                    acc[order[p]] = 1
                accepted += 1
            else:
                kept = a
                for p in range(a, b):
                    u = order[p]
                    hit = False
                    for q in range(nb):
                        if ena[u, q] & remove[q]:
                            hit = True
                    if hit:
                        label[u] = -1
                    else:
                        order[kept] = u
                        kept += 1
                if kept > a:
                    segs[3 * nseg] = a
                    segs[3 * nseg + 1] = kept
                    segs[3 * nseg + 2] = lc
                    nseg += 1
    return accepted


@njit(cache=True, nogil=True)
def lasso_prefix(off, dst, initial, start_mode, move1, trigger, acc):
    """The reference explorer's prefix search (reference/liveness.py,
    ``_prefix``), step for step, so that both engines end the prefix at the
    same state: a 0-1 breadth-first search over nodes ``2 * state + mode``.
    The initial states start in ``start_mode`` (in mode 1 only those of
    ``move1``); mode 0 moves anywhere and, when a ``trigger`` state is
    taken off the queue, turns to mode 1 at no cost (in front of the queue);
    mode 1 moves to ``move1`` states only and stops at the first ``acc``
    state taken off the queue (with no trigger and ``start_mode`` 1, a
    plain breadth-first search).  Returns (that node or -1, each node's
    parent: -1 a root, -2 not reached)."""
    n = acc.shape[0]
    par = np.full(2 * n, -2, dtype=np.int64)
    dist = np.full(2 * n, -1, dtype=np.int64)
    done = np.zeros(2 * n, dtype=np.uint8)
    # A node is queued at most twice: once at the back when found, once in
    # front when a mode switch reaches it sooner (the queue's distances never
    # fall, so nothing improves on that).
    cap = 4 * n + 2
    ring = np.empty(cap, dtype=np.int64)
    head = 0
    size = 0
    for i in range(initial.shape[0]):
        v = initial[i]
        if start_mode == 1 and move1[v] == 0:
            continue
        x = 2 * v + start_mode
        if dist[x] == -1:
            dist[x] = 0
            par[x] = -1
            ring[(head + size) % cap] = x
            size += 1
    while size > 0:
        x = ring[head]
        head = (head + 1) % cap
        size -= 1
        if done[x] != 0:
            continue
        done[x] = 1
        v = x >> 1
        mode = x & 1
        d = dist[x]
        if mode == 1 and acc[v] != 0:
            return x, par
        if mode == 0 and trigger[v] != 0:
            s = x + 1
            if dist[s] == -1 or dist[s] > d:
                par[s] = x
                dist[s] = d
                head = (head - 1) % cap
                ring[head] = s
                size += 1
        for e in range(off[v], off[v + 1]):
            w = dst[e]
            if mode == 1 and move1[w] == 0:
                continue
            y = 2 * w + mode
            if dist[y] == -1 or dist[y] > d + 1:
                par[y] = x
                dist[y] = d + 1
                ring[(head + size) % cap] = y
                size += 1
    return -1, par


@njit(cache=True, nogil=True)
def path_to_set(off, dst, label, lab, src, goal):
    """The reference explorer's ``_path_inside``: a shortest path from
    ``src`` through states labelled ``lab`` to the first ``goal`` state a
    breadth-first search meets (successors in edge order), ``src`` left
    out; empty when ``src`` is a goal state or none can be reached."""
    n = label.shape[0]
    par = np.full(n, -2, dtype=np.int64)
    queue = np.empty(n, dtype=np.int64)
    par[src] = -1
    queue[0] = src
    head = 0
    tail = 1
    found = -1
    if goal[src] != 0:
        return np.empty(0, dtype=np.int64)
    while head < tail and found < 0:
        v = queue[head]
        head += 1
        for e in range(off[v], off[v + 1]):
            w = dst[e]
            if label[w] == lab and par[w] == -2:
                par[w] = v
                if goal[w] != 0:
                    found = w
                    break
                queue[tail] = w
                tail += 1
    if found < 0:
        return np.empty(0, dtype=np.int64)
    length = 0
    v = found
    while v != src:
        length += 1
        v = par[v]
    out = np.empty(length, dtype=np.int64)
    v = found
    for i in range(length - 1, -1, -1):
        out[i] = v
        v = par[v]
    return out


@njit(cache=True, nogil=True)
def taking_edges(off, dst, emask, label, lab, members, nc):
    """For each condition, one edge inside the set labelled ``lab`` that
    takes it: (source, target), or (-1, -1)."""
    out = np.full((nc, 2), -1, dtype=np.int64)
    for i in range(members.shape[0]):
        u = members[i]
        for e in range(off[u], off[u + 1]):
            v = dst[e]
            if label[v] != lab:
                continue
            for f in range(nc):
                if out[f, 0] < 0 and (emask[e, f >> 3] >> (f & 7)) & 1:
                    out[f, 0] = u
                    out[f, 1] = v
    return out
