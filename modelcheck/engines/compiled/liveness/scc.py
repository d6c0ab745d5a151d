"""Fair cycles and lassos on the recorded state graph, in numba.

The graph (liveness/graph.py) is CSR over a byte string (liveness/edges.py):
the successors of state ``v`` are coded in ``eb[off[v]:off[v + 1]]``, each
edge with the bits of the fairness conditions it takes (``nb`` bytes, a
byte per 8 conditions), each state with the bits of those enabled in it
(``ena``).  Every state also has a stutter self-loop, which is not stored.
``off`` is int32 or int64.

``streett`` finds the fair strongly connected sets of a sub-graph
(docs/design.md, "Liveness", the fair-cycle test): Pearce's one-array
variant of Tarjan's algorithm, iterative, each component tested as it is
found, a component that needs it split again without the states where an
untaken strong condition is enabled.  No recursion: a stack of segments.

Memory (docs/engines/liveness.md, "Memory"): the arrays indexed by state are
the caller's ``label`` (which also holds Pearce's ``rindex`` during a pass)
and ``acc``; the stacks (the depth-first path, the states waiting for their component,
the segments to split again) start small and double as they fill, so they
cost what the graph's shape asks, not a word per state each.  The prefix
search keeps int32 parents and distances per node (a node is a state and a
mode) and a queue that grows as it fills.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from modelcheck.engines.compiled.liveness.edges import next_edge

__all__ = ["streett", "lasso_prefix", "path_to_set", "taking_edges"]

#: The first size of each growing stack.
_START = 1024


@njit(cache=True, nogil=True)
def _more_i32(a, need):
    """``a``, or a copy at least ``need`` long (twice as long at least)."""
    if need <= a.shape[0]:
        return a
    m = max(a.shape[0] * 2, 16)
    while m < need:
        m *= 2
    b = np.empty(m, dtype=np.int32)
    b[:a.shape[0]] = a
    return b


@njit(cache=True, nogil=True)
def _more_i64(a, need):
    if need <= a.shape[0]:
        return a
    m = max(a.shape[0] * 2, 16)
    while m < need:
        m *= 2
    b = np.empty(m, dtype=np.int64)
    b[:a.shape[0]] = a
    return b


@njit(cache=True, nogil=True)
def _more_u8(a, need):
    if need <= a.shape[0]:
        return a
    m = max(a.shape[0] * 2, 16)
    while m < need:
        m *= 2
    b = np.empty(m, dtype=np.uint8)
    b[:a.shape[0]] = a
    return b


@njit(cache=True, nogil=True)
def streett(off, eb, ena, weak, allowed, need, label, acc):
    """Mark (``acc``) the states of every fair set among the ``allowed``
    states that holds a ``need`` state; ``label`` tells the sets apart
    (states outside every set: -1).  Returns how many sets there are.

    A pass is a depth-first search over the states labelled ``lab`` (edges
    to other labels ignored); a state's ``rindex`` is its visit number, then
    the least one it reaches on the stack (Pearce 2016), so a state is the
    root of its component when the number stays its own.  The number is
    kept in the state's label while the pass has it (``-2 - rindex``: no
    label is below -1 otherwise), so no array per state is needed besides
    the caller's.  A component is
    taken off the stack as soon as it is complete, relabelled (which hides
    it from the rest of the pass) and tested: dropped without a ``need``
    state or with an untaken weak condition enabled throughout, accepted
    when no untaken strong condition is enabled in it, else its states
    where one is are dropped and the rest waits as a segment (in ``order``)
    for a pass of its own."""
    n = allowed.shape[0]
    nb = ena.shape[1]
    nc = weak.shape[0]
    stk = np.empty(_START, dtype=np.int32)       # finished states whose component is open
    cnode = np.empty(_START, dtype=np.int32)     # the depth-first path
    cedge = np.empty(_START, dtype=np.int64)     # its next edge
    cprev = np.empty(_START, dtype=np.int64)     # the target of the edge before it
    croot = np.empty(_START, dtype=np.uint8)     # whether it is still its component's root
    order = np.empty(_START, dtype=np.int32)     # the states of the segments waiting
    segs = np.empty(3 * 64, dtype=np.int32)      # (lo, hi, label) into order
    taken = np.zeros(max(nb, 1), dtype=np.uint8)
    eall = np.zeros(max(nb, 1), dtype=np.uint8)
    eany = np.zeros(max(nb, 1), dtype=np.uint8)
    remove = np.zeros(max(nb, 1), dtype=np.uint8)
    for v in range(n):
        acc[v] = 0
        label[v] = 0 if allowed[v] != 0 else -1
    next_label = 1
    accepted = 0
    nseg = 0
    top = 0                 # order[:top] holds the waiting segments, stacked
    first = True            # the first pass: every allowed state, roots in id order
    lab = 0
    lo = 0
    hi = n
    while True:
        if not first:
            if nseg == 0:
                break
            nseg -= 1
            lo = segs[3 * nseg]
            hi = segs[3 * nseg + 1]
            lab = segs[3 * nseg + 2]
        base = hi if not first else 0     # where this pass's new segments start
        if not first:
            top = hi
        index = 1
        sp = 0
        for p in range(lo, hi):
            r = p if first else order[p]
            if label[r] != lab:
                continue
            label[r] = -2 - index
            index += 1
            cnode[0] = r
            cedge[0] = off[r]
            cprev[0] = r
            croot[0] = 1
            cs = 1
            while cs > 0:
                v = cnode[cs - 1]
                e = cedge[cs - 1]
                if e < off[v + 1]:
                    w, e = next_edge(eb, e, cprev[cs - 1])
                    cedge[cs - 1] = e + nb
                    cprev[cs - 1] = w
                    lw = label[w]
                    if lw == lab:
                        if cs >= cnode.shape[0]:
                            cnode = _more_i32(cnode, cs + 1)
                            cedge = _more_i64(cedge, cs + 1)
                            cprev = _more_i64(cprev, cs + 1)
                            croot = _more_u8(croot, cs + 1)
                        label[w] = -2 - index
                        index += 1
                        cnode[cs] = w
                        cedge[cs] = off[w]
                        cprev[cs] = w
                        croot[cs] = 1
                        cs += 1
                    elif lw <= -3 and lw > label[v]:      # on the stack, lower rindex
                        label[v] = lw
                        croot[cs - 1] = 0
                    continue
                cs -= 1
                if croot[cs] == 0:
                    if sp >= stk.shape[0]:
                        stk = _more_i32(stk, sp + 1)
                    stk[sp] = v
                    sp += 1
                else:
                    # v's component: v and the states above it on the stack.
                    k = sp
                    lv = label[v]
                    while k > 0 and label[stk[k - 1]] <= lv:
                        k -= 1
                    if sp >= stk.shape[0]:
                        stk = _more_i32(stk, sp + 1)
                    stk[sp] = v
                    b = sp + 1
                    sp = k
                    lc = next_label
                    next_label += 1
                    has_need = False
                    for q in range(k, b):
                        label[stk[q]] = lc
                        if need[stk[q]] != 0:
                            has_need = True
                    if not has_need:
                        for q in range(k, b):
                            label[stk[q]] = -1
                    else:
                        for q in range(nb):
                            taken[q] = 0
                            eall[q] = 0xFF
                            eany[q] = 0
                            remove[q] = 0
                        for q in range(k, b):
                            u = stk[q]
                            for j in range(nb):
                                eall[j] &= ena[u, j]
                                eany[j] |= ena[u, j]
                            x = off[u]
                            end = off[u + 1]
                            prev = np.int64(u)
                            while x < end:
                                w, x = next_edge(eb, x, prev)
                                prev = w
                                if label[w] == lc:
                                    for j in range(nb):
                                        taken[j] |= eb[x + j]
                                x += nb
                        reject = False
                        removing = False
                        for f in range(nc):
                            j = f >> 3
                            bit = np.uint8(1 << (f & 7))
                            if taken[j] & bit:
                                continue
                            if weak[f] != 0:
                                if eall[j] & bit:
                                    reject = True
                            elif eany[j] & bit:
                                remove[j] |= bit
                                removing = True
                        if reject:
                            for q in range(k, b):
                                label[stk[q]] = -1
                        elif not removing:
                            for q in range(k, b):
                                acc[stk[q]] = 1
                            accepted += 1
                        else:
                            start = top
                            for q in range(k, b):
                                u = stk[q]
                                hit = False
                                for j in range(nb):
                                    if ena[u, j] & remove[j]:
                                        hit = True
                                if hit:
                                    label[u] = -1
                                else:
                                    if top >= order.shape[0]:
                                        order = _more_i32(order, top + 1)
                                    order[top] = u
                                    top += 1
                            if top > start:
                                if 3 * nseg + 3 > segs.shape[0]:
                                    segs = _more_i32(segs, 3 * nseg + 3)
                                segs[3 * nseg] = start
                                segs[3 * nseg + 1] = top
                                segs[3 * nseg + 2] = lc
                                nseg += 1
                if cs > 0:
                    u = cnode[cs - 1]
                    if label[v] <= -3 and label[v] > label[u]:
                        label[u] = label[v]
                        croot[cs - 1] = 0
        if not first and top > base:
            # This pass's segment was the topmost: its new ones move down to lo.
            shift = base - lo
            for p in range(base, top):
                order[p - shift] = order[p]
            top -= shift
            s = nseg - 1
            while s >= 0 and segs[3 * s] >= base:
                segs[3 * s] -= shift
                segs[3 * s + 1] -= shift
                s -= 1
        elif not first:
            top = lo
        first = False
    return accepted


@njit(cache=True, nogil=True)
def _prefix(off, eb, nb, initial, start_mode, move1, trigger, acc, par, dist, done, ring):
    cap = ring.shape[0]
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
            if size >= cap:
                ring, head, cap = _ring_more(ring, head, size)
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
            return x
        if mode == 0 and trigger[v] != 0:
            s = x + 1
            if dist[s] == -1 or dist[s] > d:
                par[s] = x
                dist[s] = d
                if size >= cap:
                    ring, head, cap = _ring_more(ring, head, size)
                head = (head - 1) % cap
                ring[head] = s
                size += 1
        e = off[v]
        end = off[v + 1]
        prev = np.int64(v)
        while e < end:
            w, e = next_edge(eb, e, prev)
            prev = w
            e += nb
            if mode == 1 and move1[w] == 0:
                continue
            y = 2 * w + mode
            if dist[y] == -1 or dist[y] > d + 1:
                par[y] = x
                dist[y] = d + 1
                if size >= cap:
                    ring, head, cap = _ring_more(ring, head, size)
                ring[(head + size) % cap] = y
                size += 1
    return -1


@njit(cache=True, nogil=True)
def _ring_more(ring, head, size):
    """The full ring ``ring`` (``size`` items from ``head``) in one twice as
    long, from 0: (ring, head, capacity)."""
    cap = ring.shape[0]
    out = np.empty(2 * cap, dtype=ring.dtype)
    for i in range(size):
        out[i] = ring[(head + i) % cap]
    return out, 0, 2 * cap


def _node_dtype(nodes: int) -> type:
    return np.int32 if nodes < 2**31 - 2 else np.int64


def lasso_prefix(off, eb, nb, initial, start_mode, move1, trigger, acc):
    """The reference explorer's prefix search (reference/liveness.py,
    ``_prefix``), step for step, so that both engines end the prefix at the
    same state: a 0-1 breadth-first search over nodes ``2 * state + mode``.
    The initial states start in ``start_mode`` (in mode 1 only those of
    ``move1``); mode 0 moves anywhere and, when a ``trigger`` state is
    taken off the queue, turns to mode 1 at no cost (in front of the queue);
    mode 1 moves to ``move1`` states only and stops at the first ``acc``
    state taken off the queue (with no trigger and ``start_mode`` 1, a
    plain breadth-first search).  Returns (that node or -1, each node's
    parent: -1 a root, -2 not reached).  A node is queued at most twice:
    once at the back when found, once in front when a mode switch reaches
    it sooner (the queue's distances never fall, so nothing improves on
    that); the queue grows as it fills."""
    n = acc.shape[0]
    dt = _node_dtype(2 * n)
    par = np.full(2 * n, -2, dtype=dt)
    dist = np.full(2 * n, -1, dtype=dt)
    done = np.zeros(2 * n, dtype=np.uint8)
    ring = np.empty(min(4 * n + 2, _START), dtype=dt)
    x = _prefix(off, eb, np.int64(nb), initial, np.int64(start_mode), move1, trigger, acc, par,
                dist, done, ring)
    return x, par


@njit(cache=True, nogil=True)
def _path(off, eb, nb, label, lab, src, goal, par, queue):
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
        e = off[v]
        end = off[v + 1]
        prev = np.int64(v)
        while e < end:
            w, e = next_edge(eb, e, prev)
            prev = w
            e += nb
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


def path_to_set(off, eb, nb, label, lab, src, goal):
    """The reference explorer's ``_path_inside``: a shortest path from
    ``src`` through states labelled ``lab`` to the first ``goal`` state a
    breadth-first search meets (successors in edge order), ``src`` left
    out; empty when ``src`` is a goal state or none can be reached.  The
    queue holds the set's states only: its pages beyond them are never
    touched."""
    n = label.shape[0]
    dt = _node_dtype(n)
    par = np.full(n, -2, dtype=dt)
    queue = np.empty(n, dtype=dt)
    return _path(off, eb, np.int64(nb), label, np.int32(lab), dt(src), goal, par, queue)


@njit(cache=True, nogil=True)
def taking_edges(off, eb, nb, label, lab, members, nc):
    """For each condition, one edge inside the set labelled ``lab`` that
    takes it: (source, target), or (-1, -1)."""
    out = np.full((nc, 2), -1, dtype=np.int64)
    for i in range(members.shape[0]):
        u = members[i]
        e = off[u]
        end = off[u + 1]
        prev = np.int64(u)
        while e < end:
            v, e = next_edge(eb, e, prev)
            prev = v
            m = e
            e += nb
            if label[v] != lab:
                continue
            for f in range(nc):
                if out[f, 0] < 0 and (eb[m + (f >> 3)] >> (f & 7)) & 1:
                    out[f, 0] = u
                    out[f, 1] = v
    return out
