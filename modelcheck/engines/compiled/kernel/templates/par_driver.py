# A kernel template, read as source text (kernel/source.py) and appended to every
# generated kernel module after the model's own functions; never imported.  Its
# free names (jit, jit_inline, W, NSYM, unpack, successors, the runtime's
# helpers...) are the generated module's: docs/engines/compiled.md "Kernels".

# ---------------------------------------------------------------- parallel search

PREFETCH_AHEAD = 8

@jit
def par_props(row, V, S, err, want, flags):
    """_evaluate_wanted as a call: the parallel kernels call it from several
    places, and each inlined copy would cost its compile time again."""
    return _evaluate_wanted(row, V, S, err, want, flags)


@jit
def par_outside(row, V, S, err):
    return _outside(row, V, S, err)


@jit
def _par_found(row, parent, post, a, where, want, kinds, flags, found, frows, frows2, faid,
               stop_first):
    """Settle the properties the flags of a new (``where`` 1) or outside (2,
    3 for an initial state) state settle, as _check_new and _check_outside
    do: 1 stop, 0 go on."""
    stop = 0
    for q in range(want.shape[0]):
        if _settles(q, want, kinds, flags):
            want[q] = 0
            found[q] = where
            if where == 1:
                for x in range(W):
                    frows[q, x] = row[x]
            else:
                faid[q] = a
                for x in range(W):
                    frows[q, x] = parent[x]
                    frows2[q, x] = post[x]
            if kinds[q] == 0 and stop_first:
                stop = 1
    return stop


@jit
def par_initial(rows, out, okeys, opts, U, S):
    """Initial states: canonical rows and keys (one thread: there are few)."""
    for i in range(rows.shape[0]):
        canon_row(rows, i, U, S, out[i], opts[2] != 0)
        okeys[i] = fingerprint_at(out, i) ^ SIGN


@jit
def par_expand(front, start, stop, out, post, okeys, optag, oaid, osbits, rowk, term, m0,
               want_step, opts, U, P, S, V, buf, bufaid, err, sflags, rkeys, rrows, rown,
               act_of, wact):
    """Successors of front[start:stop] into out/post/... from m0: (status, row
    reached, candidates written); status 0 done, 2 out is full, 3 buf is too
    small.  rowk[i]: successors of row i, -1 an error; term[i]: is_terminal
    of a row without successors (-1 an error); osbits: the wanted step
    invariants a step breaks, -1 an error; rown[i]: the successors of row i
    not known here; wact: successors per action (the settling pass counts
    them only when a search stops inside the chunk).  With symmetry ``post`` holds the
    successor as computed, ``out`` its representative; without, they are one
    array.

    ``rkeys`` (``rrows`` with --exact) is the worker's cache of recent keys,
    as in explore_chunk: a key met before by this worker is in the table by
    the time the serial order reaches this step, when every candidate is
    stored or already there (no constraints, not at the depth bound), so it
    is marked known here and never reaches a shard."""
    sym = NSYM > 0 and opts[2] != 0
    nstep = want_step.shape[0]
    exact = opts[6] != 0
    recent = NCONS == 0 and opts[1] != 0
    rmask = rkeys.shape[0] - 1
    m = m0
    for i in range(start, stop):
        k = successors(front, i, U, P, S, buf, bufaid, err)
        if k == -2:
            return 3, i, m
        if k < 0:
            rowk[i] = -1
            continue
        if m + k > out.shape[0]:
            return 2, i, m
        rowk[i] = k
        rown[i] = 0
        if k == 0:
            term[i] = is_terminal(U, S, err) if opts[0] != 0 else 1
            continue
        ptag = (fingerprint_at(front, i) >> TAG_SHIFT) & TAG_MASK
        for j in range(k):
            bits = 0
            if nstep > 0:
                unpack(buf, j, V)
                if step_props(U, V, S, err, want_step, sflags) < 0:
                    bits = -1
                else:
                    for q in range(nstep):
                        if want_step[q] != 0 and sflags[q] == 0:
                            bits |= np.int64(1) << q
            if nstep > 0:
                osbits[m] = bits
            oaid[m] = bufaid[j]
            wact[act_of[bufaid[j]]] += 1
            okeys[m] = SIGN
            m += 1
            # Known successors (most of them) leave only their action and
            # the key SIGN behind: the settling pass reads nothing else.
            if sym:
                copy_slots(post[m - 1], 0, buf[j], 0, W)
            if same_slots(buf[j], 0, front[i], 0, W):
                continue
            if sym:
                canon_row(buf, j, V, S, out[m - 1], True)
                key = fingerprint_at(out, m - 1) ^ SIGN
                row = out[m - 1]
            else:
                key = fingerprint_at(buf, j) ^ SIGN
                row = buf[j]
            if recent:
                r = key & rmask
                if rkeys[r] == key and (not exact or same_slots(rrows[r], 0, row, 0, W)):
                    continue
                rkeys[r] = key
                if exact:
                    copy_slots(rrows[r], 0, row, 0, W)
            if not sym:
                copy_slots(out[m - 1], 0, buf[j], 0, W)
            okeys[m - 1] = key
            optag[m - 1] = ptag
            rown[i] += 1
    return 0, stop, m


