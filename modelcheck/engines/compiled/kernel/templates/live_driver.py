# A kernel template, read as source text (kernel/source.py) and appended to every
# generated kernel module after the model's own functions; never imported.  Its
# free names (jit, jit_inline, W, NSYM, unpack, successors, the runtime's
# helpers...) are the generated module's: docs/engines/compiled.md "Kernels".

# ---------------------------------------------------------------- liveness driver

@jit_inline
def live_insert(keys, tags, tstates, meta, key, row, allow):
    """Like table_insert, with the slot: (status, slot).  A new entry's tag is
    its id, the entry count before the insert."""
    n = keys.shape[0]
    i = home_of(key, meta[0])
    # what a slot keeps beside the key: the words (--exact), a second
    # hash word (--fingerprint-bits 96/128), nothing (kernel/table.py)
    mode = meta[2]
    w2 = second_word(row, mode)
    while i < n:
        k = keys[i]
        if k == SIGN:
            break
        if k == key and slot_matches(tstates, i, row, mode, w2):
            return 0, i
        i += 1
    if not allow:
        return -2, -1
    if i >= n:
        return -1, -1
    keys[i] = key
    tags[i] = np.uint32(meta[1] & 0xFFFFFFFF)
    slot_store(tstates, i, row, mode, w2)
    meta[1] += 1
    return 1, i


@jit_inline
def _live_new(row, tid, V, S, err, lp):
    """Record a new state's liveness predicates."""
    unpack_row(row, V)
    return live_props(V, S, err, lp, tid)


@jit
def live_admit(rows, start, keys, tags, tstates, meta, nxt, ctr, want, kinds, opts,
               found, frows, U, S, V, crow, err, flags, frows2, faid, deg, lp):
    """``admit`` of a liveness run: initial states get ids and predicates."""
    for i in range(start, rows.shape[0]):
        if meta[1] >= opts[5]:
            return 1, i
        if ctr[1] >= nxt.shape[0]:
            return 2, i
        if meta[1] + 1 > deg.shape[0]:
            return 8, i
        for w in range(W):
            crow[w] = rows[i, w]
        key = fingerprint(crow) ^ SIGN
        if NCONS > 0:
            st, slot = live_insert(keys, tags, tstates, meta, key, crow, False)
            if st == -2:
                o = _outside(crow, V, S, err)
                if o < 0:
                    err[3] = 5
                    err[4] = i
                    return 4, i
                if o > 0:
                    ctr[0] += 1
                    r = _check_outside(crow, rows[i], rows[i], -1, V, S, err, want, kinds,
                                       flags, found, frows, frows2, faid, opts[3] != 0)
                    if r < 0:
                        err[3] = 4
                        err[4] = i
                        return 4, i
                    if r > 0:
                        return 5, i + 1
                    continue
        if opts[4] >= 0 and meta[1] >= opts[4]:
            st, slot = live_insert(keys, tags, tstates, meta, key, crow, False)
            ctr[0] += 1
            if st == -2:
                return 6, i
            continue
        st, slot = live_insert(keys, tags, tstates, meta, key, crow, True)
        if st == -1:
            return 1, i
        ctr[0] += 1
        if st == 1:
            tid = np.int64(tags[slot])
            if _live_new(crow, tid, V, S, err, lp) < 0:
                err[3] = 6
                err[4] = i
                return 4, i
            for w in range(W):
                nxt[ctr[1], w] = crow[w]
            ctr[1] += 1
            r = _check_new(crow, V, S, err, want, kinds, flags, found, frows, opts[3] != 0)
            if r < 0:
                err[3] = 4
                err[4] = i
                for w in range(W):
                    err[8 + w] = crow[w]
                return 4, i
            if r > 0:
                return 5, i + 1
    return 0, rows.shape[0]