@jit
def par_insert(keys, tags, tstates, meta, idx, lo, hi, out, okeys, optag, ostate, pflags,
               pstat, want, opts, grow_at, V, S, err):
    """Store the candidates idx[lo:hi] (one shard's, in the serial order) and
    mark each (MARK_*); the wanted invariants of new and outside states go to
    pflags (pstat -1: an error).  Marks are indexed by position in ``idx``,
    not by candidate: each worker writes a contiguous run of them, so no two
    workers write one cache line.  (status, position reached): 0 done, 1 the
    shard must grow first."""
    allow = opts[1] != 0
    cap = meta[0]
    for p in range(lo, hi):
        # The home slot of a candidate a few places on, fetched now, so that
        # the table's cache misses overlap (explore_chunk prefetches a row's
        # successors the same way).
        if p + PREFETCH_AHEAD < hi:
            prefetch(keys, home_of(okeys[idx[p + PREFETCH_AHEAD]], cap))
        g = idx[p]
        key = okeys[g]
        ostate[p] = 0
        pstat[p] = 0
        crow = out[g]
        if NCONS > 0 and table_insert(keys, tags, tstates, meta, key, optag[g], crow,
                                      False) == -2:
            o = par_outside(crow, V, S, err)
            if o < 0:
                ostate[p] = 5
                continue
            if o > 0:
                if allow:
                    ostate[p] = 2
                    if par_props(crow, V, S, err, want, pflags[p]) < 0:
                        pstat[p] = -1
                continue
        if not allow:
            if table_insert(keys, tags, tstates, meta, key, optag[g], crow, False) == -2:
                ostate[p] = 3
            continue
        if meta[1] >= grow_at:
            return 1, p
        res = table_insert(keys, tags, tstates, meta, key, optag[g], crow, True)
        if res == -1:
            return 1, p
        if res == 1:
            ostate[p] = 1
            if par_props(crow, V, S, err, want, pflags[p]) < 0:
                pstat[p] = -1
    return 0, hi


@jit_inline
def _any_wanted(want):
    for q in range(want.shape[0]):
        if want[q] != 0:
            return True
    return False


@jit
def _settle_flags(row, pg, V, S, err, want, pflags, pstat, flags):
    """The invariants of the candidate marked at pg as the serial search evaluates them now:
    phase two's flags, or, where it met an error, evaluated again with the
    current wants.  1 flags ready, 0 nothing wanted, -1 an error."""
    active = False
    for q in range(want.shape[0]):
        if want[q] != 0:
            active = True
    if not active:
        return 0
    if pstat[pg] < 0:
        return par_props(row, V, S, err, want, flags)
    for q in range(want.shape[0]):
        flags[q] = pflags[pg, q]
    return 1


@jit_inline
def _settle_fault(err, i, j, a, row):
    err[4] = i
    err[5] = j
    err[6] = a
    for w in range(W):
        err[8 + w] = row[w]


@jit_inline
def _settle_row(front, i, k, term, ctr, found, frows, dl, opts, U, P, S, buf, bufaid, err):
    """Row i met in the serial order, as explore_chunk meets it: its k
    successors counted; 4 for a run-time error in them (or in is_terminal:
    ``err`` filled by evaluating again), 5 for a deadlock that stops the
    search, else 0."""
    if k < 0:
        successors(front, i, U, P, S, buf, bufaid, err)
        err[3] = 1
        err[4] = i
        return 4
    ctr[0] += k
    if k == 0 and opts[0] != 0 and found[dl] == 0:
        t = term[i]
        if t < 0:
            successors(front, i, U, P, S, buf, bufaid, err)
            is_terminal(U, S, err)
            err[3] = 2
            err[4] = i
            return 4
        if t == 0:
            found[dl] = 1
            for x in range(W):
                frows[dl, x] = front[i, x]
            if opts[3] != 0:
                return 5
    return 0