@jit
def live_chunk(front, start, stop, base, keys, tags, tstates, meta, nxt, ctr,
               act_counts, act_of, want, kinds, want_step, opts,
               found, frows, frows2, faid, U, P, S, V, buf, bufaid, err, flags, sflags,
               deg, ena, lp, dst, emask, amask, gmeta):
    """``explore_chunk`` of a liveness run (``front[i]`` has id ``base + i``):
    the same counts and checks, and the graph.  A row is recorded whole or
    not at all (a full table undoes it; the retry records it)."""
    nstate = want.shape[0]
    nstep = want_step.shape[0]
    dl = nstate + nstep
    nb = ena.shape[1]
    for i in range(start, stop):
        if meta[1] >= opts[5]:
            return 1, i
        k = successors(front, i, U, P, S, buf, bufaid, err)
        if k == -2:
            return 3, i
        if k < 0:
            err[3] = 1
            err[4] = i
            return 4, i
        if ctr[1] + k > nxt.shape[0]:
            return 2, i
        if gmeta[0] + k > dst.shape[0]:
            return 7, i
        if meta[1] + k > deg.shape[0]:
            return 8, i
        sid = base + i
        ctr[0] += k
        if k == 0 and opts[0] != 0 and found[dl] == 0:
            t = is_terminal(U, S, err)
            if t < 0:
                err[3] = 2
                err[4] = i
                return 4, i
            if t == 0:
                found[dl] = 1
                for w in range(W):
                    frows[dl, w] = front[i, w]
                if opts[3] != 0:
                    return 5, i + 1
        e0 = gmeta[0]
        for b in range(nb):
            ena[sid, b] = 0
        for j in range(k):
            a = bufaid[j]
            act_counts[act_of[a]] += 1
            if nstep > 0:
                c = _check_step(front, i, buf, j, a, U, V, S, err, want_step, sflags, found,
                                faid, frows, frows2, nstate, opts[3] != 0)
                if c < 0:
                    return 4, i
                if c > 0:
                    return 5, i + 1
            # A step to the same state is a stutter: it enables and takes nothing.
            if same_slots(buf[j], 0, front[i], 0, W):
                continue
            for b in range(nb):
                ena[sid, b] |= amask[a, b]
            crow = buf[j]
            key = fingerprint_at(buf, j) ^ SIGN
            allow = opts[1] != 0
            if NCONS > 0:
                st, slot = live_insert(keys, tags, tstates, meta, key, crow, False)
                if st == -2:
                    o = _outside(crow, V, S, err)
                    if o != 0:
                        if o < 0:
                            err[3] = 5
                        else:
                            if not allow:
                                continue
                            o = _check_outside(crow, front[i], buf[j], a, V, S, err, want,
                                               kinds, flags, found, frows, frows2, faid,
                                               opts[3] != 0)
                            if o == 0:
                                continue
                            if o > 0:
                                return 5, i + 1
                            err[3] = 4
                        err[4] = i
                        err[5] = j
                        err[6] = a
                        for w in range(W):
                            err[8 + w] = crow[w]
                        return 4, i
            if allow and opts[4] >= 0 and meta[1] >= opts[4]:
                st, slot = live_insert(keys, tags, tstates, meta, key, crow, False)
                if st == -2:
                    return 6, i
            else:
                st, slot = live_insert(keys, tags, tstates, meta, key, crow, allow)
                if st == -1:
                    ctr[0] -= k
                    for jj in range(j + 1):
                        act_counts[act_of[bufaid[jj]]] -= 1
                    gmeta[0] = e0
                    return 1, i
                if st == -2:
                    ctr[2] = 1
                    continue
            tid = np.int64(tags[slot])
            if st == 1:
                if _live_new(crow, tid, V, S, err, lp) < 0:
                    err[3] = 6
                    err[4] = i
                    err[5] = j
                    err[6] = a
                    for w in range(W):
                        err[8 + w] = crow[w]
                    return 4, i
                for w in range(W):
                    nxt[ctr[1], w] = crow[w]
                ctr[1] += 1
            # The edge before the checks: a stop leaves the state found reachable.
            e = e0
            while e < gmeta[0] and dst[e] != tid:
                e += 1
            if e == gmeta[0]:
                dst[e] = tid
                gmeta[0] += 1
                for b in range(nb):
                    emask[e, b] = amask[a, b]
            else:
                for b in range(nb):
                    emask[e, b] |= amask[a, b]
            if st == 1:
                r = _check_new(crow, V, S, err, want, kinds, flags, found, frows, opts[3] != 0)
                if r < 0:
                    err[3] = 4
                    err[4] = i
                    err[5] = j
                    err[6] = a
                    for w in range(W):
                        err[8 + w] = crow[w]
                    return 4, i
                if r > 0:
                    deg[sid] = gmeta[0] - e0
                    return 5, i + 1
        deg[sid] = gmeta[0] - e0
    return 0, stop