@jit
def par_settle(front, start, stop, wstart, cap, rowk, rown, term, out, post, okeys, oaid,
               osbits, pos, ostate, pflags, pstat, nxt, ctr, sres, want, kinds, want_step,
               opts, found, frows, frows2, faid, U, P, S, V, buf, bufaid, err, flags, sflags):
    """Rows front[start:stop] in the serial order, from the marks of the two
    parallel phases: (status, row reached) as explore_chunk returns them
    (DONE, FAULT, STOPPED or AT_BOUND).  Worker w expanded rows
    wstart[w]..wstart[w+1] into candidates w*cap..; nxt has room for all.
    Stopped early, it leaves in sres the worker and the end of the
    candidates the serial search had counted per action (count_actions)."""
    nstate = want.shape[0]
    nstep = want_step.shape[0]
    dl = nstate + nstep
    stop_first = opts[3] != 0
    active = _any_wanted(want)
    for w in range(wstart.shape[0] - 1):
        g = w * cap
        for i in range(wstart[w], wstart[w + 1]):
            k = rowk[i]
            sres[0] = w
            sres[1] = g
            r = _settle_row(front, i, k, term, ctr, found, frows, dl, opts, U, P, S, buf, bufaid,
                            err)
            if r == 4:
                return 4, i
            if r == 5:
                return 5, i + 1
            if nstep == 0 and rown[i] == 0:
                g += k      # every successor known: nothing to settle
                continue
            for j in range(k):
                if nstep == 0 and okeys[g] == SIGN:
                    g += 1
                    continue
                a = oaid[g]
                sres[1] = g + 1
                if nstep > 0:
                    bits = osbits[g]
                    if bits < 0:
                        unpack(front, i, U)
                        unpack(post, g, V)
                        if step_props(U, V, S, err, want_step, sflags) < 0:
                            err[3] = 3
                            _settle_fault(err, i, j, a, post[g])
                            return 4, i
                        bits = 0
                        for q in range(nstep):
                            if sflags[q] == 0:
                                bits |= np.int64(1) << q
                    halt = False
                    for q in range(nstep):
                        if want_step[q] != 0 and (bits >> q) & 1 != 0:
                            want_step[q] = 0
                            found[nstate + q] = 1
                            faid[nstate + q] = a
                            for x in range(W):
                                frows[nstate + q, x] = front[i, x]
                                frows2[nstate + q, x] = post[g, x]
                            if stop_first:
                                halt = True
                    if halt:
                        return 5, i + 1
                pg = pos[g]
                mark = ostate[pg] if okeys[g] != SIGN else 0
                if mark == 3:
                    ctr[2] = 1
                elif mark == 5:
                    par_outside(out[g], V, S, err)
                    err[3] = 5
                    _settle_fault(err, i, j, a, out[g])
                    return 4, i
                elif mark == 2:
                    r = _settle_flags(out[g], pg, V, S, err, want, pflags, pstat, flags)
                    if r < 0:
                        err[3] = 4
                        _settle_fault(err, i, j, a, out[g])
                        return 4, i
                    if r > 0:
                        settled = _par_found(out[g], front[i], post[g], a, 2, want, kinds,
                                             flags, found, frows, frows2, faid, stop_first)
                        active = _any_wanted(want)
                        if settled != 0:
                            return 5, i + 1
                elif mark == 1:
                    if opts[4] >= 0 and ctr[3] >= opts[4]:
                        return 6, i
                    ctr[3] += 1
                    for x in range(W):
                        nxt[ctr[1], x] = out[g, x]
                    ctr[1] += 1
                    # Most new states settle nothing: their flags are read
                    # here, and only a hit or an error mark takes the call.
                    hit = pstat[pg] < 0
                    if not hit and active:
                        for q in range(nstate):
                            if _settles(q, want, kinds, pflags[pg]):
                                hit = True
                    if hit:
                        r = _settle_flags(out[g], pg, V, S, err, want, pflags, pstat, flags)
                        if r < 0:
                            err[3] = 4
                            _settle_fault(err, i, j, a, out[g])
                            return 4, i
                        if r > 0:
                            settled = _par_found(out[g], front[i], post[g], a, 1, want,
                                                 kinds, flags, found, frows, frows2, faid,
                                                 stop_first)
                            active = _any_wanted(want)
                            if settled != 0:
                                return 5, i + 1
                g += 1
    return 0, stop


@jit
def par_admit_settle(rows, n, out, pos, ostate, pflags, pstat, nxt, ctr, want, kinds, opts,
                     found, frows, frows2, faid, V, S, err, flags):
    """The initial states in order, from their marks, as ``admit`` would have
    met them: (status, row reached)."""
    nstate = want.shape[0]
    stop_first = opts[3] != 0
    for i in range(n):
        pi = pos[i]
        mark = ostate[pi]
        if mark == 5:
            par_outside(out[i], V, S, err)
            err[3] = 5
            err[4] = i
            return 4, i
        if mark == 2:
            ctr[0] += 1
            r = _settle_flags(out[i], pi, V, S, err, want, pflags, pstat, flags)
            if r < 0:
                err[3] = 4
                err[4] = i
                return 4, i
            if r > 0 and _par_found(out[i], rows[i], rows[i], -1, 3, want, kinds, flags,
                                    found, frows, frows2, faid, stop_first):
                return 5, i + 1
            continue
        if mark == 1 and opts[4] >= 0 and ctr[3] >= opts[4]:
            ctr[0] += 1
            return 6, i
        ctr[0] += 1
        if mark != 1:
            continue
        ctr[3] += 1
        for x in range(W):
            nxt[ctr[1], x] = out[i, x]
        ctr[1] += 1
        r = _settle_flags(out[i], pi, V, S, err, want, pflags, pstat, flags)
        if r < 0:
            err[3] = 4
            err[4] = i
            for x in range(W):
                err[8 + x] = out[i, x]
            return 4, i
        if r > 0 and _par_found(out[i], rows[i], rows[i], -1, 1, want, kinds, flags, found,
                                frows, frows2, faid, stop_first):
            return 5, i + 1
    return 0, n
